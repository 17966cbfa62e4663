"""Small CLI holes: each is a one-line error, exit 2, never an internal error.

* ``parity ..:x`` (a relative module), ``parity os:getcwd`` (a function of the wrong shape),
  ``parity os:`` and a module that fails while importing;
* ``diff --vs-platform ''`` (an empty value is a mistake, not "nothing asked").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_child


@pytest.mark.parametrize(
    "target, match",
    [
        ("..:x", "not an absolute module name"),
        (".os:getcwd", "not an absolute module name"),
        ("os:getcwd", "cannot be called as fn(args, hf, platform, env)"),
        ("os:sep", "has no function"),
        ("os:", "expected MODULE:FUNCTION"),
        ("no_such_module_xyz:f", "cannot import"),
        ("broken_module_h19:f", "failed"),
        ("os:path.join", "raised TypeError"),
        ("builtins:len", "cannot be called"),
    ],
)
def test_parity_targets_are_checked(tmp_path: Path, target: str, match: str) -> None:
    (tmp_path / "broken_module_h19.py").write_text("raise RuntimeError('broken on import')\n")
    proc = run_child(["parity", target, "--models", "llama-3.1-8b", "--platforms", "h100"], cwd=tmp_path)
    assert_one_line_error(proc, match)


@pytest.mark.parametrize("flag", ["--vs-platform", "--vs-sglang-version"])
@pytest.mark.parametrize("value", ["", "  "])
def test_diff_with_an_empty_comparison_is_an_error(flag: str, value: str) -> None:
    proc = run_child(["diff", "llama-3.1-8b", "--platform", "h100", flag, value])
    assert_one_line_error(proc, flag, "empty")
