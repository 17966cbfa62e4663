"""Step 10i (spec §2.2): the sparse embeddings head runs without the overlap scheduler.

Invariant: reads only the environment mapping given to the resolution.
"""

from __future__ import annotations

from .._base import registry


@registry.rule("model_tail")
def sparse_head_overlap_disable(ctx):
    """``SGLANG_EMBEDDINGS_SPARSE_HEAD`` set → ``disable_overlap_schedule`` := True."""
    if ctx.env.get("SGLANG_EMBEDDINGS_SPARSE_HEAD") is not None and not ctx.args.disable_overlap_schedule:
        return {"disable_overlap_schedule": True}
    return {}
