"""vLLM 0.26.0 (issue 32 item 1): resolved with the rules of 0.27-0.34 minus the selection changes
0.27.0 brought, one test per change, on 0.26.0 against 0.27.0. Facts from the two wheels' diff
(docs/releases/vllm-0.27.0.md); measured against the 0.26.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

SELECTION_0_27 = {"FA4_HD256_ON", "FA_FP8_FA4_SM100", "MLA_PREFILL_GLM_DIMS"}


def test_0_26_0_is_resolved():
    i = registry.releases.index("0.26.0")
    assert registry.releases[i : i + 2] == ("0.26.0", "0.27.0")
    assert {c.name for c in CHANGES.introduced("0.27.0")} >= SELECTION_0_27


def test_fa4_head_limits_on_blackwell():
    """fa_utils.get_flash_attn_version: 0.26's TMEM limit takes FA4 off at head 256 (0.27 exempts
    it) and exempts any head 192 (0.27: only 192/128), so MiMo-V2-Flash (head 192) keeps FA4."""
    kw = dict(tensor_parallel_size=4, attention_backend="FLASH_ATTN")
    assert res("qwen3-next-80b-a3b", "b200", vllm_version="0.26.0", **kw)["flash_attn_version"] == 2
    assert res("qwen3-next-80b-a3b", "b200", vllm_version="0.27.0", **kw)["flash_attn_version"] == 4
    assert (
        res("mimo-v2-flash", "b200", vllm_version="0.26.0", tensor_parallel_size=8)["flash_attn_version"] == 4
    )
    assert (
        res("mimo-v2-flash", "b200", vllm_version="0.27.0", tensor_parallel_size=8)["flash_attn_version"] == 2
    )


def test_fp8_cache_on_sm100_needs_0_27():
    """FlashAttentionBackend.supports_kv_cache_dtype: 0.26 reads FP8 only with FA3 on SM90."""
    kw = dict(attention_backend="FLASH_ATTN", kv_cache_dtype="fp8")
    assert res("llama-3.1-8b", "b200", vllm_version="0.27.0", **kw)["flash_attn_version"] == 4
    with pytest.raises(ValueError, match="kv_cache_dtype not supported"):
        res("llama-3.1-8b", "b200", vllm_version="0.26.0", **kw)
    assert res("llama-3.1-8b", "h100", vllm_version="0.26.0", **kw)["flash_attn_version"] == 3


def test_glm_mla_prefill():
    """prefill/selector.py: 0.27 puts TRTLLM_RAGGED first for GLM's dims (192, 64, 256); 0.26 keeps
    FLASH_ATTN first and takes it when FA4 is not the model's version (here: not installed)."""
    kw = dict(tensor_parallel_size=8, kernels="fa3=0,fa4=0")
    assert res("glm-5", "b200", vllm_version="0.26.0", **kw)["mla_prefill_backend"] == "FLASH_ATTN"
    assert res("glm-5", "b200", vllm_version="0.27.0", **kw)["mla_prefill_backend"] == "TRTLLM_RAGGED"
    # with FA4 the 0.26 FLASH_ATTN prefill refuses the dims: TRTLLM_RAGGED in both
    assert (
        res("glm-5", "b200", vllm_version="0.26.0", tensor_parallel_size=8)["mla_prefill_backend"]
        == "TRTLLM_RAGGED"
    )
