"""Gemma 4 (spec §3.5).

Invariant: Gemma 4 runs trtllm_mha (SM100) or triton (elsewhere), or ascend/intel_xpu (0.5.18: also
intel_amx); an
unset ``A`` is filled even when only one split flag was given, so the other side stays valid.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..checkpoint import checkpoint_quant_method
from ..facts import effective_backends

ARCHS = ("Gemma4ForConditionalGeneration", "Gemma4ForCausalLM", "Gemma4UnifiedForConditionalGeneration")
SUPPORTED = ("trtllm_mha", "triton", "ascend", "intel_xpu")
#: 0.5.22 ``accepted_backends`` (``model_hook.handle_model_specific_adjustments``): adds fa4; the wheel's
#: list also holds intel_amx (0.5.18) and aiter (0.5.20). The message lists them in this order.
SUPPORTED_0_5_22 = ("trtllm_mha", "triton", "fa4", "ascend", "intel_xpu", "intel_amx", "aiter")


@registry.for_arch(*ARCHS)
def gemma4_defaults(ctx):
    """§3.5: ``A`` := trtllm_mha on SM100 else triton; NVFP4 MoE on SM100 uses flashinfer_trtllm."""
    args, platform = ctx.args, ctx.platform
    out = {}
    if args.attention_backend is None:
        out["attention_backend"] = "trtllm_mha" if platform.is_sm100 else "triton"
    # sglang reads model_config.quantization: hf_quant_config.json counts (checkpoint.py).
    quantization = args.quantization or checkpoint_quant_method(ctx.hf)
    if platform.is_sm100 and args.moe_runner_backend == "auto" and quantization == "modelopt_fp4":
        out.update(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm")
    return out


def _backend_check(ctx, supported: tuple[str, ...], names: str):
    prefill, decode = effective_backends(ctx.args)
    if prefill not in supported or decode not in supported:
        raise ConflictError(
            f"Gemma4 only supports {names} attention backend, got prefill={prefill}, decode={decode}",
            fields=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
            fix="pass --attention-backend triton (or trtllm_mha on SM100)",
            upstream="AssertionError",
        )
    return {}


@registry.rule("model_checks", archs=ARCHS, until="0.5.18", series="gemma4_backend_check")
def gemma4_backend_check(ctx):
    """§3.5 (0.5.15): both effective backends must be Gemma-4-capable."""
    return _backend_check(ctx, SUPPORTED, "trtllm_mha, triton, or intel_xpu")


@registry.rule("model_checks", archs=ARCHS, since="0.5.18", until="0.5.20", series="gemma4_backend_check")
def gemma4_backend_check_0_5_18(ctx):
    """``server_args._handle_model_specific_adjustments`` Gemma4 branch (0.5.18): ``intel_amx``
    is accepted too, and the message names all five backends."""
    return _backend_check(
        ctx, (*SUPPORTED, "intel_amx"), "trtllm_mha, triton, ascend, intel_xpu, or intel_amx"
    )


#: sglang 0.5.20's list (``arg_groups/model_hook.py``, Gemma4 arm): aiter joins.
SUPPORTED_0_5_20 = (*SUPPORTED, "intel_amx", "aiter")


@registry.rule("model_checks", archs=ARCHS, since="0.5.20", until="0.5.22", series="gemma4_backend_check")
def gemma4_backend_check_0_5_20(ctx):
    """§3.5 (since 0.5.20, ``arg_groups/model_hook.py`` Gemma4 arm): aiter is accepted too."""
    return _backend_check(ctx, SUPPORTED_0_5_20, "trtllm_mha, triton, ascend, intel_xpu, intel_amx, or aiter")


@registry.rule("model_checks", archs=ARCHS, since="0.5.22", series="gemma4_backend_check")
def gemma4_backend_check_0_5_22(ctx):
    """§3.5 (since 0.5.22, ``model_hook.handle_model_specific_adjustments`` Gemma4 arm): fa4 accepted."""
    return _backend_check(
        ctx, SUPPORTED_0_5_22, "trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx, or aiter"
    )
