"""Golden cases for sglang 0.5.15 attention-backend resolution.

Every case comes from §8 "Worked examples" of
``/work/shared/reference/sglang-attention-spec.md``; the id ``exNNN`` is the row number
of that table. Only what the row states is asserted (A/P/D, page size and the fields
named in its "other" column); the result is the 0.5.15 one (the "[14] differs?" column
is ignored). A row that is refused carries the name of the exception sglang raises
(``ConflictError.upstream``) and a short regex taken from the spec's message.

Inputs follow the §8 legend: tp_size 1, no speculative decoding, radix cache, overlap
scheduler and cuda graphs on, device auto-detected, ``architectures=[arch]``.

Rows that set ``speculative_eagle_topk`` also pass ``speculative_num_steps=3``: sglang 0.5.15
(arg_groups/speculative_hook.py ``_handle_eagle_family``) asserts that topk and draft tokens are
unset when it chooses the speculative parameters itself (num_steps unset); DFLASH rows pass a
``speculative_draft_model_path``, which ``_handle_dflash`` requires.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
from sglang_tables import (  # shared with the decision tables
    BASE_HF,
    CPU_ENGINE,
    DET,
    DLLM,
    DSA,
    EAGLE,
    GRAPHS_OFF,
    MLA,
)

from golden import resolve_golden
from resolvable import ConflictError, Platform

# golden cases of sglang 0.5.15 (spec): pinned

MXFP4: dict[str, Any] = {"quantization_config": {"quant_method": "mxfp4"}}

#: Short names used in the expectation tables.
ALIASES = {
    "A": "attention_backend",
    "P": "prefill_attention_backend",
    "D": "decode_attention_backend",
    "p": "page_size",
}


@dataclass(frozen=True)
class Not:
    """Expected value: anything except ``value``."""

    value: Any


def E(**fields: Any) -> dict[str, Any]:
    """An expectation dict; A/P/D/p are shorthands for the attention fields and page_size."""
    return {ALIASES.get(k, k): v for k, v in fields.items()}


@dataclass(frozen=True)
class Case:
    id: str
    arch: str
    model_type: str
    platforms: tuple[str, ...]
    hf: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    args: Mapping[str, Any] = field(default_factory=dict)
    #: expected fields with load_time=True (the full 0.5.15 result)
    expect: Mapping[str, Any] = field(default_factory=dict)
    #: expected fields with load_time=False (right after ServerArgs.__post_init__)
    expect_post_init: Mapping[str, Any] | None = None
    #: (upstream exception name, regex of sglang's message) for refused configurations
    error: tuple[str, str] | None = None


def C(
    row: int,
    arch: str,
    model_type: str,
    platform: str | tuple[str, ...],
    *,
    hf: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    args: Mapping[str, Any] | None = None,
    expect: Mapping[str, Any] | None = None,
    expect_post_init: Mapping[str, Any] | None = None,
    error: tuple[str, str] | None = None,
) -> Case:
    assert (expect is None) != (error is None), f"row {row}: give exactly one of expect/error"
    platforms = (platform,) if isinstance(platform, str) else tuple(platform)
    return Case(
        id=f"ex{row:03d}",
        arch=arch,
        model_type=model_type,
        platforms=platforms,
        hf=dict(hf or {}),
        env=dict(env or {}),
        args=dict(args or {}),
        expect=dict(expect or {}),
        expect_post_init=expect_post_init,
        error=error,
    )


def make_hf(case: Case) -> dict[str, Any]:
    hf = dict(BASE_HF)
    hf.update({"architectures": [case.arch], "model_type": case.model_type})
    hf.update(case.hf)
    return hf


def make_platform(name: str) -> Platform:
    if name == "a100-nofi":  # A100 without flashinfer installed (§8 legend "A100-noFI")
        return Platform.preset("a100").replace(kernels=frozenset())
    return Platform.preset(name)


# ---------------------------------------------------------------------------------------
# The table: one record per row of spec §8
# ---------------------------------------------------------------------------------------

LLAMA = ("LlamaForCausalLM", "llama")
GPT_OSS = ("GptOssForCausalLM", "gpt_oss")
LLAMA4 = ("Llama4ForConditionalGeneration", "llama4")
GEMMA4 = ("Gemma4ForCausalLM", "gemma4_text")
STEP3P5 = ("Step3p5ForCausalLM", "step3p5")
OLMO2 = ("Olmo2ForCausalLM", "olmo2")
EXAONE4 = ("Exaone4ForCausalLM", "exaone4")
MOSS_VL = ("MossVLForConditionalGeneration", "moss_vl")
QWEN3_5 = ("Qwen3_5ForConditionalGeneration", "qwen3_5")
QWEN3_VL = ("Qwen3VLForConditionalGeneration", "qwen3_vl")
NEMOTRON_H = ("NemotronHForCausalLM", "nemotron_h")
LFM2 = ("Lfm2ForCausalLM", "lfm2")
FALCON_H1 = ("FalconH1ForCausalLM", "falcon_h1")
GRANITE_HYBRID = ("GraniteMoeHybridForCausalLM", "granitemoehybrid")
MINICPMV4_6 = ("MiniCPMV4_6ForConditionalGeneration", "minicpmv")
DSV3 = ("DeepseekV3ForCausalLM", "deepseek_v3")
DSV2 = ("DeepseekV2ForCausalLM", "deepseek_v2")
DSV32 = ("DeepseekV32ForCausalLM", "deepseek_v32")
DSV4 = ("DeepseekV4ForCausalLM", "deepseek_v4")
# sglang's Mistral-format adapter presents Mistral-Large-3 as a DeepSeek-V3-shaped config.
MISTRAL_LARGE3 = ("MistralLarge3ForCausalLM", "deepseek_v3")
MIMO_V2_FLASH = ("MiMoV2FlashForCausalLM", "mimo_v2_flash")
QWEN2 = ("Qwen2ForCausalLM", "qwen2")
WHISPER = ("WhisperForConditionalGeneration", "whisper")
LLADA2 = ("LLaDA2MoeModelLM", "llada2_moe")
SDAR = ("SDARForCausalLM", "sdar")
HRM_TEXT = ("HrmTextForCausalLM", "hrm_text")

DUAL_CHUNK = {
    "dual_chunk_attention_config": {
        "chunk_size": 262144,
        "local_size": 8192,
        "original_max_position_embeddings": 32768,
    }
}

TP8 = {"tp_size": 8}

VALUE, ASSERT, NOT_IMPL = "ValueError", "AssertionError", "NotImplementedError"

# D5 (§4.3): a backend outside {flashinfer, fa3, triton, ascend} under deterministic mode.
D5 = r"attention backends are supported for deterministic inference, but you explicitly specified '{}'"

CASES: list[Case] = [
    # --- Llama (generic passes, §4.1/§4.2) -------------------------------------------
    C(1, *LLAMA, "h100", expect=E(A="fa3", P=None, D=None, p=1)),
    C(2, *LLAMA, "b200", expect=E(A="trtllm_mha", p=64)),
    C(3, *LLAMA, "a100", expect=E(A="flashinfer", p=1)),
    C(4, *LLAMA, "a100-nofi", expect=E(A="triton", p=1)),
    C(5, *LLAMA, "mi300x", expect=E(A="aiter", p=1)),
    C(6, *LLAMA, "mi300x", env={"SGLANG_AITER_KV_CACHE_LAYOUT": "vectorized_5d"}, expect=E(A="aiter", p=64)),
    C(
        7,
        *LLAMA,
        "h100",
        args={**EAGLE, "speculative_eagle_topk": 4, "speculative_num_steps": 3},
        expect=E(A="flashinfer", p=1),
    ),
    C(8, *LLAMA, "b200", args=EAGLE, expect=E(A="flashinfer", p=1)),
    C(
        9,
        *LLAMA,
        "b200",
        args={**EAGLE, "speculative_eagle_topk": 1, "speculative_num_steps": 3},
        expect=E(A="trtllm_mha", p=64),
    ),
    C(
        10,
        *LLAMA,
        "h100",
        args={**EAGLE, "speculative_eagle_topk": 1, "speculative_num_steps": 3, "page_size": 16},
        expect=E(A="flashinfer", p=16),
    ),
    C(11, *LLAMA, "h100", args={"kv_cache_dtype": "fp8_e5m2"}, expect=E(A="triton", p=1)),
    C(12, *LLAMA, "b200", args={"attention_backend": "fa4"}, expect=E(A="fa4", p=128)),
    C(
        13,
        *LLAMA,
        "b200",
        args={"prefill_attention_backend": "fa4"},
        expect=E(A="trtllm_mha", P="fa4", D=None, p=128),
    ),
    C(
        14,
        *LLAMA,
        "b200",
        args={"attention_backend": "fa4", **EAGLE, "speculative_eagle_topk": 4, "speculative_num_steps": 3},
        expect=E(A="fa4", p=1),
    ),
    C(
        15,
        *LLAMA,
        "h100",
        args={
            "attention_backend": "fa3",
            "prefill_attention_backend": "triton",
            "decode_attention_backend": "triton",
        },
        expect=E(A="triton", P="triton", D="triton", p=1),
    ),
    C(
        16,
        *LLAMA,
        "h100",
        args={"attention_backend": "trtllm_mha"},
        error=(VALUE, r"TRTLLM MHA backend for prefill is only supported on Blackwell GPUs \(SM100\)"),
    ),
    C(17, *LLAMA, "rtx5090", expect=E(A="flashinfer", p=1)),
    C(18, *LLAMA, "xpu", expect=E(A="triton", p=1)),
    C(19, *LLAMA, "xpu", args={"attention_backend": "intel_xpu"}, expect=E(A="intel_xpu", p=128)),
    C(20, *LLAMA, "xpu-noxmx", args={"attention_backend": "intel_xpu"}, expect=E(A="triton", p=1)),
    C(21, *LLAMA, "cpu-amx", env=CPU_ENGINE, expect=E(A="intel_amx", p=1)),
    C(
        22,
        *LLAMA,
        "cpu",
        env=CPU_ENGINE,
        expect=E(
            A="torch_native",
            p=1,
            cuda_graph_backend_prefill=Not("disabled"),
            cuda_graph_backend_decode=Not("disabled"),
        ),
    ),
    C(23, *LLAMA, "npu", expect=E(A="ascend", P="ascend", D="ascend", p=128)),
    C(
        24,
        *LLAMA,
        "h100",
        args=DET,
        expect=E(A="fa3", p=1, disable_radix_cache=False, sampling_backend="pytorch"),
    ),
    C(25, *LLAMA, "b200", args=DET, expect=E(A="flashinfer", p=1, disable_radix_cache=True)),
    C(26, *LLAMA, "mi300x", args=DET, expect=E(A="fa3", p=1)),
    C(
        27,
        *LLAMA,
        "b200",
        args={**DET, "attention_backend": "trtllm_mha"},
        error=(VALUE, D5.format("trtllm_mha")),
    ),
    # --- GPT-OSS (§3.3); mxfp4 only where the row says so (§11.1: refused on MI300X/XPU) --
    C(28, *GPT_OSS, "h100", hf=MXFP4, expect=E(A="fa3", p=1, dtype="bfloat16")),
    C(
        29,
        *GPT_OSS,
        "b200",
        hf=MXFP4,
        expect=E(A="trtllm_mha", p=64, dtype="bfloat16", moe_runner_backend="flashinfer_mxfp4"),
    ),
    C(
        30,
        *GPT_OSS,
        "b200",
        hf=MXFP4,
        args={"dtype": "float16"},
        expect=E(A="trtllm_mha", p=64, dtype="bfloat16"),
    ),
    C(31, *GPT_OSS, "a100", expect=E(A="triton", p=1)),
    C(32, *GPT_OSS, "mi300x", expect=E(A="aiter", p=1)),
    C(33, *GPT_OSS, "xpu", expect=E(A="intel_xpu", p=128)),
    C(
        34,
        *GPT_OSS,
        "xpu",
        args={"dtype": "float16"},
        error=(NOT_IMPL, r"GptOssForCausalLM on Intel XPU only supports bfloat16 dtype, but got 'float16'"),
    ),
    C(
        35,
        *GPT_OSS,
        "h100",
        args={"prefill_attention_backend": "flashinfer"},
        error=(ASSERT, r"GptOssForCausalLM requires one of .* attention backend"),
    ),
    C(36, *GPT_OSS, "b200", args=DET, error=(VALUE, D5.format("trtllm_mha"))),
    # --- Llama4 (§3.4) ----------------------------------------------------------------
    C(37, *LLAMA4, "h100", expect=E(A="fa3", p=1)),
    C(38, *LLAMA4, "b200", expect=E(A="trtllm_mha", p=64)),
    C(39, *LLAMA4, "a100", expect=E(A="triton", p=1)),
    C(
        40,
        *LLAMA4,
        "h100",
        args={"attention_backend": "flashinfer"},
        error=(ASSERT, r"fa3, aiter, triton, ascend, trtllm_mha or intel_xpu is required for Llama4 model"),
    ),
    C(41, *LLAMA4, "xpu", expect=E(A="intel_xpu", p=128)),
    # --- Gemma4 (§3.5) ----------------------------------------------------------------
    C(42, *GEMMA4, "h100", expect=E(A="triton", p=1)),
    C(43, *GEMMA4, "b200", expect=E(A="trtllm_mha", p=64)),
    C(
        44,
        *GEMMA4,
        "h100",
        args={"attention_backend": "fa3"},
        error=(ASSERT, r"Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend"),
    ),
    C(
        45,
        *GEMMA4,
        "b200",
        args={"decode_attention_backend": "triton"},
        expect=E(A="trtllm_mha", D="triton", p=64),
    ),
    C(46, *GEMMA4, "npu", expect=E(A="ascend", P="ascend", D="ascend", p=128)),
    # --- Step3p5 (§3.9) ---------------------------------------------------------------
    C(47, *STEP3P5, "b200", expect=E(A="fa4", p=128)),
    C(48, *STEP3P5, "rtx5090", expect=E(A="fa4", p=1)),
    C(49, *STEP3P5, "h100", expect=E(A="fa3", p=1)),
    C(50, *STEP3P5, "a100", expect=E(A="flashinfer", p=1)),
    # --- Olmo2 (§3.8) -----------------------------------------------------------------
    C(51, *OLMO2, "a100", expect=E(A="fa3", p=1, disable_hybrid_swa_memory=True)),
    C(52, *OLMO2, "b200", expect=E(A="trtllm_mha", p=64)),
    C(53, *OLMO2, "mi300x", expect=E(A="triton", p=1)),
    C(
        54,
        *OLMO2,
        "h100",
        args={"attention_backend": "flashinfer"},
        error=(ASSERT, r"FlashInfer backend can significantly degrade the performance of Olmo3 models"),
    ),
    # --- Exaone4 (§3.7) ---------------------------------------------------------------
    C(
        55,
        *EXAONE4,
        "h100",
        hf={"sliding_window_pattern": 4},
        error=(
            ASSERT,
            r"One of the attention backends in .* is required for Exaone4ForCausalLM, but got None",
        ),
    ),
    C(
        56,
        *EXAONE4,
        "h100",
        hf={"sliding_window_pattern": 4},
        args={"attention_backend": "fa3"},
        expect=E(A="fa3", p=1, disable_hybrid_swa_memory=True),
    ),
    # transformers' Exaone4Config derives layer_types as (i + 1) % sliding_window_pattern when
    # layer_types is absent, which fails for a null pattern: the example ships layer_types.
    C(
        57,
        *EXAONE4,
        "h100",
        hf={"sliding_window_pattern": None, "layer_types": ["full_attention", "full_attention"]},
        expect=E(A="fa3", p=1),
    ),
    # --- MossVL (§3.10) ---------------------------------------------------------------
    C(58, *MOSS_VL, "h100", expect=E(A="fa3", P="flashinfer", D=None, p=1)),
    C(
        59,
        *MOSS_VL,
        "h100",
        args={"attention_backend": "fa3"},
        error=(ASSERT, r"MossVLForConditionalGeneration requires flashinfer prefill attention backend"),
    ),
    # --- Qwen3.5 hybrid (§3.12) + mamba radix resolution (§3.11) ------------------------
    C(60, *QWEN3_5, "b200", expect=E(A="triton", p=1, mamba_radix_cache_strategy="extra_buffer")),
    C(
        61,
        *QWEN3_5,
        "b200",
        args={"disable_radix_cache": True},
        expect=E(A="trtllm_mha", p=64, mamba_radix_cache_strategy="auto"),
    ),
    C(
        62,
        *QWEN3_5,
        "b200",
        args={**EAGLE, "speculative_eagle_topk": 1, "speculative_num_steps": 3},
        expect=E(A="trtllm_mha", p=64, mamba_radix_cache_strategy="extra_buffer"),
    ),
    C(63, *QWEN3_5, "b200", args=EAGLE, expect=E(A="triton", p=1)),
    C(
        64,
        *QWEN3_5,
        "b200",
        args={"mamba_radix_cache_strategy": "extra_buffer"},
        expect=E(A="trtllm_mha", p=64),
    ),
    C(65, *QWEN3_5, "b200", args={"page_size": 16}, expect=E(A="triton", p=1)),
    C(66, *QWEN3_5, "h100", expect=E(A="fa3", p=1, mamba_radix_cache_strategy="extra_buffer")),
    # --- Qwen3-VL (§3.14) -------------------------------------------------------------
    C(67, *QWEN3_VL, "mi300x", env={"SGLANG_USE_AITER_UNIFIED_ATTN": "1"}, expect=E(A="aiter", p=16)),
    # --- Hybrid linear-attention / mamba families (§3.11) -------------------------------
    C(68, *NEMOTRON_H, "b200", expect=E(A="flashinfer", p=1, mamba_radix_cache_strategy="extra_buffer")),
    # §3.11 gives the triton assertion's message only for Lfm2; match just the backend name.
    C(69, *NEMOTRON_H, "h100", args={"attention_backend": "triton"}, error=(ASSERT, r"triton")),
    C(
        70,
        *LFM2,
        "b200",
        expect=E(A="flashinfer", p=1, mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True),
    ),
    C(71, *LFM2, "h100", expect=E(A="fa3", p=1, mamba_radix_cache_strategy="no_buffer")),
    C(72, *LFM2, "h100", args={"page_size": 64}, error=(ASSERT, r"no_buffer only supports page_size=1\.")),
    C(73, *FALCON_H1, "b200", expect=E(A="triton", p=1, mamba_radix_cache_strategy="extra_buffer")),
    C(
        74,
        *GRANITE_HYBRID,
        "b200",
        hf={"layer_types": ["mamba", "attention"]},
        expect=E(A="flashinfer", p=1, mamba_radix_cache_strategy="extra_buffer"),
    ),
    # Row says layer_types=["attention"]; one entry per layer (num_hidden_layers 2), still no mamba.
    C(
        75,
        *GRANITE_HYBRID,
        "b200",
        hf={"layer_types": ["attention", "attention"]},
        expect=E(A="trtllm_mha", p=64),
    ),
    C(76, *MINICPMV4_6, "b200", expect=E(A="triton", p=1, mamba_radix_cache_strategy="extra_buffer")),
    # --- DeepSeek family, MLA non-DSA (§3.1b, §4.1 MLA, §4.2) ---------------------------
    C(77, *DSV3, "h100", hf=MLA, args=TP8, expect=E(A="fa3", p=1)),
    C(
        78,
        *DSV3,
        "b200",
        hf=MLA,
        args=TP8,
        expect=E(A="trtllm_mla", p=64, cuda_graph_backend_prefill="disabled"),
    ),
    C(79, *DSV3, "mi300x", hf=MLA, args=TP8, expect=E(A="aiter", p=1)),
    C(80, *DSV3, "mi300x", hf=MLA, args={"tp_size": 4}, expect=E(A="triton", p=1)),
    C(81, *DSV3, ("a100", "rtx5090"), hf=MLA, args=TP8, expect=E(A="triton", p=1)),
    C(82, *DSV2, "b200", hf=MLA, args=TP8, expect=E(A="flashinfer", p=1)),
    C(
        83,
        *DSV3,
        "b200",
        hf=MLA,
        args={**TP8, "attention_backend": "flashmla", "page_size": 128},
        expect=E(A="flashmla", p=64),
    ),
    C(
        84,
        *DSV3,
        "b200",
        hf=MLA,
        args={**TP8, "attention_backend": "cutlass_mla"},
        expect=E(A="cutlass_mla", p=128),
    ),
    C(
        85,
        *DSV3,
        "b200",
        hf=MLA,
        args={**TP8, "decode_attention_backend": "cutedsl_mla"},
        expect=E(A="flashinfer", P="trtllm_mla", D="cutedsl_mla", p=64),
    ),
    C(
        86,
        *DSV3,
        "h100",
        hf=MLA,
        args={**TP8, "attention_backend": "trtllm_mla"},
        error=(VALUE, r"TRTLLM MLA backend is only supported on Blackwell GPUs"),
    ),
    C(
        87,
        *DSV3,
        "b200",
        hf=MLA,
        args={**TP8, "kv_cache_dtype": "bfloat16"},
        error=(
            VALUE,
            r"TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, fp4_e2m1, bf16, or auto",
        ),
    ),
    C(88, *DSV3, "b200", hf=MLA, args={**TP8, **DET}, error=(VALUE, D5.format("trtllm_mla"))),
    C(89, *DSV3, "h100", hf=MLA, args={**TP8, **DET}, expect=E(A="fa3", p=1)),
    # --- DeepSeek DSA (§3.1a) ---------------------------------------------------------
    C(
        90,
        *DSV32,
        "h100",
        hf=DSA,
        args=TP8,
        expect=E(
            A="dsa",
            p=64,
            kv_cache_dtype="bfloat16",
            dsa_prefill_backend="flashmla_sparse",
            dsa_decode_backend="fa3",
        ),
    ),
    C(
        91,
        *DSV32,
        "b200",
        hf=DSA,
        args=TP8,
        expect=E(
            A="dsa",
            p=64,
            kv_cache_dtype="fp8_e4m3",
            dsa_prefill_backend="trtllm",
            dsa_decode_backend="trtllm",
        ),
    ),
    C(
        92,
        *DSV32,
        "b200",
        hf=DSA,
        args={**TP8, "dsa_decode_backend": "flashmla_kv"},
        expect=E(
            A="dsa",
            p=64,
            kv_cache_dtype="fp8_e4m3",
            dsa_prefill_backend="trtllm",
            dsa_decode_backend="flashmla_kv",
        ),
    ),
    C(
        93,
        *DSV32,
        "mi300x",
        hf=DSA,
        args=TP8,
        expect=E(
            A="dsa",
            p=1,
            kv_cache_dtype="bfloat16",
            dsa_prefill_backend="tilelang",
            dsa_decode_backend="tilelang",
        ),
    ),
    C(
        94,
        *DSV32,
        "h100",
        hf=DSA,
        args={**TP8, "kv_cache_dtype": "fp8_e5m2"},
        error=(ASSERT, r"DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"),
    ),
    C(95, *DSV32, "npu", hf=DSA, args=TP8, expect=E(A="ascend", P="ascend", D="ascend", p=128)),
    # --- DeepSeek-V4 (§3.2) -----------------------------------------------------------
    C(
        96,
        *DSV4,
        "b200",
        expect=E(
            A="dsv4", p=256, kv_cache_dtype="fp8_e4m3", max_running_requests=256, swa_full_tokens_ratio=0.1
        ),
    ),
    C(97, *DSV4, "npu", expect=E(A="dsv4", P="dsv4", D="dsv4", p=128, kv_cache_dtype="bfloat16")),
    # --- Mistral-Large-3 (§3.1: dtype bfloat16; MLA only with kv_lora_rank, §3.21) ------
    C(98, *MISTRAL_LARGE3, "h100", hf=MLA, args=TP8, expect=E(A="fa3", p=1, dtype="bfloat16")),
    # --- MiMoV2 attention sinks (§3.16) ------------------------------------------------
    C(99, *MIMO_V2_FLASH, "a100", hf={"add_swa_attention_sink_bias": True}, expect=E(A="triton", p=1)),
    # --- Dual chunk attention (§4.2 C22/C23) --------------------------------------------
    C(
        100,
        *QWEN2,
        "h100",
        hf=DUAL_CHUNK,
        error=(VALUE, r"Dual chunk attention is enabled, but attention backend is set to fa3"),
    ),
    C(
        101,
        *QWEN2,
        "h100",
        hf=DUAL_CHUNK,
        args={"attention_backend": "dual_chunk_flash_attn"},
        expect=E(A="dual_chunk_flash_attn", p=1, disable_radix_cache=True, enable_mixed_chunk=False),
    ),
    # --- Whisper (§3.18) --------------------------------------------------------------
    C(
        102,
        *WHISPER,
        "h100",
        hf={"is_encoder_decoder": True},
        expect=E(A="flashinfer", p=1, disable_radix_cache=True),
    ),
    # --- Diffusion LLMs (§4.4) --------------------------------------------------------
    C(103, *LLADA2, "h100", args=DLLM, expect=E(A="flashinfer", p=32, disable_overlap_schedule=True)),
    C(104, *LLADA2, "mi300x", args=DLLM, expect=E(A="aiter", p=32, **GRAPHS_OFF)),
    C(105, *SDAR, "h100", args={**DLLM, "disable_cuda_graph": True}, expect=E(A="fa3", p=4)),
    # --- HRM-Text load-time adjustment (§3.19), prefix_lm absent -> True ----------------
    C(
        106,
        *HRM_TEXT,
        "h100",
        expect_post_init=E(A="fa3", p=1),
        expect=E(A="triton", chunked_prefill_size=-1, disable_radix_cache=True, **GRAPHS_OFF),
    ),
]


# ---------------------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------------------


def _resolve(case: Case, platform: str, *, load_time: bool = True):
    return resolve_golden(
        make_hf(case),
        make_platform(platform),
        env=dict(case.env) if case.env else None,
        load_time=load_time,
        **dict(case.args),
    )


def _mismatches(res: Any, expected: Mapping[str, Any]) -> list[str]:
    bad = []
    for name, want in expected.items():
        got = res[name]
        if isinstance(want, Not):
            if got == want.value:
                bad.append(f"{name}: got {got!r}, expected anything but {want.value!r}")
        elif got != want:
            bad.append(f"{name}: got {got!r}, expected {want!r}")
    return bad


def test_table_is_complete() -> None:
    assert [c.id for c in CASES] == [f"ex{n:03d}" for n in range(1, 107)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_worked_example(case: Case) -> None:
    for platform in case.platforms:
        if case.error is not None:
            upstream, pattern = case.error
            with pytest.raises(ConflictError, match=pattern) as excinfo:
                _resolve(case, platform)
            assert excinfo.value.upstream == upstream, (
                f"{case.id} on {platform}: upstream {excinfo.value.upstream!r}, expected {upstream!r}"
            )
            continue

        checks = [(True, case.expect)]
        if case.expect_post_init is not None:
            checks.insert(0, (False, case.expect_post_init))
        for load_time, expected in checks:
            res = _resolve(case, platform, load_time=load_time)
            bad = _mismatches(res, expected)
            assert not bad, f"{case.id} on {platform} (load_time={load_time}): " + "; ".join(bad)


# The rows describe what ServerArgs decides; the start-up check (after ServerArgs) is a separate
# phase and never changes them. Asserted separately: which accepted rows would also start, and
# that a refused row is refused by ServerArgs itself (no phase), not at start-up.
#: (case id, platform) of accepted rows that sglang would refuse at start-up (none so far).
REFUSED_AT_STARTUP: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_worked_example_startup_phase(case: Case) -> None:
    from resolvable.sglang import check_startup

    for platform in case.platforms:
        if case.error is not None:
            with pytest.raises(ConflictError) as excinfo:
                resolve_golden(
                    make_hf(case),
                    make_platform(platform),
                    env=dict(case.env) or None,
                    startup=True,
                    **case.args,
                )
            assert excinfo.value.phase is None, (
                f"{case.id} on {platform}: refused at start-up, not by ServerArgs"
            )
            continue
        res = _resolve(case, platform)
        expected = REFUSED_AT_STARTUP.get((case.id, platform))
        try:
            check_startup(res, make_hf(case), dict(case.env) or None)
        except ConflictError as exc:
            assert exc.rule == expected, f"{case.id} on {platform}: refused at start-up by {exc.rule}: {exc}"
        else:
            assert expected is None, f"{case.id} on {platform}: expected {expected} to refuse at start-up"
