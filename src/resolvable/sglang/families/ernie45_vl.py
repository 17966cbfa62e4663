"""ERNIE 4.5 VL MoE (sglang 0.5.22, ``model_overrides/ernie45_vl.py``).

Invariant: only refuses; DP attention is on in this pack's terms when ``--enable-dp-attention``
comes with ``--dp-size > 1`` (0.5.22 reads that deprecated spelling as ``--attn-dp-size``).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

ARCH = "Ernie4_5_VLMoeForConditionalGeneration"


@registry.rule("model", archs=(ARCH,), since="0.5.22")
def ernie45_vl_no_dp_attention(ctx):
    """``_ernie45_vl_overrides`` (since 0.5.22): attention heads are split over the whole TP group."""
    if ctx.args.enable_dp_attention and ctx.args.dp_size > 1:
        raise ConflictError(
            "ERNIE 4.5 VL MoE does not support DP attention: its attention heads are split over the full "
            "TP group.",
            fields=("enable_dp_attention",),
            fix=Fix(drop=("enable_dp_attention",)),
        )
    return {}
