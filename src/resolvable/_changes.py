"""Named changes: the behaviour a release of the modelled engine changed, as data.

A pack declares one ``ChangeTable`` (like black's ``Feature`` / ``VERSION_TO_FEATURES``): every
behaviour that changed in a release is a ``Change`` record — a name, the release it arrived in
(``since``), optionally the release it left in (``until``), the upstream file/function and a
one-line summary. A rule is written once and asks ``ctx.release.has(CHANGES.X)`` (or
``ctx.release.has("X")``) instead of being copied per release range.

Invariants:

* a change's range is half-open (``since <= release < until``), numeric, validated when the
  table is built; names are unique UPPER_CASE identifiers;
* ``ReleaseView.has`` is a pure function of (table, release); the set of changes a release has
  is computed once per release (a frozenset), so asking costs one set lookup;
* asking for a change the table does not hold raises ``UnknownChangeError`` (the resolver adds
  the rule that asked): a typo is never a silent ``False``;
* under ``trace=True`` every ask is recorded as an input of the rule, phrased with its release
  bound and upstream function: ``sglang ≥ 0.5.20 (DSA_TRITON_ON_ROCM, overrides._dsa_…)``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Iterator

from ._release import ReleaseRange, release_key
from .errors import RegistrationError, UnknownChangeError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RELEASE_READ", "Change", "ChangeTable", "ReleaseView"]

#: The prefix of a traced change read's name (explain renders the rest as the reason).
RELEASE_READ = "release: "


class Change(namedtuple("Change", "name since until upstream summary", defaults=(None, "", ""))):
    """One named behaviour change of the modelled engine (immutable record).

    ``Change("DSA_TRITON_ON_ROCM", "0.5.20", upstream="overrides._dsa_split_backend_resolution",
    summary="ROCm fills the triton DSA kernels per unset side")``. ``until`` (exclusive) is for a
    behaviour a later release removed again."""

    __slots__ = ()

    @property
    def range(self) -> ReleaseRange:
        return ReleaseRange(self.since, self.until)

    def condition(self, engine: str, present: bool) -> str:
        """The release condition that holds, in words: ``sglang ≥ 0.5.20`` or ``sglang < 0.5.20``."""
        lo, hi = self.since, self.until
        if present:
            return f"{engine} ≥ {lo}" if hi is None else f"{lo} ≤ {engine} < {hi}"
        if hi is None:
            return f"{engine} < {lo}"
        return f"{engine} < {lo} or ≥ {hi}"

    def describe(self, engine: str, present: bool) -> str:
        where = f", {self.upstream}" if self.upstream else ""
        return f"{self.condition(engine, present)} ({self.name}{where})"


class ChangeTable:
    """The named changes of one engine (immutable once built): ``CHANGES.DSA_TRITON_ON_ROCM``.

    Attribute access returns the ``Change``; an unknown attribute is an ``AttributeError``
    naming the closest change (so a typo fails at import, where the rule module reads it)."""

    __slots__ = ("_by_name", "_changes", "_present", "engine")

    def __init__(self, engine: str, changes: Iterable[Change]) -> None:
        if not isinstance(engine, str) or not engine:
            raise RegistrationError(f"a change table needs the engine's name, got {engine!r}")
        by_name: dict[str, Change] = {}
        ordered = []
        for change in changes:
            if not isinstance(change, Change):
                raise RegistrationError(f"{engine} change table: {change!r} is not a Change record")
            name = change.name
            if not (isinstance(name, str) and name.isidentifier() and name.isupper()):
                raise RegistrationError(
                    f"{engine} change {name!r}: a change name is an UPPER_CASE identifier"
                )
            if name in by_name:
                raise RegistrationError(f"{engine} change {name!r} is declared twice")
            if change.since is None:
                raise RegistrationError(
                    f"{engine} change {name}: 'since' (the release it arrived in) is required"
                )
            valid = ReleaseRange.of(change.since, change.until, f"{engine} change {name}")
            if not isinstance(change.upstream, str) or not isinstance(change.summary, str):
                raise RegistrationError(f"{engine} change {name}: upstream and summary are strings")
            change = change._replace(since=valid.since, until=valid.until)
            by_name[name] = change
            ordered.append(change)
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_changes", tuple(sorted(ordered, key=lambda c: release_key(c.since))))
        object.__setattr__(self, "_present", {})

    def __getattr__(self, name: str) -> Change:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._by_name[name]
        except KeyError:
            raise AttributeError(self._unknown(name)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"the {self.engine} change table is immutable")

    def _unknown(self, name: object) -> str:
        hint = closest(str(name), self._by_name)
        extra = f" (did you mean {hint!r}?)" if hint else ""
        return f"unknown {self.engine} change {name!r}{extra}; the change table declares {len(self._by_name)}"

    def get(self, name: str | Change) -> Change:
        """The change named ``name`` (or the same ``Change``); ``UnknownChangeError`` otherwise."""
        key = name.name if isinstance(name, Change) else name
        change = self._by_name.get(key) if isinstance(key, str) else None
        if change is None or (isinstance(name, Change) and change != name):
            raise UnknownChangeError(self._unknown(key))
        return change

    def __iter__(self) -> Iterator[Change]:
        return iter(self._changes)

    def __len__(self) -> int:
        return len(self._changes)

    def __contains__(self, name: object) -> bool:
        key = name.name if isinstance(name, Change) else name
        return key in self._by_name

    def present(self, release: str) -> frozenset[Any]:
        """The changes ``release`` has, both their names and their records (cached per release):
        one set lookup answers ``has`` for either, and a record of another table never matches."""
        known = self._present.get(release)
        if known is None:
            has = [c for c in self._changes if c.range.contains(release)]
            known = frozenset([c.name for c in has] + has)
            if len(self._present) < 256:
                self._present[release] = known
        return known

    def introduced(self, release: str) -> tuple[Change, ...]:
        """The changes that arrive in exactly ``release`` (what adding that release meant)."""
        return tuple(c for c in self._changes if c.since == release)

    def __repr__(self) -> str:
        return f"ChangeTable({self.engine!r}, {len(self._changes)} changes)"


_NO_CHANGES = ChangeTable("engine", ())


class ReleaseView:
    """What a rule knows about the release it resolves for: ``ctx.release``.

    ``version`` is the release string (None for a registry without releases); ``has(change)``
    says whether the release has a named change of the pack's table."""

    __slots__ = ("_present", "_table", "version")

    def __init__(self, version: str | None, table: ChangeTable | None = None) -> None:
        table = table if table is not None else _NO_CHANGES
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_present", table.present(version) if version is not None else frozenset())

    @property
    def changes(self) -> ChangeTable:
        return self._table

    def has(self, change: str | Change) -> bool:
        """Whether this release has ``change`` (a ``Change`` of the table, or its name)."""
        if change in self._present:  # names and the Change records themselves
            return True
        if self.version is None:
            name = change.name if isinstance(change, Change) else change
            raise UnknownChangeError(
                f"asked for change {name!r}, but the registry is not release-aware (no releases)"
            )
        self._table.get(change)  # raises for a name the table does not declare
        return False

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the release view is read-only")

    def __str__(self) -> str:
        return str(self.version)

    def __repr__(self) -> str:
        return f"ReleaseView({self.version!r}, {len(self._present)} changes)"


class TracedReleaseView(ReleaseView):
    """A release view that records every ask as an input of the rule (``trace=True``)."""

    __slots__ = ("_reads",)

    def __init__(self, view: ReleaseView, reads: list[tuple[str, Any]]) -> None:
        super().__init__(view.version, view._table)
        object.__setattr__(self, "_reads", reads)

    def has(self, change: str | Change) -> bool:
        present = ReleaseView.has(self, change)
        found = self._table.get(change)
        self._reads.append((RELEASE_READ + found.describe(self._table.engine, present), present))
        return present

    def __getattribute__(self, name: str) -> Any:
        if name == "version":
            value = object.__getattribute__(self, "version")
            object.__getattribute__(self, "_reads").append(("release", value))
            return value
        return object.__getattribute__(self, name)
