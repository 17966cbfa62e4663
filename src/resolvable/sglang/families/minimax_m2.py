"""MiniMax-M2 (spec §3.17).

Invariant: TF32 matmuls are always allowed (0.5.15); attention is left to the generic default.
"""

from __future__ import annotations

from .._base import registry


@registry.rule("model", archs=("MiniMaxM2ForCausalLM",), since="0.5.15")
def minimax_m2_tf32(ctx):
    """§3.17 (since 0.5.15, spec §9 #9): ``enable_tf32_matmul`` := True (0.5.14 has no such field)."""
    return {"enable_tf32_matmul": True}
