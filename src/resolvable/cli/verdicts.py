"""The verdict of a launch as every command reports it (``resolvable.verdict``): the text line,
the top-level ``"verdict"`` of ``--json``, the ``error:`` line on stderr and the exit code.

Invariants: one function reaches the verdict from the parts a front-end already has (the
resolution, the start-up refusal, the memory report), in the engine's order — start-up checks,
the node check (``Pack.node_check``), memory — so that explain, resolve and fit agree; exit
codes are the verdict's (0 would start, 1 would not start); no engine is named here.
"""

from __future__ import annotations

import sys
from typing import Any

from ..errors import ConflictError

__all__ = ["error_line", "reach", "say"]


def reach(
    pack: Any,
    res: Any,
    hf: Any,
    refusal: ConflictError | None,
    passed: Any,
    report: Any,
    *,
    startup_check: bool = True,
    unknowns: tuple[str, ...] = (),
) -> Any:
    """The ``Verdict`` of a resolved launch: its start-up refusal, else the node check, else the
    memory report (None: not modelled here, listed in ``unknowns``)."""
    from ..verdict import from_fit, from_refusal

    if refusal is not None:
        return from_refusal(refusal, stage="startup")
    if startup_check:
        try:
            pack.node_check(res, hf, None)
        except ConflictError as exc:
            return from_refusal(exc, stage="node")
    return from_fit(report, checks_passed=len(passed or ()), unknowns=unknowns)


def error_line(verdict: Any) -> str:
    """``error: refused at start-up (STAGE): MESSAGE Fix: FIX`` for a launch that would not start
    (``error: may not fit (memory, unknown offline): …`` for an ``unknown`` verdict)."""
    stage = "memory" if verdict.status == "does-not-fit" else (verdict.stage or "start-up")
    fix = f" Fix: {verdict.fix}" if verdict.fix else ""
    if verdict.status == "unknown":  # no firm answer offline: never a start, never a refusal
        said = (verdict.message or "").removeprefix("unknown: ")
        return f"error: may not fit (memory, unknown offline): {said}{fix}"
    return f"error: refused at start-up ({stage}): {verdict.message}{fix}"


def say(verdict: Any, *, error: bool = True) -> int:
    """The exit code of ``verdict``; the ``error:`` line on stderr when it would not start."""
    if not verdict.starts and error:
        sys.stdout.flush()
        print(error_line(verdict), file=sys.stderr)
    return verdict.exit_code
