"""MiniMax-M2 (spec §3.17).

Invariant: TF32 matmuls are always allowed (0.5.15); attention is left to the generic default.
"""

from __future__ import annotations

from .._base import registry


@registry.for_arch("MiniMaxM2ForCausalLM")
def minimax_m2_tf32(ctx):
    """§3.17: ``enable_tf32_matmul`` := True."""
    return {"enable_tf32_matmul": True}
