"""vLLM 0.20.2 (issue 32 item 1): resolved with the rules of 0.21-0.34 minus the selection changes
0.21.0 brought, one test per change, on 0.20.2 against 0.21.0. Facts from the two wheels' diff
(docs/releases/vllm-0.21.0.md); measured against the 0.20.2 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

BI = {"VLLM_BATCH_INVARIANT": "1"}


def test_0_20_2_is_resolved():
    i = registry.releases.index("0.20.2")
    assert registry.releases[i : i + 2] == ("0.20.2", "0.21.0")
    assert {c.name for c in CHANGES.introduced("0.21.0")} >= {
        "MLA_PREFILL_SELECTOR",
        "FLEX_BATCH_INVARIANT",
        "FA4_SM90_LARGE_HEAD_IN_FA_UTILS",
        "TOKENSPEED_MLA_BACKEND",
        "FLASHINFER_NVFP4_KV",
    }


def test_mla_prefill_by_flags_before_the_selector():
    """mla/prefill/selector.py arrived in 0.21 with AttentionConfig.mla_prefill_backend; 0.20's
    MLACommonImpl takes FlashAttention by default and has no such field."""
    assert res("deepseek-v3", "b200", vllm_version="0.20.2")["mla_prefill_backend"] == "FLASH_ATTN"
    kw = dict(mla_prefill_backend="TRTLLM_RAGGED")
    assert res("deepseek-v3", "b200", vllm_version="0.21.0", **kw)["mla_prefill_backend"] == "TRTLLM_RAGGED"
    with pytest.raises(ValueError, match="not a field of this release"):
        res("deepseek-v3", "b200", vllm_version="0.20.2", **kw)


def test_flex_attention_batch_invariance():
    """flex_attention.py : supports_batch_invariance (True from 0.21; 0.20 inherits False)."""
    kw = dict(attention_backend="FLEX_ATTENTION")
    assert (
        res("llama-3.1-8b", "h100", BI, vllm_version="0.21.0", **kw)["attn_backend_full"] == "FLEX_ATTENTION"
    )
    with pytest.raises(ValueError, match="batch invariance not supported"):
        res("llama-3.1-8b", "h100", BI, vllm_version="0.20.2", **kw)


def test_fa4_for_a_large_head_on_hopper_moved_into_fa_utils():
    """0.21's get_flash_attn_version moves FA3 to FA4 for a head over 256 on SM90 before its
    batch-invariance step (FA4 -> FA2); 0.20's FlashAttentionImpl.__init__ does it afterwards, so a
    batch-invariant run keeps FA4 there."""
    kw = dict(hf_overrides={"head_dim": 512}, attention_backend="FLASH_ATTN")
    assert res("olmo-2-7b", "h100", vllm_version="0.20.2", **kw)["flash_attn_version"] == 4
    assert res("olmo-2-7b", "h100", vllm_version="0.21.0", **kw)["flash_attn_version"] == 4
    assert res("olmo-2-7b", "h100", BI, vllm_version="0.20.2", **kw)["flash_attn_version"] == 4
    assert res("olmo-2-7b", "h100", BI, vllm_version="0.21.0", **kw)["flash_attn_version"] == 2


def test_tokenspeed_mla_is_no_backend_in_0_20():
    kw = dict(attention_backend="TOKENSPEED_MLA", kv_cache_dtype="fp8")
    assert res("deepseek-v3", "b200", vllm_version="0.21.0", **kw)["attn_backend_mla"] == "TOKENSPEED_MLA"
    with pytest.raises(ValueError, match="Unknown attention backend: 'TOKENSPEED_MLA'"):
        res("deepseek-v3", "b200", vllm_version="0.20.2", **kw)


def test_flashinfer_nvfp4_cache():
    """flashinfer.py : supported_kv_cache_dtypes gained nvfp4 in 0.21."""
    kw = dict(kv_cache_dtype="nvfp4")
    assert res("llama-3.1-8b", "b200", vllm_version="0.21.0", **kw)["attn_backend_full"] == "FLASHINFER"
    with pytest.raises(ValueError, match="No valid attention backend"):
        res("llama-3.1-8b", "b200", vllm_version="0.20.2", **kw)
