"""One verdict per launch: would the engine start? The ``Verdict`` record and how it is reached.

Every command reports a launch (``resolvable.launch.Launch``) the same way, through
``Pack.verdict(launch)``, which returns ``(resolution or None, Verdict)``:

* ``starts`` — the engine's parser, its argument resolution, its start-up checks, the node check
  and the memory fit all accept the launch;
* ``refused`` — one of them refuses: ``rule`` (the rule or check that refuses), ``message`` (the
  engine's own words), ``fix`` (checked by resolving again with it where the pack can);
* ``does-not-fit`` — memory: ``allocation`` (the memory model's failing allocation:
  ``weights``, ``KV cache``, ``CUDA graphs`` …), ``shortfall_bytes`` (by how much, when the memory
  model knows it) and ``fix``, all read from the structured ``FitReport`` (``status``,
  ``failing``, ``short_by_bytes``, ``fix``), never parsed from its message;
* ``unknown`` — memory cannot be answered offline: an allocation the memory model cannot size
  (``allocation``) may or may not fit in what the KV pool leaves (``FitReport.status``
  ``unknown``). Never reads as ``starts``: exit code 3, like a parse-only release's answer.

The stages run in the engine's order and the first refusal wins: the parser (``Launch.rejected``),
argument resolution, the start-up checks, the node (world size vs GPUs per node × nodes; heads vs
TP), then memory. ``unknowns`` lists what cannot be known offline (a figure the memory model does
not have, a check decided on the GPU); they never turn a verdict into a refusal.

Exit codes (every command; README, docs/cli-json.md): 0 ``starts``, 1 ``refused`` or
``does-not-fit``, 3 ``unknown`` (no firm answer offline), 2 the tool's own input error (an unknown tool option, an unreadable file, a model
with no config and no stand-in), raised as a ``ValueError`` subclass before a verdict exists.

Standard library only; importing this module imports no pack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXIT_INPUT",
    "EXIT_STARTS",
    "EXIT_UNKNOWN",
    "EXIT_WOULD_NOT_START",
    "STATUSES",
    "Verdict",
    "from_fit",
    "from_refusal",
]

STATUSES = ("starts", "refused", "does-not-fit", "unknown")
EXIT_STARTS = 0
EXIT_WOULD_NOT_START = 1
EXIT_INPUT = 2
#: No firm answer offline (the memory model's ``unknown``); the same code as a parse-only
#: release's answer (``cli.older.EXIT_PARSED_ONLY``): never 0.
EXIT_UNKNOWN = 3


@dataclass(frozen=True)
class Verdict:
    """Would the launch start (``status``), and if not, why and what to change."""

    status: str
    stage: str | None = None
    rule: str | None = None
    location: str | None = None
    message: str | None = None
    fix: str | None = None
    allocation: str | None = None
    shortfall_bytes: int | None = None
    unknowns: tuple[str, ...] = ()
    checks_passed: int = 0
    memory: Any = field(
        default=None, repr=False, compare=False
    )  # the memory model's report (``FitReport``) when it ran
    #: the refusal itself (a ``ConflictError``, its fix checked) when ``refused``, for the
    #: front-ends that show its details; never in ``to_dict``
    refusal: Any = field(default=None, repr=False, compare=False)
    #: the start-up checks that passed (``checks_passed`` is their count)
    checks: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"verdict status {self.status!r}: one of {', '.join(STATUSES)}")
        object.__setattr__(self, "unknowns", tuple(self.unknowns))

    @property
    def starts(self) -> bool:
        return self.status == "starts"

    @property
    def exit_code(self) -> int:
        """0 would start, 1 would not start (refused or does not fit), 3 unknown."""
        if self.status == "unknown":
            return EXIT_UNKNOWN
        return EXIT_STARTS if self.starts else EXIT_WOULD_NOT_START

    def line(self) -> str:
        """The verdict in one line (the text outputs' ``verdict`` line)."""
        if self.starts:
            from ._text import checks_passed

            return "verdict   would start" + (
                f" ({checks_passed(self.checks_passed)})" if self.checks_passed else ""
            )
        if self.status == "unknown":
            what = f" ({self.allocation})" if self.allocation else ""
            text = f"verdict   unknown: may not fit{what}: {(self.message or '').removeprefix('unknown: ')}"
        elif self.status == "does-not-fit":
            short = f" by {self.shortfall_bytes / (1 << 30):.2f} GiB" if self.shortfall_bytes else ""
            text = f"verdict   would not start: does not fit ({self.allocation or 'memory'}{short}): {self.message}"
        else:
            where = f" [{self.rule}]" if self.rule else ""
            text = f"verdict   would not start: refused{where}: {self.message}"
        return text + (f" (fix: {self.fix})" if self.fix else "")

    def to_dict(self) -> dict[str, Any]:
        """The top-level ``"verdict"`` object of every command's ``--json`` (docs/cli-json.md)."""
        return {
            "status": self.status,
            "stage": self.stage,
            "rule": self.rule,
            "location": self.location,
            "message": self.message,
            "fix": self.fix,
            "allocation": self.allocation,
            "shortfall_bytes": self.shortfall_bytes,
            "unknowns": list(self.unknowns),
            "exit_code": self.exit_code,
        }


def from_refusal(exc: Any, *, stage: str | None = None, unknowns: tuple[str, ...] = ()) -> Verdict:
    """The ``refused`` verdict of a ``ConflictError`` (its rule, message and checked fix)."""
    return Verdict(
        "refused",
        stage=stage or getattr(exc, "phase", None) or getattr(exc, "stage", None),
        rule=getattr(exc, "rule", None),
        location=getattr(exc, "location", None),
        message=getattr(exc, "message", None) or str(exc),
        fix=getattr(exc, "fix", None),
        unknowns=unknowns,
        refusal=exc,
    )


def from_fit(
    report: Any, *, checks_passed: int = 0, unknowns: tuple[str, ...] = (), fix: str | None = None
) -> Verdict:
    """The verdict of the memory model's ``FitReport``: ``starts`` when it fits, ``unknown`` when
    its status is ``unknown`` (an allocation it cannot size), else ``does-not-fit``; the failing
    allocation, the shortfall and the fix are the report's own fields (``failing``,
    ``short_by_bytes``, ``fix``); ``fix`` here (a fix checked by the caller) wins over the report's."""
    if report is None or report.fits:
        return Verdict("starts", checks_passed=checks_passed, unknowns=unknowns, memory=report)
    status = getattr(report, "status", None)
    allocation = getattr(report, "failing", None)
    short = float(getattr(report, "short_by_bytes", 0.0) or 0.0)
    fix = fix or getattr(report, "fix", None)
    if status == "unknown" and report.refusal is None:
        reason = getattr(report, "unknown_reason", None) or "an allocation the memory model cannot size"
        return Verdict(
            "unknown",
            stage="memory",
            rule="memory",
            message=report.message,
            fix=fix,
            allocation=allocation,
            unknowns=(*unknowns, f"memory: {reason}"),
            checks_passed=checks_passed,
            memory=report,
        )
    if allocation is None:
        allocation = "weights" if report.weights_bytes >= report.device_total_bytes else "KV cache"
    return Verdict(
        "does-not-fit",
        stage="memory",
        rule="memory",
        message=report.message,
        fix=fix,
        allocation=allocation,
        shortfall_bytes=int(short) if short > 0 else None,
        unknowns=unknowns,
        checks_passed=checks_passed,
        memory=report,
    )
