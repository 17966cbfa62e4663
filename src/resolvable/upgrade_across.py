"""``upgrade --from`` a parse-only release: the journey split at the oldest resolved release
(issue 32, "upgrade across the parse-only boundary").

A parse-only release (``Pack.parse_only_releases``) has a flag table from its wheel but no rules,
so its launch is read, never resolved. Upgrading from one to a resolved release ``to`` is split at
the *boundary* ``B``, the oldest release the pack resolves (``Pack.releases``, oldest first; read
from the pack every time, so it follows the boundary as releases are added), or at ``to`` itself
when ``to`` is parse-only too:

* ``from → B`` (tables only): every flag of the launch that was removed or renamed, with its
  replacement and where that is named (``Pack.removed_between``); and every flag of ``from``'s
  table that the launch does not set whose *default* differs in ``B``'s table, each step
  attributed to the release whose table changed it (consecutive tables compared, so a default
  that moved twice is named twice). What cannot be attributed is said, not guessed: values the
  engine derives at start-up are not resolved below ``B`` (``derived``: the fields ``B``'s rules
  decide for this launch, when ``B`` resolved it);
* ``B → to``: the launch, with the flags ``B`` no longer has replaced by their successors
  (``rewrite``: the replacement's words; a bare renamed flag keeps the value typed; a successor
  that needs a value the old flag did not carry, or no successor, drops the flag; each said in a
  note), judged as ``resolvable upgrade`` judges two resolved releases (``resolvable.upgrade``).

Defaults are compared as the tables store them (the wheels' argparse defaults); a flag with no
stored default (argparse.SUPPRESS, a factory, a machine-dependent default) on either side is not
compared. Engine-neutral (the ``Pack`` interface and its ``flag_table``) and standard library
only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from .flag_history import version_key
from .upgrade import Attribution

__all__ = ["Crossing", "DefaultChange", "boundary_of", "cross", "default_of", "rewrite", "shown"]


def shown(value: Any) -> str:
    """A table value as the operator types it (JSON for everything but a plain string)."""
    return value if isinstance(value, str) else json.dumps(value)


def _flags_of(table: Any, dest: str) -> list[Any]:
    return [f for f in table.flags if f.dest == dest and not getattr(f, "positional", False)]


def default_of(table: Any, dest: str) -> tuple[str, Any] | None:
    """(the flag that shows ``dest``, its default) in ``table``; None when the table has no flag
    for ``dest`` or stores no default for it (a sentinel, or a machine-dependent default)."""
    flags = _flags_of(table, dest)
    if not flags:
        return None
    flag = next((f for f in flags if not f.deprecated), flags[0])
    value = flag.default
    if type(value) is object or getattr(flag, "dynamic", None):  # NO_DEFAULT, or decided at run time
        return None
    return flag.options[0], value


def boundary_of(pack: Any, to: str) -> str:
    """Where the journey to ``to`` is split: the oldest release the pack resolves, or ``to`` when
    ``to`` is older (a parse-only ``to``: no resolved half)."""
    oldest = min(pack.releases, key=version_key)
    return to if version_key(to) < version_key(oldest) else oldest


@dataclass(frozen=True)
class DefaultChange:
    """A flag the launch does not set whose default differs between the from-release's table and
    the boundary's: ``option`` (as the boundary spells it), ``before``/``after`` and the ``steps``
    (each a table release that changed it)."""

    dest: str
    option: str
    before: Any
    after: Any
    steps: tuple[Attribution, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dest": self.dest,
            "option": self.option,
            "before": self.before,
            "after": self.after,
            "steps": [s.to_dict() for s in self.steps],
        }


@dataclass(frozen=True)
class Crossing:
    """The table half of an upgrade from a parse-only release: ``old`` → ``boundary`` (→ ``new``)."""

    engine: str
    title: str
    old: str
    boundary: str
    new: str
    model: str | None
    passed: tuple[tuple[str, str, Any], ...]
    launch_removed: tuple[Any, ...]  # FlagChange of the launch's flags, old → new
    removed: tuple[Any, ...]  # every FlagChange old → new
    defaults: tuple[DefaultChange, ...]
    added: tuple[tuple[str, Any], ...]  # (option, default) of flags the boundary added
    notes: tuple[str, ...] = field(default=())

    @property
    def resolved_half(self) -> bool:
        """Whether there is a resolved half (``boundary`` → ``new``)."""
        return self.boundary != self.new

    def removed_by_boundary(self) -> tuple[Any, ...]:
        """The launch's flags that the boundary no longer accepts."""
        key = version_key(self.boundary)
        return tuple(c for c in self.launch_removed if version_key(c.removed_in) <= key)

    def why(self) -> str:
        """Where the journey is split and why, in one sentence."""
        if not self.resolved_half:
            return (
                f"{self.title} {self.old} and {self.new} are both parse-only (flag tables, no rules): "
                "the flags and their defaults are compared; no value is resolved"
            )
        return (
            f"{self.title} {self.old} is parse-only (its flag table is known, no rule resolves it); "
            f"{self.boundary} is the oldest release resolvable resolves: {self.old} → {self.boundary} "
            f"compares flag tables, {self.boundary} → {self.new} resolves the launch on both"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.old,
            "to": self.boundary,
            "launch_flags_removed": [c.to_dict() for c in self.removed_by_boundary()],
            "defaults_changed": [d.to_dict() for d in self.defaults],
            "flags_added": [{"option": o, "default": d} for o, d in self.added],
            "notes": list(self.notes),
        }


def _table_span(pack: Any, old: str, new: str) -> list[str]:
    """Every release with a flag table from ``old`` to ``new``, oldest first."""
    every = {*pack.parse_only_releases(), *pack.releases}
    lo, hi = version_key(old), version_key(new)
    return sorted((r for r in every if lo <= version_key(r) <= hi), key=version_key)


def _canonical(table: Any, typed: str, dest: str) -> set[str]:
    """The option strings of ``table`` that a typed option stands for (itself, or the options of
    its dest when the parser read a unique prefix)."""
    if typed in table.by_option:
        return {typed}
    return {o for f in _flags_of(table, dest) for o in f.options}


def cross(pack: Any, old: str, new: str, words: list[str] | None) -> Crossing:
    """The table half of upgrading the launch ``words`` (None: no command, flags only) from
    parse-only ``old`` to ``new`` (module docstring)."""
    tables = pack.flag_table
    boundary = boundary_of(pack, new)
    removed = tuple(pack.removed_between(old, new))
    model, passed = (None, [])
    if words:
        model, passed = pack.read_release_flags(list(words), old)
    first = tables(old)
    typed = set()
    for option, dest, _value in passed:
        typed |= _canonical(first, option.split("=", 1)[0], dest)
    set_dests = {dest for _, dest, _ in passed}
    launch_removed = tuple(c for c in removed if c.option in typed)
    span = _table_span(pack, old, boundary)
    last = tables(boundary)
    defaults = []
    seen = set()
    for flag in first.flags:
        dest = flag.dest
        if dest in seen or dest in set_dests or getattr(flag, "positional", False):
            continue
        seen.add(dest)
        a, b = default_of(first, dest), default_of(last, dest)
        if a is None or b is None or a[1] == b[1]:
            continue
        steps = []
        for prev, release in pairwise(span):
            x, y = default_of(tables(prev), dest), default_of(tables(release), dest)
            if x is not None and y is not None and x[1] != y[1]:
                named = (
                    f"default of {y[0]}: {shown(x[1])} in {prev} → {shown(y[1])} in {release} "
                    f"({pack.title} {release}'s flag table)"
                )
                steps.append(Attribution(release, x[1], y[1], None, named, True))
        defaults.append(DefaultChange(dest, b[0], a[1], b[1], tuple(steps)))
    old_dests = {f.dest for f in first.flags}
    added = []
    for flag in last.flags:
        if flag.dest in old_dests or getattr(flag, "positional", False) or flag.dest in {d for d, _ in added}:
            continue
        found = default_of(last, flag.dest)
        added.append((flag.dest, found))
    notes = [
        f"values {pack.title} derives at start-up (from the model, the GPU and the other flags) are "
        f"not resolved below {boundary}: a change of them between {old} and {boundary} cannot be "
        "attributed"
    ]
    return Crossing(
        engine=pack.name,
        title=pack.title or pack.name,
        old=old,
        boundary=boundary,
        new=new,
        model=model,
        passed=tuple((o, d, v) for o, d, v in passed),
        launch_removed=launch_removed,
        removed=removed,
        defaults=tuple(defaults),
        added=tuple(
            (found[0] if found else _flags_of(last, dest)[0].options[0], found[1] if found else None)
            for dest, found in added
        ),
        notes=tuple(notes),
    )


def _placeholder(word: str) -> bool:
    return word.isupper() or word.startswith("<") or word in ("VALUE", "...")


def rewrite(pack: Any, crossing: Crossing, words: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """The launch ``words`` with every flag the boundary no longer accepts replaced by its
    successor's words, and a note per flag replaced or dropped."""
    first = pack.flag_table(crossing.old)
    gone = {c.option: c for c in crossing.removed_by_boundary()}
    dests = {o.split("=", 1)[0]: d for o, d, _ in crossing.passed}
    out: list[str] = []
    notes: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        key, eq, _ = word.partition("=")
        options = _canonical(first, key, dests.get(key, "")) if word.startswith("--") else set()
        change = next((gone[o] for o in sorted(options) if o in gone), None)
        if change is None:
            out.append(word)
            i += 1
            continue
        flag = first.by_option.get(change.option)
        values: list[str] = []
        i += 1
        if not eq and flag is not None and flag.takes_value:
            many = flag.nargs in ("+", "*") or isinstance(flag.nargs, int)
            while i < len(words) and not words[i].startswith("-"):
                values.append(words[i])
                i += 1
                if not many:
                    break
        elif eq:
            values = [word.partition("=")[2]]
        typed = " ".join([key, *values])
        where = f"{crossing.title} {change.removed_in} removed it"
        successor = change.replacement
        if successor is None:
            notes.append(f"{typed}: dropped ({where}; no successor named: {change.source})")
            continue
        parts = successor.split()
        if len(parts) == 1 and values:
            out += [parts[0], *values]
            notes.append(
                f"{typed} → {' '.join([parts[0], *values])} ({where}; successor named by {change.source}; "
                "the value is carried over: check it means the same there)"
            )
        elif any(_placeholder(p) for p in parts[1:]):
            notes.append(
                f"{typed}: dropped ({where}); its successor `{successor}` needs a value you choose "
                f"(named by {change.source})"
            )
        else:
            out += parts
            notes.append(f"{typed} → {successor} ({where}; named by {change.source})")
    return out, tuple(notes)
