"""Beam (new in sglang 0.5.23, ``arg_groups/model_overrides/beam.py:_beam_overrides``).

Invariant: only unset fields are filled: the attention backend (``trtllm_mha`` on SM90, SM100
and SM120 when no attention backend flag was given; other platforms keep the generic default)
and, on SM100 with an FP4 (ModelOpt) checkpoint, the MoE runner when it is ``auto`` and no A2A
backend is set. Releases before 0.5.23 have no Beam rule (the generic defaults apply).
"""

from __future__ import annotations

from .._base import registry
from ..facts import backends_not_set, quant_method, quantization_config

ARCH = "BeamForCausalLM"


def _fp4_checkpoint(ctx) -> bool:
    """``--quantization`` or the checkpoint's method, a generic ``modelopt`` refined by its
    ``quant_algo``, is ModelOpt FP4 (``modelopt_fp4`` or ``NVFP4``)."""
    quantization = ctx.args.quantization or quant_method(ctx.hf)
    if quantization == "modelopt":
        qc = quantization_config(ctx.hf) or {}
        quantization = qc.get("quant_algo")
    return quantization in ("modelopt_fp4", "NVFP4")


@registry.rule("model", archs=(ARCH,), since="0.5.23")
def beam_defaults(ctx):
    """Since 0.5.23 (``model_overrides/beam.py:_beam_overrides``): ``trtllm_mha`` attention on
    SM90/SM100/SM120 when no backend is set; ``flashinfer_trtllm`` MoE for FP4 checkpoints on
    SM100 (runner ``auto``, A2A ``none``)."""
    args, platform = ctx.args, ctx.platform
    out: dict = {}
    if backends_not_set(args) and (platform.is_sm90 or platform.is_sm100 or platform.is_sm120):
        out["attention_backend"] = "trtllm_mha"
    if (
        platform.is_sm100
        and args.moe_runner_backend == "auto"
        and args.moe_a2a_backend == "none"
        and _fp4_checkpoint(ctx)
    ):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out
