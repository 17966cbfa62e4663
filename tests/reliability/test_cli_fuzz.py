"""Fuzzing ``resolvable.cli.main`` with generated command lines.

Argv lists mix real SGLang flag names (from ``resolvable.sglang.cli_args``) with valid and
random values, random tokens, ``--set`` pairs, ``--platform`` values and the subcommands
explain / resolve / diff / matrix (matrix always on ``--models llama-3.1-8b --platforms h100``
so each example is fast). Whatever the argv:

* ``main`` returns 0, 1 or 2 (usage errors and refusals are 2);
* neither stdout nor stderr contains "Traceback" or "internal error".

The random tokens never spell ``-o``/``--output`` (matrix would write a file) and
``RESOLVABLE_PLATFORM`` makes ``--platform detect`` (the default) simulate an H100 instead of
probing this machine.

Each command-line bug found while writing this suite also has a pinned regression test below.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolvable.cli import main
from resolvable.sglang.cli_args import add_cli_args
from resolvable.sglang.models import catalog

PRESETS = ["h100", "b200", "mi300x", "cpu", "npu", "xpu"]
MODELS = ["llama-3.1-8b", "deepseek-v3", "gpt-oss-120b", "qwen3.5-397b-a17b", "granite-4.0-h-small"]
assert set(MODELS) <= set(catalog())


def _sglang_actions() -> list[argparse.Action]:
    parser = argparse.ArgumentParser(add_help=False)
    add_cli_args(parser, skip=("model_path",))
    return [a for a in parser._actions if a.option_strings]


ACTIONS = _sglang_actions()
FIELD_NAMES = sorted(a.dest for a in ACTIONS)


def _safe(token: str) -> bool:
    """Keep tokens that cannot select matrix's -o/--output, or widen --models/--platforms."""
    if token.startswith("--"):
        name = token[2:].split("=", 1)[0]
        return not name or not any(w.startswith(name) for w in ("output", "models", "platforms"))
    if token.startswith("-"):
        return "o" not in token
    return True


random_token = st.one_of(
    st.text(max_size=12),
    st.from_regex(r"\A--?[a-z][a-z\-_]{0,20}(=[a-z0-9]{0,4})?\Z"),
    st.sampled_from(["-1", "0", "1e9", "nan", "inf", "true", "none", "", "=", "--", "-", "--json", "--help"]),
    # line breaks, escape sequences and an undecodable byte (as os.fsdecode gives it): an error
    # naming such a token must still be one line
    st.sampled_from(["a\nb", "\x1b[2J", "x\r", "caf\udce9", "\u2028", "--page-size=1\n6", "h1\n00"]),
).filter(_safe)


@st.composite
def sglang_flag(draw: Any) -> list[str]:
    action = draw(st.sampled_from(ACTIONS))
    flag = draw(st.sampled_from(action.option_strings))
    if action.nargs == 0:
        return [flag]
    if action.choices:
        value = draw(st.sampled_from([str(c) for c in action.choices]) | random_token)
    elif action.type is int:
        value = draw(st.integers(-3, 1 << 16).map(str) | random_token)
    elif action.type is float:
        value = draw(st.floats(allow_nan=True, allow_infinity=True).map(str) | random_token)
    else:
        value = draw(random_token)
    return [flag, value]


field_or_random = st.sampled_from(FIELD_NAMES) | random_token
set_pair = (
    st.tuples(
        field_or_random,
        st.sampled_from(["=", ""]),
        random_token | st.sampled_from(["16", "triton", "fa3", "true", "false", "8"]),
    )
    .map(lambda t: "".join(t))
    .filter(_safe)
)

chunk = st.one_of(
    sglang_flag(),
    random_token.map(lambda t: [t]),
    set_pair.map(lambda p: ["--set", p]),
    st.sampled_from(PRESETS).map(lambda p: ["--platform", p]),
    random_token.map(lambda t: ["--platform", t]),
    st.just(["--json"]),
    st.tuples(st.just("--env"), random_token).map(list),
)
explain_chunk = (
    chunk | field_or_random.map(lambda f: ["--field", f]) | random_token.map(lambda v: ["--why-not", v])
)
diff_chunk = (
    chunk
    | st.sampled_from(PRESETS).map(lambda p: ["--vs-platform", p])
    | set_pair.map(lambda p: ["--vs-set", p])
)
matrix_chunk = st.one_of(
    set_pair.map(lambda p: ["--set", p]),
    st.sampled_from(["text", "md", "csv", "json", "html"]).map(lambda f: ["--format", f]),
    st.lists(field_or_random, min_size=1, max_size=3).map(lambda fs: ["--fields", ",".join(fs)]),
    random_token.map(lambda t: [t]),
    st.tuples(st.just("--env"), random_token).map(list),
)


def _argv(head: list[str], chunks: list[list[str]]) -> list[str]:
    return head + [t for c in chunks for t in c]


model = st.sampled_from(MODELS) | random_token
argvs = st.one_of(
    st.builds(lambda m, cs: _argv(["explain", m], cs), model, st.lists(explain_chunk, max_size=4)),
    st.builds(lambda m, cs: _argv(["resolve", m], cs), model, st.lists(chunk, max_size=4)),
    st.builds(lambda m, cs: _argv(["diff", m], cs), model, st.lists(diff_chunk, max_size=4)),
    st.builds(
        lambda cs: _argv(["matrix", "--models", "llama-3.1-8b", "--platforms", "h100"], cs),
        st.lists(matrix_chunk, max_size=3),
    ),
)


@pytest.fixture(autouse=True, scope="module")
def simulated_platform() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESOLVABLE_PLATFORM", "h100")
        for key in list(os.environ):
            if key.startswith("SGLANG_"):
                mp.delenv(key)
        yield


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _strict_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def check(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert rc in (0, 1, 2), (argv, rc, err[-500:])
    for text in (out, err):
        assert "Traceback" not in text, (argv, text[-2000:])
        assert "internal error" not in text, (argv, text[-500:])
    if rc == 0 and "--json" in argv and out.startswith("{"):
        json.loads(out, parse_constant=_strict_constant)  # --json prints standard JSON (no NaN/Infinity)
    # every line on stderr is a message of its own: an input never splits one over two lines
    for line in err.splitlines():
        assert line.startswith(("error:", "note:", "warning:", "wrote ")), (argv, err[-500:])


# capsys is drained per example, so sharing it across examples is safe.
@settings(
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]
)
@given(argv=argvs)
def test_fuzzed_command_lines_never_crash(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, argv)
    check(rc, out, err, argv)
    if rc == 2 and not out:
        assert err.strip(), f"exit 2 without a message: {argv}"


# -- pinned regressions (bugs found by this suite) -------------------------------------------------

REGRESSIONS = {
    "why-not-float-not-a-number": [
        "explain",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--field",
        "swa_full_tokens_ratio",
        "--why-not",
        "abc",
    ],
    "why-not-float-nan": [
        "explain",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--field",
        "swa_full_tokens_ratio",
        "--why-not",
        "nan",
    ],
    "why-not-model-path": [
        "explain",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--field",
        "model_path",
        "--why-not",
        "x",
    ],
    "nan-flag-resolve-json": [
        "resolve",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--swa-full-tokens-ratio",
        "nan",
        "--json",
    ],
    "inf-flag-resolve-json": [
        "resolve",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--swa-full-tokens-ratio",
        "inf",
        "--json",
    ],
    "inf-flag-explain": ["explain", "llama-3.1-8b", "--platform", "h100", "--swa-full-tokens-ratio", "inf"],
}


@pytest.mark.parametrize("argv", list(REGRESSIONS.values()), ids=list(REGRESSIONS))
def test_pinned_command_lines(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, argv)
    check(rc, out, err, argv)
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), err


def test_non_finite_flag_is_refused_as_invalid_input() -> None:
    """``--swa-full-tokens-ratio nan`` must be refused up front, like NaN in a config.json.

    Today it resolves; the value then breaks ``publish`` (NaN != NaN: "parity broken ... nan
    ... nan"), JSON output, ``from_dict`` equality and ``res.diff(res)``.
    """
    from resolvable import Platform
    from resolvable.errors import InvalidArgumentError
    from resolvable.sglang import resolve_server_args
    from resolvable.sglang.models import bundled

    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(InvalidArgumentError, match="swa_full_tokens_ratio"):
            resolve_server_args(bundled("llama-3.1-8b"), Platform.preset("h100"), swa_full_tokens_ratio=value)
