"""MiniCPM and MiniCPM-SALA (since sglang 0.5.19): DP attention, hybrid layers, sparse attention.

Invariants: DP attention is refused for every MiniCPM text model; a model with sparse or
lightning layers runs without the radix cache and refuses the hierarchical cache; sparse
attention fills ``A`` with a MiniCPM sparse backend only when A, P and D are all unset.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..facts import env_flag

ARCHS = ("MiniCPMForCausalLM", "MiniCPMSALAForCausalLM")
_SPARSE_BACKENDS = ("minicpm_flashattn", "minicpm_flashinfer")


@registry.rule("model", archs=ARCHS, since="0.5.19")
def minicpm_sala_defaults(ctx):
    """§3 (since 0.5.19, ``model_overrides/minicpm.py:_minicpm_sala_overrides``): refuse DP
    attention; with sparse (``has_minicpm_sparse_attention``) or lightning layers turn the radix
    cache off and refuse HiCache; with sparse attention refuse PD disaggregation when a sparse
    backend would run, and fill ``A`` (minicpm_flashinfer on Blackwell, else minicpm_flashattn).
    ``SGLANG_MINICPM_FORCE_DENSE`` maps the sparse backends to dense ones instead."""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if args.enable_dp_attention:
        raise ConflictError(
            "MiniCPM does not support DP attention",
            fields=("enable_dp_attention",),
            fix=Fix(drop=("enable_dp_attention",)),
            upstream="ValueError",
        )
    sparse = bool(hf.get("has_minicpm_sparse_attention"))
    hybrid = sparse or bool(hf.get("has_lightning_layers"))
    out: dict = {}
    if hybrid:
        if args.enable_hierarchical_cache:
            raise ConflictError(
                "MiniCPM SALA does not support hierarchical cache",
                fields=("enable_hierarchical_cache",),
                fix=Fix(drop=("enable_hierarchical_cache",)),
                upstream="ValueError",
            )
        out["disable_radix_cache"] = True
    chosen = (args.attention_backend, args.prefill_attention_backend, args.decode_attention_backend)
    unset = chosen == (None, None, None)
    if env_flag(ctx, "SGLANG_MINICPM_FORCE_DENSE"):
        dense = {
            "minicpm_flashattn": "fa4" if platform.is_blackwell else "fa3",
            "minicpm_flashinfer": "flashinfer",
        }
        for field, value in zip(
            ("attention_backend", "prefill_attention_backend", "decode_attention_backend"), chosen
        ):
            if value in dense:
                out[field] = dense[value]
    elif sparse:
        if (unset or any(b in _SPARSE_BACKENDS for b in chosen)) and args.disaggregation_mode != "null":
            raise ConflictError(
                "MiniCPM sparse attention does not support PD disaggregation",
                fields=("disaggregation_mode",),
                fix=Fix(drop=("disaggregation_mode",)),
                upstream="ValueError",
            )
        if unset:
            out["attention_backend"] = "minicpm_flashinfer" if platform.is_blackwell else "minicpm_flashattn"
    return out
