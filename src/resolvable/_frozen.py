"""Immutability by construction: instance dictionaries that ``vars()`` cannot write through, and
deep-frozen copies of plain data.

Invariants:

* a class deriving from ``HiddenDict`` keeps a real instance dictionary (attribute reads stay a
  plain lookup, the hot path of every rule), but ``vars(obj)`` and ``obj.__dict__`` give a
  read-only ``MappingProxyType`` of it: the ``vars()`` back door into a frozen object is closed.
  Only ``real_dict`` (engine-internal) reaches the writable dictionary. ``object.__setattr__``
  still writes, as it does on a frozen dataclass: that is deliberate circumvention, not a path
  a rule or a caller takes by accident;
* ``cached`` is ``functools.cached_property`` for such a class (it stores through ``real_dict``);
* ``deep_freeze`` turns dicts into ``MappingProxyType``, lists into tuples and sets into
  frozensets, recursively; anything else is returned as is (records are frozen already).
"""

from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["HiddenDict", "cached", "deep_freeze", "real_dict", "set_real_dict"]


class _Plain:
    """Owns the ``__dict__`` slot descriptor that ``real_dict`` uses."""


_REAL_DICT = _Plain.__dict__["__dict__"]


#: ``real_dict(obj)``: the writable instance dictionary of a ``HiddenDict`` object
#: (engine-internal). The descriptor's own bound ``__get__``: a C call, no Python frame (rules
#: read the view through it on every resolution).
real_dict: Callable[[Any], dict[str, Any]] = _REAL_DICT.__get__


#: ``set_real_dict(obj, values)``: make ``values`` the instance dictionary of a ``HiddenDict``
#: object (engine-internal). The descriptor's bound ``__set__``: a C call (a view per resolution).
set_real_dict: Callable[[Any, dict[str, Any]], None] = _REAL_DICT.__set__


class HiddenDict(_Plain):
    """Base class: ``vars(obj)`` / ``obj.__dict__`` is a read-only view of the instance dict."""

    @property  # type: ignore[misc]
    def __dict__(self) -> Any:
        return MappingProxyType(_REAL_DICT.__get__(self))

    def __getstate__(self) -> dict[str, Any]:  # copy and pickle read the real dictionary
        return dict(_REAL_DICT.__get__(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        _REAL_DICT.__get__(self).update(state)


class cached:
    """A property computed once per instance of a ``HiddenDict`` class and kept in its dict."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self.fn(obj)
        _REAL_DICT.__get__(obj)[self.name] = value
        return value


def deep_freeze(value: Any) -> Any:
    """An immutable copy of plain data (dict → mappingproxy, list → tuple, set → frozenset)."""
    if isinstance(value, (dict, MappingProxyType)):
        return MappingProxyType({k: deep_freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(deep_freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(deep_freeze(v) for v in value)
    return value
