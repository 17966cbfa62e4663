"""Quantization registry facts that decide acceptance (spec §11.1).

Invariant: sglang 0.5.15 registers ``mxfp4`` only on CUDA, the CPU engine and gfx95 ROCm;
elsewhere an mxfp4 checkpoint (or ``--quantization mxfp4``) is refused while the model
config is built, with sglang's "Unknown quantization method" error.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..facts import quant_method


def mxfp4_registered(platform) -> bool:
    return platform.is_cuda or platform.is_cpu or platform.is_gfx95


@registry.rule("device")
def mxfp4_platform_support(ctx):
    """§11.1: refuse mxfp4 where sglang does not register it (MI300X, XPU, NPU, MUSA, ...)."""
    method = ctx.args.quantization or quant_method(ctx.hf)
    if method == "mxfp4" and not mxfp4_registered(ctx.platform):
        raise ConflictError(
            "Unknown quantization method: mxfp4. Must be one of the methods registered on this platform "
            f"(sglang registers mxfp4 only on CUDA, the CPU engine and gfx95 ROCm; this is {ctx.platform.name}).",
            fields=("quantization",) if ctx.args.quantization else (),  # else: the checkpoint says so
            fix="use a bf16 checkpoint of this model here, or run it on CUDA or gfx95 (MI350/MI355)",
            upstream="ValueError",
        )
    return {}
