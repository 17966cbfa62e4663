"""Capability tables (backend × capability), engine-neutral, rendered as text, md, html or json.

A pack builds a ``CapabilityTable`` from whatever evidence it has (the SGLang pack probes
its rules: ``resolvable.sglang.capabilities``); this module only holds the row model and
renders it, so another engine's rows use the same renderers.

Invariants: rendering is deterministic (same table, same bytes: the generated docs are
checked for staleness); an ``Entry`` keeps its evidence (``detail`` lines and the ``probes``
behind them), so no format drops the reason for a ✗; the HTML page is self-contained.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

#: Entry statuses, from best to worst; the renderers style by status.
STATUSES = ("yes", "partial", "fallback", "no", "info", "n/a")
SCHEMA = "resolvable.backends/1"


@dataclasses.dataclass(frozen=True)
class Probe:
    """One attempt behind an entry: an input on a platform and what came of it."""

    platform: str
    inputs: str  # e.g. "llama-3.1-8b --attention-backend fa3 --kv-cache-dtype fp8_e4m3"
    status: str  # "yes" (accepted as asked), "fallback" (accepted, replaced), "no" (refused)
    result: str = ""  # what was resolved, e.g. "fa3, page 1" or "-> triton"
    rule: str | None = None  # the refusing (or replacing) rule
    message: str | None = None
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One cell: a short ``text`` for the table, a ``status``, and the evidence."""

    text: str
    status: str = "info"
    detail: tuple[str, ...] = ()
    probes: tuple[Probe, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "status": self.status,
            "detail": list(self.detail),
            "probes": [p.to_dict() for p in self.probes],
        }


@dataclasses.dataclass(frozen=True)
class Column:
    key: str
    title: str
    doc: str  # how the column is determined (printed under the table)


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    entries: Mapping[str, Entry]


@dataclasses.dataclass(frozen=True)
class CapabilityTable:
    engine: str
    version: str
    title: str
    basis: str  # how the table was generated, in a paragraph
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    legend: tuple[tuple[str, str], ...] = ()  # (symbol, meaning)

    def select(self, names: Sequence[str]) -> CapabilityTable:
        """The same table with only these rows (in the table's order)."""
        wanted = set(names)
        return dataclasses.replace(self, rows=tuple(r for r in self.rows if r.name in wanted))

    def render(self, fmt: str, *, notes: bool = True) -> str:
        renderers = {"text": _text, "md": _markdown, "html": _html, "json": _json}
        return renderers[fmt](self, notes)


def _entry(row: Row, key: str) -> Entry:
    return row.entries.get(key) or Entry("", "n/a")


def _text(t: CapabilityTable, notes: bool) -> str:
    from ._text import table

    head = [c.title for c in t.columns]
    rows = [[row.name] + [_entry(row, c.key).text for c in t.columns[1:]] for row in t.rows]
    out = [f"{t.title}", "", table(head, rows)]
    if notes:
        out += ["", *(f"{s}  {m}" for s, m in t.legend)]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(t: CapabilityTable, notes: bool) -> str:
    out = []
    if notes:
        out += [f"# {t.title}", "", t.basis, ""]
    out.append("| " + " | ".join(c.title for c in t.columns) + " |")
    out.append("|" + "---|" * len(t.columns))
    for row in t.rows:
        cells = [f"`{row.name}`"] + [_md_cell(_entry(row, c.key).text) for c in t.columns[1:]]
        out.append("| " + " | ".join(cells) + " |")
    if notes:
        if t.legend:
            out += ["", " · ".join(f"{s} {m}" for s, m in t.legend)]
        out += ["", "## Columns", ""]
        out += [f"- **{c.title}**: {c.doc}" for c in t.columns]
    return "\n".join(out) + "\n"


def _json(t: CapabilityTable, notes: bool) -> str:
    import json

    data = {
        "schema": SCHEMA,
        "engine": t.engine,
        "version": t.version,
        "title": t.title,
        "basis": t.basis,
        "columns": [dataclasses.asdict(c) for c in t.columns],
        "rows": [
            {"name": r.name, "entries": {c.key: _entry(r, c.key).to_dict() for c in t.columns[1:]}}
            for r in t.rows
        ],
    }
    return json.dumps(data, indent=2) + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:20px;color:#1d1d1f}
h1{font-size:20px} p,li{max-width:75em;color:#333}
.wrap{overflow:auto;max-height:85vh;border:1px solid #d0d0d7}
table{border-collapse:separate;border-spacing:0;font-size:12.5px}
th,td{border-right:1px solid #d0d0d7;border-bottom:1px solid #d0d0d7;padding:4px 6px;vertical-align:top;text-align:left}
thead th{background:#eef0f6;position:sticky;top:0;z-index:2}
tbody th{position:sticky;left:0;background:#fafafa;z-index:1;white-space:nowrap}
td.yes{background:#e3f4e1} td.partial{background:#fff4d6} td.fallback{background:#e6ecf7}
td.no{background:#fbe3e3} td.n\\/a{color:#777}
summary{cursor:pointer} .d{font-size:11px;margin:4px 0 0;padding-left:1.2em;min-width:20em}
"""


def _html(t: CapabilityTable, notes: bool) -> str:
    import html

    esc = html.escape
    head = "".join(f'<th scope=col title="{esc(c.doc)}">{esc(c.title)}</th>' for c in t.columns)
    body = []
    for row in t.rows:
        tds = [f"<th scope=row><code>{esc(row.name)}</code></th>"]
        for c in t.columns[1:]:
            e = _entry(row, c.key)
            status = e.status if e.status in STATUSES else "info"
            if e.detail:
                items = "".join(f"<li>{esc(d)}</li>" for d in e.detail)
                inner = f"<details><summary>{esc(e.text)}</summary><ul class=d>{items}</ul></details>"
            else:
                inner = esc(e.text)
            tds.append(f'<td class="{status}">{inner}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    legend = " · ".join(f"{esc(s)} {esc(m)}" for s, m in t.legend)
    cols = "".join(f"<li><b>{esc(c.title)}</b>: {esc(c.doc)}</li>" for c in t.columns)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(t.title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{esc(t.title)}</h1><p>{esc(t.basis)}</p><p>{legend}</p>"
        f'<div class="wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
        f"<h2>Columns</h2><ul>{cols}</ul></body></html>\n"
    )
