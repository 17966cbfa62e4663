"""sglang 0.5.11 → 0.5.12: one golden case per modelled change (docs/releases/0.5.12.md).

Each case resolves the same input with 0.5.11 (the oldest resolved release) and with 0.5.12 and
asserts both answers. The 0.5.11 answers were checked against the real sglang 0.5.11
``ServerArgs`` (tools/agreement, oracle venv-0.5.11).
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.errors import InvalidArgumentError
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table

OLD, NEW = "0.5.11", "0.5.12"


def test_the_changes_of_0_5_12_are_named():
    names = {c.name for c in CHANGES.introduced(NEW)}
    assert {
        "DSA_V32_DEEPSEEK_BRANCH",
        "DSA_GPU_ARM_SKIPS_XPU",
        "DSA_ROCM_PRESHUFFLE_PAGES",
        "DSA_PREFILL_CP_TP_AT_MOST_8",
        "HISPARSE_DSA_KV_AWARE",
        "CHOICES_DSV4_TOKENSPEED_QUARK_MLX",
        "SPEC_MOE_RUNNER_TRTLLM",
        "DETERMINISTIC_FLASHINFER_AR_FUSION_OFF",
        "CPU_ARM64_TORCH_NATIVE",
        "DEEPSEEK_BF16_TRTLLM_MOE",
        "MAMBA_EXTRA_BUFFER_ON_NPU",
        "GPT_OSS_MUSA_DEEP_GEMM",
        "MEGAMOE_A2A_WATERFILL",
    } <= names


def test_deepseek_v32_joined_the_deepseek_branch():
    """0.5.11's DeepSeek branch list has no DeepseekV32ForCausalLM: no DSA backend, pages or KV."""
    old = resolve_at("deepseek-v3.2", "h200", OLD)
    assert (old["attention_backend"], old["page_size"], old["kv_cache_dtype"]) == ("fa3", 1, "auto")
    assert old["dsa_prefill_backend"] is None
    new = resolve_at("deepseek-v3.2", "h200", NEW)
    assert (new["attention_backend"], new["page_size"], new["kv_cache_dtype"]) == ("nsa", 64, "bfloat16")
    assert new["dsa_prefill_backend"] == "flashmla_sparse"


def test_dsa_on_xpu_took_the_gpu_arm_before_0_5_12():
    """0.5.11 sent XPU down the CUDA DSA path (64-token pages, KV cache and kernels by
    capability); 0.5.12 skips it there."""
    old = resolve_at("glm-5", "xpu", OLD)
    assert (old["page_size"], old["kv_cache_dtype"], old["dsa_decode_backend"]) == (64, "bfloat16", "fa3")
    new = resolve_at("glm-5", "xpu", NEW)
    assert (new["page_size"], new["kv_cache_dtype"], new["dsa_decode_backend"]) == (1, "auto", None)


def test_dsa_on_rocm_with_the_aiter_preshuffle():
    env = {"SGLANG_USE_AITER": "1"}
    assert resolve_at("glm-5", "mi300x", OLD, env=env)["page_size"] == 1
    assert resolve_at("glm-5", "mi300x", NEW, env=env)["page_size"] == 64
    assert resolve_at("glm-5", "mi300x", NEW, env={})["page_size"] == 1


def test_dsa_prefill_cp_needed_exactly_tp_8():
    flags = {"enable_prefill_cp": True, "tp_size": 4}
    assert "tp_size == 8" in refusal_at("glm-5", "h200", OLD, **flags)
    assert resolve_at("glm-5", "h200", NEW, **flags)["attn_cp_size"] == 4
    assert resolve_at("glm-5", "h200", OLD, enable_prefill_cp=True, tp_size=8)["attn_cp_size"] == 8


def test_hisparse_kernels_follow_the_kv_cache_from_0_5_12():
    flags = {"enable_hisparse": True, "kv_cache_dtype": "fp8_e4m3", "disable_radix_cache": True}
    old = resolve_at("glm-5", "h200", OLD, **flags)
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("flashmla_sparse", "flashmla_sparse")
    new = resolve_at("glm-5", "h200", NEW, **flags)
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("flashmla_kv", "flashmla_kv")


def test_deepseek_v4_is_new_in_0_5_12():
    """0.5.11 has no DeepSeek-V4 (no hook, no dsv4 backend): the generic defaults apply."""
    old = resolve_at("deepseek-v4-flash", "h200", OLD)
    assert (old["attention_backend"], old["page_size"], old["kv_cache_dtype"]) == ("fa3", 1, "auto")
    new = resolve_at("deepseek-v4-flash", "h200", NEW)
    assert (new["attention_backend"], new["page_size"], new["kv_cache_dtype"]) == ("dsv4", 256, "fp8_e4m3")


def test_minicpm_v_4_6_branch_is_new_in_0_5_12():
    """0.5.12 added the MiniCPM-V 4.6 branch (triton on SM100, the mamba radix cache)."""
    old = resolve_at("minicpm-v-4.6", "b200", OLD)
    assert (old["attention_backend"], old["mamba_radix_cache_strategy"]) == ("trtllm_mha", "auto")
    new = resolve_at("minicpm-v-4.6", "b200", NEW)
    assert (new["attention_backend"], new["mamba_radix_cache_strategy"]) == ("triton", "no_buffer")


def test_choices_0_5_12_added_are_refused_by_0_5_11():
    assert "added in sglang 0.5.12" in refusal_at(
        "llama-3.1-8b", "h200", OLD, InvalidArgumentError, quantization="quark"
    )
    assert "--quantization" in load_table(NEW).by_option
    assert "quark" not in load_table(OLD).by_option["--quantization"].choices
    assert "added in sglang 0.5.12" in refusal_at(
        "deepseek-v3", "h200", OLD, InvalidArgumentError, moe_a2a_backend="megamoe"
    )


def test_deterministic_inference_ran_after_the_backend_fill_before_0_5_12():
    """0.5.11 called ``_handle_deterministic_inference`` after the cache checks: the default fill
    had chosen trtllm_mha on SM100, which it then refused; 0.5.12 fills flashinfer first."""
    flags = {"enable_deterministic_inference": True}
    assert "you explicitly specified 'trtllm_mha'" in refusal_at("llama-3.1-8b", "b200", OLD, **flags)
    new = resolve_at("llama-3.1-8b", "b200", NEW, **flags)
    assert (new["attention_backend"], new["disable_radix_cache"]) == ("flashinfer", True)
    old = resolve_at("llama-3.1-8b", "h100", OLD, **flags)
    assert (old["attention_backend"], old["sampling_backend"]) == ("fa3", "pytorch")


def test_deterministic_turns_the_flashinfer_fusion_off_from_0_5_12():
    flags = {"enable_deterministic_inference": True}
    assert (
        resolve_at("llama-3.1-8b", "h100", OLD, **flags)["enforce_disable_flashinfer_allreduce_fusion"]
        is False
    )
    assert (
        resolve_at("llama-3.1-8b", "h100", NEW, **flags)["enforce_disable_flashinfer_allreduce_fusion"]
        is True
    )


def test_draft_moe_runner_and_flashinfer_trtllm():
    """0.5.11: a flashinfer_trtllm target runner gives the draft ``auto``; an explicit
    flashinfer_trtllm draft runner is refused. 0.5.12 copies the target's runner."""
    spec = {"speculative_algorithm": "EAGLE", "moe_runner_backend": "flashinfer_trtllm"}
    assert resolve_at("deepseek-v3", "b200", OLD, **spec)["speculative_moe_runner_backend"] == "auto"
    assert (
        resolve_at("deepseek-v3", "b200", NEW, **spec)["speculative_moe_runner_backend"]
        == "flashinfer_trtllm"
    )
    explicit = {**spec, "speculative_moe_runner_backend": "flashinfer_trtllm"}
    assert "doesn't support flashinfer_trtllm" in refusal_at("deepseek-v3", "b200", OLD, **explicit)
    assert (
        resolve_at("deepseek-v3", "b200", NEW, **explicit)["speculative_moe_runner_backend"]
        == "flashinfer_trtllm"
    )


def test_bf16_deepseek_on_sm100_gets_the_trtllm_moe_runner_from_0_5_12():
    from resolvable.sglang.models import load_model

    config = load_model("deepseek-v3").to_dict()
    config.pop("quantization_config", None)
    assert resolve_at(config, "b200", OLD)["moe_runner_backend"] == "auto"
    assert resolve_at(config, "b200", NEW)["moe_runner_backend"] == "flashinfer_trtllm"


def test_arm64_cpu_defaults_to_torch_native_from_0_5_12():
    from resolvable import Platform
    from resolvable.sglang import resolve_server_args
    from resolvable.sglang.models import load_model

    arm_with_amx = Platform.preset("cpu-arm").replace(cpu_amx=True)  # isolates the default itself
    hf = load_model("llama-3.1-8b")
    assert resolve_server_args(hf, arm_with_amx, sglang_version=OLD)["attention_backend"] == "intel_amx"
    assert resolve_server_args(hf, arm_with_amx, sglang_version=NEW)["attention_backend"] == "torch_native"


def test_mamba_extra_buffer_on_npu_from_0_5_12():
    flags = {"mamba_radix_cache_strategy": "extra_buffer"}
    assert "only supported on CUDA and MUSA devices" in refusal_at("qwen3-next-80b-a3b", "npu", OLD, **flags)
    assert (
        resolve_at("qwen3-next-80b-a3b", "npu", NEW, **flags)["mamba_radix_cache_strategy"] == "extra_buffer"
    )


def test_gpt_oss_on_musa_gets_deep_gemm_from_0_5_12():
    from resolvable import Platform
    from resolvable.sglang import resolve_server_args
    from resolvable.sglang.models import load_model

    musa = Platform(vendor="musa", name="musa", capability=(8, 0))
    config = load_model("gpt-oss-20b").to_dict()
    config.pop("quantization_config", None)  # the bf16 checkpoint
    env = {"SGLANG_DEEPEP_BF16_DISPATCH": "1"}
    assert resolve_server_args(config, musa, sglang_version=NEW, env=env)["moe_runner_backend"] == "deep_gemm"
    assert resolve_server_args(config, musa, sglang_version=OLD, env=env)["moe_runner_backend"] != "deep_gemm"


def test_the_megamoe_env_selects_megamoe_from_0_5_12():
    env = {"SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE": "1"}
    assert resolve_at("deepseek-v3", "b200", OLD, env=env)["moe_a2a_backend"] == "none"
    assert resolve_at("deepseek-v3", "b200", NEW, env=env)["moe_a2a_backend"] == "megamoe"
