"""Publishing: a resolution becomes a frozen runtime context (``ctx.attn.backend``).

Invariants:

* publish is all-or-nothing: the whole tree is built and checked before anything is marked
  published or installed in a ``ContextSlot``; a failure leaves the previous context in place;
* parity: every published leaf equals the resolved value of its field (checked, not assumed);
* the context is frozen: writing any attribute raises ``FrozenContextError``; it has no
  instance dictionary (slots) and its items are a read-only mapping, so there is no back door;
  ``copy.copy``/``copy.deepcopy`` give the context itself (an equal, immutable value);
* once a resolution is published, ``adjust`` on it is refused (``LateDeclarationError``).
"""

from __future__ import annotations

import _thread  # not threading: the lock is all we need (import cost)
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ._resolution import Resolution
from .errors import FrozenContextError, InvalidArgumentError, ParityError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ContextSlot", "RuntimeContext", "publish"]


class _Group:
    """A frozen namespace of leaves and sub-groups."""

    __slots__ = ("_items", "_path")

    def __init__(self, path: str, items: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_items", MappingProxyType(dict(items)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in _GroupSlots:  # copy/pickle probes, an unset slot
            raise AttributeError(name)
        try:
            return self._items[name]
        except KeyError:
            where = self._path or "context"
            raise AttributeError(f"{where} has no leaf {name!r}; it has {sorted(self._items)}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        where = f"{self._path}.{name}" if self._path else name
        raise FrozenContextError(
            f"cannot set {where}: the published context is frozen; declare the value through a rule "
            "(or Resolution.adjust before publishing) and publish again"
        )

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def __dir__(self) -> list[str]:
        return sorted(self._items)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Group) and dict(self._items) == dict(other._items)

    def __copy__(self) -> _Group:  # immutable: a copy is the same value
        return self

    def __reduce__(self) -> Any:  # pickle: rebuilt from the path and items (slots, no setattr)
        return (_Group, (self._path, dict(self._items)))

    def __deepcopy__(self, memo: Any) -> _Group:
        return self

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        return {k: (v.to_dict() if isinstance(v, _Group) else v) for k, v in self._items.items()}

    def __repr__(self) -> str:
        return f"<{self._path or 'context'} {self.to_dict()!r}>"


_GroupSlots = frozenset({"_items", "_path", "fingerprint", "resolution"})


class RuntimeContext(_Group):
    """The frozen, published configuration. ``ctx.attn.backend``, ``ctx.leaf("attn.backend")``."""

    __slots__ = ("fingerprint", "resolution")

    def __init__(self, items: Mapping[str, Any], resolution: Resolution) -> None:
        super().__init__("", items)
        object.__setattr__(self, "resolution", resolution)
        object.__setattr__(self, "fingerprint", resolution.fingerprint())

    def __reduce__(self) -> Any:  # pickle: published again from the (pickled) resolution
        return (publish, (self.resolution,))

    def leaf(self, path: str) -> Any:
        node: Any = self
        for part in path.split("."):
            node = getattr(node, part)
        return node

    def __repr__(self) -> str:
        return f"RuntimeContext({self.to_dict()!r}, fingerprint={self.fingerprint})"


def _build_tree(leaves: Mapping[str, str], values: Mapping[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for field, path in leaves.items():
        node = tree
        *groups, name = path.split(".")
        for g in groups:
            node = node.setdefault(g, {})
        node[name] = values[field]
    return tree


def _freeze_tree(tree: Mapping[str, Any], path: str) -> dict[str, Any]:
    out = {}
    for key, value in tree.items():
        sub = f"{path}.{key}" if path else key
        out[key] = _Group(sub, _freeze_tree(value, sub)) if isinstance(value, dict) else value
    return out


def publish(resolution: Resolution, live: Mapping[str, Any] | None = None) -> RuntimeContext:
    """Build the frozen runtime context of ``resolution`` and check parity.

    ``live`` (optional) is the current state of a mutable args object: publishing refuses
    when a resolvable field there differs from the resolution (it was changed undeclared).
    """
    if not isinstance(resolution, Resolution):
        raise InvalidArgumentError(f"publish: expected a Resolution, got {type(resolution).__name__}")
    if live is not None and not isinstance(live, Mapping):
        raise InvalidArgumentError(
            f"publish: live must be a mapping of field name to current value, got {type(live).__name__}"
        )
    if live is not None:
        drift = [
            f"{f}: resolved={resolution[f]!r} live={live[f]!r}"
            for f in sorted(resolution.leaves)
            if f in live and live[f] != resolution[f]
        ]
        if drift:
            fields = tuple(d.split(":", 1)[0] for d in drift)
            raise ParityError(
                "parity broken, nothing was published: "
                + "; ".join(drift)
                + f". The field(s) were changed after resolution without a declaration; call "
                f"refresh_declared_fields(obj, {fields!r}) after the change"
            )
    ctx = RuntimeContext(_freeze_tree(_build_tree(resolution.leaves, resolution), ""), resolution)
    for field, path in resolution.leaves.items():
        published = ctx.leaf(path)
        if published != resolution[field] or type(published) is not type(resolution[field]):
            raise ParityError(
                f"parity broken: leaf {path} = {published!r} but {field} resolved to {resolution[field]!r}"
            )
    resolution._mark_published()
    return ctx


class ContextSlot:
    """Holds the currently published context; a failed publish keeps the previous one."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._current: RuntimeContext | None = None

    @property
    def current(self) -> RuntimeContext | None:
        return self._current

    def publish(self, resolution: Resolution, live: Mapping[str, Any] | None = None) -> RuntimeContext:
        ctx = publish(resolution, live)
        with self._lock:
            self._current = ctx
        return ctx

    def get(self) -> RuntimeContext:
        if self._current is None:
            raise ParityError("nothing has been published yet; call publish(resolution) first")
        return self._current
