"""Shared reading of the rule context: the layer queries and the chosen backends.

Invariant: pure functions of the rule context; every rule that needs the per-kind queries
rebuilds them from the view (declarations so far), so no state passes between rules except
through declared fields.
"""

from __future__ import annotations

from ..args import KIND_FIELDS
from ..layers import changes_of, layer_queries
from ..query import LayerQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def user_block_size(ctx: Any) -> int | None:
    """``cache_config.user_specified_block_size``: the block size reaches the selector only when the user set it."""
    return ctx.args.block_size if ctx.user_set("block_size") else None


def queries(ctx: Any) -> list[LayerQuery]:
    """The per-kind queries for the current view (after the backends are chosen: with them)."""
    out = layer_queries(
        ctx.hf,
        ctx.args,
        ctx.platform,
        ctx.env,
        user_block_size=user_block_size(ctx),
        kernels=frozenset(ctx.args.installed_kernels),
    )
    present = ctx.release.changes.present(ctx.release.version) if ctx.release.version else frozenset()
    # The release's answers; the reads that can matter for a layer are traced here.
    return [q._replace(changes=changes_of(q, ctx.release.has, present)) for q in out]


def chosen(ctx: Any) -> list[tuple[LayerQuery, str]]:
    """(query, backend) for every layer kind that has a backend."""
    out = []
    for q in queries(ctx):
        name = ctx.args[KIND_FIELDS[q.kind]]
        if name is not None:
            out.append((q, name))
    return out
