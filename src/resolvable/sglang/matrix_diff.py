"""Upgrade impact over a support matrix: the cells that change between two sglang releases.

Invariants:

* both matrices come from ``matrix.compute`` with the same models, platforms, fields, flags and
  environment; only the release differs, so every change listed is the release's doing;
* a cell changes when one of its fields has another value, when its outcome changes (accepted,
  refused, refused at start-up), or when it is refused on both sides with another message. A
  deciding rule that is renamed but gives the same value is not a change (each release's rules
  have their own names, ``docs/sglang-releases.md``);
* every change names the deciding (or refusing) rule on each side with its release range from
  the registry (``ReleaseRange.describe``); the summary counts every cell, so "0 of M cells
  change" is said, never an empty table alone;
* rendering is deterministic, in the formats of the matrix (text, md, csv, json, html).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Mapping, Sequence

from ..errors import InvalidArgumentError
from .matrix import DEFAULT_FIELDS, Cell, cell_record, compute, release_of
from .matrix import short_reason as _short_reason
from .matrix import show as _show

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

#: A cell's outcome: JSON token → words.
OUTCOMES = {"accepted": "accepted", "refused": "refused", "startup_refused": "refused at start-up"}


def outcome(c: Cell) -> str:
    """``accepted``, ``refused`` (ServerArgs refuses) or ``startup_refused`` (accepted, refused at start-up)."""
    if c.values is None:
        return "refused"
    return "accepted" if c.startup_refusal is None else "startup_refused"


def _refusal_message(c: Cell) -> str | None:
    if c.values is None:
        return c.message or c.refusal
    return c.startup_refusal


def _refusal_rule(c: Cell) -> tuple[str | None, str | None]:
    if c.values is None:
        return c.refused_by, c.refused_at
    return c.startup_refused_by, c.startup_refused_at


def rule_range(rule: str | None, location: str | None) -> str | None:
    """The release range of a registered rule in words (``since 0.5.15``, ``all releases``),
    or None for anything else ("user", "default", a load-time adjustment)."""
    from ._base import registry
    from .api import rule_releases

    if rule is None:
        return None
    releases = rule_releases(rule, location)
    return None if releases is None else releases.describe(registry.releases)


@dataclasses.dataclass(frozen=True)
class FieldChange:
    """One field with another value on the second release, and the rule behind each value."""

    field: str
    before: Any
    after: Any
    decided_before: str
    decided_after: str
    #: Release ranges of the deciding rules (None: not a registered rule).
    releases_before: str | None
    releases_after: str | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class CellChange:
    """A (model, platform) cell that differs between the two releases."""

    model: str
    platform: str
    before: Cell
    after: Cell
    #: The fields that change (only when both sides have values).
    fields: tuple[FieldChange, ...]

    @property
    def outcome_change(self) -> str | None:
        """``accepted → refused``, ``refused → accepted``, ``different refusal`` … or None when
        the outcome (and any refusal message) stays."""
        old, new = outcome(self.before), outcome(self.after)
        if old != new:
            return f"{OUTCOMES[old]} → {OUTCOMES[new]}"
        if old != "accepted" and _refusal_message(self.before) != _refusal_message(self.after):
            return "different refusal" if old == "refused" else "different start-up refusal"
        return None

    def refusal(self, side: str) -> dict[str, Any] | None:
        """The refusal of one side (``"before"``/``"after"``): message, rule, location, release range."""
        c = self.before if side == "before" else self.after
        message = _refusal_message(c)
        if message is None:
            return None
        rule, location = _refusal_rule(c)
        fix = c.fix if c.values is None else c.startup_fix
        return {
            "message": message,
            "rule": rule,
            "location": location,
            "releases": rule_range(rule, location),
            "fix": fix,
        }


@dataclasses.dataclass(frozen=True)
class MatrixDiff:
    """What changes in a support matrix between sglang ``before`` and ``after``."""

    before: str
    after: str
    fields: tuple[str, ...]
    #: How many cells each matrix has (the same grid on both sides).
    cells: int
    changes: tuple[CellChange, ...]

    @property
    def summary(self) -> str:
        cells = "cell changes" if self.cells == 1 else "cells change"
        line = f"{len(self.changes)} of {self.cells} {cells} between sglang {self.before} and {self.after}"
        if not self.changes:
            line += " (every cell has the same values, the same outcome and the same refusal on both)"
        return line


def _field_changes(before: Cell, after: Cell, fields: Sequence[str]) -> tuple[FieldChange, ...]:
    if before.values is None or after.values is None:
        return ()
    changes = []
    for i, f in enumerate(fields):
        old, new = before.values[f], after.values[f]
        if old == new:
            continue
        who_before, where_before = _decider(before, i)
        who_after, where_after = _decider(after, i)
        changes.append(
            FieldChange(
                f,
                old,
                new,
                who_before,
                who_after,
                _cell_range(before, i, who_before, where_before),
                _cell_range(after, i, who_after, where_after),
            )
        )
    return tuple(changes)


def _cell_range(c: Cell, i: int, rule: str, location: str | None) -> str | None:
    """The release range behind field ``i`` of ``c`` (the one the cell recorded, else the rule's)."""
    if i < len(c.decided_ranges) and c.decided_ranges[i] is not None:
        return c.decided_ranges[i]
    return rule_range(rule, location)


def _decider(c: Cell, i: int) -> tuple[str, str | None]:
    who = c.deciders[i] if i < len(c.deciders) else "?"
    where = c.decided_at[i] if i < len(c.decided_at) else None
    return who, where


def compare(
    before: Sequence[Cell], after: Sequence[Cell], fields: Sequence[str] = DEFAULT_FIELDS
) -> MatrixDiff:
    """The cells of ``after`` that differ from the same (model, platform) cell of ``before``."""
    old = {(c.model, c.platform): c for c in before}
    new = {(c.model, c.platform): c for c in after}
    if list(old) != list(new):
        missing = sorted(set(old) ^ set(new))
        raise InvalidArgumentError(
            f"the two matrices do not have the same cells (e.g. {missing[:3]}); compute both with the "
            "same models and platforms"
        )
    changes = []
    for key, b in old.items():
        a = new[key]
        change = CellChange(key[0], key[1], b, a, _field_changes(b, a, fields))
        if change.fields or change.outcome_change is not None:
            changes.append(change)
    return MatrixDiff(release_of(before), release_of(after), tuple(fields), len(old), tuple(changes))


def compute_diff(
    models: Sequence[str],
    platforms: Sequence[str],
    fields: Sequence[str] = DEFAULT_FIELDS,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    before: str | None,
    after: str,
    **kw: Any,
) -> MatrixDiff:
    """Two matrices (``matrix.compute``, once per release, same inputs) and what changes between them."""
    old = compute(models, platforms, fields, flags, env, sglang_version=before, **kw)
    new = compute(models, platforms, fields, flags, env, sglang_version=after, **kw)
    return compare(old, new, fields)


# -- rendering ----------------------------------------------------------------------------------


def render_diff(diff: MatrixDiff, fmt: str, *, title: str = "") -> str:
    renderers = {"text": _text, "md": _markdown, "csv": _csv, "json": _json, "html": _html}
    return renderers[fmt](diff, title)


def gist(a: str, b: str, context: int = 30, limit: int = 150) -> tuple[str, str]:
    """Two messages cut to where they differ (``context`` characters kept on each side, at a
    word boundary; at most ``limit`` characters each), so that a change deep in a long message
    (one more name in a list) shows in a table."""
    p = _common(a, b)
    q = _common(a[p:][::-1], b[p:][::-1])
    start = max(0, p - context)
    if start:
        start = a.find(" ", start, p) + 1 or start

    def cut(s: str) -> str:
        stop = min(len(s), len(s) - q + context)
        if stop < len(s):
            space = s.rfind(" ", len(s) - q, stop)
            stop = space if space > len(s) - q else stop
        text, more = s[start:stop], stop < len(s)
        if len(text) > limit:
            text, more = text[: limit - 1], True
        return ("…" if start else "") + text + ("…" if more else "")

    return cut(a), cut(b)


def _common(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _ranged(rule: str | None, releases: str | None) -> str:
    return (rule or "?") + (f" ({releases})" if releases else "")


def _items(change: CellChange) -> list[tuple[str, str, str]]:
    """(what, before, after) rows in words: one per field, then the outcome if it changes."""
    rows = [
        (
            f.field,
            f"{_show(f.before)}  by {_ranged(f.decided_before, f.releases_before)}",
            f"{_show(f.after)}  by {_ranged(f.decided_after, f.releases_after)}",
        )
        for f in change.fields
    ]
    what = change.outcome_change
    if what is not None:
        old, new = _side_text(change, "before"), _side_text(change, "after")
        rows.append((what, old, new))
    return rows


def _side_text(change: CellChange, side: str) -> str:
    """One side of an outcome change: its values, and its refusal with the refusing rule."""
    c = change.before if side == "before" else change.after
    values = " / ".join(_show(v) for v in c.values.values()) if c.values is not None else ""
    refusal = change.refusal(side)
    if refusal is None:
        return values
    by = _ranged(refusal["rule"], refusal["releases"]) if refusal["rule"] else "refused before the rules ran"
    lead = f"{values} ✗ start-up: " if c.values is not None else "✗ "
    return f"{lead}{_messages(change)[side]}  [{by}]"


def _messages(change: CellChange) -> dict[str, str]:
    """The refusals as the tables show them: in short, or, when both sides are refused the same
    way with another message, each cut to where the two differ."""
    old, new = change.refusal("before"), change.refusal("after")
    if old is not None and new is not None and outcome(change.before) == outcome(change.after):
        a, b = gist(old["message"], new["message"])
        return {"before": a, "after": b}
    return {
        side: _short_reason(r["message"]) for side, r in (("before", old), ("after", new)) if r is not None
    }


def _head(diff: MatrixDiff, title: str) -> list[str]:
    return ([title] if title else []) + [
        f"sglang {diff.before} → {diff.after}",
        f"cells: {' / '.join(diff.fields)}",
        "",
        diff.summary,
    ]


def _text(diff: MatrixDiff, title: str) -> str:
    from ..rules import table

    out = _head(diff, title)
    if diff.changes:
        rows = [[c.model, c.platform, what, old, new] for c in diff.changes for what, old, new in _items(c)]
        out += [
            "",
            table(["model", "platform", "change", f"sglang {diff.before}", f"sglang {diff.after}"], rows),
        ]
    return "\n".join(out) + "\n"


def _markdown(diff: MatrixDiff, title: str) -> str:
    out = [f"# {title}", ""] if title else []
    out += [
        f"sglang **{diff.before}** → **{diff.after}**; cells: `{' / '.join(diff.fields)}`. Each row is a "
        "field that changes (with the rule that decides it on each release and that rule's release "
        "range) or an outcome that changes (✗ = refused, with the refusing rule).",
        "",
        f"**{diff.summary}.**",
    ]
    if diff.changes:
        out += [
            "",
            f"| model | platform | change | sglang {diff.before} | sglang {diff.after} |",
            "|---|---|---|---|---|",
        ]
        for c in diff.changes:
            for what, old, new in _items(c):
                row = [c.model, c.platform, what, old, new]
                out.append("| " + " | ".join(x.replace("|", "\\|") for x in row) + " |")
    return "\n".join(out) + "\n"


def _csv(diff: MatrixDiff, title: str) -> str:
    """One row per changed field, and one per changed outcome (``change`` = ``outcome``, the
    values columns hold the outcome tokens, the message columns the whole refusals)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "model",
            "platform",
            "change",
            "before",
            "after",
            "decided_before",
            "releases_before",
            "decided_after",
            "releases_after",
            "message_before",
            "message_after",
            "sglang_before",
            "sglang_after",
        ]
    )
    for c in diff.changes:
        for f in c.fields:
            writer.writerow(
                [
                    c.model,
                    c.platform,
                    f.field,
                    _show(f.before),
                    _show(f.after),
                    f.decided_before,
                    f.releases_before or "",
                    f.decided_after,
                    f.releases_after or "",
                    "",
                    "",
                    diff.before,
                    diff.after,
                ]
            )
        if c.outcome_change is not None:
            old, new = c.refusal("before") or {}, c.refusal("after") or {}
            writer.writerow(
                [
                    c.model,
                    c.platform,
                    "outcome",
                    outcome(c.before),
                    outcome(c.after),
                    old.get("rule") or "",
                    old.get("releases") or "",
                    new.get("rule") or "",
                    new.get("releases") or "",
                    old.get("message") or "",
                    new.get("message") or "",
                    diff.before,
                    diff.after,
                ]
            )
    return buf.getvalue()


def diff_record(diff: MatrixDiff) -> dict[str, Any]:
    """The ``resolvable.matrix-diff/1`` document (docs/cli-json.md)."""
    return {
        "schema": "resolvable.matrix-diff/1",
        "sglang": {"from": diff.before, "to": diff.after},
        "fields": list(diff.fields),
        "cells": diff.cells,
        "changed": len(diff.changes),
        "summary": diff.summary,
        "changes": [
            {
                "model": c.model,
                "platform": c.platform,
                "outcome": {
                    "from": outcome(c.before),
                    "to": outcome(c.after),
                    "change": c.outcome_change,
                },
                "refusal": {"from": c.refusal("before"), "to": c.refusal("after")},
                "fields": [f.to_dict() for f in c.fields],
                "from": _side_record(c.before),
                "to": _side_record(c.after),
            }
            for c in diff.changes
        ],
    }


def _side_record(c: Cell) -> dict[str, Any]:
    record = cell_record(c)
    del record["model"], record["platform"]
    return record


def _json(diff: MatrixDiff, title: str) -> str:
    return json.dumps(diff_record(diff), indent=2, default=repr) + "\n"


def _html(diff: MatrixDiff, title: str) -> str:
    from .matrix_diff_html import render_diff_html  # its own module, on the matrix page's pieces

    return render_diff_html(diff, title)


#: Public names of the helpers the HTML view shares (the same functions).
messages = _messages
ranged = _ranged
show = _show
