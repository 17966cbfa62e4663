"""Page-size default (spec §4.5, step 17).

Invariant: only fills an unset ``page_size``: 64 on MUSA or with the AITER vectorized_5d KV
layout on ROCm, else 1. Every other page writer is a model rule or a kernel constraint.
"""

from __future__ import annotations

from .._base import registry


@registry.rule("page_size")
def page_size_default(ctx):
    """§4.5 default table."""
    if ctx.args.page_size is not None:
        return {}
    platform = ctx.platform
    layout = str(ctx.env.get("SGLANG_AITER_KV_CACHE_LAYOUT", "nhd")).lower()
    if platform.is_hip and layout == "vectorized_5d":
        return {"page_size": 64}
    return {"page_size": 64 if platform.is_musa else 1}
