"""Releases of the target engine, and the release ranges rules, stages and choices declare.

A release-aware registry resolves for exactly one release of the engine it models (sglang
0.5.15, 0.5.23 …). Anything that changed in a release says so with a range instead of an
``if version >= …`` in a rule body: ``@registry.rule("attention", since="0.5.19")``.

Invariants:

* a release is a dotted version of integers (``"0.5.15"``); an ``rcN``/local suffix maps to its
  base release; a ``.postN`` suffix is kept by ``release_name`` and ``release_key`` (it sorts
  after its base and before the next release: ``0.5.6 < 0.5.6.post1 < 0.5.7``), so a post
  release whose behaviour differs is a release of its own (a range may start at
  ``since="0.5.6.post1"``); ``check_release`` maps a post release that is not listed to its base
  (it resolves as its base release) and ``base_release`` always drops the suffix;
* a range is half-open: ``since <= release < until``; a missing bound is unbounded, so a rule
  that changed in 0.5.19 is two rules, ``until="0.5.19"`` and ``since="0.5.19"``, that never
  overlap and leave no gap;
* comparisons are numeric (``0.5.9 < 0.5.15``), never textual;
* an ``ArchList`` is upstream's architecture list with a release range per member: a rule keyed
  on it (``archs=FAMILY``) is in the plan of an architecture only for the releases in which
  upstream's list holds it, so one rule follows the list instead of one copy per member.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._record import record_tuple
from .errors import InvalidArgumentError, RegistrationError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ArchList", "ReleaseRange", "base_release", "release_key", "release_name"]


def release_key(text: str) -> tuple[int, ...]:
    """``"0.5.15"`` → ``(0, 5, 15)``, ``"0.5.6.post1"`` → ``(0, 5, 6, 0, 1)``; the sort key of a
    release (numeric; ``.postN`` after its base, before the next release; other suffixes ignored)."""
    key = _KEYS.get(text) if type(text) is str else None
    if key is None:
        base = tuple(map(int, base_release(text).split(".")))
        post = _post_number(text)
        key = (*base, *([0] * (4 - len(base))), post) if post else base
        if type(text) is str and len(text) <= 64 and len(_KEYS) < _KEYS_LIMIT:  # bounded in bytes too
            _KEYS[text] = key
    return key


#: Parsed release keys: a resolution compares its release with rule and stage ranges, and the
#: release strings are few (a bounded memo: parsing is a pure function of the text).
_KEYS: dict[str, tuple[int, ...]] = {}
_KEYS_LIMIT = 1024


def base_release(text: str) -> str:
    """The base release of a version string: ``0.5.15.post1`` → ``0.5.15``, ``0.5.16rc0`` → ``0.5.16``.

    Raises ``InvalidArgumentError`` for anything that does not start with dotted integers."""
    base = _BASES.get(text) if type(text) is str else None
    if base is None:
        base = _parse_base(text)
        if type(text) is str and len(text) <= 64 and len(_BASES) < _KEYS_LIMIT:  # as ``_KEYS``
            _BASES[text] = base
    return base


#: Base releases of the version strings seen: every change, range and list member of a pack
#: names one of a few releases, so each is parsed once (a bounded memo of a pure function).
_BASES: dict[str, str] = {}


def _post_number(text: str) -> int:
    """N of a ``.postN`` suffix right after the dotted integers (``0.5.6.post1`` → 1), else 0."""
    head = text.strip().lstrip("vV")
    at = head.find(".post")
    if at < 0:
        return 0
    digits = ""
    for ch in head[at + 5 :]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits and base_release(head[:at]) == base_release(text) else 0


def release_name(text: str) -> str:
    """The release a version string names, ``.postN`` kept: ``v0.5.6.post1`` → ``0.5.6.post1``,
    ``0.5.16rc0`` → ``0.5.16``, ``0.5.15+cu129`` → ``0.5.15``."""
    base = base_release(text)  # validates the text first (a non-string is an InvalidArgumentError)
    post = _post_number(text)
    return f"{base}.post{post}" if post else base


def _parse_base(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidArgumentError(f"a release is a version string such as '0.5.15', got {text!r}")
    parts = []
    for piece in text.strip().lstrip("vV").split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(str(int(digits)))
        if len(digits) != len(piece):  # '16rc0', '15+local': the suffix ends the base
            break
    if len(parts) < 2:
        raise InvalidArgumentError(f"{text!r} is not a release version (expected e.g. '0.5.15')")
    return ".".join(parts)


_BOUND_TYPES = (str, type(None))
#: (class, since, until) -> the validated range (ranges are immutable, so one is shared).
_VALID_RANGES: dict[tuple[Any, ...], Any] = {}


class ReleaseRange(record_tuple("ReleaseRange", "since until", defaults=(None, None))):
    """``since <= release < until`` (either bound may be None: unbounded). Immutable."""

    __slots__ = ()

    @classmethod
    def of(cls, since: str | None, until: str | None, what: str) -> ReleaseRange:
        """Validate the bounds a registration gives; ``what`` names the culprit in errors."""
        key = (cls, since, until)
        if type(since) in _BOUND_TYPES and type(until) in _BOUND_TYPES:
            known = _VALID_RANGES.get(key)
            if known is not None:  # the same bounds were validated before (one per rule: import time)
                return known
        else:
            key = None
        try:
            lo = release_name(since) if since is not None else None
            hi = release_name(until) if until is not None else None
        except InvalidArgumentError as exc:
            raise RegistrationError(f"{what}: {exc}") from None
        if lo is not None and hi is not None and release_key(lo) >= release_key(hi):
            raise RegistrationError(
                f"{what}: empty release range since={lo!r} until={hi!r} (until is exclusive and must "
                "be a later release)"
            )
        valid = cls(lo, hi)
        if key is not None:
            _VALID_RANGES[key] = valid
        return valid

    @property
    def unbounded(self) -> bool:
        return self.since is None and self.until is None

    def contains(self, release: str | None) -> bool:
        """Whether ``release`` is in the range; ``None`` (a registry without releases) is in every range."""
        if release is None or self.unbounded:
            return True
        key = release_key(release)
        if self.since is not None and key < release_key(self.since):
            return False
        return not (self.until is not None and key >= release_key(self.until))

    def overlaps(self, other: ReleaseRange) -> bool:
        lo = max((release_key(b) for b in (self.since, other.since) if b is not None), default=None)
        hi = min((release_key(b) for b in (self.until, other.until) if b is not None), default=None)
        return lo is None or hi is None or lo < hi

    def describe(self, releases: Iterable[str] = ()) -> str:
        """Human form: ``all releases``, ``since 0.5.19``, ``until 0.5.18`` (inclusive, when the
        supported releases tell which one precedes the exclusive bound), ``0.5.15 to 0.5.18``."""
        if self.unbounded:
            return "all releases"
        last = None
        if self.until is not None:
            before = [r for r in releases if release_key(r) < release_key(self.until)]
            last = max(before, key=release_key) if before else None
        upper = f"{last}" if last is not None else f"before {self.until}"
        if self.since is None:
            return f"up to {upper}" if last is not None else upper
        if self.until is None:
            return f"since {self.since}"
        if last == self.since:
            return f"{self.since} only"
        return f"{self.since} to {upper}"


def check_release(release: str, releases: tuple[str, ...], owner: str) -> str:
    """The supported release ``release`` names (itself when listed, ``0.5.6.post1``; else its base:
    an unlisted post release resolves as its base), or a clear error with the closest one."""
    name = release_name(release)
    if name in releases:
        return name
    base = base_release(release)
    if base in releases:
        return base
    hint = closest(base, releases)
    extra = f" (did you mean {hint!r}?)" if hint else ""
    raise InvalidArgumentError(
        f"{owner} does not model release {release!r}{extra}; supported releases: {', '.join(releases)}"
    )


class ArchList(tuple):
    """Upstream's architecture list, with the releases each member is in (immutable).

    ``ArchList("DeepseekV3ForCausalLM", ("LongcatFlashForCausalLM", "0.5.16"),
    ("OldForCausalLM", None, "0.5.20"))``: a bare name is in every release; a tuple gives
    ``(name, since[, until])``. It is a tuple of the names (so ``archs=`` and ``in`` work
    unchanged); ``contains(arch, release)`` and ``at(release)`` answer per release."""

    _ranges: dict[str, ReleaseRange]  # the members not in every release
    what: str  # the list's name in messages and in traced release reads
    _index: dict[str, ReleaseRange]  # every member -> its range

    def __new__(cls, *entries: str | tuple[Any, ...], what: str = "architecture list") -> ArchList:
        names: list[str] = []
        ranges: dict[str, ReleaseRange] = {}
        for entry in entries:
            if type(entry) is str:  # the usual member, in every release
                names.append(entry)
                continue
            if isinstance(entry, str):
                name, bounds = entry, ()
            elif isinstance(entry, tuple) and entry and isinstance(entry[0], str) and len(entry) <= 3:
                name, bounds = entry[0], entry[1:]
            else:
                raise RegistrationError(f"{what}: {entry!r} is not a name or (name, since[, until])")
            names.append(name)
            if bounds:
                since, until = (*bounds, None)[:2]
                valid = ReleaseRange.of(since, until, f"{what}: {name}")
                if not valid.unbounded:
                    ranges[name] = valid
        index = dict.fromkeys(names, _EVERY)  # a set's check for duplicates, not a scan per member
        if len(index) != len(names):
            seen: set[str] = set()
            twice = next(name for name in names if name in seen or seen.add(name))
            raise RegistrationError(f"{what}: {twice!r} is listed twice")
        index.update(ranges)
        self = super().__new__(cls, names)
        object.__setattr__(self, "_ranges", ranges)
        object.__setattr__(self, "what", what)
        object.__setattr__(self, "_index", index)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an ArchList is immutable")

    @property
    def ranges(self) -> dict[str, ReleaseRange]:
        """The members that are not in every release, with their ranges."""
        return dict(self._ranges)

    def range(self, arch: str) -> ReleaseRange:
        return self._ranges.get(arch, _EVERY)

    def member_range(self, arch: Any) -> ReleaseRange | None:
        """The releases in which the list holds ``arch``, or None when it never does (one dict
        lookup: the lists can be long)."""
        return self._index.get(arch) if isinstance(arch, str) else None

    def contains(self, arch: str | None, release: str | None) -> bool:
        """Whether upstream's list holds ``arch`` in ``release`` (None: any release)."""
        return arch in self and self.range(arch).contains(release)

    def at(self, release: str | None) -> frozenset[str]:
        """The members in ``release``."""
        return frozenset(a for a in self if self.range(a).contains(release))

    def describe(self, arch: str, releases: Iterable[str] = ()) -> str:
        bounded = self._ranges.get(arch)
        return arch if bounded is None else f"{arch} ({bounded.describe(releases)})"

    def __repr__(self) -> str:
        return f"ArchList({', '.join(self.describe(a) for a in self)})"


_EVERY = ReleaseRange()
