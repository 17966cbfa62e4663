"""OLMo 2 (spec §3.8).

Invariant: no hybrid SWA pool; ``A`` defaults to trtllm_mha (SM100), fa3 (CUDA SM >= 80) or
triton, and flashinfer is refused.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

ARCH = "Olmo2ForCausalLM"


@registry.for_arch(ARCH)
def olmo2_defaults(ctx):
    """§3.8: swa memory off; fill ``A`` when unset (split flags are not considered)."""
    out = {"disable_hybrid_swa_memory": True}
    platform = ctx.platform
    if ctx.args.attention_backend is None:
        if platform.is_cuda and platform.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        elif platform.is_cuda and platform.device_sm >= 80:
            out["attention_backend"] = "fa3"
        else:
            out["attention_backend"] = "triton"
    return out


@registry.for_arch(ARCH, stage="model_checks")
def olmo2_backend_check(ctx):
    """§3.8: flashinfer is refused."""
    if ctx.args.attention_backend == "flashinfer":
        raise ConflictError(
            "FlashInfer backend can significantly degrade the performance of Olmo3 models.",
            fields=("attention_backend",),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "fa3"}),
                Fix(set={"attention_backend": "triton"}),
                text="pass --attention-backend fa3 or triton",
            ),
            upstream="AssertionError",
        )
    return {}
