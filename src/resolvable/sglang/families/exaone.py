"""EXAONE 4 / EXAONE-MoE (spec §3.7).

Invariant: with a sliding-window pattern the hybrid SWA pool is off and ``A`` must be one of
fa3/triton/trtllm_mha — checked before the generic default, so such models need an explicit
``--attention-backend`` (faithful to sglang, spec §10 #3).
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry

ARCHS = ("Exaone4ForCausalLM", "ExaoneMoEForCausalLM")
SUPPORTED = ("fa3", "triton", "trtllm_mha")


@registry.for_arch(*ARCHS)
def exaone_swa_memory(ctx):
    """§3.7: a sliding-window pattern disables the hybrid SWA memory pool."""
    if ctx.hf.text_config.get("sliding_window_pattern") is not None:
        return {"disable_hybrid_swa_memory": True}
    return {}


@registry.for_arch(*ARCHS, stage="model_checks")
def exaone_backend_check(ctx):
    """§3.7: with a sliding-window pattern, ``A`` must already be fa3, triton or trtllm_mha."""
    backend = ctx.args.attention_backend
    if ctx.hf.text_config.get("sliding_window_pattern") is not None and backend not in SUPPORTED:
        raise ConflictError(
            f"One of the attention backends in {list(SUPPORTED)} is required for {ctx.arch}, but got {backend}",
            fields=("attention_backend",),
            fix="pass --attention-backend fa3 (or triton, or trtllm_mha on SM100) explicitly",
            upstream="AssertionError",
        )
    return {}
