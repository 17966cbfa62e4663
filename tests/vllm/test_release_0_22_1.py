"""vLLM 0.22.1 (issue 32 item 1): resolved with the rules of 0.23-0.34 minus the selection change
0.23.0 brought (the KV-connector check), on 0.22.1 against 0.23.0. Facts from the two wheels' diff
(docs/releases/vllm-0.23.0.md); measured against the 0.22.1 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES


def test_0_22_1_is_resolved():
    i = registry.releases.index("0.22.1")
    assert registry.releases[i : i + 2] == ("0.22.1", "0.23.0")
    assert "KV_CONNECTOR_CHECK" in {c.name for c in CHANGES.introduced("0.23.0")}


def test_rocm_attn_with_a_kv_connector():
    """backend.py : supports_kv_connector (ROCM_ATTN: no) and rocm.py : _get_backend_priorities,
    new in 0.23: with a KV connector ROCM_ATTN is left out of the list and refused when selected;
    0.22 keeps it first."""
    kw = dict(kv_connector=True)
    assert res("llama-3.1-8b", "mi300x", vllm_version="0.22.1", **kw)["attn_backend_full"] == "ROCM_ATTN"
    assert res("llama-3.1-8b", "mi300x", vllm_version="0.23.0", **kw)["attn_backend_full"] != "ROCM_ATTN"
    kw["attention_backend"] = "ROCM_ATTN"
    assert res("llama-3.1-8b", "mi300x", vllm_version="0.22.1", **kw)["attn_backend_full"] == "ROCM_ATTN"
    with pytest.raises(ValueError, match="KV connector not supported"):
        res("llama-3.1-8b", "mi300x", vllm_version="0.23.0", **kw)
