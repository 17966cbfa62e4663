"""EXAONE 4 / EXAONE-MoE (spec §3.7).

Invariant: with a sliding-window pattern the hybrid SWA pool is off and ``A`` must be one of
fa3/triton/trtllm_mha — checked before the generic default, so up to 0.5.21 such models need an
explicit ``--attention-backend`` (faithful to sglang, spec §10 #3). Since 0.5.22
(``model_overrides/exaone.py:_exaone_overrides``) an unset ``A`` is filled first (trtllm_mha on
CUDA SM100, fa3 on CUDA SM80+, else triton), and the ``ExaoneMoeForCausalLM`` spelling joins.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..changes import CHANGES

#: The EXAONE rules' architectures; 0.5.22 registers them for the ``ExaoneMoeForCausalLM``
#: spelling too.
ARCHS = ArchList(
    ("Exaone4ForCausalLM", "0.5.9"),  # 0.5.9 brought the branch with the models
    ("ExaoneMoEForCausalLM", "0.5.9"),
    ("ExaoneMoeForCausalLM", "0.5.22"),
    what="EXAONE",
)
SUPPORTED = ("fa3", "triton", "trtllm_mha")


def _has_swa_pattern(ctx) -> bool:
    return ctx.hf.text_config.get("sliding_window_pattern") is not None


@registry.rule("model", archs=ARCHS)
def exaone_swa_memory(ctx):
    """§3.7 (since 0.5.22 ``model_overrides/exaone.py:_exaone_overrides``): a sliding-window
    pattern disables the hybrid SWA memory pool. ``EXAONE_FILLS_ATTENTION`` (0.5.22): it also
    fills an unset ``A``: trtllm_mha on CUDA SM100, fa3 on CUDA SM80+, else triton."""
    if not _has_swa_pattern(ctx):
        return {}
    out: dict = {"disable_hybrid_swa_memory": True}
    platform = ctx.platform
    if ctx.args.attention_backend is None and ctx.release.has(CHANGES.EXAONE_FILLS_ATTENTION):
        if platform.is_cuda and platform.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        elif platform.is_cuda and platform.device_sm >= 80:
            out["attention_backend"] = "fa3"
        else:
            out["attention_backend"] = "triton"
    return out


@registry.rule("model_checks", archs=ARCHS)
def exaone_backend_check(ctx):
    """§3.7 (since 0.5.22 ``model_hook.handle_model_specific_adjustments``): with a
    sliding-window pattern, ``A`` must be fa3, triton or trtllm_mha."""
    backend = ctx.args.attention_backend
    if ctx.hf.text_config.get("sliding_window_pattern") is not None and backend not in SUPPORTED:
        raise ConflictError(
            f"One of the attention backends in {list(SUPPORTED)} is required for {ctx.arch}, but got {backend}",
            fields=("attention_backend",),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "fa3"}),
                Fix(set={"attention_backend": "triton"}),
                Fix(set={"attention_backend": "trtllm_mha"}),
                text="pass --attention-backend fa3 (or triton, or trtllm_mha on SM100) explicitly",
            ),
            upstream="AssertionError",
        )
    return {}
