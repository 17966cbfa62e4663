"""GLM-4.5 / GLM-4 MoE (spec §3.15).

Invariant: TF32 matmuls are always allowed (since 0.5.15); on SM100 the checkpoint's quantization
is adopted and NVFP4 (or, since 0.5.15, unquantized) experts run on flashinfer_trtllm.
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES
from ..facts import adopted_quantization


@registry.rule("model", archs=("Glm4MoeForCausalLM",))
def glm4_moe_defaults(ctx):
    """§3.15 (spec §9 #9-#10): on SM100 the checkpoint's quantization is adopted and NVFP4
    experts run on flashinfer_trtllm; ``GLM4_MOE_TF32_BF16_TRTLLM`` (0.5.15): TF32 matmuls are
    allowed and unquantized experts run on flashinfer_trtllm too. ``GLM4_MOE_SM100_ARM`` (0.5.8):
    before it GLM-4 MoE had no branch at all."""
    args = ctx.args
    since_0_5_15 = ctx.release.has(CHANGES.GLM4_MOE_TF32_BF16_TRTLLM)
    out = {"enable_tf32_matmul": True} if since_0_5_15 else {}
    if ctx.platform.is_sm100 and ctx.release.has(CHANGES.GLM4_MOE_SM100_ARM):
        quantization, adopted = adopted_quantization(ctx)
        if adopted:
            out["quantization"] = quantization
        trtllm = ("modelopt_fp4", None) if since_0_5_15 else ("modelopt_fp4",)
        if quantization in trtllm and args.moe_a2a_backend == "none" and args.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "flashinfer_trtllm"
    return out
