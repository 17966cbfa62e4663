"""The HTML support matrix (`resolvable matrix --format html`, docs/support-matrix.html).

Browser-free tests check the page's structure; the browser tests load it in headless chromium
(when chromium and chromedriver are installed; otherwise they skip, saying so) and check that
it renders and that typing in the filter box hides the other rows.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from _browser import Browser, find_browser, png_facts

from golden import GOLDEN_FLAGS
from required_inputs import missing_input
from resolvable.cli import main
from resolvable.sglang import grid
from resolvable.sglang.choices import ATTENTION_BACKENDS
from resolvable.sglang.matrix_html import _BACKEND_COLOURS, look

# golden cases of sglang 0.5.15 (spec): pinned


class _Page(HTMLParser):
    """Collects what the checks need: tags with attributes, row labels, legend values, text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)


def _matrix(capsys, tmp_path, *extra: str) -> tuple[str, _Page]:
    out = tmp_path / "m.html"
    assert main(["matrix", "--format", "html", "-o", str(out), *GOLDEN_FLAGS, *extra]) == 0
    capsys.readouterr()
    page = _Page()
    text = out.read_text(encoding="utf-8")
    page.feed(text)
    return text, page


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "m.html"
    assert main(["matrix", "--format", "html", "-o", str(out), *GOLDEN_FLAGS]) == 0
    text = out.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    return out, text, page


def test_page_is_self_contained(full):
    _, text, page = full
    assert text.startswith("<!DOCTYPE html>")
    # no network asset of any kind: no scheme, no protocol-relative URL, no src/href attribute
    assert not re.search(r"https?:|//", text)
    assert not [t for t, a in page.tags if "src" in a or "href" in a or t in ("link", "img", "iframe")]
    assert "<style>" in text and "<script>" in text


def test_every_cell_and_model_is_in_the_page(full):
    _, _, page = full
    rows = [a for t, a in page.tags if t == "td" and a.get("data-p")]
    assert len(rows) == len(grid.models()) * len(grid.presets())
    body = "".join(page.text)
    for m in grid.models():
        assert m in body
    heads = [a for t, a in page.tags if t == "th" and a.get("scope") == "col"]
    assert len(heads) == len(grid.presets()) + 1


def test_filter_box_and_sticky_header(full):
    _, text, page = full
    inputs = [a for t, a in page.tags if t == "input" and a.get("id") == "q"]
    assert inputs and inputs[0]["type"] == "search" and "platform" in inputs[0]["placeholder"]
    assert re.search(r"thead th\{[^}]*position:sticky;top:0", text)
    assert re.search(r"tbody th\{[^}]*position:sticky;left:0", text)  # model column stays too


def test_legend_names_each_backend_with_its_own_colour_and_pattern(full):
    _, text, page = full
    values = {a["data-v"] for t, a in page.tags if t == "td" and a.get("class", "").startswith("ok")}
    legend = {a["data-v"] for t, a in page.tags if t == "button" and a.get("data-v")}
    assert values <= legend and "refused" in legend
    assert {"fa3", "triton", "flashinfer", "aiter", "trtllm_mla"} <= values
    # every backend has its own colour; neighbours in the palette also differ in pattern
    assert set(_BACKEND_COLOURS) == set(ATTENTION_BACKENDS)
    assert len(set(_BACKEND_COLOURS.values())) == len(ATTENTION_BACKENDS)
    looks = [look(b, i) for i, b in enumerate(ATTENTION_BACKENDS)]
    assert len(set(looks)) == len(looks)
    # and the colour is never alone: each legend entry and each cell prints the value's name
    for v in values:
        assert re.search(rf'data-v="{re.escape(v)}"[^>]*>.*?</span>{re.escape(v)} \(\d+\)</button>', text)


def test_refusals_are_collapsed_with_message_fix_and_rule(full):
    _, text, _ = full
    # exaone-4.0-32b with a sliding window pattern is refused without an explicit backend (spec §8 #55)
    cell = re.search(
        r'<td class="no" data-p="h100" data-v="refused">(.*?)</td>', text.split("exaone-4.0-32b")[1]
    )
    assert cell, "exaone on h100 should be a refused cell"
    html_cell = cell.group(1)
    assert html_cell.startswith(
        "<details><summary>✗ refused<span class=by>exaone_backend_check</span></summary>"
    )
    assert "is required for Exaone4ForCausalLM, but got None" in html_cell  # the whole message
    assert "<b>fix:</b> pass --attention-backend fa3" in html_cell
    assert "resolvable/sglang/families/exaone.py:" in html_cell


def test_deciding_rule_is_visible_beside_each_value(full):
    _, text, _ = full
    # llama-3.1-8b on h100: fa3 by the generic default, page 1 by the page default (spec §4.1)
    row = text.split("<th scope=row>llama-3.1-8b")[1].split("</tr>")[0]
    cell = re.search(r'<td class="ok v\d+" data-p="h100" data-v="fa3"[^>]*>(.*?)</td>', row).group(1)
    assert (
        cell
        == "<span class=val>fa3 / 1</span><span class=by>attention_backend_default<br>page_size_default</span>"
    )


def test_subset_and_other_fields(capsys, tmp_path):
    text, page = _matrix(
        capsys,
        tmp_path,
        "--models",
        "qwen3-8b,deepseek-v3",
        "--platforms",
        "h100,b200",
        "--fields",
        "page_size,attention_backend",
    )
    cells = [a for t, a in page.tags if t == "td" and a.get("data-p")]
    assert len(cells) == 4
    assert {a["data-v"] for a in cells} == {"1", "64"}  # colour follows the first field, page_size
    assert not re.search(r"https?:|//", text)


# -- in a real browser -------------------------------------------------------------------------

BROWSER = find_browser()
_NO_BROWSER = "chromium and chromedriver not installed (apt-get install chromium chromium-driver)"


@pytest.fixture(scope="module")
def _browser_installed() -> None:
    if BROWSER is None:
        missing_input(_NO_BROWSER)  # fails in CI (.ci/run installs them), skips elsewhere


needs_browser = pytest.mark.usefixtures("_browser_installed")


@pytest.fixture(scope="module")
def browser(_browser_installed):
    b = Browser(*BROWSER)
    try:
        yield b
    finally:
        b.close()


_VISIBLE_ROWS = (
    "return Array.from(document.querySelectorAll('#matrix tbody tr'))"
    ".filter(r => r.offsetParent !== null && !r.classList.contains('none'))"
    ".map(r => r.cells[0].textContent)"
)
_VISIBLE_COLS = (
    "return Array.from(document.querySelectorAll('#matrix thead th'))"
    ".filter(c => c.offsetParent !== null).map(c => c.textContent)"
)


@needs_browser
def test_page_renders_in_a_browser(full, browser, tmp_path):
    path, _, _ = full
    browser.open(path.as_uri())
    width, height, distinct = png_facts(browser.screenshot())
    assert width >= 1000 and height >= 600
    assert distinct > 50, "the screenshot looks blank"
    assert browser.js("return document.getElementById('count').textContent").startswith(
        f"showing {len(grid.models())} of {len(grid.models())} models"
    )


@needs_browser
def test_typing_a_model_name_filters_the_rows(full, browser):
    path, _, _ = full
    browser.open(path.as_uri())
    browser.type_into("#q", "llama-4")
    assert browser.js(_VISIBLE_ROWS) == [
        "llama-4-maverickLlama4ForConditionalGeneration",
        "llama-4-scoutLlama4ForConditionalGeneration",
    ]
    assert len(browser.js(_VISIBLE_COLS)) == len(grid.presets()) + 1


@needs_browser
def test_platform_and_value_tokens(full, browser):
    path, _, _ = full
    # a platform name keeps only that column; a value keeps the rows where a visible cell has it
    browser.open(path.as_uri() + "#q=mi300x%20aiter")
    assert browser.js(_VISIBLE_COLS) == ["model", "mi300x"]
    rows = browser.js(_VISIBLE_ROWS)
    assert rows and any(r.startswith("llama-3.1-8b") for r in rows)
    assert not any(r.startswith("gpt-oss-120b") for r in rows)  # refused on mi300x (mxfp4)
    browser.open(path.as_uri() + "#q=no-such-model")
    assert browser.js(_VISIBLE_ROWS) == []
    assert browser.js("return document.querySelector('tr.none').offsetParent !== null")
