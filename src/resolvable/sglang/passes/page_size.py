"""Page-size default (spec §4.5, step 17).

Invariant: only fills an unset ``page_size``: 64 on MUSA or with the AITER vectorized_5d KV
layout on ROCm, else 1. Every other page writer is a model rule or a kernel constraint.
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES


@registry.rule("page_size")
def page_size_default(ctx):
    """§4.5 default table (``_handle_page_size``); MUSA's 64 since 0.5.11 (``MUSA_PAGE_SIZE_64``)."""
    if ctx.args.page_size is not None:
        return {}
    platform = ctx.platform
    layout = str(ctx.env.get("SGLANG_AITER_KV_CACHE_LAYOUT", "nhd")).lower()
    if platform.is_hip and layout == "vectorized_5d":
        return {"page_size": 64}
    musa = platform.is_musa and ctx.release.has(CHANGES.MUSA_PAGE_SIZE_64)
    return {"page_size": 64 if musa else 1}
