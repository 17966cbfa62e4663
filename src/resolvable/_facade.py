"""Support for engines whose arguments object is a mutable dataclass, and for legacy code.

Invariants:

* ``resolve_into`` resolves once and writes the resolved values onto the object's resolvable
  fields; the resolution (with every declaration) stays attached as ``obj.resolution``;
* a resolvable field changed afterwards by procedural code must be re-declared with
  ``refresh_declared_fields``; otherwise ``publish_args`` raises ``ParityError`` naming it;
* ``RecordingArgs`` lets foreign procedural code run unchanged: its writes are captured in
  order and become declarations (``procedural`` turns such a function into a rule).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

from ._publish import RuntimeContext, publish
from ._record import MISSING
from ._resolution import Resolution
from ._schema import fields_of, is_dataclass
from .errors import InvalidArgumentError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "RecordingArgs",
    "procedural",
    "publish_args",
    "record_writes",
    "refresh_declared_fields",
    "resolution_of",
    "resolve_into",
]

_ATTR = "resolution"


def resolve_into(
    obj: Any,
    resolver: Callable[[dict[str, Any]], Resolution],
    user_set: Iterable[str] | None = None,
) -> Resolution:
    """Resolve for a dataclass instance (call it from ``__post_init__``).

    ``user_set`` names the fields the user actually passed (e.g. from argparse); by default,
    every field whose value differs from its default counts as user input. ``resolver``
    receives that dict and returns the ``Resolution``.
    """
    if not is_dataclass(obj):
        raise InvalidArgumentError(f"{type(obj).__name__} is not a dataclass instance")
    if user_set is None:
        user = {}
        for name, default, _meta, _type in fields_of(obj, no_default=MISSING):
            value = getattr(obj, name)
            if default is MISSING or value != default:
                user[name] = value
    else:
        if isinstance(user_set, (str, bytes)) or not isinstance(user_set, Iterable):
            raise InvalidArgumentError(
                f"user_set must be a collection of field names, got {type(user_set).__name__} {user_set!r}"
            )
        names = {name for name, *_ in fields_of(obj)}
        user = {}
        for name in user_set:
            if not isinstance(name, str) or name not in names:
                hint = closest(str(name), names)
                raise InvalidArgumentError(
                    f"user_set names {name!r}, which is not a field of {type(obj).__name__}"
                    + (f" (did you mean {hint!r}?)" if hint else "")
                )
            user[name] = getattr(obj, name)
    res = resolver(user)
    _materialize(obj, res)
    return res


def _materialize(obj: Any, res: Resolution) -> None:
    for field in res.leaves:
        object.__setattr__(obj, field, res[field])
    object.__setattr__(obj, _ATTR, res)


def resolution_of(obj: Any) -> Resolution:
    res = getattr(obj, _ATTR, None)
    if not isinstance(res, Resolution):
        raise InvalidArgumentError(f"{type(obj).__name__} object was never resolved (no .{_ATTR})")
    return res


def refresh_declared_fields(
    obj: Any, fields: Iterable[str], source: str = "runtime_adjustment"
) -> Resolution:
    """Re-declare ``fields`` that procedural code changed on ``obj`` after resolution.

    Each changed field is recorded as a declaration named ``source[field]``; unchanged fields
    are skipped. Returns the new resolution (also attached to ``obj``).
    """
    res = resolution_of(obj)
    for field in fields:
        if field not in res.leaves:
            raise InvalidArgumentError(f"{field!r} is not a resolvable field; nothing to refresh")
        live = getattr(obj, field)
        if live != res[field]:
            res = res.adjust(f"{source}[{field}]", **{field: live})
    object.__setattr__(obj, _ATTR, res)
    return res


def publish_args(obj: Any) -> RuntimeContext:
    """Publish an object's resolution, refusing if a resolvable field drifted undeclared."""
    res = resolution_of(obj)
    live = {f: getattr(obj, f) for f in res.leaves}
    return publish(res, live)


class RecordingArgs:
    """A stand-in for a mutable args object: reads come from ``values``, writes are recorded."""

    __slots__ = ("_values", "_writes")

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "_writes", [])

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"args have no field {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise AttributeError(f"args have no field {name!r}; the legacy code wrote an unknown field")
        self._values[name] = value
        self._writes.append((name, value))

    @property
    def writes(self) -> list[tuple[str, Any]]:
        """Every write, in order (a field may appear more than once)."""
        return list(self._writes)

    def declarations(self) -> dict[str, Any]:
        """The final value of every written field, in first-write order (last writer wins)."""
        out: dict[str, Any] = {}
        for name, value in self._writes:
            out[name] = value
        return out


def record_writes(
    fn: Callable[..., Any], values: Mapping[str, Any], *args: Any, **kwargs: Any
) -> RecordingArgs:
    """Run procedural ``fn(stand_in, *args, **kwargs)`` and return the stand-in with its writes."""
    stand_in = RecordingArgs(values)
    fn(stand_in, *args, **kwargs)
    return stand_in


def procedural(fn: Callable[..., Any]) -> Callable[[Any], dict[str, Any]]:
    """Adapt a legacy ``fn(args, ctx)`` that mutates ``args`` into a rule returning its writes.

    Register the result like any rule; provenance (name, file:line) stays that of ``fn``.
    """

    @functools.wraps(fn)
    def rule(ctx: Any) -> dict[str, Any]:
        return record_writes(fn, ctx.args, ctx).declarations()

    return rule
