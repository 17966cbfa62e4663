"""The verdict of a launch as every command reports it (``resolvable.verdict``): the text line,
the top-level ``"verdict"`` of ``--json``, the ``error:`` line on stderr and the exit code.

Invariants: every front-end's ``explain`` and ``resolve`` judge their launch with ``judge``, i.e.
``Pack.verdict`` (the engine's order: parser, argument resolution, start-up checks, the node
check, memory), the one judge ``fit``, ``diff`` and ``upgrade`` use, so that they all agree; exit
codes are the verdict's (0 would start, 1 would not start, 3 unknown); no engine is named here.
"""

from __future__ import annotations

import sys
from typing import Any

from ..errors import ConflictError

__all__ = ["error_line", "judge", "say"]


def judge(pack: Any, launch: Any, **options: Any) -> tuple[Any, Any, tuple[Any, ...], ConflictError | None]:
    """(resolution, verdict, the start-up checks passed, the start-up refusal or None) of
    ``launch``, judged once by ``Pack.verdict(launch, **options)`` (``explain`` and ``resolve``
    of every front-end). A refusal by the engine's parser is raised as ``EngineParserError``, one
    by argument resolution as its ``ConflictError`` (its fix checked), as the commands always
    reported them (exit 1); a refusal by the node check leaves the start-up checks passed."""
    from ..errors import EngineParserError

    res, verdict = pack.verdict(launch, **options)
    if verdict.status == "refused" and verdict.stage == "parse":  # the engine's parser refuses
        raise EngineParserError(verdict.message or "refused by the engine's argument parser")
    if verdict.status == "refused" and verdict.stage == "resolve":
        raise verdict.refusal
    startup = verdict.status == "refused" and verdict.stage != "node"
    return res, verdict, tuple(verdict.checks), verdict.refusal if startup else None


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
