"""Declarations: the record of what one rule declared, and how a declaration is applied.

Invariants:

* a declaration is all-or-nothing: every field is validated (resolvable, JSON-shaped, within
  its choices) before any value is written, and a refusal names the rule and its ``file:line``;
* a write to a field the user set explicitly is ``blocked`` unless the rule wrapped the value
  in ``Force(value, reason)`` (then ``forced``); both are recorded;
* records (``Write``, ``Declaration``) are immutable tuples, cheap to build on the hot path.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._choose import Chosen
from ._record import record, record_tuple
from ._schema import Schema
from .errors import DeclarationError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Declaration", "Force", "Outcome", "Write", "apply_declaration", "canonical", "check_value"]

_SCALARS = (str, int, float, bool, type(None))


class _Enumeration(type):
    """The class of ``Outcome``: what ``enum.Enum`` gives a class (``Outcome("applied")``,
    ``Outcome["APPLIED"]``, iteration, ``len``, members fixed once defined) without importing
    ``enum``, whose module and class construction cost a fifth of ``import resolvable.sglang``
    (docs/benchmarks.md §9)."""

    __members__: dict[str, Any]

    def __call__(cls, value: Any) -> Any:
        for member in cls.__members__.values():
            if member == value:
                return member
        raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")

    def __getitem__(cls, name: str) -> Any:
        return cls.__members__[name]

    def __iter__(cls) -> Any:
        return iter(tuple(cls.__members__.values()))

    def __len__(cls) -> int:
        return len(cls.__members__)

    def __contains__(cls, member: Any) -> bool:
        return isinstance(member, cls) and member.name in cls.__members__

    def __setattr__(cls, name: str, value: Any) -> None:
        if name in cls.__dict__.get("__members__", ()):
            raise AttributeError(f"cannot reassign member {name!r}")
        super().__setattr__(name, value)


class Outcome(str, metaclass=_Enumeration):
    """What a write did: ``APPLIED``, ``BLOCKED`` (the user's explicit value kept) or ``FORCED``.

    An enumeration of strings, as ``class Outcome(str, enum.Enum)`` was: each member is a
    ``str`` equal to its value (``Outcome.APPLIED == "applied"``), a singleton (``is`` holds,
    also after ``Outcome("applied")``, copying and pickling), ``.name``/``.value``, the same
    ``repr``; ``tests/engine/test_outcome.py`` compares it with the ``enum`` class."""

    __slots__ = ()
    APPLIED: Outcome
    BLOCKED: Outcome
    FORCED: Outcome

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def name(self) -> str:
        return str.upper(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return format(str.__str__(self), spec)

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__}.{self.name}: {self.value!r}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.value,))

    def __copy__(self) -> Outcome:
        return self

    def __deepcopy__(self, memo: Any) -> Outcome:
        return self


type.__setattr__(
    Outcome, "__members__", {v.upper(): str.__new__(Outcome, v) for v in ("applied", "blocked", "forced")}
)
for _name, _member in Outcome.__members__.items():
    type.__setattr__(Outcome, _name, _member)
del _name, _member


@record(frozen=True)  # a frozen dataclass in behaviour (see _record: import cost)
class Force:
    """Wrap a declared value to override a user's explicit choice deliberately.

    ``return {"page_size": Force(64, "DSA kernels need 64-token pages")}``
    """

    value: Any
    reason: str

    def __post_init__(self) -> None:
        if not self.reason or not isinstance(self.reason, str):
            raise DeclarationError("Force(value, reason) needs a non-empty reason")


class Write(record_tuple("Write", "field value previous outcome reason choice", defaults=(None, None))):
    """One field written by one declaration (an immutable record): ``field``, ``value``,
    ``previous`` (the value it replaced), ``outcome``, ``reason`` (of a forced write) and
    ``choice`` (the ``_choose.Choice`` behind a value declared as ``Chosen``, else None)."""

    __slots__ = ()


class Declaration(record_tuple("Declaration", "seq rule location stage writes inputs", defaults=((),))):
    """What one rule declared (``writes``), where the rule lives (``rule``, ``location``,
    ``stage``), and — when traced — the (name, value) ``inputs`` it read (immutable)."""

    __slots__ = ()

    @property
    def fields(self) -> dict[str, Any]:
        return {w.field: w.value for w in self.writes}

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "rule": self.rule,
            "location": self.location,
            "stage": self.stage,
            "writes": [_write_dict(w) for w in self.writes],
            "inputs": [[name, value] for name, value in self.inputs],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Declaration:
        return cls(
            seq=data["seq"],
            rule=data["rule"],
            location=data["location"],
            stage=data["stage"],
            writes=tuple(
                Write(
                    w["field"],
                    w["value"],
                    w["previous"],
                    Outcome(w["outcome"]),
                    w.get("reason"),
                    _choice_from(w.get("choice")),
                )
                for w in data["writes"]
            ),
            inputs=tuple((name, value) for name, value in data.get("inputs", ())),
        )


def _write_dict(w: Write) -> dict[str, Any]:
    data = {
        "field": w.field,
        "value": w.value,
        "previous": w.previous,
        "outcome": w.outcome.value,
        "reason": w.reason,
    }
    if w.choice is not None:  # only selections by candidates carry one (output unchanged otherwise)
        data["choice"] = w.choice.to_dict()
    return data


def _choice_from(data: Any) -> Any:
    if data is None:
        return None
    from ._choose import Choice

    return Choice.from_dict(data)


def canonical(value: Any) -> Any:
    """JSON-shaped copy of a value (tuples become lists) so round-trips compare equal."""
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


def check_value(value: Any, where: str) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if type(value) in (list, tuple) and _SCALAR_TYPES.issuperset(map(type, value)):
        # a flat list of plain scalars is canonical once copied (one set operation, not a loop)
        return list(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, _SCALARS) for v in value):
        return canonical(value)
    raise DeclarationError(f"{where}: value {value!r} is not a JSON scalar or a list of scalars")


def apply_declaration(
    values: dict[str, Any],
    explicit: frozenset[str],
    schema: Schema | None,
    resolvable: frozenset[str],
    declared: Mapping[str, Any],
    rule: str,
    location: str,
    stage: str,
    seq: int,
    inputs: tuple[tuple[str, Any], ...] = (),
    *,
    forced_by_default: str | None = None,
) -> Declaration:
    """Validate ``declared`` and apply it to ``values`` (in place); return the record.

    Nothing is written unless every field is valid (a declaration is all-or-nothing).
    """
    choices = schema.choices if schema is not None else {}
    staged: list[tuple[str, Any, str | None, Any]] = []
    for field, value in declared.items():
        reason = forced_by_default
        choice = None
        if type(value) is Force:
            value, reason = value.value, value.reason
        if type(value) is Chosen:  # a value picked from candidates: keep the record for explain
            value, choice = value.value, value.choice
            if type(value) is Force:
                value, reason = value.value, value.reason
        if (
            field not in resolvable
            or type(value) not in _SCALAR_TYPES
            or (value is not None and field in choices and value not in choices[field])
        ):
            value = _check_declared(field, value, rule, location, schema, resolvable, choices)
        staged.append((field, value, reason, choice))
    writes = []
    applied = Outcome.APPLIED
    for field, value, reason, choice in staged:
        previous = values[field]
        if field in explicit and value != previous:
            if reason is None:
                writes.append(Write(field, value, previous, Outcome.BLOCKED, None, choice))
                continue
            outcome = Outcome.FORCED
        else:
            outcome = applied
        values[field] = value
        writes.append(Write(field, value, previous, outcome, reason, choice))
    return Declaration(seq, rule, location, stage, tuple(writes), inputs)


_SCALAR_TYPES = frozenset(_SCALARS)


def _check_declared(
    field: str,
    value: Any,
    rule: str,
    location: str,
    schema: Schema | None,
    resolvable: frozenset[str],
    choices: Mapping[str, Any],
) -> Any:
    """The slow path of ``apply_declaration``: validate, canonicalise, or raise naming the rule."""
    where = f"rule {rule} ({location})"
    try:
        if field not in resolvable:
            owner = schema.cls.__name__ if schema is not None else "the schema"
            raise DeclarationError(
                f"{where} declared {field!r}, which is not a resolvable field of {owner}; "
                "declare only fields marked Arg(resolvable=True)"
            )
        value = check_value(value, f"{where} field {field!r}")
        allowed = choices.get(field)
        if allowed is not None and value is not None and value not in allowed:
            raise DeclarationError(f"{where} declared {field}={value!r}, outside its choices {list(allowed)}")
    except DeclarationError as exc:
        exc.rule, exc.location = rule, location
        raise
    return value
