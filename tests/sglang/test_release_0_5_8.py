"""sglang 0.5.7 → 0.5.8: one golden case per modelled change (docs/releases/0.5.8.md).

Each case resolves the same input with 0.5.7 and with 0.5.8 and asserts both answers. The 0.5.7
answers follow the 0.5.7 wheel's ``server_args.py``, ``utils/common.py``,
``configs/model_config.py`` and ``layers/quantization/__init__.py``; the step was measured against
the real sglang 0.5.7 and 0.5.8 ``ServerArgs`` (``tools/agreement/compare_step.py 0.5.7 0.5.8``,
oracle venvs venv-0.5.7 and venv-0.5.8). Where 0.5.8 itself differs from the pack's answer at 0.5.8
(what 0.5.9 and 0.5.10 changed), the step after it is modelled on another branch; these tests do
not state such values.
"""

from __future__ import annotations

import pytest
from release_helpers import refusal_at, resolve_at

from resolvable import Platform
from resolvable.errors import InvalidArgumentError
from resolvable.sglang import resolve_server_args
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.7", "0.5.8"


def _dsa_v3_arch() -> dict:
    """DeepSeek-V3.2's config as the V3.2-Exp checkpoint names it (``DeepseekV3ForCausalLM``,
    ``index_topk`` set): the architecture 0.5.7's DeepSeek branch and ``is_deepseek_nsa`` list."""
    config = load_model("deepseek-v3.2").to_dict()
    config["architectures"] = ["DeepseekV3ForCausalLM"]
    return config


def test_the_changes_of_0_5_8_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "PIECEWISE_GRAPH_RESERVE_PER_SIZE",  # memory (h34m)
        "MAMBA_BLOCK_IN_GLM4_MOE_BRANCH",
        "HOPPER_MHA_FA3_EVERY_MODEL",
        "FA4_DECODE_ALLOWED",
        "CPU_ENGINE_ARM64",
        "HICACHE_AFTER_ATTENTION",
        "QUANT_REGISTRY_BNB_MODELSLIM",
        "DSA_DP_ATTENTION_WITH_CP_ONLY",
        "DSA_ROCM_ONE_TOKEN_PAGES",
        "DSA_CP_PD_DECODE_REFUSED",
        "GPT_OSS_ASCEND_HYBRID_SWA",
        "QWEN3_MOE_SM100_UNQUANTIZED_TRTLLM",
        "GLM4_MOE_SM100_ARM",
        "SPEC_V2_STANDALONE",
        "DLLM_ROCM_TRITON",
        "CHOICES_QUARK_INT4FP8_MOE",
    }


def test_hopper_mha_fa3_only_for_the_listed_models_before_0_5_8():
    """0.5.7's Hopper arm asked ``is_fa3_default_architecture``: Granite-4.0-H is not listed, so
    it fell through to flashinfer; Llama is listed (fa3 on both)."""
    assert resolve_at("granite-4.0-h-small", "h200", OLD)["attention_backend"] == "flashinfer"
    assert resolve_at("granite-4.0-h-small", "h200", NEW)["attention_backend"] == "fa3"
    assert resolve_at("llama-3.1-8b", "h200", OLD)["attention_backend"] == "fa3"


@pytest.mark.parametrize("field", ["attention_backend", "decode_attention_backend"])
def test_fa4_outside_prefill_refused_before_0_5_8(field):
    assert "FA4 backend is only supported for prefill" in refusal_at(
        "qwen3-8b", "b200", OLD, **{field: "fa4"}
    )
    assert resolve_at("qwen3-8b", "b200", NEW, **{field: "fa4"})[field] == "fa4"
    assert (
        resolve_at("qwen3-8b", "b200", OLD, prefill_attention_backend="fa4")["prefill_attention_backend"]
        == "fa4"
    )


def test_cpu_engine_on_arm64_is_new_in_0_5_8():
    """0.5.7's ``is_cpu`` asked for an x86 host: on an arm64 CPU host ``get_device`` found nothing."""
    assert "No accelerator (CUDA, XPU, HPU, NPU) is available." in refusal_at("llama-3.1-8b", "cpu-arm", OLD)
    assert resolve_at("llama-3.1-8b", "cpu-arm", NEW)["device"] == "cpu"
    assert resolve_at("llama-3.1-8b", "cpu", OLD)["device"] == "cpu"


def test_hicache_filled_every_unset_decode_backend_before_0_5_8():
    """0.5.7 ran ``_handle_hicache`` before the attention defaults: aiter (ROCm's default) got a
    triton decode side; 0.5.8 only replaces an effective fa3 decode backend."""
    old = resolve_at("olmo-2-7b", "mi355x", OLD, enable_hierarchical_cache=True)
    new = resolve_at("olmo-2-7b", "mi355x", NEW, enable_hierarchical_cache=True)
    assert old["decode_attention_backend"] == "triton"
    assert new["decode_attention_backend"] is None
    # fa3 as the attention backend: both releases give the decode side flashinfer on Hopper
    for release in (OLD, NEW):
        got = resolve_at("llama-3.1-8b", "h200", release, enable_hierarchical_cache=True)
        assert (got["attention_backend"], got["decode_attention_backend"]) == ("fa3", "flashinfer")


def test_quantization_registry_gained_bitsandbytes_in_0_5_8():
    text = refusal_at("qwen3-next-80b-a3b", "gh200", OLD, quantization="bitsandbytes")
    assert "Unknown quantization method: bitsandbytes" in text and "'bitsandbytes'" not in text
    assert (
        resolve_at("qwen3-next-80b-a3b", "gh200", NEW, quantization="bitsandbytes")["quantization"]
        == "bitsandbytes"
    )


def test_dsa_turned_dp_attention_on_for_every_launch_before_0_5_8():
    old = resolve_at(_dsa_v3_arch(), "h200", OLD, tp_size=8, dp_size=2, chunked_prefill_size=8192)
    new = resolve_at(_dsa_v3_arch(), "h200", NEW, tp_size=8, dp_size=2, chunked_prefill_size=8192)
    assert (old["enable_dp_attention"], old["chunked_prefill_size"]) == (True, 4096)
    assert (new["enable_dp_attention"], new["chunked_prefill_size"]) == (False, 8192)


def test_dsa_on_rocm_used_64_token_pages_before_0_5_8():
    assert resolve_at(_dsa_v3_arch(), "mi300x", OLD, tp_size=8)["page_size"] == 64
    assert resolve_at(_dsa_v3_arch(), "mi300x", NEW, tp_size=8)["page_size"] == 1
    assert resolve_at(_dsa_v3_arch(), "h200", OLD, tp_size=8)["page_size"] == 64


def test_dsa_prefill_cp_on_a_pd_decode_server_refused_from_0_5_8():
    flags = {"tp_size": 8, "enable_prefill_cp": True, "disaggregation_mode": "decode"}
    assert resolve_at(_dsa_v3_arch(), "h200", OLD, **flags)["enable_prefill_cp"] is True
    assert "CP is only supported for prefill" in refusal_at(_dsa_v3_arch(), "h200", NEW, **flags)


def test_gpt_oss_ascend_and_hybrid_swa_from_0_5_8():
    """0.5.7's GPT-OSS branch ended with ``disable_hybrid_swa_memory = True`` and did not list ascend."""
    assert resolve_at("gpt-oss-20b", "h200", OLD)["disable_hybrid_swa_memory"] is True
    assert resolve_at("gpt-oss-20b", "h200", NEW)["disable_hybrid_swa_memory"] is False
    text = refusal_at("gpt-oss-20b", "h200", OLD, attention_backend="ascend")
    assert "GptOssForCausalLM requires one of" in text and "'ascend'" not in text
    assert resolve_at("gpt-oss-20b", "h200", NEW, attention_backend="ascend")["attention_backend"] == "ascend"


def test_qwen3_moe_unquantized_experts_on_sm100_from_0_5_8():
    assert resolve_at("qwen3-30b-a3b", "b200", OLD)["moe_runner_backend"] == "auto"
    assert resolve_at("qwen3-30b-a3b", "b200", NEW)["moe_runner_backend"] == "flashinfer_trtllm"


def test_glm4_moe_sm100_branch_is_new_in_0_5_8():
    config = load_model("glm-4.5").to_dict()
    config["quantization_config"] = {"quant_method": "modelopt_fp4"}
    old = resolve_at(config, "b200", OLD)
    new = resolve_at(config, "b200", NEW)
    assert (old["quantization"], old["moe_runner_backend"]) == (None, "auto")
    assert (new["quantization"], new["moe_runner_backend"]) == ("modelopt_fp4", "flashinfer_trtllm")


def test_dllm_on_rocm_took_the_cuda_arm_before_0_5_8():
    old = resolve_at("llada2-mini", "mi300x", OLD, dllm_algorithm="LowConfidence")
    new = resolve_at("llada2-mini", "mi300x", NEW, dllm_algorithm="LowConfidence")
    assert (old["attention_backend"], old["cuda_graph_backend_decode"]) == ("flashinfer", "full")
    assert (new["attention_backend"], new["cuda_graph_backend_decode"]) == ("aiter", "disabled")


def test_quark_int4fp8_moe_choice_is_new_in_0_5_8():
    text = refusal_at("qwen3-30b-a3b", "mi300x", OLD, InvalidArgumentError, quantization="quark_int4fp8_moe")
    assert "invalid choice: 'quark_int4fp8_moe'" in text
    got = resolve_at("qwen3-30b-a3b", "mi300x", NEW, quantization="quark_int4fp8_moe")
    assert got["quantization"] == "quark_int4fp8_moe"
    assert "quark_int4fp8_moe" not in load_table(OLD).by_option["--quantization"].choices
    assert "quark_int4fp8_moe" in load_table(NEW).by_option["--quantization"].choices


def test_spec_v2_took_standalone_from_0_5_8():
    """With SGLANG_ENABLE_SPEC_V2 0.5.7 kept the overlap schedule for EAGLE and EAGLE3 only."""
    flags = {
        "speculative_algorithm": "STANDALONE",
        "speculative_draft_model_path": "draft",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }
    env = {"SGLANG_ENABLE_SPEC_V2": "1"}
    h200 = Platform.preset("h200")
    old = resolve_server_args(load_model("qwen3-8b"), h200, env, sglang_version=OLD, **flags)
    new = resolve_server_args(load_model("qwen3-8b"), h200, env, sglang_version=NEW, **flags)
    assert (old["disable_overlap_schedule"], new["disable_overlap_schedule"]) == (True, False)


def test_the_mamba_block_moved_from_qwen3_next_to_glm4_moe_in_0_5_8():
    """0.5.7's Qwen3-Next branch held the mamba radix-cache block (overlap schedule off with the
    radix cache on; extra_buffer checks, with 0.5.7's ``64 % page_size`` test); 0.5.8 moved it
    into the GLM-4 MoE branch, so GLM-4.5 turns the overlap schedule off and Qwen3-Next keeps it."""
    assert resolve_at("qwen3-next-80b-a3b", "h100", OLD, tp_size=4)["disable_overlap_schedule"] is True
    assert resolve_at("qwen3-next-80b-a3b", "h100", NEW, tp_size=4)["disable_overlap_schedule"] is False
    assert resolve_at("glm-4.5", "h100", OLD, tp_size=8)["disable_overlap_schedule"] is False
    assert resolve_at("glm-4.5", "h100", NEW, tp_size=8)["disable_overlap_schedule"] is True
    flags = {"tp_size": 4, "mamba_radix_cache_strategy": "extra_buffer", "page_size": 128}
    text = refusal_at("qwen3-next-80b-a3b", "h100", OLD, **flags)
    assert "Page size for hybrid GDN model must be divisible by 64, got 128" in text
    assert resolve_at("qwen3-next-80b-a3b", "h100", NEW, **flags)["page_size"] == 128


def test_pd_decode_with_dp_needs_round_robin_balance_before_0_5_8():
    """0.5.7's ``_handle_disaggregation``: a decode server with dp > 1 asserts
    ``--prefill-round-robin-balance`` unless ``SGLANG_IS_IN_CI``; 0.5.8 ignores the flag and has
    no check (found by the real corpus launch sglang#6017 at 0.5.5, ``--every-entry-at``)."""
    flags = {"disaggregation_mode": "decode", "tp_size": 8, "dp_size": 8, "enable_dp_attention": True}
    assert "Prefill round robin balance is required" in refusal_at("llama-3.1-8b", "h200", "0.5.7", **flags)
    resolve_at("llama-3.1-8b", "h200", "0.5.7", prefill_round_robin_balance=True, **flags)
    resolve_at("llama-3.1-8b", "h200", "0.5.8", **flags)
