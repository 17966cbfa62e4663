"""One launch judged on two resolved releases of its engine, and every value that changes between
them attributed to what changed it (``resolvable upgrade``; issue 32).

Invariants:

* each side is the pack's own verdict of the launch built on that side's release
  (``Pack.verdict`` with ``trace=True``), the one ``explain`` gives; a side refused by its parser
  or by argument resolution has no resolution, and then no value change is listed;
* a changed value is attributed, in this order, to (1) the pack's own answer
  (``Pack.change_since``: the named change the deciding rule read on the new release) when it
  names one, else (2) the release where the value last changed, found by judging the launch on every resolved
  release between the two (a *walk*), with the named change that release brought to the deciding
  rule on either side of it (a ``release:`` read of the trace, ``resolvable._changes``), else the
  flag-table default that release changed, else (3) that release and the rule that decided the
  value there (``named`` False: a release, not a named change). When the pack's answer names
  several changes (the deciding rule read each of them), the walk's answer replaces it if it
  names a change at every release where the value moved: only those moved it. Nothing is guessed: an
  attribution names a ``Change`` of the pack's table, a flag table, or says it names neither;
* the walk judges each intermediate release at most once per launch (argument resolution only,
  no start-up or memory checks: a value is what resolution decided).

Engine-neutral (the ``Pack`` interface only) and standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._changes import RELEASE_READ
from .flag_history import version_key

__all__ = ["Attribution", "Comparison", "Side", "ValueChange", "compare", "release_reads"]


@dataclass(frozen=True)
class Side:
    """The launch judged on one release: its ``Launch``, resolution (None: refused before one)
    and ``Verdict``."""

    release: str
    launch: Any
    resolution: Any
    verdict: Any

    @property
    def refusal(self) -> dict[str, Any] | None:
        v = self.verdict
        if v.status != "refused":
            return None
        return {"message": v.message, "fix": v.fix, "rule": v.rule, "location": v.location}


@dataclass(frozen=True)
class Attribution:
    """What changed one value: ``release`` (where it changed), ``before``/``after`` there,
    ``change`` (the pack's named change, or None), ``named_by`` (the change, flag table or rule, in
    words) and ``named`` (whether a named change or a flag-table entry carries it)."""

    release: str
    before: Any
    after: Any
    change: str | None
    named_by: str
    named: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "release": self.release,
            "before": self.before,
            "after": self.after,
            "change": self.change,
            "named_by": self.named_by,
            "named": self.named,
        }


@dataclass(frozen=True)
class ValueChange:
    """One field whose value differs between the two sides, with the rule (or "user"/"default")
    that decided it on each, ``since`` (``Pack.change_since``), the named ``changes`` behind a
    ``since`` that is a release range, and its ``attributions`` when ``since`` is None (each
    release where the value moved, oldest first)."""

    field: str
    before: Any
    after: Any
    decided_before: str
    decided_after: str
    since: str | None
    attributions: tuple[Attribution, ...] = ()
    #: the named changes behind ``since`` that it does not spell (the pack's release range)
    changes: tuple[str, ...] = ()

    @property
    def named(self) -> bool:
        """Whether a named change (or a flag table's entry) carries this value change."""
        return bool(self.since) or any(a.named for a in self.attributions)

    @property
    def named_by(self) -> str:
        if self.since:
            return f"{self.since} ({', '.join(self.changes)})" if self.changes else self.since
        named = [a for a in self.attributions if a.named] or list(self.attributions)
        return (
            "; ".join(
                a.named_by if a.named_by.startswith(a.release) else f"{a.release}: {a.named_by}"
                for a in named
            )
            or "(nothing named)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "before": self.before,
            "after": self.after,
            "decided_before": self.decided_before,
            "decided_after": self.decided_after,
            "since": self.since,
            "changes": list(self.changes),
            "named": self.named,
            "named_by": self.named_by,
            "attributions": [a.to_dict() for a in self.attributions],
        }


@dataclass(frozen=True)
class Comparison:
    """The launch on ``old`` and on ``new`` (both resolved releases) and what changes between."""

    engine: str
    old: Side
    new: Side
    changes: tuple[ValueChange, ...] = field(default=())


def release_reads(res: Any, field_name: str) -> list[str]:
    """The names of the changes the rule deciding ``field_name`` read (its traced ``release:``
    inputs), on ``res``."""
    steps = res.explain(field_name).steps
    names: list[str] = []
    for step in steps[-1:]:
        for key, _value in step.inputs:
            text = str(key)
            if text.startswith(RELEASE_READ):
                names += re.findall(r"\(([A-Z][A-Z0-9_]*)[,)]", text)
    return names


def compare(pack: Any, launch_on: Any, old: str, new: str, *, startup: bool = True) -> Comparison:
    """The launch ``launch_on(release)`` (a ``Launch`` built on that release) judged on resolved
    releases ``old`` and ``new``, and every field that changes, attributed (module docstring)."""
    sides = []
    for release in (old, new):
        launch = launch_on(release)
        res, verdict = pack.verdict(launch, trace=True, startup=startup, memory=startup)
        resolved = res is not None and not (
            verdict.status == "refused" and verdict.stage in ("parse", "resolve")
        )
        sides.append(Side(release, launch, res if resolved else None, verdict))
    before, after = sides
    changes: list[ValueChange] = []
    if before.resolution is not None and after.resolution is not None:
        walk = _Walk(pack, launch_on, old, new, before.resolution, after.resolution)
        for c in before.resolution.diff(after.resolution):
            since = pack.change_since(after.resolution, c.field, old, new)
            names: tuple[str, ...] = ()
            if since and not re.search(r"\b[A-Z][A-Z0-9_]{2,}\b", since):
                # the pack's answer is a release range alone: name the changes behind it
                found = _changes_between(pack, (after.resolution, before.resolution), c.field, old, new)
                names = tuple(n for n in found if n not in since)
            attributions: tuple[Attribution, ...] = ()
            if not since or ";" in since:
                # none named, or several the deciding rule read: the walk names the release(s)
                # where the value actually moved, and the change each of those brought
                walked = walk.attribute(c.field)
                if not since or (walked and all(a.named for a in walked)):
                    since, names, attributions = None, (), walked
            changes.append(
                ValueChange(
                    c.field, c.before, c.after, c.decided_before, c.decided_after, since, attributions, names
                )
            )
    return Comparison(pack.name, before, after, tuple(changes))


class _Walk:
    """The launch resolved on the releases between two (each once), to find where a value moved."""

    def __init__(self, pack: Any, launch_on: Any, old: str, new: str, first: Any, last: Any) -> None:
        self.pack = pack
        self.launch_on = launch_on
        span = [r for r in pack.releases if version_key(old) <= version_key(r) <= version_key(new)]
        self.span = span
        self.known: dict[str, Any] = {old: first, new: last}

    def resolution(self, release: str) -> Any:
        if release not in self.known:
            try:
                res, verdict = self.pack.verdict(
                    self.launch_on(release), trace=True, startup=False, memory=False
                )
            except ValueError:  # the launch cannot be built on this release (its input error)
                res, verdict = None, None
            refused = verdict is None or (
                verdict.status == "refused" and verdict.stage in ("parse", "resolve")
            )
            self.known[release] = None if refused else res
        return self.known[release]

    def attribute(self, field_name: str) -> tuple[Attribution, ...]:
        """Every release of the span where ``field_name``'s value moved, with what moved it."""
        missing = object()
        found = []
        prev_release, prev_res = None, None
        for release in self.span:
            res = self.resolution(release)
            if res is None:
                continue
            if prev_res is not None:
                before = prev_res.get(field_name, missing)
                after = res.get(field_name, missing)
                if (
                    before is not missing
                    and after is not missing
                    and (before != after or type(before) is not type(after))
                ):
                    found.append(self._why(field_name, prev_release, release, prev_res, res, before, after))
            prev_release, prev_res = release, res
        return tuple(found)

    def _why(
        self,
        field_name: str,
        prev: Any,
        release: str,
        prev_res: Any,
        res: Any,
        before: Any,
        after: Any,
        depth: int = 0,
    ) -> Attribution:
        """What moved ``field_name`` between ``prev`` and ``release``: a named change the deciding
        rule read, a flag table's default, else (up to two fields deep) a field the deciding rule
        read on either side whose value moved too, attributed in turn ("through" it): a value a
        rule derives from another field (``chunked_prefill_size`` from ``enable_dp_attention``)
        moves with the change that moved that field."""
        since = self.pack.change_since(res, field_name, prev, release)
        if since:
            named = re.findall(r"\(([A-Z][A-Z0-9_]{2,})\)", since)
            change = named[-1] if len(named) == 1 else None
            return Attribution(release, before, after, change, since, True)
        table = self.pack.registry.changes
        for name in _changes_between(self.pack, (res, prev_res), field_name, prev, release):
            change = table.get(name)
            return Attribution(release, before, after, change.name, f"{change.since} ({change.name})", True)
        rule = res.decided_by(field_name)[0]
        if rule == "default":
            named = _table_default(self.pack, field_name, prev, release)
            if named is not None:
                return Attribution(release, before, after, None, named, True)
        if depth < 2:
            missing = object()
            for read in _fields_read(prev_res, field_name) + _fields_read(res, field_name):
                was, now = prev_res.get(read, missing), res.get(read, missing)
                if read == field_name or was is missing or now is missing or was == now:
                    continue
                why = self._why(read, prev, release, prev_res, res, was, now, depth + 1)
                if why.named:
                    return Attribution(
                        release, before, after, why.change, f"{why.named_by}, through {read}", True
                    )
        return Attribution(
            release, before, after, None, f"first release with {after!r}, decided by {rule}", False
        )


def _fields_read(res: Any, field_name: str) -> list[str]:
    """The fields (``args.<name>`` inputs) the rule deciding ``field_name`` read, on ``res``."""
    steps = res.explain(field_name).steps
    return [
        str(key)[5:] for step in steps[-1:] for key, _value in step.inputs if str(key).startswith("args.")
    ]


def _changes_between(pack: Any, sides: tuple[Any, ...], field_name: str, old: str, new: str) -> list[str]:
    """The named changes the rule deciding ``field_name`` read on any of ``sides`` that arrived
    (or left) after ``old`` and by ``new``, in the order read."""
    table = getattr(pack.registry, "changes", None)
    if table is None:
        return []
    lo, hi = version_key(old), version_key(new)
    found: list[str] = []
    for side in sides:
        for name in release_reads(side, field_name):
            if name in found or name not in table:
                continue
            change = table.get(name)
            bounds = [b for b in (change.since, change.until) if b is not None]
            if any(lo < version_key(b) <= hi for b in bounds):
                found.append(name)
    return found


def _table_default(pack: Any, dest: str, prev: str, release: str) -> str | None:
    """``"default of --x: A in P → B in R (ENGINE R's flag table)"`` when the flag tables of the two
    releases give ``dest`` different defaults; None otherwise."""
    tables = getattr(pack, "flag_table", None)
    if tables is None:
        return None
    from .upgrade_across import default_of, shown

    a, b = default_of(tables(prev), dest), default_of(tables(release), dest)
    if a is None or b is None or a[1] == b[1]:
        return None
    return (
        f"default of {b[0]}: {shown(a[1])} in {prev} → {shown(b[1])} in {release} "
        f"({pack.title or pack.name} {release}'s flag table)"
    )
