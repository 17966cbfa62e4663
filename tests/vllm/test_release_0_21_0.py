"""vLLM 0.21.0 (issue 32 item 1): resolved with the rules of 0.22-0.34 minus the selection changes
0.22.0 brought, one test per change, on 0.21.0 against 0.22.0. Facts from the two wheels' diff
(docs/releases/vllm-0.22.0.md); measured against the 0.21.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES


def test_0_21_0_is_resolved():
    i = registry.releases.index("0.21.0")
    assert registry.releases[i : i + 2] == ("0.21.0", "0.22.0")
    assert {c.name for c in CHANGES.introduced("0.22.0")} >= {"FA_FP8_E4M3_ONLY", "FLASHINFER_HEAD_512"}


def test_flash_attn_reads_any_quantized_cache_with_fa3_on_hopper():
    """flash_attn.py : supports_kv_cache_dtype: 0.21 asks fa_utils.flash_attn_supports_fp8 (FA3 on
    SM90) for every quantized cache; 0.22 takes fp8/fp8_e4m3 only, so fp8_e5m2 leaves FLASH_ATTN."""
    kw = dict(kv_cache_dtype="fp8_e5m2")
    assert res("qwen3-8b", "h100", vllm_version="0.21.0", **kw)["attn_backend_full"] == "FLASH_ATTN"
    assert res("qwen3-8b", "h100", vllm_version="0.22.0", **kw)["attn_backend_full"] == "FLASHINFER"
    with pytest.raises(ValueError, match="kv_cache_dtype not supported"):
        res("qwen3-8b", "h100", vllm_version="0.22.0", attention_backend="FLASH_ATTN", **kw)


def test_flashinfer_head_512():
    """flashinfer.py : get_supported_head_sizes gained 512 in 0.22: Gemma 4's global layers (head
    512) on B200 get FLASHINFER in 0.22 and FLASH_ATTN in 0.21."""
    kw = dict(tensor_parallel_size=4)
    assert res("gemma-4-31b", "b200", vllm_version="0.22.0", **kw)["attn_backend_full"] == "FLASHINFER"
    assert res("gemma-4-31b", "b200", vllm_version="0.21.0", **kw)["attn_backend_full"] == "FLASH_ATTN"
