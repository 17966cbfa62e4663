"""Qwen3-VL (spec §3.14).

Invariant: on ROCm with the AITER unified attention kernel, an unset page size is 16.
"""

from __future__ import annotations

from .._base import registry
from ..facts import env_flag


@registry.for_arch("Qwen3VLForConditionalGeneration")
def qwen3_vl_page_size(ctx):
    """§3.14: HIP + SGLANG_USE_AITER_UNIFIED_ATTN + page unset → 16."""
    if ctx.platform.is_hip and env_flag(ctx, "SGLANG_USE_AITER_UNIFIED_ATTN") and ctx.args.page_size is None:
        return {"page_size": 16}
    return {}
