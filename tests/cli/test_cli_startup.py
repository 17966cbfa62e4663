"""`resolvable explain` / `matrix` answer "will it start?" (the start-up check, after ServerArgs)."""

from __future__ import annotations

import csv
import io
import json

from golden import golden_argv
from resolvable.cli import main

LABEL = "start-up check (after ServerArgs)"


# golden cases of sglang 0.5.15 (spec): pinned (``run`` names the release)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` for sglang 0.5.15 (``golden_argv``: unless ``argv`` names a release)."""
    code = main(golden_argv(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_accepted_and_would_start(capsys):
    code, out, err = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100")
    assert code == 0 and err == ""
    assert f"{LABEL}: accepted, and would start (" in out


def test_explain_accepted_by_serverargs_refused_at_startup(capsys):
    code, out, err = run(
        capsys, "explain", "llama-3.1-8b", "--platform", "b200", "--attention-backend", "fa3"
    )
    assert code == 1
    assert (
        f"{LABEL}: accepted by ServerArgs, refused at start-up: FlashAttention v3 Backend requires SM>=80"
        in out
    )
    assert "refused by fa3_capability  resolvable/sglang/passes/startup.py:" in out
    assert "fix: pass --attention-backend triton (or flashinfer)" in out
    assert "attention_backend = 'fa3'    (your flag)" in out
    assert "page_size = 1" in out  # the ServerArgs resolution is still explained
    assert err.startswith("error: refused at start-up (after ServerArgs): FlashAttention v3")
    assert err.count("\n") == 1


def test_explain_serverargs_refusal_is_unchanged(capsys):
    code, out, err = run(
        capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--attention-backend", "trtllm_mha"
    )
    assert code == 1 and LABEL not in out
    assert err.startswith("error: refused: ")


def test_explain_json_has_the_startup_answer(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "resolvable.explain/1"
    startup = data["startup"]
    assert (startup["phase"], startup["label"], startup["outcome"], startup["refusal"]) == (
        "startup",
        LABEL,
        "accepted",
        None,
    )
    assert "fa3_capability" in startup["checks"]


def test_explain_json_startup_refusal(capsys):
    code, out, err = run(
        capsys, "explain", "deepseek-v3", "--platform", "a100", "--attention-backend", "fa3", "--json"
    )
    data = json.loads(out)  # one document: the explanation, with the refusal inside
    assert code == 1 and err.startswith("error: refused at start-up")
    assert data["fields"]["attention_backend"]["value"] == "fa3"
    refusal = data["startup"]["refusal"]
    assert data["startup"]["outcome"] == "refused"
    assert refusal["schema"] == "resolvable.refusal/1"
    assert (refusal["phase"], refusal["stage"], refusal["rule"], refusal["upstream"]) == (
        "startup",
        "startup",
        "fa3_capability",
        "AssertionError",
    )
    assert refusal["origins"]["attention_backend"]["set_by"] == "user"


def test_serverargs_refusal_json_names_its_phase(capsys):
    code, out, _ = run(
        capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--attention-backend", "trtllm_mha", "--json"
    )
    data = json.loads(out)
    assert code == 1 and (data["phase"], data["stage"]) == ("server_args", "attention_checks")


def test_why_not_says_accepted_by_serverargs_but_refused_at_startup(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "b200", "--why-not", "fa3")
    assert code == 0
    assert (
        "would be accepted by ServerArgs (without it: 'trtllm_mha'), but refused at start-up by fa3_capability"
        in out
    )
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "b200", "--why-not", "fa3", "--json")
    data = json.loads(out)
    assert data["outcome"] == "accepted" and data["startup"]["outcome"] == "refused"


def test_matrix_cell_accepted_refused_at_startup(capsys):
    argv = [
        "matrix",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "h100,b200",
        "--set",
        "attention_backend=fa3",
    ]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("llama-3.1-8b"))
    assert "fa3 / 1 ✗ start-up: FlashAttention v3" in row
    code, out, _ = run(capsys, *argv, "--format", "json")
    cells = {c["platform"]: c for c in json.loads(out)["cells"]}
    assert cells["h100"]["startup_refused"] is None and cells["h100"]["refused"] is None
    b200 = cells["b200"]
    assert b200["values"] == {"attention_backend": "fa3", "page_size": 1} and b200["refused"] is None
    assert b200["startup_refused"].startswith("FlashAttention v3 Backend requires SM>=80 and SM<=90.")
    assert (b200["startup_refused_by"], b200["startup_fix"]) == (
        "fa3_capability",
        "pass --attention-backend triton (or flashinfer)",
    )
    code, out, _ = run(capsys, *argv, "--format", "csv")
    rows = {r["platform"]: r for r in csv.DictReader(io.StringIO(out))}
    assert rows["b200"]["startup_refused_by"] == "fa3_capability" and rows["b200"]["refused"] == ""
    assert rows["h100"]["startup_refused"] == ""
    code, out, _ = run(capsys, *argv, "--format", "html")
    assert 'class="startup"' in out and "refused at start-up by fa3_capability" in out


def test_resolve_reports_the_startup_answer(capsys):
    code, out, err = run(capsys, "resolve", "olmo-2-7b", "--platform", "rtx5090")
    assert code == 1 and f"{LABEL}: accepted by ServerArgs, refused at start-up" in out
    assert "attn.backend" in out and err.startswith("error: refused at start-up")
    code, out, _ = run(capsys, "resolve", "olmo-2-7b", "--platform", "h100", "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "resolvable.resolve/1" and data["startup"]["outcome"] == "accepted"


def test_no_startup_check_answers_only_serverargs(capsys):
    """sglang's Olmo2 rule picks fa3 on SM120 (spec §3.8); only the start-up check refuses it."""
    code, out, err = run(capsys, "explain", "olmo-2-7b", "--platform", "rtx5090", "--no-startup-check")
    assert code == 0 and err == "" and f"{LABEL}: not run (--no-startup-check)" in out
    code, out, _ = run(
        capsys, "explain", "olmo-2-7b", "--platform", "rtx5090", "--no-startup-check", "--json"
    )
    assert code == 0 and json.loads(out)["startup"]["outcome"] == "skipped"
    code, out, _ = run(
        capsys, "matrix", "--models", "olmo-2-7b", "--platforms", "rtx5090", "--no-startup-check"
    )
    assert code == 0 and "start-up" not in out and "fa3 / 1" in out
