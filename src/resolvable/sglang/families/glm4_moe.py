"""GLM-4.5 / GLM-4 MoE (spec §3.15).

Invariant: TF32 matmuls are always allowed (0.5.15); on SM100 the checkpoint's quantization is
adopted and NVFP4 or unquantized experts run on flashinfer_trtllm (0.5.15 added "unquantized").
"""

from __future__ import annotations

from .._base import registry
from ..facts import quant_method, quantization_explicitly_unset


@registry.for_arch("Glm4MoeForCausalLM")
def glm4_moe_defaults(ctx):
    """§3.15."""
    args = ctx.args
    out = {"enable_tf32_matmul": True}
    if ctx.platform.is_sm100:
        quantization = args.quantization
        if quantization is None and not quantization_explicitly_unset(ctx):
            method = quant_method(ctx.hf)
            if method is not None:
                quantization = out["quantization"] = method
        if (
            quantization in ("modelopt_fp4", None)
            and args.moe_a2a_backend == "none"
            and (args.moe_runner_backend == "auto")
        ):
            out["moe_runner_backend"] = "flashinfer_trtllm"
    return out
