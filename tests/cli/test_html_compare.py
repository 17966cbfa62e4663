"""The HTML page of ``resolvable compare --html``: a model × GPU grid of both engines (≥ 20 models
× 4 GPUs). Browser-free tests check its structure against ``compare --json``; the browser tests
load it in headless chromium (CI installs it; elsewhere they skip, saying so) and check that it
renders and that the filter box keeps a model's row or a GPU's column."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from _browser import Browser, find_browser, png_facts

from required_inputs import missing_input
from resolvable.cli import main

MODELS = [
    "deepseek-r1",
    "deepseek-v2-lite",
    "deepseek-v3",
    "deepseek-v3.2",
    "gemma-2-9b",
    "gemma-3-27b",
    "glm-4.5",
    "gpt-oss-120b",
    "gpt-oss-20b",
    "granite-4.0-h-small",
    "kimi-k2-instruct",
    "llama-3.1-8b",
    "llama-3.3-70b",
    "llama-4-scout",
    "minimax-m2",
    "mistral-large-3",
    "qwen3-235b-a22b-fp8",
    "qwen3-30b-a3b",
    "qwen3-8b",
    "qwen3-next-80b-a3b",
]
PLATFORMS = ["a100", "h100", "h200", "b200"]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "compare.html"
    argv = ["compare", "--html", str(out), "--models", ",".join(MODELS), "--platforms", ",".join(PLATFORMS)]
    assert main([*argv, "--engine", "sglang", "--", "--tp-size", "8"]) == 0
    text = out.read_text(encoding="utf-8")
    parsed = _Page()
    parsed.feed(text)
    return out, text, parsed


def test_the_grid_is_20_models_by_4_gpus_of_both_engines(page):
    _, text, parsed = page
    rows = [a for t, a in parsed.tags if t == "tr"]
    assert len(rows) == len(MODELS) + 1  # the header row, then one per model
    engines = [a["class"] for t, a in parsed.tags if t == "div" and a.get("class", "").startswith("eng ")]
    assert len(engines) == 2 * len(MODELS) * len(PLATFORMS)
    assert {c.split()[1] for c in engines} <= {"starts", "refused", "does-not-fit", "error"}
    words = " ".join(parsed.text)
    for name in (*MODELS, *PLATFORMS, "SGLang 0.5.23", "vLLM 0.34.0", "--tp-size 8"):
        assert name in words, name
    assert "<script src" not in text and "http" not in text.split("<body>")[1].split("Generated")[0]


def test_a_cell_says_what_compare_json_says(page, capsys):
    _, text, _ = page
    assert (
        main(["compare", "--json", "--platform", "h100", "qwen3-8b", "--engine", "sglang", "--tp-size", "8"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    rows = {r["row"]: r for r in doc["rows"]}
    for engine in ("sglang", "vllm"):
        assert rows["attention backend"]["values"][engine] in text
        assert rows["KV-cache tokens"]["values"][engine] in text
    assert "page_size_default" in text  # a differing row's deciding rule, under "why"


BROWSER = find_browser()
_NO_BROWSER = "chromium and chromedriver not installed (apt-get install chromium chromium-driver)"


@pytest.fixture(scope="module")
def browser():
    if BROWSER is None:
        missing_input(_NO_BROWSER)  # fails in CI, skips elsewhere
    b = Browser(*BROWSER)
    try:
        yield b
    finally:
        b.close()


_VISIBLE_ROWS = (
    "return Array.from(document.querySelectorAll('#grid tbody tr'))"
    ".filter(r => r.offsetParent !== null).map(r => r.cells[0].textContent)"
)
_VISIBLE_COLS = (
    "return Array.from(document.querySelectorAll('#grid thead th'))"
    ".filter(c => c.offsetParent !== null).map(c => c.textContent)"
)


def test_page_renders_in_a_browser(page, browser):
    path, _, _ = page
    browser.open(path.as_uri())
    width, height, distinct = png_facts(browser.screenshot())
    assert width >= 1000 and height >= 600
    assert distinct > 50, "the screenshot looks blank"
    assert browser.js("return document.getElementById('count').textContent") == (
        f"showing {len(MODELS)} of {len(MODELS)} models, {len(PLATFORMS)} of {len(PLATFORMS)} GPUs"
    )


def test_filter_keeps_a_model_and_a_gpu(page, browser):
    path, _, _ = page
    browser.open(path.as_uri())
    browser.type_into("#q", "llama-4")
    assert browser.js(_VISIBLE_ROWS) == ["llama-4-scoutLlama4ForConditionalGeneration"]
    browser.open(path.as_uri() + "#q=b200")
    browser.js("location.reload()")
    assert browser.js(_VISIBLE_COLS) == ["model", "b200"]
    assert len(browser.js(_VISIBLE_ROWS)) == len(MODELS)
