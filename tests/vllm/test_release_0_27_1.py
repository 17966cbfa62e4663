"""vLLM 0.27.1 (issue 32 item 1): resolved with the rules of 0.28-0.34 minus the changes 0.28.0
brought, one test per change, on 0.27.1 against 0.28.0 (and 0.29.0 where 0.28.0 differs from
both). Facts from the two wheels' diff (docs/releases/vllm-0.28.0.md); measured against the 0.27.1
oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

SELECTION_0_28 = {"FA4_HD256_OFF", "TRTLLM_XQA_SM120", "CPU_MLA_BACKEND"}


def test_0_27_1_is_resolved():
    i = registry.releases.index("0.27.1")
    assert registry.releases[i : i + 2] == ("0.27.1", "0.28.0")
    assert {c.name for c in CHANGES.introduced("0.28.0")} >= SELECTION_0_28


def test_fa4_at_head_256_on_blackwell():
    """fa_utils.get_flash_attn_version: 0.27 keeps FA4 at head 256 on SM10x (full-attention layers),
    0.28 falls back to FA2 at head 256, 0.29 runs its head-256 kernel (block 128)."""
    got = {
        v: res(
            "qwen3-next-80b-a3b",
            "b200",
            vllm_version=v,
            tensor_parallel_size=4,
            attention_backend="FLASH_ATTN",
        )
        for v in ("0.27.1", "0.28.0", "0.29.0")
    }
    assert [(r["flash_attn_version"], r["block_size"]) for r in got.values()] == [(4, 16), (2, 16), (4, 128)]


def test_fp8_cache_at_head_256_on_blackwell():
    """With FA4 kept at head 256, 0.27 takes an FP8 cache on SM100 (0.28: FA2, refused)."""
    kwargs = dict(
        tensor_parallel_size=4, attention_backend="FLASH_ATTN", kv_cache_dtype="fp8", dtype="float16"
    )
    assert res("qwen3-next-80b-a3b", "b200", vllm_version="0.27.1", **kwargs)["flash_attn_version"] == 4
    with pytest.raises(ValueError, match="FP8 KV cache requires FA3 on SM90 or FA4 on SM100"):
        res("qwen3-next-80b-a3b", "b200", vllm_version="0.28.0", **kwargs)


def test_sinks_on_sm120_need_xqa():
    """utils/flashinfer.py supports_trtllm_attention: SM12x gained XQA decode in 0.28, so FLASHINFER
    serves gpt-oss's attention sinks there; 0.27 has no sink-capable backend but TRITON_ATTN."""
    assert res("gpt-oss-120b", "rtxpro6000", vllm_version="0.27.1")["attn_backend_full"] == "TRITON_ATTN"
    assert res("gpt-oss-120b", "rtxpro6000", vllm_version="0.28.0")["attn_backend_full"] == "FLASHINFER"


def test_mla_on_cpu():
    """platforms/cpu.py get_attn_backend_cls: 0.27 refuses MLA on CPU; 0.28 runs the reference
    CPU_MLA kernel (block 16), also on AMX hosts (AMX_MLA arrived in 0.29, CHANGES.CPU_AMX_MLA)."""
    with pytest.raises(ValueError, match=r"MLA is not supported on CPU\."):
        res("deepseek-v2-lite", "cpu-amx", vllm_version="0.27.1")
    r = res("deepseek-v2-lite", "cpu-amx", vllm_version="0.28.0")
    assert (r["attn_backend_mla"], r["block_size"]) == ("CPU_MLA", 16)
    assert res("deepseek-v2-lite", "cpu-amx", vllm_version="0.29.0")["attn_backend_mla"] == "AMX_MLA"
    assert res("llama-3.1-8b", "cpu", vllm_version="0.27.1")["attn_backend_full"] == "CPU_ATTN"
