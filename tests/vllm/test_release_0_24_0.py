"""vLLM 0.24.0 (issue 32 item 1): resolved with the rules of 0.25-0.34 minus the selection change
0.25.0 brought (FLASH_ATTN_MLA_SPARSE, a new backend), on 0.24.0 against 0.25.0. Facts from the two
wheels' diff (docs/releases/vllm-0.25.0.md); measured against the 0.24.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES


def test_0_24_0_is_resolved():
    i = registry.releases.index("0.24.0")
    assert registry.releases[i : i + 2] == ("0.24.0", "0.25.0")
    assert "FLASH_ATTN_MLA_SPARSE_BACKEND" in {c.name for c in CHANGES.introduced("0.25.0")}


def test_sparse_mla_on_hopper_has_no_flash_attn_sparse_backend():
    """platforms/cuda.py : _get_backend_priorities: 0.25 puts FLASH_ATTN_MLA_SPARSE first in the
    SM8x/9x sparse list; 0.24 has FLASHMLA_SPARSE only."""
    kw = dict(tensor_parallel_size=8)
    assert res("glm-5", "h100", vllm_version="0.25.0", **kw)["attn_backend_mla"] == "FLASH_ATTN_MLA_SPARSE"
    assert res("glm-5", "h100", vllm_version="0.24.0", **kw)["attn_backend_mla"] == "FLASHMLA_SPARSE"
    # Blackwell's sparse list never had it: the same answer in both
    b200 = [res("glm-5", "b200", vllm_version=v, **kw)["attn_backend_mla"] for v in ("0.24.0", "0.25.0")]
    assert b200[0] == b200[1]


def test_float16_sparse_mla_on_hopper_is_refused_by_0_24():
    """FLASHMLA_SPARSE takes bfloat16 only; without FLASH_ATTN_MLA_SPARSE 0.24 has no backend left."""
    kw = dict(tensor_parallel_size=8, dtype="float16")
    assert res("glm-5", "h100", vllm_version="0.25.0", **kw)["attn_backend_mla"] == "FLASH_ATTN_MLA_SPARSE"
    with pytest.raises(ValueError, match="No valid attention backend"):
        res("glm-5", "h100", vllm_version="0.24.0", **kw)


def test_the_backend_name_is_unknown_to_0_24():
    """AttentionConfig.validate_backend_before: AttentionBackendEnum has no such member in 0.24."""
    kw = dict(tensor_parallel_size=8, attention_backend="FLASH_ATTN_MLA_SPARSE")
    assert res("glm-5", "h100", vllm_version="0.25.0", **kw)["attn_backend_mla"] == "FLASH_ATTN_MLA_SPARSE"
    with pytest.raises(ValueError, match="Unknown attention backend: 'FLASH_ATTN_MLA_SPARSE'"):
        res("glm-5", "h100", vllm_version="0.24.0", **kw)


def test_rocm_mla_prefill_has_no_aiter_fa_backend():
    """prefill/selector.py : _get_mla_prefill_backend_priorities: 0.25 gives ROCm its own list
    (ROCM_AITER_FA, then FLASH_ATTN); 0.24 has no ROCM_AITER_FA prefill member and takes the
    device-capability list, FLASH_ATTN only on an MI300 (SM 9.4)."""
    assert res("deepseek-v2-lite", "mi300x", vllm_version="0.25.0")["mla_prefill_backend"] == "ROCM_AITER_FA"
    assert res("deepseek-v2-lite", "mi300x", vllm_version="0.24.0")["mla_prefill_backend"] == "FLASH_ATTN"
