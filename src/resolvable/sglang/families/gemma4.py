"""Gemma 4 (spec §3.5).

Invariant: Gemma 4 runs trtllm_mha (SM100) or triton (elsewhere), or ascend/intel_xpu; an
unset ``A`` is filled even when only one split flag was given, so the other side stays valid.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..checkpoint import checkpoint_quant_method
from ..facts import effective_backends

ARCHS = ("Gemma4ForConditionalGeneration", "Gemma4ForCausalLM", "Gemma4UnifiedForConditionalGeneration")
SUPPORTED = ("trtllm_mha", "triton", "ascend", "intel_xpu")


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


@registry.for_arch(*ARCHS, stage="model_checks")
def gemma4_backend_check(ctx):
    """§3.5: both effective backends must be Gemma-4-capable."""
    prefill, decode = effective_backends(ctx.args)
    if prefill not in SUPPORTED or decode not in SUPPORTED:
        raise ConflictError(
            f"Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend, got prefill={prefill}, "
            f"decode={decode}",
            fields=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
            fix="pass --attention-backend triton (or trtllm_mha on SM100)",
            upstream="AssertionError",
        )
    return {}
