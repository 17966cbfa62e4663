"""EXAONE 4 / EXAONE-MoE (spec §3.7).

Invariant: with a sliding-window pattern the hybrid SWA pool is off and ``A`` must be one of
fa3/triton/trtllm_mha — checked before the generic default, so up to 0.5.21 such models need an
explicit ``--attention-backend`` (faithful to sglang, spec §10 #3). Since 0.5.22
(``model_overrides/exaone.py:_exaone_overrides``) an unset ``A`` is filled first (trtllm_mha on
CUDA SM100, fa3 on CUDA SM80+, else triton), and the ``ExaoneMoeForCausalLM`` spelling joins.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry

ARCHS = ("Exaone4ForCausalLM", "ExaoneMoEForCausalLM")
#: 0.5.22 registers the EXAONE rules for the ``ExaoneMoeForCausalLM`` spelling too.
ARCHS_0_5_22 = (*ARCHS, "ExaoneMoeForCausalLM")
SUPPORTED = ("fa3", "triton", "trtllm_mha")


def _has_swa_pattern(ctx) -> bool:
    return ctx.hf.text_config.get("sliding_window_pattern") is not None


@registry.rule("model", archs=ARCHS, until="0.5.22")
def exaone_swa_memory(ctx):
    """§3.7: a sliding-window pattern disables the hybrid SWA memory pool."""
    if _has_swa_pattern(ctx):
        return {"disable_hybrid_swa_memory": True}
    return {}


@registry.rule("model", archs=ARCHS_0_5_22, since="0.5.22", series="exaone_swa_memory")
def exaone_swa_memory_0_5_22(ctx):
    """§3.7 (since 0.5.22, ``model_overrides/exaone.py:_exaone_overrides``): a sliding-window pattern
    disables the hybrid SWA pool and fills an unset ``A``: trtllm_mha on CUDA SM100, fa3 on CUDA
    SM80+, else triton."""
    if not _has_swa_pattern(ctx):
        return {}
    out: dict = {"disable_hybrid_swa_memory": True}
    platform = ctx.platform
    if ctx.args.attention_backend is None:
        if platform.is_cuda and platform.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        elif platform.is_cuda and platform.device_sm >= 80:
            out["attention_backend"] = "fa3"
        else:
            out["attention_backend"] = "triton"
    return out


@registry.rule("model_checks", archs=ARCHS, until="0.5.22")
def exaone_backend_check(ctx):
    """§3.7: with a sliding-window pattern, ``A`` must already be fa3, triton or trtllm_mha."""
    return _backend_check(ctx)


@registry.rule("model_checks", archs=ARCHS_0_5_22, since="0.5.22", series="exaone_backend_check")
def exaone_backend_check_0_5_22(ctx):
    """§3.7 (since 0.5.22, ``model_hook.handle_model_specific_adjustments``): the same check, also for
    ``ExaoneMoeForCausalLM``."""
    return _backend_check(ctx)


def _backend_check(ctx) -> dict:
    backend = ctx.args.attention_backend
    if ctx.hf.text_config.get("sliding_window_pattern") is not None and backend not in SUPPORTED:
        raise ConflictError(
            f"One of the attention backends in {list(SUPPORTED)} is required for {ctx.arch}, but got {backend}",
            fields=("attention_backend",),
            fix="pass --attention-backend fa3 (or triton, or trtllm_mha on SM100) explicitly",
            upstream="AssertionError",
        )
    return {}
