"""What an operator sees (issue 11, items 1-4), through main() and the console script."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from golden import golden_argv
from resolvable import Platform
from resolvable.cli import main

# golden cases of sglang 0.5.15 (spec): pinned (``run`` names the release)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` for sglang 0.5.15 (``golden_argv``: unless ``argv`` names a release)."""
    code = main(golden_argv(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- 1. explain's default view shows your flags, and what overrode them ---------------------------


def test_default_view_shows_a_user_flag_forced_back_to_its_default(capsys):
    # DP attention is forced off with --dp-size 1: False is also the default, so "differs from
    # its default" alone would hide it (the issue's example)
    argv = ["explain", "deepseek-v3", "--platform", "h200", "--enable-dp-attention", "--tp", "8"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert re.search(
        r"^forced    your --enable-dp-attention True -> False by data_parallelism_defaults ", out, re.M
    )
    assert "enable_dp_attention = False    (user set True)" in out
    assert "FORCED over the user's value" in out
    assert "untouched by any rule: tp_size=8" in out
    code, out, _ = run(capsys, *argv, "--json")
    assert {"enable_dp_attention", "tp_size", "attention_backend"} <= set(json.loads(out)["fields"])


def test_the_forced_line_shows_with_field_too(capsys):
    argv = ["explain", "deepseek-v3", "--platform", "h200", "--enable-dp-attention", "--field", "page_size"]
    code, out, _ = run(capsys, *argv)
    assert code == 1 and "forced    your --enable-dp-attention True -> False" in out  # memory: TP 1


def test_a_blocked_rule_is_one_line_too():
    # no SGLang rule declares over a user's value without Force (lint checks it), so a tiny registry
    import dataclasses

    from resolvable import HFConfig, Registry, arg, resolve
    from resolvable.cli.explain import _overrides_of_user_flags

    @dataclasses.dataclass
    class Args:
        backend: str = arg("auto", resolvable=True, choices=("auto", "fa3", "triton"))

    registry = Registry(Args, stages=["passes"], model_stage="passes")

    @registry.rule("passes")
    def wants_fa3(ctx):
        return {"backend": "fa3"}  # no Force: the user's value wins

    hf = HFConfig({"architectures": ["FakeForCausalLM"]})
    res = resolve(registry, {"backend": "triton"}, hf, Platform.preset("h100"))
    (line,) = _overrides_of_user_flags(res)
    assert line.startswith("kept      your --backend 'triton'; ") and line.endswith("wants_fa3 wanted 'fa3'")


# -- 2. machine output keeps the reason ------------------------------------------------------------

EXAONE = "One of the attention backends in ['fa3', 'triton', 'trtllm_mha'] is required for Exaone4ForCausalLM, but got None"


def test_matrix_json_carries_the_whole_message_the_fix_and_the_rule(capsys):
    code, out, _ = run(
        capsys, "matrix", "--models", "exaone-4.0-32b", "--platforms", "h100", "--format", "json"
    )
    assert code == 0
    cell = json.loads(out)["cells"][0]
    assert cell["refused"] == EXAONE
    assert cell["refused_by"] == "exaone_backend_check"
    assert re.fullmatch(r"resolvable/sglang/families/exaone\.py:\d+", cell["refused_at"])
    assert cell["fix"].startswith("pass --attention-backend fa3 or triton")
    assert (
        cell["fix_check"]["suggested"]
        == "pass --attention-backend fa3 (or triton, or trtllm_mha on SM100) explicitly"
    )
    assert cell["refused_short"].endswith("...")  # the short form is still there, for tables


def test_matrix_csv_carries_the_whole_message_and_fix_the_text_table_abbreviates(capsys):
    argv = ["matrix", "--models", "exaone-4.0-32b,llama-3.1-8b", "--platforms", "h100"]
    code, out, _ = run(capsys, *argv, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and rows[0]["refused"] == EXAONE and rows[0]["refused_by"] == "exaone_backend_check"
    assert rows[0]["refused_at"].startswith("resolvable/sglang/families/exaone.py:")
    assert "--attention-backend fa3" in rows[0]["fix"] and rows[0]["fix_status"] == "corrected"
    assert rows[1]["refused"] == rows[1]["fix"] == "" and rows[1]["attention_backend"] == "fa3"
    code, out, _ = run(capsys, *argv)
    assert code == 0 and EXAONE not in out and "✗ One of the attention backends" in out


# -- 3. suggested fixes are verified -------------------------------------------------------------


def test_a_fix_refused_too_names_the_accepted_combination(capsys):
    code, out, err = run(capsys, "explain", "qwen3-next-80b-a3b", "--platform", "mi300x")
    assert code == 1
    fix = "pass --mamba-radix-cache-strategy no_buffer --disable-overlap-schedule, or pass --disable-radix-cache"
    assert f"    fix: {fix} (checked by resolving again" in out and fix in err
    # and the combination it names is accepted
    argv = [
        "explain",
        "qwen3-next-80b-a3b",
        "--platform",
        "mi300x",
        "--mamba-radix-cache-strategy",
        "no_buffer",
    ]
    # accepted by the rules; the memory answer on MI300X is then sglang's own refusal: its 160 GiB
    # of bf16 weights exceed the default fraction scaled by 0.85 for aiter's long context
    code, _, err = run(capsys, *argv, "--disable-overlap-schedule")
    assert code == 1 and "(memory): Loaded weights leave no GPU memory" in err and fix not in err


def test_a_fix_with_no_way_out_on_this_platform_says_so(capsys):
    code, out, _ = run(capsys, "explain", "qwen2.5-7b-instruct-1m", "--platform", "npu", "--json")
    data = json.loads(out)
    assert code == 1 and data["fix"].startswith("none on this platform")
    assert data["fix_check"]["status"] == "none" and data["fix_check"]["accepted"] == []


def test_a_fix_that_holds_is_shown_as_written(capsys):
    code, out, _ = run(capsys, "explain", "lfm2-1.2b", "--platform", "a100", "--page-size", "16")
    assert code == 1 and "    fix: drop --page-size (or pass --page-size 1)\n" in out


def test_why_not_checks_the_fix_too(capsys):
    argv = ["explain", "qwen3-next-80b-a3b", "--platform", "h100", "--field", "mamba_radix_cache_strategy"]
    code, out, _ = run(capsys, *argv, "--why-not", "no_buffer", "--json")
    data = json.loads(out)
    assert code == 0 and data["outcome"] == "refused"
    assert data["fix_check"]["status"] == "verified" and data["fix"] == "pass --disable-overlap-schedule"


# -- 4. errors and environments ------------------------------------------------------------------


def test_a_cp1252_console_gets_ascii_symbols_not_a_crash():
    # the console script's own entry point, run by this interpreter (never skipped: no PATH lookup)
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "resolvable.cli",
            *golden_argv(["explain", "deepseek-v3", "--platform", "b200", "--page-size", "16"]),
        ],
        capture_output=True,
        env=env,
        timeout=60,
    )
    out = proc.stdout.decode("cp1252")
    assert proc.returncode == 1, proc.stderr.decode("cp1252")  # DeepSeek-V3 on one B200: does not fit
    assert "  + 1. [device] device_default" in out and "legend: + applied" in out
    assert "\u2713" not in out and "internal error" not in proc.stderr.decode("cp1252")
    matrix = subprocess.run(
        [
            sys.executable,
            "-m",
            "resolvable.cli",
            *golden_argv(["matrix", "--models", "exaone-4.0-32b", "--platforms", "h100"]),
        ],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert matrix.returncode == 0 and "x One of the attention backends" in matrix.stdout.decode("cp1252")


def test_ascii_fallback_through_main(capsys, monkeypatch):
    buf = io.BytesIO()
    stream = io.TextIOWrapper(buf, encoding="cp1252")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(golden_argv(["explain", "llama-3.1-8b", "--platform", "h100"])) == 0
    stream.flush()
    assert "+ 1. [device]" in buf.getvalue().decode("cp1252")


@pytest.mark.parametrize(("name", "hint"), [("b2000", "b200"), ("h1000", "h100")])
def test_an_unknown_simulated_platform_is_an_error_with_a_suggestion(capsys, monkeypatch, name, hint):
    monkeypatch.setenv("RESOLVABLE_PLATFORM", name)
    for argv in (["explain", "llama-3.1-8b"], ["platforms", "--detect"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert f"RESOLVABLE_PLATFORM='{name}' is not a platform preset" in err
        assert f"Did you mean --platform {hint} " in err and err.count("\n") == 1


def test_docs_outside_a_checkout_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _out, err = run(capsys, "docs")
    assert code == 2 and "is not a resolvable checkout" in err and "nothing was written" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--tp-size", "0"], "tp_size must be >= 1, got 0"),
        (["--tp", "-2"], "tp_size must be >= 1, got -2"),
        (["--page-size", "0"], "page_size must be >= 1, got 0 (sglang 0.5.15: check_server_args divides"),
        (["--page-size", "-1"], "page_size must be >= 1, got -1"),
    ],
)
def test_non_positive_sizes_are_refused(capsys, flags, needle):
    code, _out, err = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", *flags)
    assert code == 2 and needle in err and err.startswith("error: ") and err.count("\n") == 1


def test_page_size_one_and_tp_size_one_still_pass(capsys):
    assert (
        run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--page-size", "1", "--tp", "1")[0] == 0
    )


ERROR_ARGVS = [
    ["explain", "llama-3.1-8b", "--platform", "h100", "--set", "attention_backend=bogus"],
    ["explain", "llama-3.1-8b", "--platform", "h100", "--set", "tp_size=x"],
    ["matrix", "--set", "attention_backend=fa"],
    ["diff", "llama-3.1-8b", "--platform", "h100", "--vs-set", "page_size=x"],
    ["explain", "llama-3.1-8b", "--platform", "h100", "--attention-backend", "fa"],
    ["bogus"],
    ["explain", "no-such-model", "--platform", "h100"],
    ["docs", "--check", "--root", "/nonexistent"],
]


@pytest.mark.parametrize("argv", ERROR_ARGVS)
def test_every_command_an_error_points_to_exists(capsys, argv):
    code, _, err = run(capsys, *argv)
    # a value explain's engine flag refuses is the engine's parser refusing the launch (1)
    assert code == (1 if argv[-2:] == ["--attention-backend", "fa"] else 2)
    commands = re.findall(r"`(resolvable [^`]*)`", err)
    assert commands, err
    for command in commands:
        words = shlex.split(command)[1:]
        if "--help" in words:
            assert main(words) == 0, command  # the help exists
        else:
            assert main([*words[:1], "--help"]) == 0, command  # the command exists
        capsys.readouterr()


def test_set_errors_point_to_the_help_that_lists_the_sglang_flags(capsys):
    code, _, err = run(capsys, "matrix", "--set", "attention_backend=bogus")
    assert code == 2 and "`--set --help`" not in err and "`resolvable explain --help`" in err


def test_an_uncached_hub_id_says_how_to_fetch_only_its_config(capsys, monkeypatch, tmp_path):
    # offline (the suite sets HF_HUB_OFFLINE): the error says how to fetch the config alone;
    # online, the tool fetches it itself (tests/cli/test_hub.py)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    code, _, err = run(capsys, "explain", "some-org/some-model", "--platform", "h100")
    assert code == 2
    assert "`hf download some-org/some-model config.json`" in err and "unset HF_HUB_OFFLINE" in err
    assert "$HF_HUB_CACHE" in err and "$HF_HOME" in err and str(tmp_path) in err


def test_platform_help_lists_the_presets(capsys):
    code, out, _ = run(capsys, "explain", "--help")
    help_text = " ".join(out.split())
    assert code == 0
    for name in Platform.presets():
        assert re.search(rf"[ :,]{re.escape(name)}[,;]", help_text), name


def test_detect_falling_back_to_the_cpu_says_so_in_one_line(capsys, monkeypatch):
    from resolvable import _detect

    monkeypatch.delenv("RESOLVABLE_PLATFORM", raising=False)
    for probe in ("_from_torch", "_from_nvidia_smi", "_from_rocm_smi"):
        monkeypatch.setattr(_detect, probe, lambda: None)
    code, out, _ = run(capsys, "explain", "llama-3.1-8b")
    lines = [line for line in out.splitlines() if "no GPU detected" in line]
    assert code == 0 and len(lines) == 1
    assert "this machine's CPU" in lines[0] and "--platform h100" in lines[0]
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "cpu")
    assert code == 0 and "no GPU detected" not in out  # a simulated CPU is no fallback
