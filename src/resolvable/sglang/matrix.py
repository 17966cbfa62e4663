"""Support matrices: models × platforms, one cell per resolution, in five formats.

Invariants: a cell holds the resolved values of the chosen fields or the refusal: the rule
and its ``file:line``, the whole message, a short form of it, and the fix checked by resolving
again (``resolvable._fixes``). The JSON and CSV carry the whole message and fix; only the
text, Markdown and HTML tables show the short form. Rendering is deterministic (same rules → same bytes), so the generated docs
can be checked for staleness; the HTML page is self-contained (no network assets).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import html
import io
import json
from collections.abc import Iterable, Mapping, Sequence

from .._platform import Platform
from ..errors import ConflictError, ResolvableError
from ._base import SGLANG_VERSION
from .api import resolve_server_args
from .fixes import check_refusal
from .models import bundled, catalog

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_FIELDS = ("attention_backend", "page_size")


@dataclasses.dataclass(frozen=True)
class Cell:
    model: str
    platform: str
    values: Mapping[str, Any] | None  # None when refused
    refusal: str | None = None
    refused_by: str | None = None
    chain: tuple[str, ...] = ()  # "field: rule -> value" lines, for hover text
    message: str | None = None  # the whole refusal message (``refusal`` is its short form)
    fix: str | None = None  # the fix, checked by resolving again
    location: str | None = None  # file:line of the refusing rule
    fix_check: Mapping[str, Any] | None = None  # FixCheck.to_dict(): status, accepted changes …

    @property
    def text(self) -> str:
        if self.values is None:
            return f"refused: {self.refusal}"
        return " / ".join(_show(v) for v in self.values.values())


def _show(value: Any) -> str:
    return "-" if value is None else str(value)


def _short_reason(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    first = message.split(". ")[0].split("\n")[0]
    return first if len(first) <= 90 else first[:87] + "..."


def compute(
    models: Sequence[str],
    platforms: Sequence[str],
    fields: Sequence[str] = DEFAULT_FIELDS,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    hf_loader: Any = bundled,
) -> list[Cell]:
    """Resolve every (model, platform) pair with the same flags."""
    cells = []
    plats = [(name, Platform.preset(name)) for name in platforms]
    for model in models:
        hf = hf_loader(model)
        for pname, platform in plats:
            try:
                res = resolve_server_args(hf, platform, env, **dict(flags or {}))
            except ConflictError as exc:
                check = check_refusal(exc, hf, platform, env, flags)
                cells.append(
                    Cell(
                        model,
                        pname,
                        None,
                        _short_reason(exc),
                        exc.rule,
                        message=exc.message,
                        fix=check.text,
                        location=exc.location,
                        fix_check=check.to_dict(),
                    )
                )
                continue
            except ResolvableError as exc:
                cells.append(Cell(model, pname, None, _short_reason(exc), message=str(exc)))
                continue
            values = {f: res[f] for f in fields}
            chain = tuple(f"{f}: {res.decided_by(f)[0]} -> {_show(res[f])}" for f in fields)
            cells.append(Cell(model, pname, values, chain=chain))
    return cells


def _grid(cells: Iterable[Cell]) -> tuple[list[str], list[str], dict[tuple[str, str], Cell]]:
    models: list[str] = []
    platforms: list[str] = []
    by_key = {}
    for c in cells:
        if c.model not in models:
            models.append(c.model)
        if c.platform not in platforms:
            platforms.append(c.platform)
        by_key[(c.model, c.platform)] = c
    return models, platforms, by_key


def _cell_text(c: Cell) -> str:
    return "✗ " + (c.refusal or "") if c.values is None else c.text


def render(cells: Sequence[Cell], fmt: str, *, fields: Sequence[str], title: str = "") -> str:
    renderers = {"text": _text, "md": _markdown, "csv": _csv, "json": _json, "html": _html}
    return renderers[fmt](cells, fields, title)


def _text(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    from .._text import table

    models, platforms, by_key = _grid(cells)
    rows = []
    for m in models:
        rows.append(
            [m]
            + [
                _cell_text(by_key[(m, p)])
                if len(_cell_text(by_key[(m, p)])) < 40
                else _cell_text(by_key[(m, p)])[:37] + "..."
                for p in platforms
            ]
        )
    head = f"{title}\ncells: {' / '.join(fields)}\n\n" if title else f"cells: {' / '.join(fields)}\n\n"
    return head + table(["model", *platforms], rows) + "\n"


def _markdown(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    models, platforms, by_key = _grid(cells)
    out = [f"# {title}", ""] if title else []
    out += [f"Cells: `{' / '.join(fields)}`; ✗ = sglang refuses the configuration (reason in short).", ""]
    out.append("| model | architecture | " + " | ".join(platforms) + " |")
    out.append("|---|---|" + "---|" * len(platforms))
    cat = catalog()
    for m in models:
        arch = bundled(m).architecture if m in cat else ""
        row = [_cell_text(by_key[(m, p)]).replace("|", "\\|") for p in platforms]
        out.append(f"| {m} | `{arch}` | " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def _csv(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        ["model", "platform", *fields, "refused", "refused_by", "refused_at", "fix", "fix_status"]
    )
    for c in cells:
        values = [_show(c.values[f]) for f in fields] if c.values is not None else [""] * len(fields)
        status = (c.fix_check or {}).get("status", "")
        writer.writerow(
            [
                c.model,
                c.platform,
                *values,
                c.message or "",
                c.refused_by or "",
                c.location or "",
                c.fix or "",
                status,
            ]
        )
    return buf.getvalue()


def _json(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    data = {
        "schema": "resolvable.matrix/1",
        "sglang": SGLANG_VERSION,
        "fields": list(fields),
        "cells": [
            {
                "model": c.model,
                "platform": c.platform,
                "values": dict(c.values) if c.values is not None else None,
                "refused": c.message,
                "refused_short": c.refusal,
                "refused_by": c.refused_by,
                "refused_at": c.location,
                "fix": c.fix,
                "fix_check": dict(c.fix_check) if c.fix_check is not None else None,
                "chain": list(c.chain),
            }
            for c in cells
        ],
    }
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def _color(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return f"hsl({digest[0] * 360 // 256}, 65%, 86%)"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d1d1f}
h1{font-size:20px} p{color:#555;max-width:70em}
table{border-collapse:collapse;font-size:12.5px}
th,td{border:1px solid #d0d0d7;padding:4px 6px;text-align:center;white-space:nowrap}
th{background:#f4f4f8;position:sticky;top:0}
td.model{text-align:left;font-weight:600;background:#fafafa}
td.refused{background:#fde2e2;color:#8a1c1c;white-space:normal;max-width:14em;font-size:11px}
td[title]{cursor:help}
.legend span{display:inline-block;margin:2px 4px;padding:2px 6px;border-radius:3px}
"""


def _html(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    models, platforms, by_key = _grid(cells)
    esc = html.escape
    rows = []
    seen_values: dict[str, str] = {}
    for m in models:
        tds = [f'<td class="model">{esc(m)}</td>']
        for p in platforms:
            c = by_key[(m, p)]
            if c.values is None:
                tip = f"refused by {c.refused_by}: {c.refusal}" if c.refused_by else str(c.refusal)
                tds.append(f'<td class="refused" title="{esc(tip)}">✗ {esc(c.refusal or "")}</td>')
            else:
                first = _show(next(iter(c.values.values())))
                seen_values.setdefault(first, _color(first))
                tds.append(
                    f'<td style="background:{seen_values[first]}" title="{esc(chr(10).join(c.chain))}">'
                    f"{esc(c.text)}</td>"
                )
        rows.append("<tr>" + "".join(tds) + "</tr>")
    legend = "".join(
        f'<span style="background:{color}">{esc(v)}</span>' for v, color in sorted(seen_values.items())
    )
    head = "<tr><th>model</th>" + "".join(f"<th>{esc(p)}</th>" for p in platforms) + "</tr>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title or 'resolvable support matrix')}</title><style>{_CSS}</style></head><body>"
        f"<h1>{esc(title or 'resolvable support matrix')}</h1>"
        f"<p>Cells show <code>{esc(' / '.join(fields))}</code> as sglang {SGLANG_VERSION} resolves them; "
        "colour = first field's value; hover a cell for the rule that decided each field; red = refused.</p>"
        f'<p class="legend">{legend}</p>'
        f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></body></html>\n"
    )
