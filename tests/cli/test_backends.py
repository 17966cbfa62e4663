"""`resolvable backends`: the capability table through main(), and how it is generated.

The golden facts come from the spec's checks (§4.2 C4-C16, §4.3) as the rules implement them;
the table must show them because it is computed from resolutions, not copied from the rules.
"""

from __future__ import annotations

import json
import re

import pytest

from golden import GOLDEN, GOLDEN_FLAGS, golden_argv
from resolvable.cli import main
from resolvable.sglang import capabilities
from resolvable.sglang.choices import ATTENTION_BACKENDS as _ALL_BACKENDS
from resolvable.sglang.choices import choices_in

# the table of 0.5.15: the names sglang added later are not its choices
ATTENTION_BACKENDS = choices_in(GOLDEN, "attention_backend", _ALL_BACKENDS)


# golden cases of sglang 0.5.15 (spec): pinned (``run``, the fixture and the API calls name the release)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` for sglang 0.5.15 (``golden_argv``: unless ``argv`` names a release)."""
    code = main(golden_argv(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def table_json():
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["backends", "--format", "json", *GOLDEN_FLAGS]) == 0
    return json.loads(buf.getvalue())


def _row(data, name):
    return next(r for r in data["rows"] if r["name"] == name)["entries"]


def test_json_has_every_backend_and_column(table_json):
    assert table_json["schema"] == "resolvable.backends/1" and table_json["engine"] == "sglang"
    assert [r["name"] for r in table_json["rows"]] == list(ATTENTION_BACKENDS)
    keys = [c["key"] for c in table_json["columns"]]
    assert keys == ["backend", "default", "platforms", "page_size", *capabilities.FEATURES]


def test_platforms_and_native_page_sizes(table_json):
    # C10/C13/C14: trtllm_mla on Blackwell only (Thor's SM 11.0 too); trtllm_mha (prefill) on SM100 only
    assert _row(table_json, "trtllm_mla")["platforms"]["text"] == "SM10x, SM11x, SM12x"
    assert _row(table_json, "trtllm_mha")["platforms"]["text"] == "SM10x"
    assert _row(table_json, "cutedsl_mla")["platforms"]["text"] == "SM10x"  # C12
    # C4-C9 and C16: native page sizes
    assert _row(table_json, "flashmla")["page_size"]["text"] == "64"
    assert _row(table_json, "cutlass_mla")["page_size"]["text"] == "128"
    assert _row(table_json, "trtllm_mha")["page_size"]["text"] == "64"
    assert _row(table_json, "fa4")["page_size"]["text"] == "MHA 1; 128 on SM10x · MLA 1"
    # defaults: fa3 on Hopper for both shapes, aiter on ROCm, trtllm_mla for DeepSeek on SM100
    assert _row(table_json, "fa3")["default"]["text"] == "SM90 (MHA, MLA)"
    assert _row(table_json, "aiter")["default"]["text"] == "ROCm (MHA, MLA)"
    assert _row(table_json, "trtllm_mla")["default"]["text"] == "MLA: SM10x"
    # an alias that sglang rewrites (compressed → dsv4) is never shown as accepted: the dsv4 backend
    # it becomes refuses every model but DeepSeek-V4 at start-up
    compressed = _row(table_json, "compressed")["platforms"]
    assert compressed["text"] == "none" and "dsv4_backend_model" in " ".join(compressed["detail"])


def test_features_follow_the_checks(table_json):
    # C11: tokenspeed_mla needs fp8_e4m3 KV; refused without it, accepted with it
    tok = _row(table_json, "tokenspeed_mla")
    assert tok["mla"]["text"] == "✗" and tok["kv_fp8"]["text"] == "✓"
    assert "requires kv-cache-dtype=fp8_e4m3" in " ".join(tok["mla"]["detail"])
    # speculative topk > 1 with a paged kernel is refused; trtllm_mha allows topk 1 only
    assert _row(table_json, "trtllm_mha")["spec_topk1"]["text"] == "✓"
    assert _row(table_json, "trtllm_mha")["spec_topk4"]["text"] == "✗"
    assert _row(table_json, "flashmla")["spec_topk4"]["text"] == "✗"
    assert _row(table_json, "flex_attention")["spec_topk1"]["text"] == "✗"  # C2
    # §4.3: deterministic inference: flashinfer, fa3, triton, ascend; DeepSeek only fa3, triton
    assert _row(table_json, "fa3")["deterministic"]["text"] == "✓"
    assert _row(table_json, "triton")["deterministic"]["text"] == "✓"
    assert _row(table_json, "flashinfer")["deterministic"]["text"] == "MHA ✓ · MLA ✗"
    assert _row(table_json, "fa4")["deterministic"]["text"] == "✗"
    # sinks (GPT-OSS's list) and the sliding-window check (Exaone4: fa3, triton, trtllm_mha)
    assert _row(table_json, "flashinfer")["sinks"]["text"] == "✗"
    assert _row(table_json, "fa3")["sinks"]["text"] == "✓"
    assert _row(table_json, "trtllm_mha")["sliding_window"]["text"] == "✓"
    assert _row(table_json, "flashinfer")["sliding_window"]["text"] == "exaone-4 ✗ · gemma-3 ✓"


def test_every_refusal_keeps_rule_message_and_fix(table_json):
    refused = [
        p
        for r in table_json["rows"]
        for e in r["entries"].values()
        for p in e["probes"]
        if p["status"] == "no"
    ]
    assert len(refused) > 500
    for p in refused:
        assert p["message"], p
    assert all(p["rule"] for p in refused)
    fp4 = _row(table_json, "fa3")["kv_fp4"]["probes"][0]
    assert fp4["rule"] == "fp4_kv_cache_checks" and fp4["inputs"].endswith("--kv-cache-dtype fp4_e2m1")


def test_text_md_html_and_output_file(capsys, tmp_path):
    code, out, _ = run(capsys, "backends", "--backends", "fa3,trtllm_mha", "--platforms", "h100,b200")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "SGLang 0.5.15 attention backends: what the rules accept"
    # probing only h100 and b200: presets are written by name, not as their family (SM90, SM10x)
    # fa3 refuses SM100 at start-up (FlashAttention 3 needs SM80-SM90)
    assert re.match(r"fa3\s+h100 \(MHA, MLA\)\s+h100\s+1\s+✓", lines[4])
    assert re.match(r"trtllm_mha\s+MHA: b200\s+b200\s+64", lines[5])
    code, out, _ = run(capsys, "backends", "--format", "md", "--backends", "flashmla")
    assert "| `flashmla` | – | all but NPU | 64 |" in out and "## Columns" in out
    target = tmp_path / "b.html"
    code, out, err = run(capsys, "backends", "--format", "html", "-o", str(target))
    assert code == 0 and out == "" and "wrote" in err
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and not re.search(r"https?:|//", page)
    assert page.count("<tr>") == len(ATTENTION_BACKENDS) + 1
    assert "<details><summary>✗</summary>" in page  # a refusal opens to its reasons


@pytest.mark.parametrize(
    "argv, message",
    [
        (["backends", "--backends", "fa5"], "unknown attention backend 'fa5'; did you mean 'fa4'?"),
        (["backends", "--platforms", "h1000"], "unknown platform preset 'h1000'"),
        (["backends", "--format", "csv"], "invalid choice: 'csv'"),
    ],
)
def test_bad_input_is_one_error_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_the_table_is_of_the_named_release(capsys):
    """``--sglang-version`` picks the release probed: the title names it and the rows are its
    ``--attention-backend`` choices (0.5.20 removed cutlass_mla); without it, the default release."""
    from resolvable.sglang import registry

    table = capabilities.backend_table(platforms=["h100"], sglang_version="0.5.20")
    assert table.version == "0.5.20" and table.title.startswith("SGLang 0.5.20 attention backends")
    assert [r.name for r in table.rows] == list(choices_in("0.5.20", "attention_backend", _ALL_BACKENDS))
    assert "cutlass_mla" not in [r.name for r in table.rows] and "cutlass_mla" in ATTENTION_BACKENDS
    argv = ["backends", "--backends", "fa3", "--platforms", "h100"]
    code, out, _ = run(capsys, *argv, "--sglang-version", "0.5.20")
    assert code == 0 and out.startswith("SGLang 0.5.20 attention backends")
    code, out, _ = run(capsys, *argv, "--sglang-version", registry.default_release)
    assert code == 0 and main(argv) == 0  # none named: the default release
    assert capsys.readouterr().out == out and out.startswith(f"SGLang {registry.default_release} attention")
    code, out, err = run(capsys, *argv, "--sglang-version", "0.5.9")
    assert code == 2 and out == "" and "supported releases: 0.5.5.post3, 0.5.6, 0.5.6.post1, 0.5.10" in err


def test_table_comes_from_resolutions(monkeypatch):
    """The table is derived from resolutions, start-up checks included: fa3 is refused on SM100+
    by the start-up check ``fa3_capability`` (FlashAttention 3 needs SM80-SM90); resolving without
    the start-up checks, the same generator reports it accepted there."""
    real = capabilities.resolve_server_args
    after = capabilities.backend_table(["fa3"], sglang_version=GOLDEN).rows[0].entries
    assert after["platforms"].text == "SM80, SM86, SM89, SM90, ROCm"
    assert any("fa3_capability" in line for line in after["platforms"].detail)

    def server_args_only(hf, platform, env, startup=False, **flags):
        return real(hf, platform, env, **flags)

    monkeypatch.setattr(capabilities, "resolve_server_args", server_args_only)
    before = capabilities.backend_table(["fa3"], sglang_version=GOLDEN).rows[0].entries["platforms"].text
    assert before == "all but NPU"
