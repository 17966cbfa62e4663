"""The HTML page of ``resolvable compare --html``: a model × GPU grid of two engines, one launch
per cell, in the style of the support matrix (docs/support-matrix.html): a self-contained page
(no network), a sticky header, a filter box (a model, a preset or a value), a legend.

Each cell shows, for each engine, the verdict, the attention backend, the KV page size and the
KV-cache tokens per rank; a value that differs between the two engines is marked (``diff``), and
the rows' reasons (each side's deciding rule) sit in a ``<details>`` under the cell.

Invariants: the page is built from ``resolvable.compare/1`` documents only (the same that
``compare --json`` prints), so the page and the JSON never disagree; every text is escaped; the
page names the release of each engine; a cell whose comparison failed says why.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["render_grid"]

#: The rows a cell shows, by their name in ``resolvable.compare/1``.
CELL_ROWS = ("verdict", "attention backend", "KV page size", "KV-cache tokens")
#: The rows whose reasons a cell's ``why`` lists (what the cell shows, and the memory budget).
WHY_ROWS = (*CELL_ROWS, "memory budget")

_CSS = """
:root{--line:#d0d0d7}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:20px;color:#1d1d1f}
h1{font-size:20px;margin:0 0 6px} p.about{color:#444;max-width:75em;margin:4px 0 10px}
.controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0}
.controls input[type=search]{font-size:14px;padding:5px 8px;width:28em;max-width:90vw}
#count{color:#555}
.legend{display:flex;flex-wrap:wrap;gap:4px 10px;list-style:none;padding:0;margin:6px 0 12px;font-size:12px}
.sw{display:inline-block;width:22px;height:14px;border:1px solid #888;vertical-align:middle}
.wrap{overflow:auto;max-height:80vh;border:1px solid var(--line)}
table{border-collapse:separate;border-spacing:0;font-size:12px}
th,td{border-right:1px solid var(--line);border-bottom:1px solid var(--line);padding:3px 5px;vertical-align:top}
thead th{background:#eef0f6;position:sticky;top:0;z-index:2}
thead th:first-child{left:0;z-index:3}
tbody th{position:sticky;left:0;background:#fafafa;text-align:left;z-index:1;white-space:nowrap}
tbody th code{font-size:10px;color:#555;font-weight:normal}
.pair{display:flex;gap:4px}
.eng{flex:1;min-width:10em;padding:2px 4px;border-radius:3px}
.eng b{display:block;font-size:11px}
.eng span{display:block;white-space:nowrap}
.starts{background:#e6f4ea}.refused{background:#fde8e8}.does-not-fit{background:#fff1d6}.error{background:#eee}
.diff{font-weight:700;text-decoration:underline dotted #b00}
details.why{font-size:10.5px;max-width:32em}
details.why summary{cursor:pointer;color:#333}
td.hit{outline:2px solid #1a56db;outline-offset:-2px}
.hide{display:none}
"""

_SCRIPT = """
(function () {
  var q = document.getElementById('q'), count = document.getElementById('count');
  var table = document.getElementById('grid'), headRow = table.tHead.rows[0], body = table.tBodies[0];
  var heads = [], rows = Array.prototype.slice.call(body.rows), i;
  for (i = 1; i < headRow.cells.length; i++) heads.push(headRow.cells[i].textContent.trim().toLowerCase());
  function apply() {
    var tokens = q.value.toLowerCase().split(/\\s+/).filter(Boolean), cols = null, words = [];
    tokens.forEach(function (t) {
      var k, hit = [];
      for (k = 0; k < heads.length; k++) if (heads[k] === t) hit.push(k);
      if (hit.length) { cols = cols || {}; hit.forEach(function (k) { cols[k] = true; }); } else words.push(t);
    });
    var k, shownCols = 0;
    for (k = 0; k < heads.length; k++) {
      var off = cols !== null && !cols[k];
      headRow.cells[k + 1].classList.toggle('hide', off);
      if (!off) shownCols++;
    }
    var shown = 0;
    rows.forEach(function (row) {
      var label = row.cells[0].textContent.toLowerCase(), cells = [], j;
      for (j = 1; j < row.cells.length; j++) {
        var c = row.cells[j], hidden = cols !== null && !cols[j - 1];
        c.classList.toggle('hide', hidden); c.classList.remove('hit');
        if (!hidden) cells.push(c);
      }
      var ok = words.every(function (w) {
        if (label.indexOf(w) >= 0) return true;
        var any = false;
        cells.forEach(function (c) { if (c.textContent.toLowerCase().indexOf(w) >= 0) { c.classList.add('hit'); any = true; } });
        return any;
      });
      row.classList.toggle('hide', !ok);
      if (ok) shown++;
    });
    count.textContent = 'showing ' + shown + ' of ' + rows.length + ' models, ' + shownCols + ' of ' + heads.length + ' GPUs';
  }
  q.addEventListener('input', apply);
  var m = /[#&]q=([^&]*)/.exec(location.hash);
  if (m) q.value = decodeURIComponent(m[1].replace(/\\+/g, ' '));
  apply();
})();
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _cell(doc: Mapping[str, Any] | str, engines: Sequence[str], titles: Mapping[str, str]) -> str:
    if isinstance(doc, str):  # the comparison itself failed: say why
        return f'<td class="error">{_e(doc)}</td>'
    rows = {r["row"]: r for r in doc["rows"]}
    parts = []
    for engine in engines:
        side = doc["sides"][engine]
        outcome = side["verdict"]["status"] if side["verdict"] else "error"
        spans = []
        for name in CELL_ROWS:
            row = rows.get(name)
            if row is None:
                continue
            value = outcome if name == "verdict" else row["values"].get(engine, "-")
            cls = ' class="diff"' if row["differs"] and name != "verdict" else ""
            spans.append(f'<span{cls} title="{_e(name)}">{_e(value)}</span>')
        parts.append(f'<div class="eng {_e(outcome)}"><b>{_e(titles[engine])}</b>{"".join(spans)}</div>')
    why = []
    for r in doc["rows"]:
        if r["row"] in WHY_ROWS and r["differs"] and any(r["reasons"].values()):
            for engine in engines:
                for reason in r["reasons"].get(engine, []):
                    why.append(f"<li>{_e(r['row'])} · {_e(titles[engine])}: {_e(reason)}</li>")
        elif r["row"] == "verdict":
            for engine in engines:
                verdict = doc["sides"][engine]["verdict"] or {}
                said = verdict.get("message") or doc["sides"][engine].get("error")
                if said:
                    status = verdict.get("status", "error")
                    why.append(f"<li>{_e(titles[engine])}: {_e(status)}: {_e(said)}</li>")
    details = f'<details class="why"><summary>why</summary><ul>{"".join(why)}</ul></details>' if why else ""
    return f'<td><div class="pair">{"".join(parts)}</div>{details}</td>'


def render_grid(
    cells: Mapping[tuple[str, str], Mapping[str, Any] | str],
    models: Sequence[tuple[str, str]],
    platforms: Sequence[str],
    engines: Sequence[str],
    titles: Mapping[str, str],
    releases: Mapping[str, str],
    flags: Sequence[str] = (),
) -> str:
    """The page: ``cells[(model, platform)]`` is a ``resolvable.compare/1`` document (or the
    error text of a cell that failed); ``models`` are (name, architecture) pairs."""
    versions = ", ".join(f"{titles[e]} {releases[e]}" for e in engines)
    launch = " ".join(flags) or "(no flags: each engine's defaults)"
    head = "".join(f"<th>{_e(p)}</th>" for p in platforms)
    body = []
    for model, arch in models:
        tds = "".join(_cell(cells[(model, p)], engines, titles) for p in platforms)
        body.append(f"<tr><th>{_e(model)}<br><code>{_e(arch)}</code></th>{tds}</tr>")
    legend = "".join(
        f'<li><span class="sw {c}"></span> {c}</li>' for c in ("starts", "refused", "does-not-fit", "error")
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>resolvable compare: {_e(versions)}</title><style>{_CSS}</style></head>
<body>
<h1>{_e(" vs ".join(titles[e] for e in engines))}: one launch per model and GPU</h1>
<p class="about">Generated by <code>resolvable compare --html</code> ({_e(versions)}). Launch flags: <code>{_e(launch)}</code>,
translated rule by rule into each engine's flags. Each cell: the verdict, the attention backend, the KV page size and
the KV-cache tokens per rank of each engine; a <span class="diff">marked</span> value differs between the engines, and
<i>why</i> names the rule that decided it on each side.</p>
<div class="controls"><input id="q" type="search" placeholder="filter: a model, a GPU preset, a value (fa3, refused)" aria-label="filter">
<span id="count"></span></div>
<ul class="legend">{legend}</ul>
<div class="wrap"><table id="grid"><thead><tr><th>model</th>{head}</tr></thead><tbody>
{"".join(body)}
</tbody></table></div>
<script>{_SCRIPT}</script>
</body></html>
"""
