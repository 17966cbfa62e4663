"""The HTML page of a matrix comparison (``resolvable matrix --vs-sglang-version V --format html``).

Invariants: built from the support-matrix page's pieces (``matrix_html``: the page, the cells,
the legend, the filter), so a value looks the same on both pages and the page is as
self-contained (no network asset); one row per changed cell, both releases side by side, the
deciding rules with their release ranges under the values; the summary ("N of M cells change")
is always shown, and with no change the table says so in its one row.
"""

from __future__ import annotations

import html

from .matrix import Cell
from .matrix_diff import CellChange, MatrixDiff, rule_range
from .matrix_diff import messages as _messages
from .matrix_diff import ranged as _ranged
from .matrix_diff import show as _show
from .matrix_html import cell_td, legend, page, value_index
from .models import bundled, catalog

_CSS = """
td.what{text-align:left;white-space:normal;min-width:16em;max-width:30em}
td.what ul{margin:0;padding-left:1.1em} td.what li{margin:1px 0}
p.summary{font-size:15px;margin:6px 0}
"""


def _by(c: Cell) -> list[str]:
    """The deciding rules of a cell, each with its release range."""
    where = c.decided_at
    return [
        _ranged(who, rule_range(who, where[i] if i < len(where) else None))
        for i, who in enumerate(c.deciders)
    ]


def _what(change: CellChange, before: str, after: str) -> str:
    esc = html.escape
    items = [
        f"<li><code>{esc(f.field)}</code>: {esc(_show(f.before))} → {esc(_show(f.after))}</li>"
        for f in change.fields
    ]
    what = change.outcome_change
    if what is not None:
        shown = _messages(change)
        lines = [f"<b>{esc(what)}</b>"]
        for side, release in (("before", before), ("after", after)):
            refusal = change.refusal(side)
            if refusal is not None:
                rule = _ranged(refusal["rule"], refusal["releases"]) if refusal["rule"] else "?"
                lines.append(f"{esc(release)}: {esc(shown[side])} <code>[{esc(rule)}]</code>")
        items.append("<li>" + "<br>".join(lines) + "</li>")
    return f'<td class="what"><ul>{"".join(items)}</ul></td>'


def render_diff_html(diff: MatrixDiff, title: str) -> str:
    esc = html.escape
    sides = [c.before for c in diff.changes] + [c.after for c in diff.changes]
    index = value_index(sides)
    cat = catalog()
    rows = []
    for c in diff.changes:
        arch = bundled(c.model).architecture if c.model in cat else ""
        label = (
            f"<th scope=row>{esc(c.model)}"
            + (f"<br><code>{esc(arch)}</code>" if arch else "")
            + f"<br>on <b>{esc(c.platform)}</b></th>"
        )
        tds = [
            cell_td(c.before, c.platform, index, by=_by(c.before)),
            cell_td(c.after, c.platform, index, by=_by(c.after)),
            _what(c, diff.before, diff.after),
        ]
        rows.append("<tr>" + label + "".join(tds) + "</tr>")
    about = (
        f'<p class="summary"><b>{esc(diff.summary)}</b>.</p>'
        f'<p class="about">Only the cells that change are listed: a row per (model, platform) whose '
        f"<code>{esc(' / '.join(diff.fields))}</code>, outcome (accepted, refused, refused at start-up) "
        f"or refusal differs between sglang <b>{esc(diff.before)}</b> and <b>{esc(diff.after)}</b>, with "
        "both releases side by side. Under each value: the rule that decided it and the releases that "
        "rule applies to. Colour and pattern follow the first field, as on the support matrix page; a "
        "refused cell opens to sglang's message, the fix and the refusing rule.</p>"
    )
    none = (
        f"no cell changes between sglang {diff.before} and {diff.after}"
        if not diff.changes
        else "no changed cell matches the filter"
    )
    name = title or f"Support matrix: sglang {diff.before} → {diff.after}"
    return page(
        name,
        about,
        columns=["model / platform", f"sglang {diff.before}", f"sglang {diff.after}", "what changes"],
        rows=rows,
        index=index,
        legend_html=legend(index, sides, diff.fields[0]),
        nouns=("changed cells", "columns"),
        none=none,
        count=f"{len(diff.changes)} of {diff.cells} cells change",
        css=_CSS,
    )
