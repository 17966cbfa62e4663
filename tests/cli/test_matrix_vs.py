"""`resolvable matrix --vs-sglang-version B`: only the cells that change between two releases.

Known changes come from the release logs: 0.5.14 → 0.5.15 #2 (Step-3.5 on SM100: FA4 pages
1 → 128, docs/sglang-releases.md) and 0.5.16 #13 (mamba ``extra_buffer`` allowed on ROCm, the
message names ROCm elsewhere, docs/releases/0.5.16.md); 0.5.20 → 0.5.21 changes no matrix cell.
The counts are checked against resolving each cell one by one through the library.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest

from resolvable._platform import Platform
from resolvable.cli import main
from resolvable.errors import ConflictError
from resolvable.sglang import check_startup, grid, load_model, registry, resolve_server_args
from resolvable.sglang.matrix import compute
from resolvable.sglang.matrix_diff import compare, gist

STEP = ("--models", "step-3.5-flash,llama-3.1-8b", "--platforms", "b200,h100")
MAMBA = ("--models", "qwen3-next-80b-a3b,llama-3.1-8b", "--platforms", "mi300x,xpu,h100")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def diff_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "matrix", *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def _cell(model: str, platform: str, release: str) -> tuple:
    """One cell resolved through the library: (outcome, values, refusal message)."""
    hf = load_model(model)
    try:
        res = resolve_server_args(hf, Platform.preset(platform), sglang_version=release)
    except ConflictError as exc:
        return ("refused", None, exc.message)
    values = (res["attention_backend"], res["page_size"])
    try:
        check_startup(res, hf)
    except ConflictError as exc:
        return ("startup_refused", values, exc.message)
    return ("accepted", values, None)


# -- known changes ------------------------------------------------------------------------------


def test_step_3_5_on_sm100_is_the_change_from_0_5_14_to_0_5_15(capsys):
    doc = diff_json(capsys, *STEP, "--sglang-version", "0.5.14", "--vs-sglang-version", "0.5.15")
    assert doc["schema"] == "resolvable.matrix-diff/1"
    assert doc["sglang"] == {"from": "0.5.14", "to": "0.5.15"}
    assert (doc["cells"], doc["changed"]) == (4, 1)
    (change,) = doc["changes"]
    assert (change["model"], change["platform"]) == ("step-3.5-flash", "b200")
    assert change["outcome"] == {"from": "accepted", "to": "accepted", "change": None}
    (field,) = change["fields"]  # the backend stays fa4; only the page size moves
    assert (field["field"], field["before"], field["after"]) == ("page_size", 1, 128)
    assert (field["decided_after"], field["releases_after"]) == ("fa4_page_size", "since 0.5.15")
    assert (
        change["from"]["values"]["attention_backend"] == change["to"]["values"]["attention_backend"] == "fa4"
    )


def test_text_names_the_rule_and_its_release_range_on_each_side(capsys):
    code, out, _ = run(capsys, "matrix", *STEP, "--sglang-version", "0.5.14", "--vs-sglang-version", "0.5.15")
    assert code == 0
    assert "sglang 0.5.14 → 0.5.15" in out
    assert "1 of 4 cells change between sglang 0.5.14 and 0.5.15" in out
    (row,) = [ln for ln in out.splitlines() if ln.startswith("step-3.5-flash")]
    assert re.search(r"b200\s+page_size\s+1  by \S+ \(.+\)\s+128  by fa4_page_size \(since 0.5.15\)", row), (
        row
    )
    assert "llama-3.1-8b" not in out  # unchanged cells are not listed


def test_refused_to_accepted_and_a_different_refusal(capsys):
    doc = diff_json(capsys, *MAMBA, "--sglang-version", "0.5.15", "--vs-sglang-version", "0.5.16")
    changes = {(c["model"], c["platform"]): c for c in doc["changes"]}
    rocm = changes[("qwen3-next-80b-a3b", "mi300x")]
    assert rocm["outcome"]["change"] == "refused → accepted"
    assert rocm["refusal"]["to"] is None and rocm["to"]["values"] is not None
    assert "extra_buffer needs CUDA/MUSA/NPU (FLA)." in rocm["refusal"]["from"]["message"]
    assert rocm["refusal"]["from"]["releases"]  # the refusing rule's range, from the registry
    xpu = changes[("qwen3-next-80b-a3b", "xpu")]
    assert xpu["outcome"] == {"from": "refused", "to": "refused", "change": "different refusal"}
    assert "CUDA/MUSA/NPU/ROCm (FLA)." in xpu["refusal"]["to"]["message"]
    # the text table cuts both messages to where they differ, so the difference shows
    code, out, _ = run(
        capsys, "matrix", *MAMBA, "--sglang-version", "0.5.15", "--vs-sglang-version", "0.5.16"
    )
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("qwen3-next-80b-a3b  xpu"))
    assert "different refusal" in row and "NPU (FLA)." in row and "NPU/ROCm (FLA)." in row


def test_the_other_way_is_accepted_to_refused(capsys):
    doc = diff_json(capsys, *MAMBA, "--sglang-version", "0.5.16", "--vs-sglang-version", "0.5.15")
    change = next(c for c in doc["changes"] if c["platform"] == "mi300x")
    assert change["outcome"]["change"] == "accepted → refused"
    code, out, _ = run(
        capsys, "matrix", *MAMBA, "--sglang-version", "0.5.16", "--vs-sglang-version", "0.5.15"
    )
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("qwen3-next-80b-a3b  mi300x"))
    assert "accepted → refused" in row and "✗ extra_buffer" in row


def test_a_release_pair_without_change_says_so(capsys):
    """0.5.20 → 0.5.21 changes no cell of the docs grid off Jetson Thor (below)."""
    presets = [p for p in grid.presets() if p != "thor"]
    argv = ["--platforms", ",".join(presets), "--sglang-version", "0.5.20", "--vs-sglang-version", "0.5.21"]
    doc = diff_json(capsys, *argv)
    assert doc["cells"] == len(grid.models()) * len(presets)
    assert (doc["changed"], doc["changes"]) == (0, [])
    expected = f"0 of {doc['cells']} cells change between sglang 0.5.20 and 0.5.21"
    assert doc["summary"].startswith(expected)


def test_thor_hybrid_gdn_models_start_from_0_5_21(capsys):
    """Thor (SM 11.0, in the one preset table since h26g) is Blackwell but neither SM100 nor
    SM120: its default flashinfer backend is refused for hybrid GDN models until 0.5.21 allows
    flashinfer there (``HYBRID_GDN_BLACKWELL_FLASHINFER``); the only cells of the whole grid that
    change between 0.5.20 and 0.5.21."""
    doc = diff_json(capsys, "--sglang-version", "0.5.20", "--vs-sglang-version", "0.5.21")
    assert doc["cells"] == len(grid.models()) * len(grid.presets())
    changed = {(c["model"], c["platform"], c["outcome"]["change"]) for c in doc["changes"]}
    assert changed == {
        ("qwen3-next-80b-a3b", "thor", "refused at start-up → accepted"),
        ("qwen3.5-397b-a17b", "thor", "refused at start-up → accepted"),
    }
    for fmt in ("text", "md"):
        code, out, _ = run(
            capsys,
            "matrix",
            *STEP,
            "--sglang-version",
            "0.5.20",
            "--vs-sglang-version",
            "0.5.21",
            "--format",
            fmt,
        )
        assert code == 0 and "0 of 4 cells change between sglang 0.5.20 and 0.5.21" in out
        assert "|---" not in out and "-----" not in out  # no empty table
    code, out, _ = run(
        capsys,
        "matrix",
        *STEP,
        "--sglang-version",
        "0.5.20",
        "--vs-sglang-version",
        "0.5.21",
        "--format",
        "html",
    )
    assert (
        '<tr class="none"><td colspan="4">no cell changes between sglang 0.5.20 and 0.5.21</td></tr>' in out
    )


def test_flags_apply_to_both_sides(capsys):
    # 0.5.15's 128-token pages are FA4's (#1): with triton there is nothing left to change
    doc = diff_json(
        capsys,
        *STEP,
        "--set",
        "attention_backend=triton",
        "--sglang-version",
        "0.5.14",
        "--vs-sglang-version",
        "0.5.15",
    )
    assert (doc["cells"], doc["changed"]) == (4, 0)
    code, out, _ = run(
        capsys, "matrix", *STEP, "--set", "attention_backend=triton", "--sglang-version", "0.5.14"
    )
    assert code == 0 and out.count("triton / 1") == 4


# -- counts match the cells resolved one by one ---------------------------------------------------


def test_counts_match_resolving_each_cell_through_the_api(capsys):
    models = ["qwen3-next-80b-a3b", "hrm-text", "exaone-4.0-32b", "gpt-oss-120b", "llama-3.1-8b"]
    platforms = ["mi300x", "xpu", "h100", "b200", "rtx5090"]
    pairs = [("0.5.15", "0.5.16"), ("0.5.21", "0.5.22")]
    for before, after in pairs:
        doc = diff_json(
            capsys,
            "--models",
            ",".join(models),
            "--platforms",
            ",".join(platforms),
            "--sglang-version",
            before,
            "--vs-sglang-version",
            after,
        )
        expected = {
            (m, p): (_cell(m, p, before), _cell(m, p, after))
            for m in models
            for p in platforms
            if _cell(m, p, before) != _cell(m, p, after)
        }
        assert doc["cells"] == len(models) * len(platforms)
        assert {(c["model"], c["platform"]) for c in doc["changes"]} == set(expected)
        assert doc["changed"] == len(expected) > 0
        for c in doc["changes"]:
            old, new = expected[(c["model"], c["platform"])]
            assert (c["outcome"]["from"], c["outcome"]["to"]) == (old[0], new[0])


def test_compare_is_two_matrices():
    models, platforms = ["step-3.5-flash", "hrm-text"], ["b200", "h100", "cpu"]
    old = compute(models, platforms, sglang_version="0.5.14")
    new = compute(models, platforms, sglang_version="0.5.15")
    diff = compare(old, new)
    changed = {(c.model, c.platform) for c in diff.changes}
    same = [
        (a.values, a.message, a.startup_refusal) == (b.values, b.message, b.startup_refusal)
        for a, b in zip(old, new)
    ]
    assert changed == {(a.model, a.platform) for a, kept in zip(old, same) if not kept}
    assert (diff.before, diff.after, diff.cells) == ("0.5.14", "0.5.15", 6)
    with pytest.raises(ValueError, match="same cells"):
        compare(old, new[:-1])


def test_gist_shows_where_two_long_messages_differ():
    head = "Unknown quantization method: mxfp4. Must be one of " + ", ".join(f"'q{i}'" for i in range(40))
    a, b = gist(head + ", 'qoq', 'zz'].", head + ", 'humming', 'zz'].")
    assert a.startswith("…") and b.startswith("…") and len(a) < len(head)
    assert "'qoq'" in a and "'humming'" in b and "'qoq'" not in b


# -- formats ------------------------------------------------------------------------------------


VS = (*MAMBA, "--sglang-version", "0.5.15", "--vs-sglang-version", "0.5.16")


def test_markdown_is_one_table_with_a_row_per_change(capsys):
    doc = diff_json(capsys, *VS)
    code, out, _ = run(capsys, "matrix", *VS, "--format", "md")
    assert code == 0
    assert f"**{doc['summary']}.**" in out
    rows = [ln for ln in out.splitlines() if ln.startswith("|")]
    assert rows[0] == "| model | platform | change | sglang 0.5.15 | sglang 0.5.16 |"
    assert rows[1] == "|---|---|---|---|---|"
    cols = [len(re.split(r"(?<!\\)\|", r)) for r in rows]
    assert len(set(cols)) == 1  # every row has the header's columns (pipes in messages escaped)
    listed = sum(len(c["fields"]) + (c["outcome"]["change"] is not None) for c in doc["changes"])
    assert len(rows) - 2 == listed


def test_csv_has_a_row_per_field_and_outcome_change(capsys):
    doc = diff_json(capsys, *VS)
    code, out, _ = run(capsys, "matrix", *VS, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and rows
    outcome_rows = [r for r in rows if r["change"] == "outcome"]
    assert len(outcome_rows) == sum(c["outcome"]["change"] is not None for c in doc["changes"])
    rocm = next(r for r in outcome_rows if r["platform"] == "mi300x")
    assert (rocm["before"], rocm["after"]) == ("refused", "accepted")
    assert rocm["message_before"].startswith("extra_buffer") and rocm["message_after"] == ""
    assert {(r["sglang_before"], r["sglang_after"]) for r in rows} == {("0.5.15", "0.5.16")}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)


def test_html_lists_the_changed_cells_side_by_side(capsys):
    doc = diff_json(capsys, *VS)
    code, out, _ = run(capsys, "matrix", *VS, "--format", "html")
    assert code == 0 and out.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?:|//", out)  # self-contained, like the matrix page
    page = _Page()
    page.feed(out)
    text = "".join(page.text)
    assert doc["summary"] in text
    rows = [a for t, a in page.tags if t == "tr"]
    assert len(rows) == 1 + doc["changed"] + 1  # head, one per change, the (hidden) "none" row
    tds = [a for t, a in page.tags if t == "td" and a.get("data-p")]
    assert len(tds) == 2 * doc["changed"]  # both releases, in the matrix page's cells
    for c in doc["changes"]:
        assert f"{c['model']}" in text and c["outcome"]["change"] in text
    assert "refused → accepted" in text and "different refusal" in text
    assert "<span class=by>attention_backend_default (" in out  # the rule with its range


# -- the release in every matrix output, and errors ---------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [("text", "sglang {v}\n"), ("md", "sglang release: **{v}**"), ("html", "as sglang <b>{v}</b>")],
)
def test_every_matrix_names_the_release_it_resolved(capsys, fmt, shown):
    for version in ("0.5.14", None):
        argv = ["matrix", *STEP, "--format", fmt] + (["--sglang-version", version] if version else [])
        code, out, _ = run(capsys, *argv)
        assert code == 0 and shown.format(v=version or registry.default_release) in out


def test_csv_matrix_has_the_release_in_each_row(capsys):
    code, out, _ = run(capsys, "matrix", *STEP, "--format", "csv", "--sglang-version", "0.5.14")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 4 and {r["sglang"] for r in rows} == {"0.5.14"}


def test_json_matrix_carries_the_resolved_release(capsys):
    code, out, _ = run(capsys, "matrix", *STEP, "--format", "json", "--sglang-version", "0.5.14")
    doc = json.loads(out)
    assert doc["sglang"] == "0.5.14"
    step = next(c for c in doc["cells"] if (c["model"], c["platform"]) == ("step-3.5-flash", "b200"))
    assert step["values"]["page_size"] == 1  # and the cells are 0.5.14's (#2)
    code, out, _ = run(capsys, "matrix", *STEP, "--format", "json")
    assert code == 0 and json.loads(out)["sglang"] == registry.default_release


def test_vs_alone_compares_with_the_default_release(capsys):
    other = next(r for r in registry.releases if r != registry.default_release)
    doc = diff_json(capsys, *STEP, "--vs-sglang-version", other)
    assert doc["sglang"] == {"from": registry.default_release, "to": other}


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--vs-sglang-version", "0.5.51"], "supported releases: 0.5.5.post3, 0.5.6, 0.5.6.post1, 0.5.10"),
        (["--sglang-version", "x", "--vs-sglang-version", "0.5.16"], "is not a release version"),
        (["--sglang-version", "0.5.16", "--vs-sglang-version", "0.5.16.post1"], "both sglang 0.5.16"),
    ],
)
def test_bad_release_is_one_error_line(capsys, argv, needle):
    code, out, err = run(capsys, "matrix", *STEP, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err


def test_output_file_reports_the_summary(capsys, tmp_path):
    target = tmp_path / "d.json"
    code, _, err = run(
        capsys,
        "matrix",
        *STEP,
        "--sglang-version",
        "0.5.14",
        "--vs-sglang-version",
        "0.5.15",
        "--format",
        "json",
        "-o",
        str(target),
    )
    assert code == 0 and "1 of 4 cells change between sglang 0.5.14 and 0.5.15" in err
    assert json.loads(target.read_text(encoding="utf-8"))["changed"] == 1
