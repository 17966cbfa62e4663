"""Running the ``resolvable`` command in a child process, and what "a clean failure" means there.

A child process is needed where the failure is a property of the process: a file-size limit
(``RLIMIT_FSIZE``), an address-space limit (``RLIMIT_AS``), standard output on ``/dev/full`` or
on a pipe whose reader has gone, a non-UTF-8 path with ``PYTHONIOENCODING=utf-8``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT_S = 60


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESOLVABLE_")}
    env["RESOLVABLE_PLATFORM"] = "h100"  # `--platform detect` simulates an H100: no probing
    env.update(extra)
    return env


def run_child(
    argv: Sequence[str | bytes],
    *,
    cwd: str | os.PathLike[str] | None = None,
    preexec: Callable[[], None] | None = None,
    stdout: int | None = subprocess.PIPE,
    env: dict[str, str] | None = None,
    timeout: float = CHILD_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """``python -m resolvable.cli ARGV`` in a child; output as bytes (it may not be UTF-8)."""
    return subprocess.run(
        [sys.executable, "-m", "resolvable.cli", *argv],
        cwd=cwd,
        preexec_fn=preexec,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env or child_env(),
        timeout=timeout,
        check=False,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[bytes], *names: str) -> str:
    """Exit 2 (or 1 for the engine's parser refusing), exactly one ``error:`` line on stderr naming
    each of ``names``, no traceback."""
    err = proc.stderr.decode("utf-8", "backslashreplace")
    out = (proc.stdout or b"").decode("utf-8", "backslashreplace")
    assert "Traceback" not in err + out, err
    assert "internal error" not in err + out, err
    # 2: the tool's input error; 1: the engine's parser refuses a flag or its value (it would not
    # start: an unknown flag, an invalid choice, a value of the wrong type)
    refusal = ("unknown flag", "invalid choice", "invalid int value")
    assert proc.returncode == 2 or (proc.returncode == 1 and any(r in err for r in refusal)), (
        proc.returncode,
        err,
    )
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]
