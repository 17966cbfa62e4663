"""Selection by candidates: an ordered priority list whose candidates carry their checks.

Some engines do not compute a value with a chain of if/else: they filter an ordered list of
candidates by each candidate's capability checks and take the first valid one (vLLM's attention
backends: ``platforms/cuda.py : CudaPlatformBase.get_valid_backends``). This module expresses
that declaratively, so that ``explain`` can show every candidate with the reasons it was
rejected, before anything is launched.

Invariants:

* a ``Check`` is data plus one pure test: ``test(query) -> bool`` (True = passes); its
  ``reason`` is the fixed text recorded when it fails (a test may instead return a string,
  which is then the reason). ``facts`` describe what the check accepts, for capability tables;
* ``choose`` evaluates **every** check of **every** candidate (like vLLM, which collects all
  invalid reasons) and picks the valid candidate with the lowest rank; the result, a
  ``Choice``, is an immutable record of all verdicts, also when nothing is valid;
* a rule declares the chosen value as ``{field: Chosen(value, choice)}``; the declaration then
  carries the choice, ``Resolution.explain(field)`` returns it on the step (``step.choice``) and
  ``to_dict``/``from_dict`` round-trip it. A plain value and a ``Chosen`` value behave the same
  in every other respect (blocking, forcing, choices validation);
* standard library only, and nothing heavy at import (records are named tuples).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ._record import record_tuple

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Candidate", "Check", "Choice", "Chosen", "Verdict", "choose", "validate"]


class Check(record_tuple("Check", "reason test facts", defaults=(None,))):
    """One capability check of a candidate (immutable).

    ``reason``: the text recorded when the check fails; ``test(query)``: True when it passes,
    False when it fails, or a string (fails with that string as the reason); ``facts``: an
    optional mapping describing what the check accepts (``{"block_sizes": "32, 64"}``), read by
    capability tables and never by ``choose``.
    """

    __slots__ = ()

    def failure(self, query: Any) -> str | None:
        """The reason this check fails on ``query``, or None when it passes."""
        out = self.test(query)
        if out is True or out is None:
            return None
        if out is False:
            return self.reason
        return str(out)


class Candidate(record_tuple("Candidate", "name checks doc requires", defaults=((), "", ()))):
    """A named candidate value with its ordered checks (immutable).

    ``requires``: prerequisite checks evaluated first; when one fails, only the failed
    prerequisites are recorded and ``checks`` are not evaluated (like a backend whose module
    cannot be imported: vLLM reports the ImportError alone).
    """

    __slots__ = ()

    def reasons(self, query: Any) -> tuple[str, ...]:
        """Every reason this candidate is invalid for ``query`` (empty when valid), in check order."""
        missing = [r for r in (check.failure(query) for check in self.requires) if r is not None]
        if missing:
            return tuple(missing)
        out = []
        for check in self.checks:
            reason = check.failure(query)
            if reason is not None:
                out.append(reason)
        return tuple(out)

    def facts(self) -> dict[str, Any]:
        """The merged ``facts`` of the checks (later checks add to earlier ones)."""
        merged: dict[str, Any] = {}
        for check in (*self.requires, *self.checks):
            if check.facts:
                merged.update(check.facts)
        return merged


class Verdict(record_tuple("Verdict", "name rank reasons")):
    """One candidate's outcome: its ``rank`` in the priority list and why it is invalid
    (``reasons`` empty: valid)."""

    __slots__ = ()

    @property
    def valid(self) -> bool:
        return not self.reasons


class Choice(record_tuple("Choice", "chosen verdicts label", defaults=("",))):
    """The record of one selection: the ``chosen`` name (None when nothing is valid), every
    candidate's ``Verdict`` in priority order, and a ``label`` saying what was chosen for."""

    __slots__ = ()

    def rejected(self) -> tuple[Verdict, ...]:
        """Candidates ranked above the chosen one that were invalid (all of them if none won)."""
        rank = self.rank_of(self.chosen)
        return tuple(v for v in self.verdicts if not v.valid and (rank is None or v.rank < rank))

    def rank_of(self, name: str | None) -> int | None:
        for v in self.verdicts:
            if v.name == name:
                return v.rank
        return None

    def verdict(self, name: str) -> Verdict | None:
        for v in self.verdicts:
            if v.name == name:
                return v
        return None

    def precluded_only_by(self, reason: str) -> tuple[str, ...]:
        """Higher-ranked candidates whose *only* failure was ``reason`` (vLLM warns about
        ``--block-size`` precluding better backends this way)."""
        rank = self.rank_of(self.chosen)
        return tuple(
            v.name for v in self.verdicts if v.reasons == (reason,) and (rank is None or v.rank < rank)
        )

    def summary(self) -> str:
        """One line per candidate: ``✓ NAME`` or ``✗ NAME: reason; reason``."""
        lines = []
        for v in self.verdicts:
            if v.name == self.chosen:
                lines.append(f"✓ {v.name} (chosen)")
            elif v.valid:
                lines.append(f"· {v.name} (valid, lower priority)")
            else:
                lines.append(f"✗ {v.name}: {'; '.join(v.reasons)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "chosen": self.chosen,
            "label": self.label,
            "candidates": [
                {"name": v.name, "rank": v.rank, "reasons": list(v.reasons)} for v in self.verdicts
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Choice:
        return cls(
            data["chosen"],
            tuple(Verdict(c["name"], c["rank"], tuple(c["reasons"])) for c in data["candidates"]),
            data.get("label", ""),
        )


class Chosen(record_tuple("Chosen", "value choice")):
    """A declared value that comes with the selection record that produced it:
    ``return {"attn_backend_full": Chosen(choice.chosen, choice)}``."""

    __slots__ = ()


def choose(candidates: Iterable[Candidate], query: Any, *, label: str = "") -> Choice:
    """Evaluate every candidate on ``query``; the valid one with the lowest rank is chosen."""
    verdicts = []
    chosen = None
    for rank, candidate in enumerate(candidates):
        reasons = candidate.reasons(query)
        verdicts.append(Verdict(candidate.name, rank, reasons))
        if chosen is None and not reasons:
            chosen = candidate.name
    return Choice(chosen, tuple(verdicts), label)


def validate(candidate: Candidate, query: Any, *, label: str = "") -> Choice:
    """A selection with one candidate (an explicit user choice that is checked, not replaced)."""
    return choose((candidate,), query, label=label)


def first_passing(checks: Iterable[tuple[str, Callable[[Any], bool]]], query: Any) -> str | None:
    """The label of the first (label, test) pair whose test passes (ordered if/else branches)."""
    for label, test in checks:
        if test(query):
            return label
    return None
