"""Step-3.5 / Step-3.7 (spec §3.9), a predicate rule (substring match on the architecture).

Invariant: with nothing chosen, Blackwell gets fa4 and Hopper fa3; EAGLE turns on multi-layer
EAGLE; the hierarchical cache needs a full-size SWA pool.
"""

from __future__ import annotations

from ...rules import Force
from .._base import registry
from ..changes import CHANGES
from ..facts import backends_not_set


def is_step3p(arch: str) -> bool:
    """'Step3p5ForCausalLM' or 'Step3p7ForConditionalGeneration' in arch"""
    return "Step3p5ForCausalLM" in arch or "Step3p7ForConditionalGeneration" in arch


@registry.for_arch_matching(is_step3p)
def step3p_defaults(ctx):
    """§3.9: fa4 on Blackwell / fa3 on SM90 when unset (since 0.5.13, ``STEP3P_BACKEND_DEFAULT``);
    multi-layer EAGLE; hicache SWA ratio. The branch is new in 0.5.9 (``STEP3P5_BRANCH``)."""
    args, platform = ctx.args, ctx.platform
    out = {}
    if not ctx.release.has(CHANGES.STEP3P5_BRANCH):
        return out
    if backends_not_set(args) and ctx.release.has(CHANGES.STEP3P_BACKEND_DEFAULT):
        if platform.is_blackwell:
            out["attention_backend"] = "fa4"
        elif platform.is_sm90:
            out["attention_backend"] = "fa3"
    if args.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if args.enable_hierarchical_cache:
        out.update(
            swa_full_tokens_ratio=Force(
                1.0, "Step-3.5 with the hierarchical cache needs a full-size SWA pool"
            ),
            disable_hybrid_swa_memory=True,
        )
    return out
