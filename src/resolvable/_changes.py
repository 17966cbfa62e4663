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
  bound and upstream function: ``sglang ≥ 0.5.20 (DSA_TRITON_ON_ROCM, overrides._dsa_…)``;
* every resolution records which changes each declaring rule asked (``Resolution.releases_of``):
  the releases in which all of them answer alike are the releases that share the declaration
  (``releases_of``), which is what explain, upgrade and matrix show as the rule's range.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain, repeat
from operator import attrgetter

from ._record import record_tuple
from ._release import ArchList, ReleaseRange, release_key
from .errors import RegistrationError, UnknownChangeError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RELEASE_READ", "Change", "ChangeTable", "ReleaseView", "releases_of"]

#: The prefix of a traced change read's name (explain renders the rest as the reason).
RELEASE_READ = "release: "


class Change(record_tuple("Change", "name since until upstream summary", defaults=(None, "", ""))):
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
        if present and lo == "0.0":
            return f"{engine} < {hi}"
        if present:
            return f"{engine} ≥ {lo}" if hi is None else f"{lo} ≤ {engine} < {hi}"
        if hi is None:
            return f"{engine} < {lo}"
        if lo == "0.0":  # a list member from the first release on (``ReleaseView.holds``)
            return f"{engine} ≥ {hi}"
        return f"{engine} < {lo} or ≥ {hi}"

    def describe(self, engine: str, present: bool) -> str:
        where = f", {self.upstream}" if self.upstream else ""
        return f"{self.condition(engine, present)} ({self.name}{where})"


class ChangeTable:
    """The named changes of one engine (immutable once built): ``CHANGES.DSA_TRITON_ON_ROCM``.

    Attribute access returns the ``Change``; an unknown attribute is an ``AttributeError``
    naming the closest change (so a typo fails at import, where the rule module reads it)."""

    def __init__(self, engine: str, changes: Iterable[Change]) -> None:
        if not isinstance(engine, str) or not engine:
            raise RegistrationError(f"a change table needs the engine's name, got {engine!r}")
        changes = tuple(changes)
        if not _valid(changes):  # some change is wrong (or needs its bounds normalised): one at a time
            changes = _check_each(engine, changes)
        by_name = dict(zip(map(_NAME, changes), changes))
        sinces = list(map(_SINCE, changes))
        keys = {since: release_key(since) for since in set(sinces)}  # one parse per release
        order = sorted(range(len(changes)), key=list(map(keys.__getitem__, sinces)).__getitem__)
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_changes", tuple(map(changes.__getitem__, order)))
        object.__setattr__(self, "_present", {})
        object.__setattr__(self, "_index", None)  # ``present``'s lookup tables (``_build_index``)
        # Plain attributes: ``CHANGES.X`` is a dict lookup (one update, not a call per name).
        self.__dict__.update(by_name)

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
            since, flat, ending, every = self._index or self._build_index()
            if release is None:  # every release
                known = every
            else:
                key = release_key(release)
                lo, hi = 0, len(since)  # the changes that arrived by ``release``: a prefix
                while lo < hi:
                    mid = (lo + hi) // 2
                    if since[mid] <= key:
                        lo = mid + 1
                    else:
                        hi = mid
                known = frozenset(flat[: 2 * lo])
                ended = [x for c, until in ending if until <= key for x in (c.name, c)]
                if ended:
                    known = known.difference(ended)
            if len(self._present) < 256:
                self._present[release] = known
        return known

    @property
    def known(self) -> frozenset[Any]:
        """Every change of the table, both names and records."""
        return (self._index or self._build_index())[3]

    def _build_index(self) -> tuple[Any, ...]:
        """What ``present`` reads, built on the first release asked (not at import): the since
        keys in order; the names and records flattened in that order (the changes a release has
        before any ends are one prefix: a slice, not a pass in Python); the changes that end
        (``until`` key); every name and record."""
        changes = self._changes
        sinces = [c.since for c in changes]
        parsed = {since: release_key(since) for since in set(sinces)}  # one parse per release
        flat = tuple(chain.from_iterable(zip([c.name for c in changes], changes)))
        index = (
            tuple(map(parsed.__getitem__, sinces)),
            flat,
            tuple((c, release_key(c.until)) for c in changes if c.until is not None),
            frozenset(flat),
        )
        object.__setattr__(self, "_index", index)  # a pure function of the table: races agree
        return index

    def introduced(self, release: str) -> tuple[Change, ...]:
        """The changes that arrive in exactly ``release`` (what adding that release meant)."""
        return tuple(c for c in self._changes if c.since == release)

    def __repr__(self) -> str:
        return f"ChangeTable({self.engine!r}, {len(self._changes)} changes)"


_NAME, _SINCE, _UNTIL, _UPSTREAM, _SUMMARY = (
    attrgetter(f) for f in ("name", "since", "until", "upstream", "summary")
)
_STR_ONLY = {str}


def _valid(changes: tuple[Change, ...]) -> bool:
    """Whether every change is valid and its bounds are already base releases (False: then
    ``_check_each`` names the culprit, or normalises the bounds).

    Whole-table passes in C (``map``, ``set``, ``dict``): a table is built at import, so its
    cost per change is import time per release; each distinct range is validated once."""
    try:
        if not all(map(isinstance, changes, repeat(Change))):
            return False
        names = list(map(_NAME, changes))
        if (
            len(set(names)) != len(changes)
            or not set(map(type, names)) <= _STR_ONLY
            or not all(map(str.isidentifier, names))
            or not all(map(str.isupper, names))
            or not set(map(type, map(_UPSTREAM, changes))) <= _STR_ONLY
            or not set(map(type, map(_SUMMARY, changes))) <= _STR_ONLY
        ):
            return False
        sinces = list(map(_SINCE, changes))
        if None in sinces:
            return False
        for since, until in set(zip(sinces, map(_UNTIL, changes))):
            valid = ReleaseRange.of(since, until, "change")
            if valid.since != since or valid.until != until:  # e.g. '0.5.20.post1': normalised
                return False
    except (RegistrationError, TypeError):  # a bad bound, an unhashable field
        return False
    return True


def _check_each(engine: str, changes: tuple[Change, ...]) -> tuple[Change, ...]:
    """Check the changes one by one: the first that is wrong raises ``RegistrationError`` naming
    it; bounds given with a suffix (``0.5.20.post1``) are replaced by their base release."""
    seen: set[str] = set()
    out = []
    for change in changes:
        if not isinstance(change, Change):
            raise RegistrationError(f"{engine} change table: {change!r} is not a Change record")
        name = change.name
        if not (isinstance(name, str) and name.isidentifier() and name.isupper()):
            raise RegistrationError(f"{engine} change {name!r}: a change name is an UPPER_CASE identifier")
        if name in seen:
            raise RegistrationError(f"{engine} change {name!r} is declared twice")
        seen.add(name)
        if change.since is None:
            raise RegistrationError(
                f"{engine} change {name}: 'since' (the release it arrived in) is required"
            )
        valid = ReleaseRange.of(change.since, change.until, f"{engine} change {name}")
        if not isinstance(change.upstream, str) or not isinstance(change.summary, str):
            raise RegistrationError(f"{engine} change {name}: upstream and summary are strings")
        if valid.since != change.since or valid.until != change.until:  # e.g. '0.5.20.post1'
            change = change._replace(since=valid.since, until=valid.until)
        out.append(change)
    return tuple(out)


_NO_CHANGES = ChangeTable("engine", ())


class ReleaseView:
    """What a rule knows about the release it resolves for: ``ctx.release``.

    ``version`` is the release string (None for a registry without releases); ``has(change)``
    says whether the release has a named change of the pack's table."""

    __slots__ = ("_absent", "_picked", "_present", "_table", "version")

    def __init__(self, version: str | None, table: ChangeTable | None = None) -> None:
        table = table if table is not None else _NO_CHANGES
        present = table.present(version) if version is not None else frozenset()
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_present", present)
        # The table's other changes (names and records): asking for one is a quick False.
        object.__setattr__(self, "_absent", table.known - present if version is not None else frozenset())
        #: id(entries) -> (entries, items, changes) for ``pick`` (upstream lists are constants).
        object.__setattr__(self, "_picked", {})

    @property
    def changes(self) -> ChangeTable:
        return self._table

    @property
    def present(self) -> frozenset[Any]:
        """The changes this release has (names and records; empty without releases): the key of
        a pure per-release memo, which asks nothing by itself (the memo replays its asks)."""
        return self._present

    def has(self, change: str | Change) -> bool:
        """Whether this release has ``change`` (a ``Change`` of the table, or its name)."""
        if change in self._present:  # names and the Change records themselves
            return True
        if change in self._absent:
            return False
        if self.version is None:
            name = change.name if isinstance(change, Change) else change
            raise UnknownChangeError(
                f"asked for change {name!r}, but the registry is not release-aware (no releases)"
            )
        self._table.get(change)  # raises for a name the table does not declare
        return False

    def pick(self, entries: Iterable[tuple[Any, Change | None]]) -> tuple[Any, ...]:
        """The items of an upstream list that this release has, in the list's order: each entry
        is ``(item, change)``, ``change`` (or None: every release) the change that added it.
        Counts as asking each change (traced and recorded like ``has``); memoised per list."""
        hit = self._picked.get(id(entries))
        if hit is None or hit[0] is not entries:
            items = tuple(item for item, change in entries if change is None or ReleaseView.has(self, change))
            changes = tuple(self._table.get(change) for _, change in entries if change is not None)
            hit = (entries, items, changes)
            if len(self._picked) < 256:
                self._picked[id(entries)] = hit
        if hit[2]:
            self._note(hit[2])
        return hit[1]

    def holds(self, members: ArchList, name: Any) -> bool:
        """Whether upstream's list ``members`` (an ``ArchList``) holds ``name`` in this release:
        ``ctx.release.holds(DSA_ARCHS, ctx.arch)``, never ``members.contains(arch, version)``.
        A member with a release range counts as asking a change spanning that range (traced
        and recorded like ``has``), so the releases explain shows are narrowed by it."""
        bounded = members.member_range(name)
        if bounded is None:
            return False
        if bounded.unbounded:
            return True
        self._note((_member_change(members, name, bounded),))
        return bounded.contains(_VERSION.__get__(self))  # not a traced read of the version

    def derive(self, fn: Any) -> Any:
        """``fn(view)``, a pure function of the release's changes (e.g. a rule's per-release
        arguments), computed once per release; each use counts as asking the changes ``fn``
        asked (traced and recorded like ``has``). Treat the value as read-only."""
        hit = self._picked.get(id(fn))
        if hit is None or hit[0] is not fn:
            asked: list[Change] = []
            value = fn(RecordingReleaseView(self, asked))
            hit = (fn, value, tuple(asked))
            if len(self._picked) < 256:
                self._picked[id(fn)] = hit
        if hit[2]:
            self._note(hit[2])
        return hit[1]

    def _note(self, changes: tuple[Change, ...]) -> None:
        """Record that ``changes`` were asked (nothing to record on a shared view)."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the release view is read-only")

    def __str__(self) -> str:
        return str(self.version)

    def __repr__(self) -> str:
        return f"ReleaseView({self.version!r}, {len(self._present)} changes)"


_VERSION = ReleaseView.version  # the slot itself (a traced view records reads of the attribute)

#: (id(list), member) -> (list, the member's change): one record per bounded member, kept.
_MEMBER_CHANGES: dict[tuple[int, str], tuple[Any, Change]] = {}


def _member_change(members: ArchList, name: str, bounded: ReleaseRange) -> Change:
    """The change record standing for "``name`` is in upstream's list ``members``": its range
    is the member's (a member listed from the first release on starts at ``0.0``)."""
    hit = _MEMBER_CHANGES.get((id(members), name))
    if hit is None or hit[0] is not members:
        change = Change(name, bounded.since or "0.0", bounded.until, upstream=f"listed in {members.what}")
        hit = _MEMBER_CHANGES[(id(members), name)] = (members, change)
    return hit[1]


class RecordingReleaseView(ReleaseView):
    """A release view that notes the changes a rule asks (``asked``: the resolver reads and clears
    it after each rule); one per resolution."""

    __slots__ = ("_asked",)

    def __init__(self, view: ReleaseView, asked: list[Change]) -> None:
        # The slots' own setters (C calls; one view per resolution): see below the class.
        _set_version(self, view.version)
        _set_table(self, view._table)
        _set_present(self, view._present)
        _set_absent(self, view._absent)
        _set_picked(self, view._picked)
        _set_asked(self, asked)

    def _note(self, changes: tuple[Change, ...]) -> None:
        self._asked.extend(changes)

    def has(self, change: str | Change) -> bool:
        if type(change) is Change:  # the hot path: a record of the table
            if change in self._present:
                self._asked.append(change)
                return True
            if change in self._absent:
                self._asked.append(change)
                return False
        present = ReleaseView.has(self, change)
        self._asked.append(change if type(change) is Change else self._table.get(change))
        return present


#: The slot descriptors' ``__set__`` (the views refuse plain assignment): building the
#: per-resolution recording view costs six C calls, not six ``object.__setattr__`` lookups.
_set_version, _set_table, _set_present, _set_absent, _set_picked = (
    ReleaseView.__dict__[name].__set__ for name in ("version", "_table", "_present", "_absent", "_picked")
)
_set_asked = RecordingReleaseView.__dict__["_asked"].__set__


def releases_of(asked: Iterable[Change], release: str) -> ReleaseRange:
    """The releases in which every change of ``asked`` answers as it does in ``release`` (one
    half-open range: a change that holds contributes its range, one that does not the side of
    its range that contains ``release``)."""
    lo: str | None = None
    hi: str | None = None
    key = release_key(release)

    def raise_lo(bound: str | None) -> None:
        nonlocal lo
        if bound is not None and (lo is None or release_key(bound) > release_key(lo)):
            lo = bound

    def lower_hi(bound: str | None) -> None:
        nonlocal hi
        if bound is not None and (hi is None or release_key(bound) < release_key(hi)):
            hi = bound

    for change in asked:
        if change.range.contains(release):
            raise_lo(change.since)
            lower_hi(change.until)
        elif key < release_key(change.since):
            lower_hi(change.since)
        else:
            raise_lo(change.until)
    return ReleaseRange(lo, hi)


class TracedReleaseView(RecordingReleaseView):
    """A release view that records every ask as an input of the rule (``trace=True``)."""

    __slots__ = ("_reads",)

    def __init__(self, view: ReleaseView, reads: list[tuple[str, Any]], asked: list[Change]) -> None:
        super().__init__(view, asked)
        object.__setattr__(self, "_reads", reads)

    def has(self, change: str | Change) -> bool:
        present = RecordingReleaseView.has(self, change)
        found = self._asked[-1]
        self._reads.append((RELEASE_READ + found.describe(self._table.engine, present), present))
        return present

    def _note(self, changes: tuple[Change, ...]) -> None:
        self._asked.extend(changes)
        engine = self._table.engine
        for change in changes:
            present = change.range.contains(self.version)  # a table's change or a list member's
            self._reads.append((RELEASE_READ + change.describe(engine, present), present))

    def __getattribute__(self, name: str) -> Any:
        if name == "version":
            value = object.__getattribute__(self, "version")
            object.__getattribute__(self, "_reads").append(("release", value))
            return value
        return object.__getattribute__(self, name)
