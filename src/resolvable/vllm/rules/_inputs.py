"""Shared reading of the rule context: the layer queries and the chosen backends.

Invariant: pure functions of the rule context; every rule that needs the per-kind queries
rebuilds them from the view (declarations so far), so no state passes between rules except
through declared fields. The memo of release stamps below keeps only pure results (a query and a
release give one stamp) and replays the release reads on a hit, so a rule asks exactly the
changes a fresh stamp would ask, in the same order (release ranges and ``explain`` are unchanged).
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
    present = ctx.release.present
    has = ctx.release.has
    stamped = []
    for q in out:
        key = (q, present)
        hit = _STAMPS.get(key)
        if hit is None:
            hit = _stamp(q, has, present)
            if len(_STAMPS) >= _STAMPS_MAX:
                _STAMPS.clear()
            _STAMPS[key] = hit
        else:
            for change in hit[1]:  # the release reads a fresh stamp makes (traced, recorded)
                has(change)
        stamped.append(hit[0])
    return stamped


#: (query, the release's changes) -> (the query with its release answers, the changes it asks): rules rebuild the
#: same few queries on every resolution; a stamp is a pure function of the two.
_STAMPS: dict[tuple[LayerQuery, Any], tuple[LayerQuery, tuple[Any, ...]]] = {}
_STAMPS_MAX = 4096


def _stamp(q: LayerQuery, has: Any, present: frozenset[Any]) -> tuple[LayerQuery, tuple[Any, ...]]:
    """``q`` with its release answers (``changes_of``, asking ``has``), and the changes it asked."""
    asked: list[Any] = []

    def asking(change: Any) -> bool:
        asked.append(change)
        return has(change)

    return q._replace(changes=changes_of(q, asking, present)), tuple(asked)


def chosen(ctx: Any) -> list[tuple[LayerQuery, str]]:
    """(query, backend) for every layer kind that has a backend."""
    out = []
    for q in queries(ctx):
        name = ctx.args[KIND_FIELDS[q.kind]]
        if name is not None:
            out.append((q, name))
    return out
