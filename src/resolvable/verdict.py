"""One verdict per launch: would the engine start? The ``Verdict`` record and how it is reached.

Every command reports a launch (``resolvable.launch.Launch``) the same way, through
``Pack.verdict(launch)``, which returns ``(resolution or None, Verdict)``:

* ``starts`` — the engine's parser, its argument resolution, its start-up checks, the node check
  and the memory fit all accept the launch;
* ``refused`` — one of them refuses: ``rule`` (the rule or check that refuses), ``message`` (the
  engine's own words), ``fix`` (checked by resolving again with it where the pack can);
* ``does-not-fit`` — memory: ``allocation`` (what does not fit: ``weights``, ``kv-cache``),
  ``shortfall_bytes`` (by how much, when the memory model knows it) and ``fix``.

The stages run in the engine's order and the first refusal wins: the parser (``Launch.rejected``),
argument resolution, the start-up checks, the node (world size vs GPUs per node × nodes; heads vs
TP), then memory. ``unknowns`` lists what cannot be known offline (a figure the memory model does
not have, a check decided on the GPU); they never turn a verdict into a refusal.

Exit codes (every command; README, docs/cli-json.md): 0 ``starts``, 1 ``refused`` or
``does-not-fit``, 2 the tool's own input error (an unknown tool option, an unreadable file, a model
with no config and no stand-in), raised as a ``ValueError`` subclass before a verdict exists.

Standard library only; importing this module imports no pack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXIT_INPUT",
    "EXIT_STARTS",
    "EXIT_WOULD_NOT_START",
    "STATUSES",
    "Verdict",
    "from_fit",
    "from_refusal",
]

STATUSES = ("starts", "refused", "does-not-fit")
EXIT_STARTS = 0
EXIT_WOULD_NOT_START = 1
EXIT_INPUT = 2


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

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"verdict status {self.status!r}: one of {', '.join(STATUSES)}")
        object.__setattr__(self, "unknowns", tuple(self.unknowns))

    @property
    def starts(self) -> bool:
        return self.status == "starts"

    @property
    def exit_code(self) -> int:
        """0 would start, 1 would not start (refused or does not fit)."""
        return EXIT_STARTS if self.starts else EXIT_WOULD_NOT_START

    def line(self) -> str:
        """The verdict in one line (the text outputs' ``verdict`` line)."""
        if self.starts:
            return "verdict   would start" + (
                f" ({self.checks_passed} checks passed)" if self.checks_passed else ""
            )
        if self.status == "does-not-fit":
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
    )


def from_fit(
    report: Any, *, checks_passed: int = 0, unknowns: tuple[str, ...] = (), fix: str | None = None
) -> Verdict:
    """The verdict of the memory model's ``FitReport``: ``starts`` when it fits, else
    ``does-not-fit`` with the allocation that does not fit and the shortfall when known."""
    if report is None or report.fits:
        return Verdict("starts", checks_passed=checks_passed, unknowns=unknowns, memory=report)
    allocation = getattr(report, "allocation", None)
    shortfall = getattr(report, "shortfall_bytes", None)
    if allocation is None:
        allocation = "weights" if report.weights_bytes >= report.device_total_bytes else "kv-cache"
    if shortfall is None:
        shortfall = _weights_shortfall(report.refusal or "")
        if shortfall is not None:
            allocation = "weights"
    return Verdict(
        "does-not-fit",
        stage="memory",
        rule="memory",
        message=report.refusal,
        fix=fix,
        allocation=allocation,
        shortfall_bytes=shortfall,
        unknowns=unknowns,
        checks_passed=checks_passed,
        memory=report,
    )


def _weights_shortfall(message: str) -> int | None:
    """By how much the weights miss, from ``memory.weights_oom_message``'s figures (the memory
    model's own wording: "W GiB per rank do not fit in the F GiB free"), or None."""
    import re

    found = re.search(r"([\d.]+) GiB per rank do not fit in the ([\d.]+) GiB free", message)
    if found is None:
        return None
    return int((float(found.group(1)) - float(found.group(2))) * (1 << 30))
