"""HiCache's I/O versus the decode attention backend, before 0.5.14 (spec §2.2, between the
prefill-only checks and data parallelism; before 0.5.8 between the model-specific adjustments
and the attention defaults, ``HICACHE_AFTER_ATTENTION``).

Source: sglang 0.5.13 ``server_args.py`` ``_handle_hicache`` step 3,
``_resolve_io_decode_attention_compatibility`` (0.5.14 dropped the step: ``until="0.5.14"``).
Invariant: only a decode backend nobody named changes; the hierarchical cache's I/O backend is
taken at its default (``kernel``): ``--hicache-io-backend`` is not a modelled flag, so a launch
that passes it is answered with the flag listed as not modelled. The PD decode offload path
(``--disaggregation-decode-enable-offload-kvcache``) is not modelled either.
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES
from ..facts import flashinfer_available, has_attention_sinks, is_mla


def _safe_decode_backend(ctx) -> str:
    """The decode kernel HiCache's kernel I/O falls back to: MLA flashinfer on SM100 else triton;
    the others flashinfer where available and without attention sinks (since 0.5.11), else triton."""
    hf = ctx.hf
    if is_mla(hf, ctx.release):
        return "flashinfer" if ctx.platform.is_sm100 else "triton"
    # attention sinks keep flashinfer out since 0.5.11 (ATTENTION_SINKS_NOT_FLASHINFER)
    sinks = has_attention_sinks(hf) and ctx.release.has(CHANGES.ATTENTION_SINKS_NOT_FLASHINFER)
    return "flashinfer" if flashinfer_available(ctx) and not sinks else "triton"


@registry.rule("sampling", only_if_set=("enable_hierarchical_cache",))
def hicache_decode_backend_early(ctx):
    """Before 0.5.8 (``HICACHE_AFTER_ATTENTION``): ``_handle_hicache`` ran after the model-specific
    adjustments and before the attention defaults, and with the hierarchical cache on (kernel
    I/O) it filled every unset decode backend with the safe one, whatever the attention backend
    would become."""
    args = ctx.args
    if ctx.release.has(CHANGES.HICACHE_AFTER_ATTENTION):
        return {}
    if not args.enable_hierarchical_cache or args.decode_attention_backend is not None:
        return {}
    return {"decode_attention_backend": _safe_decode_backend(ctx)}


@registry.rule("parallelism", until="0.5.14", only_if_set=("enable_hierarchical_cache",))
def hicache_fa3_decode_fallback(ctx):
    """With the hierarchical cache on, kernel I/O and FA3 as the implicit decode backend, sglang
    picks another decode kernel: MLA models flashinfer on SM100 else triton; the others
    flashinfer where it is available and the model has no attention sinks (sinks count since
    0.5.11), else triton. A named
    FA3 decode backend keeps FA3 (sglang switches the I/O backend to direct instead)."""
    args = ctx.args
    if not ctx.release.has(CHANGES.HICACHE_AFTER_ATTENTION):
        return {}  # 0.5.7: hicache_decode_backend_early filled it before the attention defaults
    if not args.enable_hierarchical_cache or args.decode_attention_backend is not None:
        return {}
    if args.attention_backend != "fa3":
        return {}
    return {"decode_attention_backend": _safe_decode_backend(ctx)}
