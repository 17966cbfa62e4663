"""sglang 0.5.19 → 0.5.20: golden cases from the 0.5.20 wheel (docs/releases/0.5.20.md).

Each case resolves the same input with ``sglang_version="0.5.15"`` and ``"0.5.20"`` and checks
both answers. 0.5.15 stands for the behaviour before 0.5.20 only where 0.5.16–0.5.19 did not
change the rule (checked in their wheels; the case docstrings say so where it matters).
"""

from __future__ import annotations

import pytest
from release_helpers import refusal_at, resolve_at
from release_helpers import resolve_at as _resolve

from resolvable import HFConfig, Platform
from resolvable.errors import ConfigError, ConflictError, InvalidArgumentError
from resolvable.sglang import registry, resolve_server_args
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.15", "0.5.20"
DSA_CONFIG = {
    "architectures": ["DeepseekV32ForCausalLM"],
    "model_type": "deepseek_v32",
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "index_topk": 2048,
}


def test_release_is_supported():
    assert NEW in registry.releases
    assert _resolve("llama-3.1-8b", "h100", f"{NEW}.post1").release == NEW


# 1: attention backend choices (arg_groups/choices.py ATTENTION_BACKEND_CHOICES).
@pytest.mark.parametrize("backend", ["cutlass_mla", "dual_chunk_flash_attn"])
def test_removed_attention_backends_are_invalid_choices(backend):
    """cutlass_mla and dual_chunk_flash_attn leave the choice list and attention_registry.py."""
    model = "deepseek-v3" if backend == "cutlass_mla" else "qwen2.5-7b-instruct-1m"
    old = _resolve(model, "b200", OLD, attention_backend=backend)
    assert old["attention_backend"] == backend
    if backend == "cutlass_mla":
        assert old["page_size"] == 128  # the 128-token cutlass_mla page rule (#3)
    with pytest.raises(
        InvalidArgumentError, match=rf"invalid choice: '{backend}'.*removed in sglang 0\.5\.20"
    ):
        _resolve(model, "b200", NEW, attention_backend=backend)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("attention_backend", "qsa"),
        ("dsa_decode_backend", "triton"),
        ("moe_runner_backend", "flashinfer_megamoe"),
        ("moe_a2a_backend", "flashinfer_megamoe"),
    ],
)
def test_choices_added_in_0_5_20_are_refused_before(field, value):
    """choices.py / fields/exec_.py of 0.5.20 add these names; 0.5.19's lists do not have them."""
    with pytest.raises(InvalidArgumentError, match=rf"invalid choice: '{value}'.*added in sglang 0\.5\.20"):
        _resolve("llama-3.1-8b", "h100", OLD, **{field: value})


def test_uno_is_an_unknown_algorithm_before_0_5_20():
    """SpeculativeAlgorithm.UNO is new in 0.5.20 (speculative/spec_info.py)."""
    with pytest.raises(InvalidArgumentError, match="Unknown speculative algorithm name: UNO"):
        _resolve("llama-3.1-8b", "h100", OLD, speculative_algorithm="UNO")


def test_marlin_quantization_is_removed():
    """QUANTIZATION_CHOICES of 0.5.20 drop ``marlin``."""
    with pytest.raises(InvalidArgumentError, match=r"--quantization: invalid choice: 'marlin'"):
        _resolve("llama-3.1-8b", "h100", NEW, quantization="marlin")


def test_intel_xpu_is_never_a_user_dsa_choice():
    for version in (OLD, NEW):
        with pytest.raises(InvalidArgumentError, match="invalid choice: 'intel_xpu'"):
            _resolve("deepseek-v3.2", "xpu", version, dsa_prefill_backend="intel_xpu")


# 2: overrides._attention_backend_dual_chunk removed.
def test_dual_chunk_model_gets_the_default_backend():
    """0.5.15–0.5.19 refuse a dual-chunk model whose backend is the platform default (the pass
    runs after the default fill); 0.5.20 has no dual-chunk pass."""
    with pytest.raises(ConflictError, match="Dual chunk attention is enabled"):
        _resolve("qwen2.5-7b-instruct-1m", "h100", OLD)
    new = _resolve("qwen2.5-7b-instruct-1m", "h100", NEW)
    assert new["attention_backend"] == "fa3"
    assert new["disable_radix_cache"] is False


# 4: handle_attention_backend_compatibility no longer refuses intel_xpu MLA prefill.
def test_intel_xpu_mla_prefill_is_accepted():
    with pytest.raises(ConflictError, match="intel_xpu backend is only supported on decode for MLA"):
        _resolve("deepseek-v3", "xpu", OLD, attention_backend="intel_xpu")
    new = _resolve("deepseek-v3", "xpu", NEW, attention_backend="intel_xpu")
    assert new["attention_backend"] == "intel_xpu" and new["page_size"] == 128


# 5: overrides._intel_xpu_page_constraint looks at both sides.
def test_intel_xpu_prefill_constrains_the_page_size():
    flags = {"prefill_attention_backend": "intel_xpu", "decode_attention_backend": "triton"}
    assert _resolve("llama-3.1-8b", "xpu", OLD, **flags)["page_size"] == 1
    assert _resolve("llama-3.1-8b", "xpu", NEW, **flags)["page_size"] == 128


# 6: model_hook Gemma4 arm accepts aiter (0.5.15–0.5.19 do not list it).
def test_gemma4_accepts_aiter():
    with pytest.raises(ConflictError, match="Gemma4 only supports trtllm_mha, triton, or intel_xpu"):
        _resolve("gemma-4-31b", "mi300x", OLD, attention_backend="aiter")
    assert _resolve("gemma-4-31b", "mi300x", NEW, attention_backend="aiter")["attention_backend"] == "aiter"
    with pytest.raises(ConflictError, match="intel_amx, or aiter attention backend, got prefill=fa3"):
        _resolve("gemma-4-31b", "h100", NEW, attention_backend="fa3")


# 7: _dsa_split_backend_resolution on ROCm (tilelang only when both are unset before 0.5.20).
def test_dsa_rocm_defaults_to_triton_per_side():
    old = _resolve("deepseek-v3.2", "mi300x", OLD)
    new = _resolve("deepseek-v3.2", "mi300x", NEW)
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("tilelang", "tilelang")
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("triton", "triton")
    old = _resolve("deepseek-v3.2", "mi300x", OLD, dsa_prefill_backend="aiter")
    new = _resolve("deepseek-v3.2", "mi300x", NEW, dsa_prefill_backend="aiter")
    # 0.5.15–0.5.19: the ROCm arm needs both unset, so the CUDA arms fill the other side
    assert old["dsa_decode_backend"] == "fa3"
    assert new["dsa_decode_backend"] == "triton"


# 8: _check_dsa_backend_constraints refuses the ROCm-only triton kernel on CUDA.
def test_dsa_triton_kernel_is_rocm_only():
    with pytest.raises(ConflictError, match="The triton DSA backend is only supported on ROCm/HIP"):
        _resolve("deepseek-v3.2", "h200", NEW, dsa_decode_backend="triton")


# 9: DSA on XPU (KV dtype, split kernels, page size).
def test_dsa_on_xpu():
    old = _resolve("deepseek-v3.2", "xpu", OLD)
    new = _resolve("deepseek-v3.2", "xpu", NEW)
    assert (old["kv_cache_dtype"], old["page_size"], old["dsa_decode_backend"]) == ("auto", 1, None)
    assert (new["kv_cache_dtype"], new["page_size"]) == ("bfloat16", 128)
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("intel_xpu", "intel_xpu")


# 10: learnable attention sinks (_dsa_kv_cache_dtype_default, _dsa_split_backend_resolution).
def test_dsa_learnable_sinks():
    hf = {**DSA_CONFIG, "learnable_sink": True}
    old = _resolve(hf, "b200", OLD)
    new = _resolve(hf, "b200", NEW)
    assert (old["kv_cache_dtype"], old["dsa_prefill_backend"], old["dsa_decode_backend"]) == (
        "fp8_e4m3",
        "trtllm",
        "trtllm",
    )
    assert (new["kv_cache_dtype"], new["dsa_prefill_backend"], new["dsa_decode_backend"]) == (
        "bfloat16",
        "flashmla_sparse",
        "flashmla_sparse",
    )
    with pytest.raises(ConflictError, match="Learnable DSA attention sinks require a bfloat16 KV cache"):
        _resolve(hf, "b200", NEW, kv_cache_dtype="fp8_e4m3")
    with pytest.raises(ConflictError, match="requires --dsa-decode-backend 'flashmla_sparse'; got 'fa3'"):
        _resolve(hf, "h200", NEW, dsa_decode_backend="fa3")


# 12: parallel_hook.handle_context_parallelism refuses zigzag CP for DeepSeek-V3.2.
def test_deepseek_v32_zigzag_prefill_cp_is_refused():
    flags = {"tp_size": 8, "enable_prefill_cp": True, "cp_strategy": "zigzag"}
    assert _resolve("deepseek-v3.2", "h200", OLD, **flags)["attn_cp_size"] == 8
    with pytest.raises(
        ConflictError, match=r"DeepSeek V3\.2 prefill CP does not support --cp-strategy zigzag"
    ):
        _resolve("deepseek-v3.2", "h200", NEW, **flags)


def test_unchanged_launch_is_identical():
    """A launch none of the 0.5.20 changes touch resolves the same in both releases."""
    old = _resolve("llama-3.1-8b", "h100", OLD)
    new = _resolve("llama-3.1-8b", "h100", NEW)
    six = ("attention_backend", "page_size", "dtype", "kv_cache_dtype")
    assert [old[f] for f in six] == [new[f] for f in six]


# Found by the 0.5.23 agreement run: model_overrides/qwen3_vl.py (new in 0.5.20).
@pytest.mark.parametrize(
    ("preset", "decode"),
    [("h200", "flashinfer"), ("h100", "flashinfer"), ("b200", None), ("a100", None)],
)
def test_qwen3_vl_decodes_with_flashinfer_on_large_hopper(preset, decode):
    """``_qwen3vl_hopper_serving_overrides``: SM90 with >= 60 GiB and both backends unset →
    decode flashinfer; other GPUs and 0.5.19 keep the default."""
    assert _resolve("qwen3-vl-30b-a3b", preset, "0.5.19")["decode_attention_backend"] is None
    assert _resolve("qwen3-vl-30b-a3b", preset, NEW)["decode_attention_backend"] == decode


def test_qwen3_vl_hopper_decode_respects_the_user_and_small_hopper():
    assert (
        _resolve("qwen3-vl-8b", "h100", NEW, attention_backend="triton")["decode_attention_backend"] is None
    )
    assert (
        _resolve("qwen3-vl-8b", "h100", NEW, decode_attention_backend="fa3")["decode_attention_backend"]
        == "fa3"
    )
    small = Platform.preset("h100").replace(memory_gib=40)
    assert (
        resolve_server_args(load_model("qwen3-vl-8b"), small, sglang_version=NEW)["decode_attention_backend"]
        is None
    )


# -- layers/quantization/__init__.py and configs/model_config.py _verify_quantization (0.5.20) --
#: ``BASE_QUANTIZATION_METHODS`` of the 0.5.20 wheel, in its order (plain gptq is gone).
BASE_0_5_20 = [
    "fp8", "mxfp8", "blockwise_int8", "modelopt", "modelopt_fp8", "modelopt_fp4", "nvfp4_online",
    "modelopt_mixed", "w8a8_int8", "w8a8_fp8", "awq", "awq_marlin", "bitsandbytes", "gguf",
    "gptq_marlin", "moe_wna16", "compressed-tensors", "w4afp8", "petit_nvfp4", "quark",
    "quark_mxfp4", "auto-round", "auto-round-int8", "modelslim", "quark_int4fp8_moe", "humming",
    "mxfp_w4a8",
]  # fmt: skip


def test_plain_gptq_is_registered_only_on_npu_cpu_and_xpu():
    """layers/quantization/__init__.py (0.5.20): ``GPTQConfig`` leaves the base dict; the NPU,
    CPU-engine and XPU updates register ``gptq`` themselves. On CUDA and ROCm ``--quantization
    gptq`` is an unknown method (0.5.19 accepts it, ROCm listing it as supported)."""
    for preset in ("h100", "mi300x"):
        resolve_at("llama-3.1-8b", preset, "0.5.19", quantization="gptq")
    message = refusal_at("llama-3.1-8b", "h100", NEW, quantization="gptq")
    assert message.startswith(f"Unknown quantization method: gptq. Must be one of {[*BASE_0_5_20, 'mxfp4']}.")
    assert "Unknown quantization method: gptq." in refusal_at(
        "llama-3.1-8b", "mi300x", NEW, quantization="gptq"
    )
    for preset in ("cpu", "xpu", "npu"):
        assert resolve_at("llama-3.1-8b", preset, NEW, quantization="gptq")["quantization"] == "gptq"


def test_gptq_checkpoint_on_cuda_needs_the_marlin_conversion():
    """model_config.py ``_verify_quantization`` (0.5.20): a GPTQ checkpoint on CUDA without
    ``--quantization`` is served only when gptq_marlin converts it (gptq.py
    ``GPTQMarlinConfig.override_quantization_method``: symmetric 4/8 bit, desc_act set); one
    without ``desc_act`` stays gptq, which 0.5.20 no longer registers there."""
    base = {**load_model("llama-3.1-8b").raw.to_dict()}
    gptq = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True}
    plain = {**base, "quantization_config": gptq}
    converts = {**base, "quantization_config": {**gptq, "desc_act": False}}
    resolve_at(plain, "h100", "0.5.19")
    assert refusal_at(plain, "h100", NEW).startswith("Unknown quantization method: gptq.")
    resolve_at(converts, "h100", NEW)


def test_registry_order_per_platform_0_5_20():
    """layers/quantization/__init__.py (0.5.20): dict updates append new keys, so the "Must be
    one of" list ends with mxfp4 then gptq on the CPU engine and XPU, gptq then mxfp4 on NPU
    (its update names both), mxfp4 alone on CUDA and gfx95, nothing on other ROCm."""
    tails = {
        "cpu": ["mxfp4", "gptq"],
        "xpu": ["mxfp4", "gptq"],
        "npu": ["gptq", "mxfp4"],
        "h100": ["mxfp4"],
        "mi355x": ["mxfp4"],
        "mi300x": [],
    }
    for preset, tail in tails.items():
        message = refusal_at("llama-3.1-8b", preset, NEW, quantization="mlx_q4")
        assert message.startswith(
            f"Unknown quantization method: mlx_q4. Must be one of {[*BASE_0_5_20, *tail]}."
        )


def test_mxfp4_is_registered_on_xpu():
    """layers/quantization/__init__.py (0.5.20): ``Mxfp4Config`` is also registered on XPU
    (sgl-kernel-xpu serves the OCP MoE layout): GPT-OSS's mxfp4 checkpoint is refused by 0.5.19
    and accepted by 0.5.20 (the agreement run's ``gpt-oss-120b @ xpu-noxmx`` cases)."""
    for preset in ("xpu", "xpu-noxmx"):
        before = refusal_at("gpt-oss-120b", preset, "0.5.19")
        assert before.startswith("Unknown quantization method: mxfp4.")
        assert "only on CUDA, the CPU engine, gfx95 ROCm and NPU; this is" in before
        resolve_at("gpt-oss-120b", preset, NEW)
    after = refusal_at("gpt-oss-120b", "mi300x", NEW)
    assert (
        "(sglang registers mxfp4 only on CUDA, the CPU engine, gfx95 ROCm, XPU and NPU; this is mi300x)"
        in after
    )


def test_flat_and_nested_modelopt_objects():
    """model_config.py ``unwrap_modelopt_quantization_config`` (0.5.20): a flat
    hf_quant_config.json (``{"quant_algo": "FP8"}``) is read as the ModelOpt object (0.5.19
    needs its ``quantization`` key), and a config.json ModelOpt ``quantization_config`` that
    nests a ``quantization`` object is read through it (0.5.19 sees no quant_algo: the
    checkpoint stays ``modelopt``, which ROCm serves as petit_nvfp4)."""
    llama = load_model("llama-3.1-8b").raw.to_dict()
    flat = HFConfig(
        llama,
        source="flat/config.json",
        sidecars={
            "hf_quant_config.json": HFConfig({"quant_algo": "FP8"}, source="flat/hf_quant_config.json")
        },
    )
    with pytest.raises(ConfigError, match="needs a 'quantization' object"):
        resolve_at(flat, "h100", "0.5.19")
    resolve_at(flat, "h100", NEW)
    assert refusal_at(flat, "mi300x", NEW).startswith(
        "modelopt_fp8 quantization is currently not supported in ROCm."
    )
    nested = {
        **llama,
        "quantization_config": {"quant_method": "modelopt", "quantization": {"quant_algo": "NVFP4"}},
    }
    resolve_at(nested, "mi300x", "0.5.19")
    assert refusal_at(nested, "mi300x", NEW).startswith(
        "modelopt_fp4 quantization is currently not supported in ROCm."
    )


# Found by the 0.5.23 agreement run: overrides.supports_mamba_cache_extra_buffer (0.5.20).
def test_no_mamba_extra_buffer_on_xpu_since_0_5_20():
    """On XPU an unset strategy resolves to no_buffer (overlap off), so pages > 1 are refused;
    an explicit extra_buffer is unsupported for the model."""
    before = _resolve("qwen3-next-80b-a3b", "xpu", "0.5.19")
    after = _resolve("qwen3-next-80b-a3b", "xpu", NEW)
    assert before["mamba_radix_cache_strategy"] == "extra_buffer"
    assert after["mamba_radix_cache_strategy"] == "no_buffer" and after["disable_overlap_schedule"] is True
    with pytest.raises(ConflictError, match="no_buffer only supports page_size=1"):
        _resolve("qwen3-next-80b-a3b", "xpu", NEW, page_size=128)
    with pytest.raises(ConflictError, match="extra_buffer is not supported for Qwen3NextForCausalLM"):
        _resolve("qwen3-next-80b-a3b", "xpu", NEW, mamba_radix_cache_strategy="extra_buffer")
    assert _resolve("qwen3-next-80b-a3b", "h100", NEW)["mamba_radix_cache_strategy"] == "extra_buffer"
