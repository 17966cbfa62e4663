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


#: ``model_overrides/qwen3_vl.py:_HOPPER_QWEN3_VL_TYPES`` (since 0.5.20).
HOPPER_SERVING_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe"})


@registry.rule(
    "model",
    archs=("Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"),
    since="0.5.20",
)
def qwen3_vl_hopper_decode(ctx):
    """Since 0.5.20 (``model_overrides/qwen3_vl.py:_qwen3vl_hopper_serving_overrides``): on a
    Hopper GPU (``is_sm90_supported``) with at least 60 GiB, a multimodal Qwen3-VL whose
    attention backends are both unset decodes with flashinfer (sglang's profiled serving path)."""
    platform, args = ctx.platform, ctx.args
    if not platform.is_sm90 or platform.memory_gib is None or platform.memory_gib < 60:
        return {}
    if ctx.hf.get("model_type") not in HOPPER_SERVING_TYPES or ctx.hf.get("language_model_only"):
        return {}
    if args.attention_backend is None and args.decode_attention_backend is None:
        return {"decode_attention_backend": "flashinfer"}
    return {}
