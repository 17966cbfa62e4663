"""HiCache's I/O versus the decode attention backend, before 0.5.14 (spec §2.2, between the
prefill-only checks and data parallelism).

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


@registry.rule("parallelism", until="0.5.14", only_if_set=("enable_hierarchical_cache",))
def hicache_fa3_decode_fallback(ctx):
    """With the hierarchical cache on, kernel I/O and FA3 as the implicit decode backend, sglang
    picks another decode kernel: MLA models flashinfer on SM100 else triton; the others
    flashinfer where it is available and the model has no attention sinks (sinks count since
    0.5.11), else triton. A named
    FA3 decode backend keeps FA3 (sglang switches the I/O backend to direct instead)."""
    args, hf = ctx.args, ctx.hf
    if not args.enable_hierarchical_cache or args.decode_attention_backend is not None:
        return {}
    if args.attention_backend != "fa3":
        return {}
    if is_mla(hf, ctx.release):
        backend = "flashinfer" if ctx.platform.is_sm100 else "triton"
    else:
        # attention sinks keep flashinfer out since 0.5.11 (ATTENTION_SINKS_NOT_FLASHINFER)
        sinks = has_attention_sinks(hf) and ctx.release.has(CHANGES.ATTENTION_SINKS_NOT_FLASHINFER)
        backend = "flashinfer" if flashinfer_available(ctx) and not sinks else "triton"
    return {"decode_attention_backend": backend}
