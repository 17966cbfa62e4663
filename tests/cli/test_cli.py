"""The `resolvable` command through its real entry points (main() and the console script)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden import golden_argv
from resolvable.cli import generate_docs, main
from resolvable.sglang import SGLANG_RELEASES

ROOT = Path(__file__).resolve().parents[2]


# golden cases of sglang 0.5.15 (spec): pinned (``run`` names the release)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` for sglang 0.5.15 (``golden_argv``: unless ``argv`` names a release)."""
    code = main(golden_argv(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- explain -----------------------------------------------------------------------------------


def test_explain_shows_chain_with_rule_location_and_inputs(capsys):
    code, out, _ = run(capsys, "explain", "deepseek-v3", "--platform", "b200", "--tp-size", "8")
    assert code == 0
    assert "attention_backend = 'trtllm_mla'" in out
    assert "deepseek_family  resolvable/sglang/families/deepseek.py:" in out
    assert "platform.is_sm100=True" in out
    assert "page_size = 64" in out
    # the prefill graph default is shadowed by the DeepSeek trtllm_mla rule (C24)
    assert "shadowed by a later rule" in out and "deepseek_trtllm_mla_prefill_graph" in out


def test_explain_field_blocked_and_forced(capsys):
    # Qwen3.5 hybrid on B200 forces page 1 over the user's 16 (spec §8 #65)
    code, out, _ = run(
        capsys,
        "explain",
        "qwen3.5-397b-a17b",
        "--platform",
        "b200",
        "--page-size",
        "16",
        "--field",
        "page_size",
    )
    assert code == 1  # the weights do not fit one B200 without TP: would not start (memory)
    assert "page_size = 1    (user set 16)" in out
    assert "FORCED over the user's value" in out


def test_explain_json_schema(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["schema"] == "resolvable.explain/1"
    assert data["arch"] == "LlamaForCausalLM"
    step = data["fields"]["attention_backend"]["steps"][0]
    assert step["rule"] == "attention_backend_default" and step["value"] == "fa3"
    assert step["outcome"] == "applied" and step["location"].endswith(
        ".py:" + step["location"].rsplit(":", 1)[1]
    )
    assert len(data["fingerprint"]) == 16


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["gpt-oss-120b", "--platform", "h100", "--why-not", "flashinfer"],
            "refused by gpt_oss_backend_check",
        ),
        (["llama-3.1-8b", "--platform", "b200", "--why-not", "fa4"], "would be accepted"),
        (
            ["qwen3.5-397b-a17b", "--platform", "b200", "--field", "page_size", "--why-not", "16"],
            "overridden",
        ),
    ],
)
def test_why_not(capsys, argv, needle):
    code, out, _ = run(capsys, "explain", *argv)
    assert code == 0
    assert needle in out


def test_why_not_json_reports_refusal(capsys):
    code, out, _ = run(
        capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--why-not", "trtllm_mha", "--json"
    )
    data = json.loads(out)
    assert (code, data["outcome"], data["rule"]) == (0, "refused", "trtllm_mha_platform_checks")


# -- resolve / diff / matrix -------------------------------------------------------------------


def test_resolve_json_context_matches_values(capsys):
    code, out, _ = run(capsys, "resolve", "gpt-oss-120b", "--platform", "b200", "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "resolvable.resolve/1"
    assert data["context"]["attn"]["backend"] == data["values"]["attention_backend"] == "trtllm_mha"
    assert data["context"]["model"]["dtype"] == "bfloat16"
    assert data["context"]["moe"]["runner_backend"] == "flashinfer_mxfp4"


def test_resolve_text_lists_leaves(capsys):
    code, out, _ = run(capsys, "resolve", "llama-3.1-8b", "--platform", "mi300x")
    assert code == 0  # the aiter workspaces are counted (issue 27, third round): a verdict, no longer unknown
    assert "attn.backend" in out and "aiter" in out


def test_diff_platforms_names_rules(capsys):
    code, out, _ = run(
        capsys, "diff", "deepseek-v3", "--platform", "h100", "--vs-platform", "b200", "--tp-size", "8"
    )
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("attention_backend"))
    assert "fa3" in line and "trtllm_mla" in line and "deepseek_family" in line


def test_diff_vs_set_json(capsys):
    code, out, _ = run(
        capsys,
        "diff",
        "llama-3.1-8b",
        "--platform",
        "b200",
        "--vs-set",
        "enable_deterministic_inference=true",
        "--json",
    )
    changes = {c["field"]: c for c in json.loads(out)["changes"]}
    assert code == 0
    assert changes["attention_backend"]["after"] == "flashinfer"
    assert changes["disable_radix_cache"]["after"] is True


def test_diff_needs_a_right_side(capsys):
    code, _, err = run(capsys, "diff", "llama-3.1-8b", "--platform", "b200")
    assert code == 2 and "--vs-platform" in err


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json", "html"])
def test_matrix_formats(capsys, fmt):
    code, out, _ = run(
        capsys,
        "matrix",
        "--models",
        "llama-3.1-8b,gpt-oss-120b",
        "--platforms",
        "h100,mi300x",
        "--format",
        fmt,
    )
    assert code == 0
    assert "llama-3.1-8b" in out
    if fmt == "json":
        cells = {(c["model"], c["platform"]): c for c in json.loads(out)["cells"]}
        assert cells[("llama-3.1-8b", "h100")]["values"] == {"attention_backend": "fa3", "page_size": 1}
        assert cells[("gpt-oss-120b", "mi300x")]["refused"].startswith("Unknown quantization method: mxfp4")
    if fmt == "html":
        assert out.startswith("<!DOCTYPE html>") and "http" not in out.lower().replace("http-equiv", "")
        assert 'title="attention_backend: attention_backend_default -&gt; fa3' in out


def test_matrix_is_resolved_for_the_named_release(capsys):
    """``--sglang-version``: every cell is that release's answer (spec §9 #4: Llama on H100 gets a
    tc_piecewise prefill graph in 0.5.14, breakable in 0.5.15) and the JSON and HTML name it."""
    base = [
        "matrix",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "h100",
        "--fields",
        "cuda_graph_backend_prefill",
    ]
    got = {}
    for release in ("0.5.14", "0.5.15"):
        code, out, _ = run(capsys, *base, "--format", "json", "--sglang-version", release)
        data = json.loads(out)
        assert code == 0 and data["sglang"] == release
        got[release] = data["cells"][0]["values"]["cuda_graph_backend_prefill"]
        code, out, _ = run(capsys, *base, "--format", "html", "--sglang-version", release)
        assert code == 0 and f"as sglang <b>{release}</b> resolves them" in out
    assert got == {"0.5.14": "tc_piecewise", "0.5.15": "breakable"}
    code, out, err = run(capsys, *base, "--sglang-version", "0.5.4")
    assert (
        code == 2
        and out == ""
        and "supported releases: " + ", ".join(SGLANG_RELEASES[:2]) in err
        and "Traceback" not in err
    )


def test_matrix_writes_file_and_set_flag(capsys, tmp_path):
    target = tmp_path / "m.csv"
    code, _, err = run(
        capsys,
        "matrix",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "b200",
        "--set",
        "enable_deterministic_inference=true",
        "--format",
        "csv",
        "-o",
        str(target),
    )
    assert code == 0 and "wrote" in err
    assert "llama-3.1-8b,b200,flashinfer,1" in target.read_text()


# -- platforms / models / lint / docs ---------------------------------------------------------


def test_platforms_lists_presets_and_detects(capsys):
    code, out, _ = run(capsys, "platforms")
    assert code == 0 and "b200" in out and "sm100 blackwell" in out
    code, out, _ = run(capsys, "platforms", "--detect", "--json")
    data = json.loads(out)
    assert code == 0 and data["detected_by"]


def test_platforms_detect_honors_simulation_env(capsys, monkeypatch):
    monkeypatch.setenv("RESOLVABLE_PLATFORM", "h100")
    code, out, _ = run(capsys, "platforms", "--detect")
    assert code == 0 and "cc 9.0" in out and "RESOLVABLE_PLATFORM=h100" in out


def test_models_lists_bundled(capsys):
    code, out, _ = run(capsys, "models", "--json")
    models = json.loads(out)["models"]
    assert code == 0 and len(models) >= 25
    assert models["gpt-oss-120b"]["architecture"] == "GptOssForCausalLM"


def test_docs_support_matrix_is_fresh():
    """Fails when docs/ is stale: run `resolvable docs` to regenerate."""
    docs = generate_docs(str(ROOT))
    assert "README.md" in docs
    for rel, content in docs.items():
        assert (ROOT / rel).read_text(encoding="utf-8") == content, f"{rel} is stale: run `resolvable docs`"


def test_docs_check_command(capsys, tmp_path):
    # `docs` writes only into a resolvable checkout (issue 11): make tmp_path look like one
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "resolvable"\n', encoding="utf-8")
    code, _, err = run(capsys, "docs", "--check", "--root", str(tmp_path))
    assert code == 1 and "stale" in err
    code, _, _ = run(capsys, "docs", "--root", str(tmp_path))
    assert code == 0 and (tmp_path / "docs" / "support-matrix.html").is_file()
    assert run(capsys, "docs", "--check", "--root", str(tmp_path))[0] == 0


# -- user errors: one line, exit 2, no traceback -----------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["explain", "no-such-model", "--platform", "h100"], "unknown model 'no-such-model'"),
        (["explain", "llama-3.1-8b", "--platform", "h10"], "Did you mean 'h100'"),
        (
            ["explain", "llama-3.1-8b", "--platform", "h100", "--attention-backend", "fa5"],
            "invalid choice: 'fa5'",
        ),
        (
            ["explain", "llama-3.1-8b", "--platform", "h100", "--attention-backnd", "fa3"],
            "did you mean --attention-backend",
        ),
        (["explain", "llama-3.1-8b", "--platform", "h100", "--tp-size", "two"], "invalid int value"),
        (
            ["explain", "llama-3.1-8b", "--platform", "h100", "--field", "attention_backnd"],
            "did you mean 'attention_backend'",
        ),
        (["explain", "llama-3.1-8b", "--platform", "h100", "--attention-backend", "trtllm_mha"], "refused"),
        (["explain", "llama-3.1-8b", "--platform", "h100", "--why-not", "fa5"], "not a valid choice"),
        (["matrix", "--platforms", "h100,zz9"], "unknown platform preset 'zz9'"),
        (["matrix", "--fields", "attention_backnd"], "did you mean"),
        (["matrix", "--set", "page_size"], "expected one argument"),
        (["platforms", "--bogus"], "unrecognized arguments"),
        (["explain", "llama-3.1-8b", "--env", "NOEQUALS"], "KEY=VALUE"),
        ([], "required"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    # an engine flag the release lacks, a value its parser refuses, or a refusal, is the engine's
    # answer: would not start (1)
    engine = ("refused", "did you mean --attention-backend", "invalid choice: 'fa5'", "invalid int value")
    assert code == (1 if needle in engine else 2)
    assert needle in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1, err


def test_bad_config_files_are_clear(capsys, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "explain", str(bad), "--platform", "h100")
    assert code == 2 and "invalid JSON" in err and str(bad) in err
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "explain", str(tmp_path / "empty"), "--platform", "h100")
    assert code == 2 and "no config.json" in err


def test_model_directory_and_ignored_flags(capsys, tmp_path):
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["Qwen3ForCausalLM"],
                "model_type": "qwen3",
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
            }
        )
    )
    code, out, err = run(
        capsys,
        "explain",
        str(tmp_path),
        "--platform",
        "a100",
        "--trust-remote-code",
        "--max-total-tokens",
        "4096",
    )
    assert code == 0
    assert "attention_backend = 'flashinfer'" in out
    # Issue 9: every sglang 0.5.15 flag is accepted; the ones the pack does not read are listed in
    # the explain header (they used to be reported as ignored on stderr).
    # (--trust-remote-code is modelled since the 0.5.22 step3p5 config check reads it)
    assert "not modelled  --max-total-tokens 4096: accepted" in out
    assert err == ""


def test_console_script_end_to_end():
    exe = shutil.which("resolvable") or os.path.join(os.path.dirname(sys.executable), "resolvable")
    proc = subprocess.run(
        [exe, *golden_argv(["explain", "gpt-oss-20b", "--platform", "b200", "--field", "attention_backend"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "attention_backend = 'trtllm_mha'" in proc.stdout
    proc = subprocess.run(
        [exe, "explain", "nope", "--platform", "b200"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_explain_refusal_names_where_the_conflicting_value_came_from(capsys):
    """sglang says "you explicitly specified 'trtllm_mla'"; explain shows a model rule chose it."""
    code, out, err = run(
        capsys,
        "explain",
        "deepseek-v3",
        "--platform",
        "b200",
        "--tp-size",
        "8",
        "--enable-deterministic-inference",
    )
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "refused by deterministic_attention_backend" in out
    assert "enable_deterministic_inference = True    (your flag)" in out
    assert (
        "attention_backend = 'trtllm_mla'    (declared by deepseek_family  resolvable/sglang/families/deepseek.py:"
        in out
    )


def test_refusal_as_json_for_scripts(capsys):
    code, out, err = run(
        capsys, "resolve", "deepseek-v3", "--platform", "b200", "--enable-deterministic-inference", "--json"
    )
    data = json.loads(out)
    assert code == 1 and err.startswith("error: refused:")
    assert data["schema"] == "resolvable.refusal/1" and data["rule"] == "deterministic_attention_backend"
    assert data["origins"]["attention_backend"] == {
        "value": "trtllm_mla",
        "set_by": "deepseek_family",
        "location": data["origins"]["attention_backend"]["location"],
    }
    assert data["upstream"] == "ValueError"


LEGACY_MODULE = '''
def legacy_defaults(args, hf, platform, env):
    """A team's procedural original: the generic default and page size for MHA models."""
    if args.attention_backend is None:
        if platform.is_sm90:
            args.attention_backend = "fa3"
        elif platform.is_cuda and "flashinfer" in platform.kernels:
            args.attention_backend = "flashinfer"
        else:
            args.attention_backend = "triton"
    if args.page_size is None:
        args.page_size = {BUG}
    if args.enable_deterministic_inference and args.attention_backend not in ("fa3", "flashinfer", "triton"):
        raise AssertionError("deterministic inference needs fa3, flashinfer or triton")
'''


@pytest.mark.parametrize(("bug", "code"), [("1", 0), ("16", 1)])
def test_parity_command_compares_legacy_code_with_the_rules(capsys, tmp_path, monkeypatch, bug, code):
    module = f"team_legacy_{bug}"  # one module per case: imports are cached per process
    (tmp_path / f"{module}.py").write_text(LEGACY_MODULE.replace("{BUG}", bug))
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(
        capsys,
        "parity",
        f"{module}:legacy_defaults",
        "--models",
        "llama-3.1-8b,qwen3-8b",
        "--platforms",
        "h100,a100,l40s",
        "--fields",
        "attention_backend,page_size",
        "--set",
        "tp_size=2",
    )
    assert rc == code, out
    assert out.startswith("6 cases compared")
    if code:
        assert "page_size: legacy=16 declarative=1 (declared by page_size_default)" in out
        assert "by field: page_size 6" in out


def test_parity_command_bad_target(capsys):
    rc, _, err = run(capsys, "parity", "no_such_module_xyz:fn")
    assert rc == 2 and "cannot import 'no_such_module_xyz'" in err
