"""vLLM 0.23.0 (issue 32 item 1): resolved with the rules of 0.24-0.34 minus the selection changes
0.24.0 brought, one test per change, on 0.23.0 against 0.24.0. Facts from the two wheels' diff
(docs/releases/vllm-0.24.0.md); measured against the 0.23.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

SELECTION_0_24 = {
    "FLASHINFER_MLA_SPARSE_SM120_BACKEND",
    "FLASHINFER_SM80_FLOOR",
    "FA_MM_PREFIX",
    "FLASHINFER_LARGE_PAGES",
    "NON_CAUSAL_FLASHINFER_TRITON",
}


def test_0_23_0_is_resolved():
    i = registry.releases.index("0.23.0")
    assert registry.releases[i : i + 2] == ("0.23.0", "0.24.0")
    assert {c.name for c in CHANGES.introduced("0.24.0")} >= SELECTION_0_24


def test_flashinfer_on_turing():
    """flashinfer.py : supports_compute_capability: 0.24 raises the floor to SM 8.0; 0.23 takes
    SM 7.5, so a T4 with an FP8 cache gets FLASHINFER (FLASH_ATTN needs SM 8.0)."""
    kw = dict(kv_cache_dtype="fp8")
    assert res("qwen3-8b", "t4", vllm_version="0.23.0", **kw)["attn_backend_full"] == "FLASHINFER"
    assert res("qwen3-8b", "t4", vllm_version="0.24.0", **kw)["attn_backend_full"] == "TRITON_ATTN"
    with pytest.raises(ValueError, match="compute capability not supported"):
        res("qwen3-8b", "t4", vllm_version="0.24.0", attention_backend="FLASHINFER", dtype="half")


def test_flash_attn_mm_prefix():
    """flash_attn.py : supports_mm_prefix (FA4), new in 0.24: Gemma 3's bidirectional image layers
    on B200 get FLASH_ATTN; 0.23's FLASH_ATTN (and FLASHINFER) refuse them, TRITON_ATTN serves."""
    kw = dict(tensor_parallel_size=4)
    assert res("gemma-3-27b", "b200", vllm_version="0.24.0", **kw)["attn_backend_full"] == "FLASH_ATTN"
    assert res("gemma-3-27b", "b200", vllm_version="0.23.0", **kw)["attn_backend_full"] == "TRITON_ATTN"


def test_sparse_mla_on_sm120():
    """platforms/cuda.py : _get_backend_priorities: 0.24 gives SM12x its MLA list with
    FLASHINFER_MLA_SPARSE_SM120; 0.23 has no sparse MLA backend for SM12x."""
    kw = dict(tensor_parallel_size=8)
    assert (
        res("glm-5", "rtx5090", vllm_version="0.24.0", **kw)["attn_backend_mla"]
        == "FLASHINFER_MLA_SPARSE_SM120"
    )
    with pytest.raises(ValueError, match="No valid attention backend"):
        res("glm-5", "rtx5090", vllm_version="0.23.0", **kw)


def test_non_causal_layers():
    """flashinfer.py / triton_attn.py : supports_non_causal, new in 0.24."""
    kw = dict(attention_backend="FLASHINFER", use_non_causal=True)
    assert res("llama-3.1-8b", "h100", vllm_version="0.24.0", **kw)["attn_backend_full"] == "FLASHINFER"
    with pytest.raises(ValueError, match="non-causal attention not supported"):
        res("llama-3.1-8b", "h100", vllm_version="0.23.0", **kw)
