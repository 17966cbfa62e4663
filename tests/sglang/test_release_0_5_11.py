"""sglang 0.5.10 → 0.5.11: one golden case per modelled change (docs/releases/0.5.11.md).

Each case resolves the same input with 0.5.10 (the oldest resolved release) and with 0.5.11 and
asserts both answers. The 0.5.10 answers follow the 0.5.10 wheel's ``server_args.py`` and were
measured against the real sglang 0.5.10 ``ServerArgs`` (tools/agreement, oracle venv-0.5.10).
0.5.10.post1 differs from 0.5.10 only in the FlashInfer version pin, so it resolves as 0.5.10.
"""

from __future__ import annotations

import re

import pytest
from release_helpers import SIX, refusal_at, resolve_at

from resolvable import Platform
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.sglang import resolve_server_args
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.10", "0.5.11"
MUSA = Platform(vendor="musa", name="musa", capability=(8, 0))


def test_the_changes_of_0_5_11_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "ATTENTION_SINKS_NOT_FLASHINFER",
        "DEEPSEEK_SM100_FP8_BY_WEIGHTS",
        "DSA_FP8_KERNELS_USER_KEPT",
        "NEMOTRON_H_MOE_RUNNER_WHEN_AUTO",
        "INTEL_XPU_MLA_DECODE_ONLY",
        "MUSA_PAGE_SIZE_64",
        "MAMBA_NO_BUFFER_ADJUSTS",
        "MAMBA_EXTRA_BUFFER_ON_MUSA",
        "GPT_OSS_INTEL_XPU",
        "MOE_CUTEDSL_CHECKS_ROUTED_FP4",
        "SPEC_V2_BY_DEFAULT",
        "CHOICES_UNQUANT_DFLASH_AITER_MOE",
    }


def test_0_5_10_post1_reads_as_0_5_10():
    assert load_table("0.5.10.post1").by_option.keys() == load_table(OLD).by_option.keys()
    post = resolve_at("llama-3.1-8b", "h200", "0.5.10.post1")
    assert {k: post[k] for k in SIX} == {k: resolve_at("llama-3.1-8b", "h200", OLD)[k] for k in SIX}


def test_gemma4_branch_is_new_in_0_5_11():
    """0.5.10 has no Gemma 4 arm: the generic default (fa3 on Hopper) applies."""
    assert resolve_at("gemma-4-31b", "h200", OLD)["attention_backend"] == "fa3"
    assert resolve_at("gemma-4-31b", "h200", NEW)["attention_backend"] == "triton"


def test_moss_vl_branch_is_new_in_0_5_11():
    old = resolve_at("moss-vl", "h200", OLD, attention_backend="fa3")
    assert (old["attention_backend"], old["prefill_attention_backend"]) == ("fa3", None)
    assert "requires flashinfer prefill" in refusal_at("moss-vl", "h200", NEW, attention_backend="fa3")
    assert resolve_at("moss-vl", "h200", NEW)["prefill_attention_backend"] == "flashinfer"


def test_mimo_v2_fused_qkv_check_is_new_in_0_5_11():
    """0.5.10 matched the MiMoV2Flash name only: MiMoV2ForCausalLM had no TP check."""
    config = load_model("mimo-v2-flash").to_dict()
    config.update(architectures=["MiMoV2ForCausalLM"], attention_projection_layout="fused_qkv")
    h200 = Platform.preset("h200")
    assert resolve_server_args(config, h200, sglang_version=OLD, tp_size=1)["attention_backend"] == "fa3"
    with pytest.raises(ConflictError, match=re.escape("requires effective attention TP size")):
        resolve_server_args(config, h200, sglang_version=NEW, tp_size=1)


def test_attention_sinks_keep_flashinfer_out_from_0_5_11():
    """The hierarchical cache's FA3 decode fallback: flashinfer for GPT-OSS before 0.5.11."""
    flags = {"enable_hierarchical_cache": True, "attention_backend": "fa3"}
    assert resolve_at("gpt-oss-20b", "a100", OLD, **flags)["decode_attention_backend"] == "flashinfer"
    assert resolve_at("gpt-oss-20b", "a100", NEW, **flags)["decode_attention_backend"] == "triton"


def test_unquantized_deepseek_v3_on_sm100_was_fp8_before_0_5_11():
    config = load_model("deepseek-v3").to_dict()
    config.pop("quantization_config", None)
    b200 = Platform.preset("b200")
    old = resolve_server_args(config, b200, sglang_version=OLD)
    assert (old["quantization"], old["moe_runner_backend"]) == ("fp8", "flashinfer_trtllm")
    new = resolve_server_args(config, b200, sglang_version=NEW)
    assert (new["quantization"], new["moe_runner_backend"]) == (None, "auto")


def test_fp8_dsa_kernels():
    """0.5.10 forced trtllm on SM100+ over a named kernel, and Hopper prefilled with flashmla_auto."""
    named = {"kv_cache_dtype": "fp8_e4m3", "dsa_decode_backend": "flashmla_kv"}
    old = resolve_at("glm-5", "b200", OLD, **named)
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("trtllm", "trtllm")
    new = resolve_at("glm-5", "b200", NEW, **named)
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("trtllm", "flashmla_kv")
    old = resolve_at("glm-5", "h200", OLD, kv_cache_dtype="fp8_e4m3")
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("flashmla_auto", "flashmla_kv")
    assert resolve_at("glm-5", "h200", NEW, kv_cache_dtype="fp8_e4m3")["dsa_prefill_backend"] == "flashmla_kv"


def test_nemotron_h_modelopt_moe_runner():
    config = load_model("nemotron-h-8b").to_dict()
    config.update(
        quantization_config={"quant_method": "modelopt", "quant_algo": "FP8"}, mlp_hidden_act="relu2"
    )
    b200 = Platform.preset("b200")
    for flags in ({}, {"moe_runner_backend": "triton"}):
        assert resolve_server_args(config, b200, sglang_version=OLD, **flags)["moe_runner_backend"] == (
            "flashinfer_cutlass"
        )
    assert resolve_server_args(config, b200, sglang_version=NEW)["moe_runner_backend"] == "flashinfer_trtllm"
    assert (
        resolve_server_args(config, b200, sglang_version=NEW, moe_runner_backend="triton")[
            "moe_runner_backend"
        ]
        == "triton"
    )


def test_intel_xpu_pages_and_mla_prefill():
    flags = {"attention_backend": "intel_xpu", "page_size": 32}
    assert resolve_at("llama-3.1-8b", "xpu", OLD, **flags)["page_size"] == 32
    assert resolve_at("llama-3.1-8b", "xpu", NEW, **flags)["page_size"] == 128
    assert resolve_at("deepseek-v2-lite", "xpu", OLD, attention_backend="intel_xpu")["page_size"] == 128
    assert "only supported on decode for MLA" in refusal_at(
        "deepseek-v2-lite", "xpu", NEW, attention_backend="intel_xpu"
    )


def test_musa_pages_default_to_64_from_0_5_11():
    hf = load_model("llama-3.1-8b")
    assert resolve_server_args(hf, MUSA, sglang_version=OLD)["page_size"] == 1
    assert resolve_server_args(hf, MUSA, sglang_version=NEW)["page_size"] == 64


def test_mamba_no_buffer_adjusts_from_0_5_11():
    flags = {"page_size": 16, "attention_backend": "triton"}
    assert resolve_at("qwen3-next-80b-a3b", "h200", OLD, **flags)["page_size"] == 16
    assert resolve_at("qwen3-next-80b-a3b", "h200", NEW, **flags)["page_size"] == 1
    assert "not compatible with radix cache" in refusal_at(
        "qwen3-next-80b-a3b", "mi300x", OLD, speculative_algorithm="EAGLE"
    )
    assert resolve_at("qwen3-next-80b-a3b", "mi300x", NEW, speculative_algorithm="EAGLE")[
        "disable_radix_cache"
    ]


def test_mamba_extra_buffer_on_musa_from_0_5_11():
    hf = load_model("qwen3-next-80b-a3b")
    flags = {"mamba_radix_cache_strategy": "extra_buffer"}
    with pytest.raises(ConflictError, match=re.escape("only supported on CUDA devices")):
        resolve_server_args(hf, MUSA, sglang_version=OLD, **flags)
    assert (
        resolve_server_args(hf, MUSA, sglang_version=NEW, **flags)["mamba_radix_cache_strategy"]
        == "extra_buffer"
    )


def test_gpt_oss_on_intel_xpu_from_0_5_11():
    config = load_model("gpt-oss-20b").to_dict()
    config.pop("quantization_config", None)  # the bf16 checkpoint (mxfp4 is not an XPU method)
    xpu = Platform.preset("xpu")
    assert resolve_server_args(config, xpu, sglang_version=OLD)["attention_backend"] == "triton"
    assert resolve_server_args(config, xpu, sglang_version=OLD, dtype="float16")["dtype"] == "float16"
    assert resolve_server_args(config, xpu, sglang_version=NEW)["attention_backend"] == "intel_xpu"
    with pytest.raises(ConflictError, match=re.escape("only supports bfloat16")):
        resolve_server_args(config, xpu, sglang_version=NEW, dtype="float16")
    with pytest.raises(ConflictError, match=re.escape("'aiter'] attention backend")):
        resolve_server_args(config, xpu, sglang_version=OLD, attention_backend="intel_xpu")


def test_cutedsl_checks_and_routed_fp4_from_0_5_11():
    cutedsl = {"moe_runner_backend": "flashinfer_cutedsl"}
    assert resolve_at("qwen3-30b-a3b", "b200", OLD, **cutedsl)["moe_runner_backend"] == "flashinfer_cutedsl"
    assert "CuteDSL MOE currently supports only" in refusal_at("qwen3-30b-a3b", "b200", NEW, **cutedsl)
    routed = {"moe_runner_backend": "flashinfer_trtllm_routed", "quantization": "modelopt_fp4"}
    assert "TRTLLM routed MOE supports only" in refusal_at("qwen3-30b-a3b", "b200", OLD, **routed)
    assert resolve_at("qwen3-30b-a3b", "b200", NEW, **routed)["quantization"] == "modelopt_fp4"


def test_choices_0_5_11_added_are_refused_by_0_5_10():
    for flags in ({"quantization": "unquant"}, {"moe_runner_backend": "aiter"}):
        assert "added in sglang 0.5.11" in refusal_at(
            "qwen3-30b-a3b", "mi300x", OLD, InvalidArgumentError, **flags
        )
    assert resolve_at("llama-3.1-8b", "h200", NEW, quantization="unquant")["quantization"] is None
    assert "DFLASH" not in load_table(OLD).by_option["--speculative-algorithm"].choices
    assert "DFLASH" in load_table(NEW).by_option["--speculative-algorithm"].choices


def test_eagle_overlap_schedule_followed_spec_v2_before_0_5_11():
    """0.5.10: spec v2 is off by default, so EAGLE turns the overlap schedule off; with
    SGLANG_ENABLE_SPEC_V2 it stays on and a topk above 1 is refused. 0.5.11 leaves it on."""
    eagle = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 3, "speculative_eagle_topk": 1}
    assert resolve_at("qwen3-8b", "h200", OLD, **eagle)["disable_overlap_schedule"] is True
    assert resolve_at("qwen3-8b", "h200", NEW, **eagle)["disable_overlap_schedule"] is False
    v2 = {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert resolve_at("qwen3-8b", "h200", OLD, env=v2, **eagle)["disable_overlap_schedule"] is False
    wide = {**eagle, "speculative_eagle_topk": 4}
    assert "only supports topk = 1" in refusal_at("qwen3-8b", "h200", OLD, env=v2, **wide)
