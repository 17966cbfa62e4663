"""sglang 0.5.18: golden cases, each resolving one input for ``sglang_version="0.5.15"`` (standing
for the behaviour before 0.5.18 — chosen where 0.5.16 and 0.5.17 did not change the rule, checked
against their wheels) and ``"0.5.18"``. Sources: the 0.5.17 → 0.5.18 wheel diff, see
``docs/releases/0.5.18.md``.
"""

from __future__ import annotations

import pytest
from release_helpers import refusal_at, resolve_at

from resolvable import HFConfig, Platform
from resolvable.errors import ConflictError
from resolvable.sglang import check_startup, registry, resolve_server_args
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.15", "0.5.18"
_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "num_experts": 128}


def _resolve(model, preset, version, env=None, **flags):
    hf = load_model(model) if isinstance(model, str) else model
    return resolve_server_args(hf, Platform.preset(preset), env, sglang_version=version, **flags)


def _refused(model, preset, version, env=None, **flags) -> ConflictError:
    with pytest.raises(ConflictError) as info:
        _resolve(model, preset, version, env, **flags)
    return info.value


def test_release_is_supported():
    assert NEW in registry.releases and registry.release(f"{NEW}.post1") == NEW


def test_megamoe_runner_is_an_alias_for_the_megamoe_a2a_backend():
    """server_args.py _handle_moe_runner_backend_alias (0.5.18); MOE_RUNNER_BACKEND_CHOICES gains
    ``megamoe`` in 0.5.18 only."""
    exc = _refused("qwen3-30b-a3b", "h100", OLD, moe_runner_backend="megamoe", tp_size=8, ep_size=8)
    assert exc.message.startswith("argument --moe-runner-backend: invalid choice: 'megamoe'")
    res = _resolve("qwen3-30b-a3b", "h100", NEW, moe_runner_backend="megamoe", tp_size=8, ep_size=8)
    assert (res["moe_runner_backend"], res["moe_a2a_backend"]) == ("auto", "megamoe")


def test_sglang_cutlass_moe_env_is_no_longer_read():
    """overrides.py _cutlass_moe_env_override (removed in 0.5.18)."""
    env = {"SGLANG_CUTLASS_MOE": "1"}
    old = _resolve("qwen3-235b-a22b-fp8", "h100", OLD, env, quantization="fp8")
    new = _resolve("qwen3-235b-a22b-fp8", "h100", NEW, env, quantization="fp8")
    assert old["moe_runner_backend"] == "cutlass" and new["moe_runner_backend"] != "cutlass"
    exc = _refused("qwen3-30b-a3b", "h100", OLD, env)
    assert "cutlass MoE is only supported with fp8/mxfp8" in exc.message
    assert _resolve("qwen3-30b-a3b", "h100", NEW, env)["moe_runner_backend"] == "auto"


def test_mega_moe_env_no_longer_selects_the_a2a_backend():
    """overrides.py _a2a_backend_overrides (0.5.18 drops SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE)."""
    env = {"SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE": "1"}
    assert _resolve("qwen3-30b-a3b", "b200", OLD, env, tp_size=8, ep_size=8)["moe_a2a_backend"] == "megamoe"
    assert _resolve("qwen3-30b-a3b", "b200", NEW, env, tp_size=8, ep_size=8)["moe_a2a_backend"] == "none"


def test_minimax_m2_nvfp4_uses_trtllm_routed_moe_on_sm100():
    """overrides.py _minimax_m2_overrides (0.5.18): modelopt_fp4 checkpoint on SM10x."""
    hf = load_model("minimax-m2").to_dict()
    hf["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4"}
    assert _resolve(hf, "b200", OLD)["moe_runner_backend"] != "flashinfer_trtllm_routed"
    assert _resolve(hf, "b200", NEW)["moe_runner_backend"] == "flashinfer_trtllm_routed"
    assert _resolve(hf, "h100", NEW)["moe_runner_backend"] != "flashinfer_trtllm_routed"


def test_deterministic_glm4_moe_lite_is_an_absorbed_mla_model():
    """server_args.py _handle_deterministic_inference / overrides._deterministic_is_deepseek_model
    (0.5.18 adds Glm4MoeLiteForCausalLM)."""
    hf = {
        "architectures": ["Glm4MoeLiteForCausalLM"],
        "model_type": "glm4_moe_lite",
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
    }
    old = _resolve(hf, "b200", OLD, enable_deterministic_inference=True)
    new = _resolve(hf, "b200", NEW, enable_deterministic_inference=True)
    assert (old["attention_backend"], old["disable_radix_cache"]) == ("flashinfer", True)
    assert (new["attention_backend"], new["disable_radix_cache"]) == ("triton", False)
    _resolve(hf, "b200", OLD, enable_deterministic_inference=True, attention_backend="flashinfer")
    exc = _refused(hf, "b200", NEW, enable_deterministic_inference=True, attention_backend="flashinfer")
    assert "deterministic inference with absorbed-MLA models" in exc.message


def test_gemma4_accepts_intel_amx():
    """server_args.py _handle_model_specific_adjustments, Gemma4 branch (0.5.18)."""
    exc = _refused("gemma-4-31b", "cpu-amx", OLD, attention_backend="intel_amx")
    assert exc.message.startswith("Gemma4 only supports trtllm_mha, triton, or intel_xpu")
    assert (
        _resolve("gemma-4-31b", "cpu-amx", NEW, attention_backend="intel_amx")["attention_backend"]
        == "intel_amx"
    )
    exc = _refused("gemma-4-31b", "cpu-amx", NEW, attention_backend="torch_native")
    assert exc.message.startswith("Gemma4 only supports trtllm_mha, triton, ascend, intel_xpu, or intel_amx")


def test_mamba_extra_buffer_on_xpu():
    """server_args.py _validate_mamba_extra_buffer (0.5.18 adds XPU; 0.5.16 and 0.5.17 refuse XPU
    like 0.5.15)."""
    flags = {"mamba_radix_cache_strategy": "extra_buffer", "attention_backend": "triton"}
    exc = _refused("qwen3-next-80b-a3b", "xpu", OLD, **flags)
    assert exc.message == "extra_buffer: extra_buffer needs CUDA/MUSA/NPU (FLA)."
    assert _resolve("qwen3-next-80b-a3b", "xpu", NEW, **flags)["mamba_radix_cache_strategy"] == "extra_buffer"


def test_hybrid_gdn_startup_check_reads_the_effective_backends():
    """attention_registry.py attn_backend_wrapper (0.5.18): prefill and decode are both checked
    (0.5.15-0.5.17 check only --attention-backend unless both split flags are set)."""
    hf = load_model("qwen3-next-80b-a3b")
    flags = {"attention_backend": "triton", "decode_attention_backend": "flashinfer"}
    old = _resolve(hf, "b200", OLD, **flags)
    check_startup(old, hf)
    new = _resolve(hf, "b200", NEW, **flags)
    with pytest.raises(ConflictError) as info:
        check_startup(new, hf)
    assert "Got prefill=triton, decode=flashinfer." in info.value.message


def test_nvfp4_online_accepts_the_cutedsl_moe_runner():
    """overrides.py _moe_runner_backend_quant_constraints and server_args._handle_moe_kernel_config
    (0.5.18): nvfp4_online with flashinfer_cutedsl; deepep then refused."""
    flags = {"quantization": "nvfp4_online", "moe_runner_backend": "flashinfer_cutedsl"}
    exc = _refused(_MOE, "b200", OLD, **flags)
    assert exc.message.endswith("flashinfer_trtllm or flashinfer_trtllm_routed.")
    assert _resolve(_MOE, "b200", NEW, **flags)["moe_runner_backend"] == "flashinfer_cutedsl"
    exc = _refused(_MOE, "b200", NEW, moe_a2a_backend="deepep", tp_size=8, ep_size=8, **flags)
    assert exc.message.startswith("flashinfer_cutedsl per-token NVFP4 activation")


# -- configs/model_config.py _verify_quantization (0.5.18) ------------------------------------
# Each case resolves 0.5.17 (the previous release, rule verify_quantization_0_5_17) and 0.5.18.

_LLAMA = load_model("llama-3.1-8b").raw.to_dict()


def _with_quant(quantization_config: dict) -> dict:
    return {**_LLAMA, "quantization_config": quantization_config}


def test_quantization_compatible_pairs_0_5_18():
    """model_config.py ``_verify_quantization`` ``compatible_quantization_methods`` (0.5.18):
    ``--quantization modelopt_fp4`` also serves an fp8 checkpoint (its MoE experts are
    requantized online); 0.5.17 refuses the pair."""
    before = refusal_at("qwen3-235b-a22b-fp8", "b200", "0.5.17", quantization="modelopt_fp4")
    assert before.startswith(
        "Quantization method specified in the model config (fp8) does not match the quantization "
        "method specified in the `quantization` argument (modelopt_fp4)."
    )
    after = resolve_at("qwen3-235b-a22b-fp8", "b200", "0.5.18", quantization="modelopt_fp4")
    assert after["quantization"] == "modelopt_fp4"
    # a pair outside the list is still refused
    assert "does not match" in refusal_at("qwen3-235b-a22b-fp8", "b200", "0.5.18", quantization="awq")


def test_modelopt_override_leaves_nvfp4_online_alone_0_5_18():
    """base_config.py ``_modelopt_override_quantization_method`` (0.5.18) returns nothing for
    ``nvfp4_online``: on a ModelOpt NVFP4 checkpoint 0.5.17 turns the request into
    modelopt_fp4 and accepts it, 0.5.18 compares nvfp4_online with modelopt_fp4 (not a
    compatible pair) and refuses."""
    hf = _with_quant({"quant_method": "modelopt", "quant_algo": "NVFP4"})
    assert resolve_at(hf, "b200", "0.5.17", quantization="nvfp4_online")["quantization"] == "nvfp4_online"
    message = refusal_at(hf, "b200", "0.5.18", quantization="nvfp4_online")
    assert "model config (modelopt_fp4) does not match" in message and "argument (nvfp4_online)" in message


def test_requantization_skips_the_checkpoint_override_0_5_18():
    """model_config.py ``_verify_quantization`` (0.5.18): a ``--quantization`` in
    ``REQUANTIZATION_METHODS`` (quark_mxfp4) is never overridden by the checkpoint. On a ModelOpt
    NVFP4 checkpoint on MI355X, 0.5.17 lets the ModelOpt override turn it into modelopt_fp4,
    which ROCm refuses; 0.5.18 keeps quark_mxfp4 and requantizes."""
    hf = _with_quant({"quant_method": "modelopt", "quant_algo": "NVFP4"})
    before = refusal_at(hf, "mi355x", "0.5.17", quantization="quark_mxfp4")
    assert before.startswith("modelopt_fp4 quantization is currently not supported in ROCm.")
    assert resolve_at(hf, "mi355x", "0.5.18", quantization="quark_mxfp4")["quantization"] == "quark_mxfp4"


def test_modelopt_mxfp8_checkpoint_is_mxfp8_0_5_18():
    """model_config.py ``_parse_modelopt_quant_config`` (0.5.18): ``quant_algo`` MXFP8 is
    ``mxfp8`` (0.5.17: any algo containing FP8 is modelopt_fp8). On MI355X modelopt_fp8 is
    outside the ROCm list and mxfp8 inside it, in config.json and in hf_quant_config.json."""
    side = HFConfig(
        _LLAMA,
        source="mxfp8/config.json",
        sidecars={
            "hf_quant_config.json": HFConfig(
                {"quantization": {"quant_algo": "MXFP8"}}, source="mxfp8/hf_quant_config.json"
            )
        },
    )
    for hf in (_with_quant({"quant_method": "modelopt", "quant_algo": "MXFP8"}), side):
        before = refusal_at(hf, "mi355x", "0.5.17")
        assert before.startswith("modelopt_fp8 quantization is currently not supported in ROCm.")
        assert resolve_at(hf, "mi355x", "0.5.18")["quantization"] is None  # ServerArgs keeps the flag


def test_modelopt_request_needs_the_exact_fp8_algo_0_5_18():
    """base_config.py ``_modelopt_override_quantization_method`` (0.5.18): ``--quantization
    modelopt`` becomes modelopt_fp8 only for ``quant_algo`` FP8 itself (0.5.17: any algo
    containing FP8), so an fp8 checkpoint with ``FP8_PB_WO`` is now a mismatch."""
    hf = _with_quant({"quant_method": "fp8", "quant_algo": "FP8_PB_WO"})
    assert resolve_at(hf, "h100", "0.5.17", quantization="modelopt")["quantization"] == "modelopt"
    assert "model config (fp8) does not match" in refusal_at(hf, "h100", "0.5.18", quantization="modelopt")


def test_carried_0_5_16_registry_facts_from_0_5_18():
    """Facts of the 0.5.16 wheel that hold through 0.5.19: layers/quantization/__init__.py
    registers mxfp4 on NPU (``Mxfp4W4A4Config``), humming.py
    ``HummingConfig.override_quantization_method`` makes ``--quantization humming`` claim any
    checkpoint but an mxfp4 one, and the registry lists humming after quark_int4fp8_moe."""
    assert "Unknown quantization method: mxfp4." in refusal_at("gpt-oss-120b", "npu", "0.5.15")
    for release in ("0.5.16", "0.5.17", "0.5.18"):
        resolve_at("gpt-oss-120b", "npu", release)
        humming = resolve_at("qwen3-235b-a22b-fp8", "h100", release, quantization="humming")
        assert humming["quantization"] == "humming"
    message = refusal_at("gpt-oss-120b", "mi300x", "0.5.18")
    assert "'modelslim', 'quark_int4fp8_moe', 'humming', 'mxfp_w4a8']" in message
