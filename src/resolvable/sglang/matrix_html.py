"""The HTML support matrix: one self-contained page (inline CSS and script, no network assets).

Invariants:

* the same cells give the same bytes (the page is a generated doc, checked for staleness);
* everything is in the markup: the script only filters, so without JavaScript the page
  still shows every value, every deciding rule and every refusal (in a ``<details>``);
* a value's look depends only on the value: an attention backend has the same colour *and*
  pattern on every page (its place in ``ATTENTION_BACKENDS``), and its name is always printed
  in the cell and in the legend, so colour is never the only carrier;
* nothing is loaded from the network (no ``http(s)://`` and no ``//`` URL in the page).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

from .choices import ATTENTION_BACKENDS
from .models import bundled, catalog

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from .matrix import Cell

#: Overlaid on the colour so that neighbouring hues still differ in print and for colour-blind readers.
_PATTERNS = (
    "none",
    "repeating-linear-gradient(45deg,rgba(0,0,0,.08) 0 2px,transparent 2px 7px)",
    "radial-gradient(rgba(0,0,0,.16) 1px,transparent 1.4px) 0 0/6px 6px",
    "repeating-linear-gradient(-45deg,rgba(0,0,0,.08) 0 2px,transparent 2px 7px)",
    "repeating-linear-gradient(0deg,rgba(0,0,0,.08) 0 1px,transparent 1px 5px)",
)
_REFUSED_PATTERN = (
    "repeating-linear-gradient(45deg,rgba(190,30,30,.2) 0 2px,transparent 2px 7px),"
    "repeating-linear-gradient(-45deg,rgba(190,30,30,.2) 0 2px,transparent 2px 7px)"
)


#: One colour per attention backend (ColorBrewer Set3 and pastel tones, readable under dark text).
#: The backends a default matrix shows most (triton … intel_xpu) get the most distinct ones.
_BACKEND_COLOURS = {
    "triton": "#80b1d3",
    "fa3": "#b3de69",
    "flashinfer": "#bebada",
    "aiter": "#fdb462",
    "trtllm_mha": "#8dd3c7",
    "torch_native": "#d9d9d9",
    "ascend": "#ffed6f",
    "intel_amx": "#bc80bd",
    "dsa": "#ccebc5",
    "dsv4": "#fccde5",
    "fa4": "#e5d8bd",
    "trtllm_mla": "#fb8072",
    "intel_xpu": "#ffffb3",
    "nsa": "#a6dba0",
    "flex_attention": "#f0f0f0",
    "compressed": "#d0e1f2",
    "cutlass_mla": "#f4a582",
    "flashmla": "#d4b9da",
    "cutedsl_mla": "#c7e9c0",
    "tokenspeed_mla": "#fee391",
    "dual_chunk_flash_attn": "#c2a5cf",
    "wave": "#99d8c9",
    # since sglang 0.5.19
    "minicpm_flashattn": "#e6f5d0",
    "minicpm_flashinfer": "#fde0ef",
    "qsa": "#d9f0a3",
    "hpc_ops": "#e0ecf4",
    "llada2_cfg_flashinfer": "#e7d4e8",  # since sglang 0.5.22
}


def style_index(value: str, others: Sequence[str]) -> int:
    """A stable index for a value: its place among the backends, else after them (sorted)."""
    if value in ATTENTION_BACKENDS:
        return ATTENTION_BACKENDS.index(value)
    return len(ATTENTION_BACKENDS) + sorted(others).index(value)


def look(value: str, index: int) -> tuple[str, str]:
    """(background colour, pattern): a backend's own colour, else a golden-angle hue."""
    colour = _BACKEND_COLOURS.get(value)
    if colour is None:
        colour = f"hsl({round(index * 137.508) % 360},70%,{84 if index % 2 == 0 else 73}%)"
    return colour, _PATTERNS[index % len(_PATTERNS)]


def _show(value: object) -> str:
    return "-" if value is None else str(value)


_CSS = """
:root{--line:#d0d0d7}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:20px;color:#1d1d1f}
h1{font-size:20px;margin:0 0 6px} p.about{color:#444;max-width:75em;margin:4px 0 10px}
.controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0}
.controls input[type=search]{font-size:14px;padding:5px 8px;width:28em;max-width:90vw}
#count{color:#555}
.legend{display:flex;flex-wrap:wrap;gap:4px 6px;list-style:none;padding:0;margin:6px 0 12px}
.legend button{font:inherit;font-size:12px;border:1px solid var(--line);border-radius:3px;background:#fff;
 padding:1px 6px 1px 2px;cursor:pointer;display:flex;align-items:center;gap:4px}
.sw{display:inline-block;width:22px;height:14px;border:1px solid #888}
.wrap{overflow:auto;max-height:80vh;border:1px solid var(--line)}
table{border-collapse:separate;border-spacing:0;font-size:12px}
th,td{border-right:1px solid var(--line);border-bottom:1px solid var(--line);padding:3px 5px;
 text-align:center;vertical-align:top}
thead th{background:#eef0f6;position:sticky;top:0;z-index:2}
thead th:first-child{left:0;z-index:3}
tbody th{position:sticky;left:0;background:#fafafa;text-align:left;z-index:1;white-space:nowrap}
tbody th code{font-size:10px;color:#555;font-weight:normal}
td .val{display:block;font-weight:600;white-space:nowrap}
.by{display:block;font-size:9.5px;color:#333;line-height:1.25}
td.no{background-color:#fff;background-image:%REFUSED%;color:#7a1414;min-width:7em}
td.no summary{cursor:pointer;font-weight:600;list-style-position:inside}
td.no .why{text-align:left;white-space:normal;width:22em;font-size:11px;color:#2b0a0a}
td.no .why p{margin:4px 0}
details.startup{margin-top:2px;background:#fff1d6;color:#7a4b00;border:1px dashed #b07a00}
details.startup summary{cursor:pointer;font-weight:600}
details.startup .why{text-align:left;white-space:normal;width:22em;font-size:11px}
td.hit{outline:2px solid #1a56db;outline-offset:-2px}
.hide{display:none}
tr.none td{color:#555;text-align:left;font-style:italic}
"""

_SCRIPT = """
(function () {
  var q = document.getElementById('q'), ro = document.getElementById('refused-only');
  var count = document.getElementById('count'), table = document.getElementById('matrix');
  var headRow = table.tHead.rows[0], body = table.tBodies[0];
  var heads = [], rows = [], i;
  for (i = 1; i < headRow.cells.length; i++) heads.push(headRow.cells[i].textContent.trim().toLowerCase());
  for (i = 0; i < body.rows.length; i++) if (!body.rows[i].classList.contains('none')) rows.push(body.rows[i]);
  var empty = body.querySelector('tr.none');
  function platformHits(t) {
    var exact = [], prefix = [], k;
    for (k = 0; k < heads.length; k++) {
      if (heads[k] === t) exact.push(k); else if (heads[k].indexOf(t) === 0) prefix.push(k);
    }
    return exact.length ? exact : prefix;
  }
  function apply() {
    var tokens = q.value.toLowerCase().split(/\\s+/).filter(Boolean), cols = null, words = [];
    tokens.forEach(function (t) {
      var hit = platformHits(t);
      if (hit.length) { cols = cols || {}; hit.forEach(function (k) { cols[k] = true; }); }
      else words.push(t);
    });
    var shownCols = 0, k;
    for (k = 0; k < heads.length; k++) {
      var hidden = cols !== null && !cols[k];
      headRow.cells[k + 1].classList.toggle('hide', hidden);
      if (!hidden) shownCols++;
    }
    var shown = 0;
    rows.forEach(function (row) {
      var label = row.cells[0].textContent.toLowerCase(), cells = [], j;
      for (j = 1; j < row.cells.length; j++) {
        var c = row.cells[j], off = cols !== null && !cols[j - 1];
        c.classList.toggle('hide', off);
        c.classList.remove('hit');
        if (!off) cells.push(c);
      }
      var ok = words.every(function (w) {
        if (label.indexOf(w) >= 0) return true;
        var any = false;
        cells.forEach(function (c) {
          if (c.textContent.toLowerCase().indexOf(w) >= 0) { c.classList.add('hit'); any = true; }
        });
        return any;
      });
      if (ok && ro.checked) ok = cells.some(function (c) { return c.classList.contains('no'); });
      row.classList.toggle('hide', !ok);
      if (ok) shown++;
    });
    empty.classList.toggle('hide', shown > 0);
    count.textContent = 'showing ' + shown + ' of ' + rows.length + ' ' + table.getAttribute('data-rows') +
      ', ' + shownCols + ' of ' + heads.length + ' ' + table.getAttribute('data-cols');
  }
  document.querySelectorAll('.legend button').forEach(function (b) {
    b.addEventListener('click', function () { q.value = b.getAttribute('data-v'); apply(); q.focus(); });
  });
  q.addEventListener('input', apply);
  ro.addEventListener('change', apply);
  function fromHash() {  /* support-matrix.html#q=h100%20fa3 opens filtered */
    var m = /[#&]q=([^&]*)/.exec(location.hash);
    if (m) q.value = decodeURIComponent(m[1].replace(/\\+/g, ' '));
    apply();
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
"""


def value_index(cells: Iterable[Cell]) -> dict[str, int]:
    """The style index of every first-field value the accepted cells show, backends first."""
    firsts = sorted(
        {_show(next(iter(c.values.values()))) for c in cells if c.values},
        key=lambda v: (v not in ATTENTION_BACKENDS, v),
    )
    others = [v for v in firsts if v not in ATTENTION_BACKENDS]
    return {v: style_index(v, others) for v in firsts}


def cell_td(c: Cell, platform: str, index: Mapping[str, int], by: Sequence[str] | None = None) -> str:
    """One cell: the values with the deciding rules below them (``by``: other words for those
    rules), or the collapsed refusal."""
    if c.values is None:
        return _refused_td(c, platform)
    esc = html.escape
    first = _show(next(iter(c.values.values())))
    value = " / ".join(_show(v) for v in c.values.values())
    deciders = "<br>".join(esc(d) for d in (c.deciders if by is None else by))
    return (
        f'<td class="ok v{index[first]}" data-p="{esc(platform)}" data-v="{esc(first)}" '
        f'title="{esc(chr(10).join(c.chain))}"><span class=val>{esc(value)}</span>'
        + (f"<span class=by>{deciders}</span>" if deciders else "")
        + _startup_details(c)
        + "</td>"
    )


def legend(index: Mapping[str, int], cells: Iterable[Cell], field: str) -> str:
    """The legend: one button per first-field value (with how many cells show it), then refusals."""
    esc = html.escape
    counts = dict.fromkeys(index, 0)
    refused = 0
    for c in cells:
        if c.values is None:
            refused += 1
        else:
            counts[_show(next(iter(c.values.values())))] += 1
    items = [
        f'<li><button type=button data-v="{esc(v)}" title="show the models that get {esc(v)}">'
        f'<span class="sw v{index[v]}"></span>{esc(v)} ({counts[v]})</button></li>'
        for v in index
    ]
    items.append(
        '<li><button type=button data-v="refused" title="show refusals">'
        f'<span class="sw" style="background-color:#fff;background-image:{_REFUSED_PATTERN}"></span>'
        f"✗ refused ({refused})</button></li>"
    )
    return f'<ul class="legend" aria-label="legend: {esc(field)}">{"".join(items)}</ul>'


def page(
    name: str,
    about: str,
    *,
    columns: Sequence[str],
    rows: Sequence[str],
    index: Mapping[str, int],
    legend_html: str,
    nouns: tuple[str, str] = ("models", "platforms"),
    none: str = "no model matches the filter",
    count: str = "",
    css: str = "",
) -> str:
    """The whole self-contained page: ``about`` (HTML) above the filter, the legend and a table
    whose first column labels the rows; ``nouns`` name the rows and the other columns in the
    filter's count; ``none`` is the row shown when no row is left; ``css``: the page's own rules."""
    esc = html.escape
    styles = []
    for v, i in index.items():
        colour, pattern = look(v, i)
        styles.append(f".v{i}{{background-color:{colour};background-image:{pattern}}}")
    none_row = f'<tr class="none{" hide" if rows else ""}"><td colspan="{len(columns)}">{esc(none)}</td></tr>'
    body = [*rows, none_row]
    head = "<tr>" + "".join(f"<th scope=col>{esc(c)}</th>" for c in columns) + "</tr>"
    css = _CSS.replace("%REFUSED%", _REFUSED_PATTERN) + css + "\n".join(styles)
    count = count or f"{len(rows)} {nouns[0]}, {len(columns) - 1} {nouns[1]}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(name)}</title><style>{css}</style></head><body>"
        f"<h1>{esc(name)}</h1>{about}"
        '<div class="controls" role="search"><label for="q">Filter</label>'
        '<input id="q" type="search" autocomplete="off" '
        'placeholder="model, platform or value, e.g. qwen3 h100 fa3" aria-describedby="count">'
        '<label><input id="refused-only" type="checkbox"> refusals only</label>'
        f'<span id="count" aria-live="polite">{esc(count)}</span></div>'
        '<noscript><p class="about">The filter needs JavaScript; the table below is complete without it.</p>'
        "</noscript>"
        f"{legend_html}"
        f'<div class="wrap"><table id="matrix" data-rows="{esc(nouns[0])}" data-cols="{esc(nouns[1])}">'
        f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table></div>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def render_html(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    """The page for a list of matrix cells (models × platforms)."""
    from .matrix import grid as _grid
    from .matrix import release_of

    esc = html.escape
    models, platforms, by_key = _grid(cells)
    index = value_index(cells)
    cat = catalog()
    rows = []
    for m in models:
        arch = bundled(m).architecture if m in cat else ""
        tds = [f"<th scope=row>{esc(m)}" + (f"<br><code>{esc(arch)}</code>" if arch else "") + "</th>"]
        tds += [cell_td(by_key[(m, p)], p, index) for p in platforms]
        rows.append("<tr>" + "".join(tds) + "</tr>")
    about = (
        f'<p class="about">Each cell shows <code>{esc(" / ".join(fields))}</code> as sglang '
        f"<b>{esc(release_of(cells))}</b> resolves them for that model on that platform, with the rule that "
        "decided each value in small type "
        f"below it. Colour and pattern follow the first field (<code>{esc(fields[0])}</code>); the legend names "
        "them. A refused configuration shows <b>✗ refused</b> and the refusing rule: click it for sglang's "
        "message and the fix. <b>✗ start-up</b> under a value: accepted by ServerArgs, refused when sglang "
        "builds the attention backends (start-up check). Another release: <code>resolvable matrix "
        "--sglang-version V</code>; what changes between two: <code>--vs-sglang-version</code>.</p>"
    )
    return page(
        title or "resolvable support matrix",
        about,
        columns=["model", *platforms],
        rows=rows,
        index=index,
        legend_html=legend(index, cells, fields[0]),
        count=f"{len(models)} models, {len(platforms)} platforms",
    )


def _startup_details(c: Cell) -> str:
    """Accepted by ServerArgs but refused at start-up: the values stay, with the refusal on click."""
    if c.startup_refusal is None:
        return ""
    esc = html.escape
    fix = f"<p><b>fix:</b> {esc(c.startup_fix)}</p>" if c.startup_fix else ""
    return (
        '<details class="startup"><summary>✗ start-up</summary><div class=why>'
        f"<p>accepted by ServerArgs, refused at start-up by {esc(c.startup_refused_by or '?')}: "
        f"{esc(c.startup_refusal)}</p>{fix}</div></details>"
    )


def _refused_td(c: Cell, platform: str) -> str:
    esc = html.escape
    who = c.refused_by or "refused before the rules ran"
    parts = [f"<p>{esc(c.message or c.refusal or '')}</p>"]
    if c.fix:
        parts.append(f"<p><b>fix:</b> {esc(c.fix)}</p>")
    if c.refused_by:
        parts.append(
            f"<p>refused by <code>{esc(c.refused_by)}</code>"
            + (f" at <code>{esc(c.refused_at)}</code>" if c.refused_at else "")
            + "</p>"
        )
    return (
        f'<td class="no" data-p="{esc(platform)}" data-v="refused"><details><summary>✗ refused'
        f"<span class=by>{esc(who)}</span></summary><div class=why>{''.join(parts)}</div></details></td>"
    )
