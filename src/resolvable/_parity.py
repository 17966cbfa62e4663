"""Parity harness: compare legacy procedural configuration code with declarative rules.

For teams migrating their own "mutate the args in place" code to rules: run both over the
same cases and list every field where they disagree, with the rule responsible on the
declarative side. Invariants: the harness only calls the two functions it is given; a
refusal (a ``ValueError``) on both sides counts as agreement; a refusal on one side only is a
divergence; values are compared by equality *and* type (``1`` vs ``True`` differ).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ._resolution import Resolution

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Divergence", "ParityReport", "check_parity"]


class Divergence:
    """One disagreement: a field with different values, or a refusal on one side only."""

    __slots__ = ("case", "decided_by", "declarative", "field", "legacy")

    def __init__(
        self, case: str, field: str | None, legacy: Any, declarative: Any, decided_by: str | None
    ) -> None:
        self.case, self.field, self.legacy, self.declarative, self.decided_by = (
            case,
            field,
            legacy,
            declarative,
            decided_by,
        )

    def __repr__(self) -> str:
        return f"Divergence({self})"

    def __str__(self) -> str:
        if self.field is None:
            return f"{self.case}: legacy {self.legacy}; declarative {self.declarative}"
        side = f" (declared by {self.decided_by})" if self.decided_by else ""
        return f"{self.case}: {self.field}: legacy={self.legacy!r} declarative={self.declarative!r}{side}"

    def to_dict(self) -> dict[str, Any]:
        return {s: getattr(self, s) for s in self.__slots__}


class ParityReport:
    """The outcome of ``check_parity``: counts and every divergence, in case order."""

    __slots__ = ("compared", "divergences", "refused_by_both")

    def __init__(self, compared: int, refused_by_both: int, divergences: tuple[Divergence, ...]) -> None:
        self.compared, self.refused_by_both, self.divergences = compared, refused_by_both, divergences

    @property
    def ok(self) -> bool:
        return not self.divergences

    def by_field(self) -> dict[str, int]:
        """How many cases diverge on each field ("<refusal>" for one-sided refusals)."""
        counts: dict[str, int] = {}
        for d in self.divergences:
            key = d.field or "<refusal>"
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    def __str__(self) -> str:
        head = (
            f"{self.compared} cases compared, {self.refused_by_both} refused by both, "
            f"{len(self.divergences)} divergence(s)"
        )
        return "\n".join([head, *(f"  {d}" for d in self.divergences)])


def _values(result: Resolution | Mapping[str, Any]) -> Mapping[str, Any]:
    return result if isinstance(result, Mapping) else dict(result)


def check_parity(
    cases: Iterable[tuple[str, Any]],
    legacy: Callable[[Any], Mapping[str, Any]],
    declarative: Callable[[Any], Resolution],
    fields: Iterable[str] | None = None,
    *,
    refusals: tuple[type[BaseException], ...] = (ValueError,),
) -> ParityReport:
    """Run ``legacy(inputs)`` and ``declarative(inputs)`` for every ``(label, inputs)`` case.

    ``legacy`` returns the final argument values (e.g. ``vars(args)`` after the procedural code
    ran; ``RecordingArgs`` helps); ``declarative`` returns a ``Resolution``. ``fields`` limits the
    comparison (default: the resolvable fields of each resolution). ``refusals`` are the
    exception types that mean "this configuration is refused" (legacy code often uses
    ``AssertionError``); anything else propagates.
    """
    from .errors import InvalidArgumentError

    if isinstance(cases, (str, bytes)) or not isinstance(cases, Iterable):
        raise InvalidArgumentError(
            f"check_parity: cases must be (label, inputs) pairs, got {type(cases).__name__}"
        )
    for name, fn in (("legacy", legacy), ("declarative", declarative)):
        if not callable(fn):
            raise InvalidArgumentError(f"check_parity: {name} must be a function, got {type(fn).__name__}")
    if fields is not None and (isinstance(fields, (str, bytes)) or not isinstance(fields, Iterable)):
        raise InvalidArgumentError(
            f"check_parity: fields must be a collection of field names, got {fields!r}"
        )
    wanted = tuple(fields) if fields is not None else None
    divergences: list[Divergence] = []
    compared = refused = 0
    for label, inputs in cases:
        compared += 1
        legacy_error = declarative_error = None
        try:
            old = _values(legacy(inputs))
        except refusals as exc:
            old, legacy_error = None, exc
        try:
            new = declarative(inputs)
        except refusals as exc:
            new, declarative_error = None, exc
        if old is None and new is None:
            refused += 1
            continue
        if old is None or new is None:
            divergences.append(
                Divergence(
                    label,
                    None,
                    f"refuses ({legacy_error})" if old is None else "accepts",
                    f"refuses ({declarative_error})" if new is None else "accepts",
                    getattr(declarative_error, "rule", None),
                )
            )
            continue
        for field in wanted if wanted is not None else sorted(new.resolvable):
            a, b = old.get(field), new.get(field)
            if a != b or type(a) is not type(b):
                divergences.append(Divergence(label, field, a, b, new.decided_by(field)[0]))
    return ParityReport(compared, refused, tuple(divergences))
