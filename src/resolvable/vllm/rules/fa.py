"""Stage "flash_attn": the FlashAttention version the FLASH_ATTN layers run (spec §3.1).

``flash_attn.py : FlashAttentionImpl.__init__`` calls ``get_flash_attn_version(requires_alibi,
head_size, has_sinks, requires_softcap, supports_fa4_hd256=True)``. The field holds the version
of the first kind (full, then sliding window, encoder, cross) that runs FLASH_ATTN (or the
TRITON_FLASH_ATTN composite); None when no layer does. 0.20's ``__init__`` then moves FA3 to FA4
on SM90 for a head over 256 (``fa_version.impl_version``).
"""

from __future__ import annotations

from ...rules import Force
from .. import fa_version as FA
from .._base import registry
from ._inputs import chosen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@registry.rule("flash_attn")
def flash_attn_layers_version(ctx: Any) -> dict[str, Any]:
    """Spec §3.1 rules 1-9 for the layers that chose FLASH_ATTN."""
    for q, name in chosen(ctx):
        if name in ("FLASH_ATTN", "TRITON_FLASH_ATTN"):
            version = FA.flash_attn_version(
                q,
                head_size=q.head_size,
                has_sinks=q.has_sink,
                supports_fa4_hd256=True,
                local=q.kind == "sliding_window",
            )
            version = FA.impl_version(q, version, q.head_size)
            if version == ctx.args.flash_attn_version:
                return {}
            if ctx.user_set("flash_attn_version"):  # vLLM applies its fallbacks to the user's choice too
                return {
                    "flash_attn_version": Force(version, "get_flash_attn_version falls back for this layer")
                }
            return {"flash_attn_version": version}
    return {}
