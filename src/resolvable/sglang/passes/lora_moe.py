"""LoRA MoE runners (new in sglang 0.5.23: ``lora_cutedsl``, ``lora_triton``, ``lora_marlin``).

Invariant: a LoRA MoE runner keeps the shared experts separate, runs only on the target model
(a draft defaults to ``auto`` and may not name one) and needs LoRA enabled. ``--lora-backend``,
``--lora-paths`` and the expert-placement flags the rest of
``lora_hook.check_lora_moe_runner_args`` reads are not pack fields (not modelled). This module
is registered before ``passes.speculative`` so the draft default is seen by
``speculative_moe_runner_default``.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..choices import LORA_MOE_RUNNERS


@registry.rule(
    "parallelism", since="0.5.23", only_if_set=("moe_runner_backend", "speculative_moe_runner_backend")
)
def lora_moe_runner(ctx):
    """Since 0.5.23 (``overrides._moe_runner_fusion_disable``,
    ``lora_hook.check_lora_moe_runner_args``): a ``lora_*`` runner disables the shared-experts
    fusion and is refused without ``--enable-lora``; ``--speculative-moe-runner-backend lora_*``
    is refused with speculation."""
    args = ctx.args
    draft = args.speculative_moe_runner_backend
    if args.speculative_algorithm is not None and draft in LORA_MOE_RUNNERS:
        raise ConflictError(
            f"--speculative-moe-runner-backend {draft} is not supported: the LoRA MoE runner "
            "serves adapter traffic on the target model",
            fields=("speculative_moe_runner_backend",),
            fix=Fix(
                drop=("speculative_moe_runner_backend",),
                text="drop --speculative-moe-runner-backend (the draft then uses auto)",
            ),
        )
    runner = args.moe_runner_backend
    if runner not in LORA_MOE_RUNNERS:
        return {}
    if not args.enable_lora:
        raise ConflictError(
            f"--moe-runner-backend {runner} requires --enable-lora (or --lora-paths)",
            fields=("moe_runner_backend", "enable_lora"),
            fix=Fix.any_of(Fix(set={"enable_lora": True}), Fix(another=("moe_runner_backend",))),
        )
    if not args.disable_shared_experts_fusion:
        return {"disable_shared_experts_fusion": True}
    return {}


@registry.rule("speculative", since="0.5.23")
def lora_moe_draft_runner(ctx):
    """Since 0.5.23 (``overrides._speculative_moe_runner_default``): a target-only ``lora_*``
    runner leaves an unset draft MoE runner at ``auto`` (the draft carries no adapters)."""
    args = ctx.args
    if args.speculative_moe_runner_backend is None and args.moe_runner_backend in LORA_MOE_RUNNERS:
        return {"speculative_moe_runner_backend": "auto"}
    return {}
