"""Cache-setting checks of ``ServerArgs`` (sglang 0.5.15 step 23, ``_handle_cache_compatibility``).

Invariant: refusals only. They read the values after the speculative hook and before dLLM
(step 24), as sglang does, so e.g. deterministic flashinfer's radix-cache disable (step 12)
meets ``--enable-hierarchical-cache`` here.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry


@registry.rule("cache_compat")
def cache_compatibility(ctx):
    """Hierarchical cache and a disabled radix cache exclude each other; the SWA full-token
    ratio must be in (0, 1]."""
    args = ctx.args
    if args.enable_hierarchical_cache and args.disable_radix_cache:
        raise ConflictError(
            "The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive "
            "and cannot be used at the same time. Please use only one of them.",
            fields=("enable_hierarchical_cache", "disable_radix_cache"),
            fix="drop --enable-hierarchical-cache or --disable-radix-cache",
        )
    if not 0 < args.swa_full_tokens_ratio <= 1.0:
        raise ConflictError(
            "--swa-full-tokens-ratio should be in range (0, 1.0].",
            fields=("swa_full_tokens_ratio",),
            fix="pass --swa-full-tokens-ratio between 0 (exclusive) and 1",
        )
    return {}
