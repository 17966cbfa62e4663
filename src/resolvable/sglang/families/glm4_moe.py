"""GLM-4.5 / GLM-4 MoE (spec §3.15).

Invariant: TF32 matmuls are always allowed (since 0.5.15); on SM100 the checkpoint's quantization
is adopted and NVFP4 (or, since 0.5.15, unquantized) experts run on flashinfer_trtllm.
"""

from __future__ import annotations

from .._base import registry
from ..facts import quant_method, quantization_explicitly_unset


def _glm4_moe(ctx, fp4_or_unquantized: tuple[str | None, ...]) -> dict:
    args = ctx.args
    out = {}
    if ctx.platform.is_sm100:
        quantization = args.quantization
        if quantization is None and not quantization_explicitly_unset(ctx):
            method = quant_method(ctx.hf)
            if method is not None:
                quantization = out["quantization"] = method
        if (
            quantization in fp4_or_unquantized
            and args.moe_a2a_backend == "none"
            and (args.moe_runner_backend == "auto")
        ):
            out["moe_runner_backend"] = "flashinfer_trtllm"
    return out


@registry.rule("model", archs=("Glm4MoeForCausalLM",), until="0.5.15", series="glm4_moe_defaults")
def glm4_moe_defaults_0_5_14(ctx):
    """§3.15 (0.5.14, spec §9 #9-#10): on SM100 only NVFP4 experts run on flashinfer_trtllm; no TF32 field."""
    return _glm4_moe(ctx, ("modelopt_fp4",))


@registry.rule("model", archs=("Glm4MoeForCausalLM",), since="0.5.15", series="glm4_moe_defaults")
def glm4_moe_defaults(ctx):
    """§3.15 (0.5.15, spec §9 #9-#10): TF32 matmuls allowed; on SM100 NVFP4 or unquantized experts run
    on flashinfer_trtllm."""
    return {"enable_tf32_matmul": True, **_glm4_moe(ctx, ("modelopt_fp4", None))}
