"""Golden cases: every observed selection of the spec's appendix A (vLLM 0.33.0 oracle runs).

"Selected rows" and "Further checks" of vllm-attention-spec.md appendix A, one assertion each.
Where the appendix does not state the TP size, DeepSeek-V3.2 on SM10x uses TP 8 (16 heads per
rank): the FA4 sparse backend is first in the list only with <= 16 heads (spec §3.1 table).
"""

from __future__ import annotations

import pytest
from vllm_cases import candidates, cuda, res

from resolvable.errors import ConflictError

SM8X = [(8, 0), (8, 6), (8, 9)]
SM9X = [(9, 0)]
SM10X = [(10, 0), (10, 3)]
SM12X = [(12, 0), (12, 1)]


@pytest.mark.parametrize("cc", SM8X + SM9X)
def test_llama3_8b_bf16_flash_attn_on_sm8x_sm9x(cc):
    assert res("llama-3.1-8b", cuda(cc))["attn_backend_full"] == "FLASH_ATTN"


@pytest.mark.parametrize("cc", SM10X)
def test_llama3_8b_bf16_flashinfer_on_sm10x(cc):
    assert res("llama-3.1-8b", cuda(cc))["attn_backend_full"] == "FLASHINFER"


@pytest.mark.parametrize("cc", SM8X + SM12X)
def test_fp8_kv_takes_flashinfer_where_fa2_has_no_fp8(cc):
    r = res("llama-3.1-8b", cuda(cc), kv_cache_dtype="fp8")
    assert r["attn_backend_full"] == "FLASHINFER"
    if cc[0] == 8:  # on SM8x FA2 is the version: FLASH_ATTN rejects fp8 by its kv dtype check
        assert "kv_cache_dtype not supported" in candidates(r, "attn_backend_full")["FLASH_ATTN"]


@pytest.mark.parametrize("cc", SM8X)
def test_gpt_oss_triton_on_sm8x_because_of_sinks(cc):
    r = res("gpt-oss-120b", cuda(cc))
    assert r["attn_backend_full"] == r["attn_backend_sliding_window"] == "TRITON_ATTN"
    reasons = candidates(r, "attn_backend_full")
    assert "attention sinks not supported" in reasons["FLASH_ATTN"]
    assert "sink not supported on compute capability < 9.0" in reasons["FLASH_ATTN"]
    assert "attention sinks not supported" in reasons["FLASHINFER"]


def test_gpt_oss_fa3_on_sm90():
    r = res("gpt-oss-120b", "h100")
    assert r["attn_backend_full"] == r["attn_backend_sliding_window"] == "FLASH_ATTN"
    assert r["flash_attn_version"] == 3


@pytest.mark.parametrize("cc", SM10X + SM12X)
def test_gpt_oss_flashinfer_on_sm10x_sm12x(cc):
    r = res("gpt-oss-120b", cuda(cc))
    assert r["attn_backend_full"] == r["attn_backend_sliding_window"] == "FLASHINFER"


@pytest.mark.parametrize("cc", SM8X + SM12X)
def test_deepseek_v3_triton_mla_on_sm8x_sm12x(cc):
    assert res("deepseek-v3", cuda(cc))["attn_backend_mla"] == "TRITON_MLA"


def test_deepseek_v3_flash_attn_mla_on_sm90():
    r = res("deepseek-v3", "h100")
    assert (r["attn_backend_mla"], r["block_size"]) == ("FLASH_ATTN_MLA", 16)


def test_deepseek_v3_flashmla_bs64_with_fp8_kv_on_sm90():
    r = res("deepseek-v3", "h100", kv_cache_dtype="fp8")
    assert (r["attn_backend_mla"], r["block_size"]) == ("FLASHMLA", 64)
    assert "kv_cache_dtype not supported" in candidates(r, "attn_backend_mla")["FLASH_ATTN_MLA"]


@pytest.mark.parametrize("cc", SM10X)
def test_deepseek_v3_flashinfer_mla_bs32_on_sm10x(cc):
    r = res("deepseek-v3", cuda(cc))
    assert (r["attn_backend_mla"], r["block_size"]) == ("FLASHINFER_MLA", 32)


@pytest.mark.parametrize("cc", SM8X)
def test_deepseek_v32_sparse_has_no_backend_on_sm8x(cc):
    with pytest.raises(ConflictError, match="No valid attention backend found"):
        res("deepseek-v3.2", cuda(cc))


def test_deepseek_v32_flash_attn_mla_sparse_on_sm90():
    assert res("deepseek-v3.2", "h100")["attn_backend_mla"] == "FLASH_ATTN_MLA_SPARSE"


@pytest.mark.parametrize("cc", SM10X)
def test_deepseek_v32_fa4_sparse_on_sm10x(cc):
    r = res("deepseek-v3.2", cuda(cc), tensor_parallel_size=8)
    assert r["attn_backend_mla"] == "FLASH_ATTN_MLA_SPARSE_FA4"
    assert r["attn_backend_indexer"] == "DEEPSEEK_V32_INDEXER"


def test_deepseek_v32_without_cute_dsl_takes_flashinfer_sparse_on_sm10x():
    # appendix B: without the optional tokenspeed/cute-DSL stubs the oracle picks FLASHINFER_MLA_SPARSE
    r = res("deepseek-v3.2", "b200", tensor_parallel_size=8, kernels="cute_dsl=0,tokenspeed_mla=0")
    assert r["attn_backend_mla"] == "FLASHINFER_MLA_SPARSE"


@pytest.mark.parametrize("cc", SM12X)
def test_deepseek_v32_flashinfer_sparse_sm120_on_sm12x(cc):
    r = res("deepseek-v3.2", cuda(cc))
    assert r["attn_backend_mla"] == "FLASHINFER_MLA_SPARSE_SM120"
    assert r["kv_cache_dtype"] == "fp8_ds_mla"  # spec §5: the SM120 sparse backend stores fp8_ds_mla


BATCH_INVARIANT = {"VLLM_BATCH_INVARIANT": "1"}


def test_batch_invariant_llama_gets_flash_attn_fa2_on_sm100():
    r = res("llama-3.1-8b", "b200", BATCH_INVARIANT)
    assert (r["attn_backend_full"], r["flash_attn_version"]) == ("FLASH_ATTN", 2)
    assert "batch invariance not supported" in candidates(r, "attn_backend_full")["FLASHINFER"]


def test_batch_invariant_gpt_oss_gets_triton_on_sm100():
    assert res("gpt-oss-120b", "b200", BATCH_INVARIANT)["attn_backend_full"] == "TRITON_ATTN"


def test_batch_invariant_deepseek_v3_gets_triton_mla_on_sm100():
    assert res("deepseek-v3", "b200", BATCH_INVARIANT)["attn_backend_mla"] == "TRITON_MLA"


def test_deepseek_v3_tp8_block_size_16_gives_triton_mla_on_sm100():
    r = res("deepseek-v3", "b200", tensor_parallel_size=8, block_size=16)
    assert r["attn_backend_mla"] == "TRITON_MLA"
    reasons = candidates(r, "attn_backend_mla")
    for name in ("FLASHINFER_MLA", "CUTLASS_MLA"):
        assert reasons[name] == ("block_size not supported",)
    assert "block_size not supported" in reasons["FLASHMLA"]
    choice = r.explain("attn_backend_mla").steps[0].choice
    assert choice.precluded_only_by("block_size not supported") == ("FLASHINFER_MLA", "CUTLASS_MLA")


def test_deepseek_v3_tp8_block_size_128_stays_flashinfer_mla_on_sm100():
    r = res("deepseek-v3", "b200", tensor_parallel_size=8, block_size=128)
    assert (r["attn_backend_mla"], r["block_size"]) == ("FLASHINFER_MLA", 128)


def test_gemma2_with_flash_attn_gets_fa2_on_sm100_because_of_softcap():
    r = res("gemma-2-9b", "b200", attention_backend="FLASH_ATTN")
    assert r["attn_backend_full"] == r["attn_backend_sliding_window"] == "FLASH_ATTN"
    assert r["flash_attn_version"] == 2
