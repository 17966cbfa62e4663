"""Gemma 4 (spec §3.5).

Invariant: Gemma 4 runs trtllm_mha (SM100) or triton (elsewhere), or ascend/intel_xpu (0.5.18: also
intel_amx); an
unset ``A`` is filled even when only one split flag was given, so the other side stays valid.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..changes import CHANGES, in_release
from ..checkpoint import checkpoint_quant_method
from ..facts import backends_not_set, effective_backends

#: The Gemma 4 arm's architectures: Gemma4ForConditionalGeneration got its branch in 0.5.11 (the
#: others are handled from 0.5.13 on, ``GEMMA4_BACKEND_POLICY``).
ARCHS = ArchList(
    ("Gemma4ForConditionalGeneration", "0.5.11"),
    "Gemma4ForCausalLM",
    "Gemma4UnifiedForConditionalGeneration",
    what="the Gemma 4 branch",
)
#: The Gemma-4-capable attention backends in upstream's order (0.5.22 ``accepted_backends``; the
#: refusal lists them in this order), each with the change that added it.
ACCEPTED = (
    ("trtllm_mha", None),
    ("triton", None),
    ("fa4", CHANGES.GEMMA4_FA4),
    ("ascend", CHANGES.GEMMA4_ASCEND),
    ("intel_xpu", None),
    ("intel_amx", CHANGES.GEMMA4_INTEL_AMX),
    ("aiter", CHANGES.GEMMA4_AITER),
)


@registry.rule("model", archs=ARCHS)
def gemma4_defaults(ctx):
    """§3.5: ``A`` := trtllm_mha on SM100 else triton (before 0.5.14 a modelopt_fp4 MoE kept triton:
    ``GEMMA4_FP4_MOE_TRTLLM_MHA``); NVFP4 MoE on SM100 uses flashinfer_trtllm. Before 0.5.13
    (``GEMMA4_BACKEND_POLICY``) only Gemma4ForConditionalGeneration was handled: triton when
    nothing was chosen."""
    args, platform = ctx.args, ctx.platform
    out = {}
    if not ctx.release.has(CHANGES.GEMMA4_BACKEND_POLICY):
        # before 0.5.13: triton for Gemma4ForConditionalGeneration when no backend was chosen
        if ctx.arch == ARCHS[0] and backends_not_set(args):
            out["attention_backend"] = "triton"
        return out
    # sglang reads model_config.quantization: hf_quant_config.json counts (checkpoint.py).
    quantization = args.quantization or checkpoint_quant_method(ctx.hf)
    if args.attention_backend is None:
        trtllm = platform.is_sm100
        if trtllm and not ctx.release.has(CHANGES.GEMMA4_FP4_MOE_TRTLLM_MHA):
            # before 0.5.14 a modelopt_fp4 MoE (text config enable_moe_block) stayed on triton
            trtllm = not (quantization == "modelopt_fp4" and ctx.hf.text_config.get("enable_moe_block"))
        out["attention_backend"] = "trtllm_mha" if trtllm else "triton"
    if platform.is_sm100 and args.moe_runner_backend == "auto" and quantization == "modelopt_fp4":
        out.update(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm")
    return out


@registry.rule("model_checks", archs=ARCHS)
def gemma4_backend_check(ctx):
    """§3.5 (``model_hook.handle_model_specific_adjustments`` Gemma4 arm; before 0.5.19
    ``server_args._handle_model_specific_adjustments``): both effective backends must be
    Gemma-4-capable (``ACCEPTED``, per release); not checked before 0.5.13
    (``GEMMA4_BACKEND_POLICY``)."""
    if not ctx.release.has(CHANGES.GEMMA4_BACKEND_POLICY):
        return {}
    supported = in_release(ctx.release, ACCEPTED)
    prefill, decode = effective_backends(ctx.args)
    if prefill in supported and decode in supported:
        return {}
    if ctx.release.has(CHANGES.GEMMA4_INTEL_AMX):
        names = f"{', '.join(supported[:-1])}, or {supported[-1]}"
    else:  # 0.5.15-0.5.17 named three of its backends
        names = "trtllm_mha, triton, or intel_xpu"
    raise ConflictError(
        f"Gemma4 only supports {names} attention backend, got prefill={prefill}, decode={decode}",
        fields=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
        fix=Fix.any_of(
            Fix(set={"attention_backend": "triton"}),
            Fix(set={"attention_backend": "trtllm_mha"}),
            text="pass --attention-backend triton (or trtllm_mha on SM100)",
        ),
        upstream="AssertionError",
    )
