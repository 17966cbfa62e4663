"""Checked fixes: resolve again with the flags a refusal's ``fix`` names, before showing it.

A ``ConflictError.fix`` is either a value (``resolvable.rules.Fix``: the flags to set or drop,
``exc.fix_value``), applied as it is, or prose written by the rule author ("pass
--attention-backend fa3 or triton", "drop --page-size (or pass --page-size 1)"), from which
``check_fix`` reads the flags and values against the schema. It tries each alternative by resolving
again, and when an alternative is refused too, searches a few steps further using the flags
*that* refusal's fix names (e.g. ``--mamba-radix-cache-strategy no_buffer`` is refused
because no_buffer needs ``--disable-overlap-schedule``: the checked fix names both).

Invariants:

* pure and deterministic: the outcome depends only on the refusal, the user's arguments, the
  env and the ``attempt`` function (which must itself be pure); candidates are tried in the
  order the fix text names them, and the search is bounded (``MAX_EXTRA`` extra changes per
  alternative, ``BUDGET`` resolutions in all);
* nothing is hard-coded per rule: every candidate comes from a fix text and the schema
  (flag names, choices, types), so a new rule's refusal is checked the same way;
* an alternative is reported as accepted only if resolving with exactly those changes raised
  nothing; ``status`` says whether the fix held as written (``verified``), had to be narrowed
  or completed (``corrected``), cannot be met on this platform (``none``), or names no flag
  that can be tried (``unchecked``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from .errors import ConflictError, ResolvableError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

    from ._fix import Fix
    from ._schema import Schema

__all__ = [
    "BUDGET",
    "MAX_EXTRA",
    "UNSET",
    "Change",
    "FixCheck",
    "alternatives_of",
    "apply",
    "check_fix",
    "fix_alternatives",
    "parse_fix",
    "render",
]

#: Extra changes the search may add to one alternative of the fix (so at most 1 + MAX_EXTRA flags).
MAX_EXTRA = 2
#: Resolutions one check may spend in all (a refusal is rare; this bounds the worst case).
BUDGET = 400
#: Alternatives listed in a corrected fix before "…".
SHOWN = 6


class _Unset:
    """The value of a change that removes the user's flag (back to the default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

#: A change: ("arg", field, value) sets a user argument (value may be UNSET), ("env", KEY, value).
Change = tuple

_TOKEN = re.compile(
    r"--[a-z0-9][a-z0-9-]*(?:=[^\s,;)\]'\"]+)?"  # a flag, maybe --flag=value
    r"|[A-Z][A-Z0-9_]{2,}=[^\s,;)\]'\"]+"  # an environment assignment KEY=VALUE
    r"|[<>]=?|[,/]"
    r"|[A-Za-z0-9_.+:-]+"
)
_DROP_WORDS = frozenset({"drop", "remove", "unset", "without", "omit"})
_SEPARATORS = frozenset({"or", ",", "/"})
#: Words that are never a free-text value (for string fields without choices).
_STOPWORDS = frozenset(
    {
        *("or", "and", "with", "one", "of", "e.g.", "e.g", "another", "more", "less", "at", "most"),
        *("only", "explicitly", "on", "here", "to", "so", "that", "the", "a", "an", "not", "both"),
        *("this", "these", "those", "it", "its", "supports", "support", "is", "are"),
    }
)


def _kind(spec: Any) -> type:
    text = str(spec.type)
    for name, kind in (("bool", bool), ("int", int), ("float", float)):
        if name in text:
            return kind
    return str


def _flag_table(schema: Schema, aliases: Mapping[str, Iterable[str]]) -> dict[str, str]:
    table = {"--" + name.replace("_", "-"): name for name, spec in schema.fields.items() if spec.arg.cli}
    for field, names in aliases.items():
        for flag in names:
            table[flag] = field
    return table


class _Member:
    """One flag of the fix text and the values read after it."""

    __slots__ = ("drop", "expanded", "field", "gt", "negate", "spec", "values")

    def __init__(self, field: str, spec: Any, drop: bool) -> None:
        self.field, self.spec, self.drop = field, spec, drop
        self.values: list[Any] = []
        self.gt = False
        self.negate = False
        self.expanded = False

    def read(self, token: str, first: bool) -> None:
        if token in (">", ">="):
            self.gt = token == ">"
            return
        if token == "not":
            self.negate = True
            return
        value = self._coerce(token, first)
        if value is not None and not self.negate and value not in self.values:
            self.values.append(value)
        self.negate = False

    def _coerce(self, token: str, first: bool) -> Any:
        kind = _kind(self.spec)
        choices = [c for c in (self.spec.arg.choices or ()) if c is not None]
        if choices:
            return token if token in choices else None
        if kind is bool:
            return None
        if kind in (int, float):
            try:
                value = kind(token)
            except ValueError:
                return None
            return value + 1 if self.gt and kind is int else value
        if first and token.lower() not in _STOPWORDS:
            return token
        return None

    def changes(self) -> list[Change]:
        if self.drop:
            return [("arg", self.field, UNSET)]
        if self.values:
            return [("arg", self.field, v) for v in self.values]
        if _kind(self.spec) is bool:
            return [("arg", self.field, True)]
        choices = [c for c in (self.spec.arg.choices or ()) if c is not None]
        self.expanded = bool(choices)  # "another --attention-backend": any of its choices
        return [("arg", self.field, c) for c in choices]


def parse_fix(
    text: str | None, schema: Schema, aliases: Mapping[str, Iterable[str]] | None = None
) -> tuple[list[tuple[tuple[Change, ...], bool]], list[str]]:
    """The alternatives a fix text names, in text order, and the flags it names that are unknown.

    Each alternative is (changes, expanded): the changes to apply together, and whether it
    came from a bare "another --flag" (every choice of the field) rather than a named value.
    Flags separated by "or", "," or "/" are alternatives; flags joined by "and" or nothing
    ("--a x --b y") must be passed together.
    """
    if not text:
        return [], []
    table = _flag_table(schema, aliases or {})
    groups: list[list[Any]] = []  # each: list of _Member | ("env", key, value)
    unknown: list[str] = []
    member: _Member | None = None
    gap: list[str] = []
    previous = ""
    since_flag = 0
    for token in _TOKEN.findall(text):
        if token.startswith("--"):
            name, sep, inline = token.partition("=")
            field = table.get(name)
            if field is None:
                unknown.append(name)
                member = None
            else:
                new = _Member(field, schema.fields[field], previous.lower() in _DROP_WORDS)
                if sep:
                    new.read(inline, True)
                _join(groups, new, gap)
                member = new
            gap, since_flag = [], 0
        elif "=" in token and token[0].isupper():
            key, _, value = token.partition("=")
            _join(groups, ("env", key, value), gap)
            member, gap, since_flag = None, [], 0
        else:
            gap.append(token.lower())
            if member is not None and not member.drop:
                member.read(token, since_flag == 0)
            since_flag += 1
        previous = token
    alternatives: list[tuple[tuple[Change, ...], bool]] = []
    for group in groups:
        options: list[tuple[Change, ...]] = [()]
        expanded = False
        for m in group:
            changes = [m] if isinstance(m, tuple) else m.changes()
            expanded = expanded or (not isinstance(m, tuple) and m.expanded)
            options = [(*o, c) for o in options for c in changes] if changes else options
        for option in options:
            if option and (option, expanded) not in alternatives:
                alternatives.append((option, expanded))
    return alternatives, unknown


def fix_alternatives(fix: Fix, schema: Schema) -> tuple[list[tuple[tuple[Change, ...], bool]], list[str]]:
    """The alternatives of a structured fix, as ``parse_fix`` gives them for prose: each
    (changes, expanded), and the fields it names that the schema does not have.

    ``another=("f",)`` expands to one alternative per choice of ``f`` (expanded: the accepted
    ones speak for it); several ``another`` fields are alternatives of each other, as "choose
    another --a / --b" reads."""
    unknown = [f for f in fix.fields() if f not in schema.fields]
    if unknown:
        return [], unknown
    alternatives: list[tuple[tuple[Change, ...], bool]] = []
    for option in fix.options():
        base: tuple[Change, ...] = (
            *(("arg", f, v) for f, v in option.set),
            *(("arg", f, UNSET) for f in option.drop),
            *(("env", k, v) for k, v in option.env),
        )
        if not option.another:
            if base and (base, False) not in alternatives:
                alternatives.append((base, False))
            continue
        for field in option.another:
            member = _Member(field, schema.fields[field], drop=False)
            for change in member.changes():
                candidate = ((*base, change), member.expanded)
                if candidate not in alternatives:
                    alternatives.append(candidate)
    return alternatives, []


def alternatives_of(
    exc: ConflictError, schema: Schema, aliases: Mapping[str, Iterable[str]] | None = None
) -> list[tuple[tuple[Change, ...], bool]]:
    """The alternatives of ``exc``'s fix: its value when the rule gave one, else read from the text."""
    value = getattr(exc, "fix_value", None)
    if value is not None:
        return fix_alternatives(value, schema)[0]
    return parse_fix(exc.fix, schema, aliases)[0]


def _join(groups: list[list[Any]], member: Any, gap: list[str]) -> None:
    key = member[1] if isinstance(member, tuple) else member.field
    same = groups and not (_SEPARATORS & set(gap))
    if same and all((m[1] if isinstance(m, tuple) else m.field) != key for m in groups[-1]):
        groups[-1].append(member)
    else:
        groups.append([member])


class FixCheck:
    """The outcome of checking one refusal's fix (immutable once built)."""

    __slots__ = ("accepted", "attempts", "original", "refused", "status", "text")

    def __init__(
        self,
        status: str,
        original: str | None,
        text: str | None,
        accepted: tuple[tuple[Change, ...], ...] = (),
        refused: tuple[tuple[tuple[Change, ...], str], ...] = (),
        attempts: int = 0,
    ) -> None:
        #: "verified", "corrected", "none" or "unchecked".
        self.status = status
        self.original = original
        #: The fix to show: the original when verified or unchecked, else the checked one.
        self.text = text
        #: Alternatives accepted by resolving again, each the full set of changes.
        self.accepted = accepted
        #: Named alternatives that stay refused, with the rule that refuses them.
        self.refused = refused
        self.attempts = attempts

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "suggested": self.original,
            "accepted": [_as_dict(a) for a in self.accepted],
            "refused": [{**_as_dict(a), "rule": rule} for a, rule in self.refused],
            "attempts": self.attempts,
        }

    def __repr__(self) -> str:
        return f"FixCheck({self.status!r}, {self.text!r})"


def _as_dict(changes: tuple[Change, ...]) -> dict[str, Any]:
    return {
        "flags": render(changes),
        "set": {f: v for kind, f, v in changes if kind == "arg" and v is not UNSET},
        "drop": [f for kind, f, v in changes if kind == "arg" and v is UNSET],
        "env": {k: v for kind, k, v in changes if kind == "env"},
    }


def render(changes: Iterable[Change]) -> str:
    """Command-line text of a set of changes: ``--a x --b``, ``drop --c``, ``--env K=V``."""
    parts, drops = [], []
    for kind, name, value in changes:
        if kind == "env":
            parts.append(f"--env {name}={value}")
            continue
        flag = "--" + name.replace("_", "-")
        if value is UNSET or value is False:
            drops.append(flag)
        elif value is True:
            parts.append(flag)
        else:
            parts.append(f"{flag} {value}")
    dropped = "drop " + " ".join(drops) if drops else ""
    return " and ".join(p for p in (" ".join(parts), dropped) if p)


def apply(user: Mapping[str, Any], env: Mapping[str, str], changes: Iterable[Change]) -> tuple[dict, dict]:
    """The user arguments and env after ``changes``."""
    new_user, new_env = dict(user), dict(env)
    for kind, name, value in changes:
        if kind == "env":
            new_env[name] = value
        elif value is UNSET:
            new_user.pop(name, None)
        else:
            new_user[name] = value
    return new_user, new_env


def check_fix(
    exc: ConflictError,
    attempt: Callable[[Mapping[str, Any], Mapping[str, str]], Any],
    user: Mapping[str, Any],
    env: Mapping[str, str] | None,
    schema: Schema,
    *,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> FixCheck:
    """Check ``exc.fix`` by resolving again with each alternative it names.

    ``attempt(user, env)`` resolves (returning anything) or raises; ``user`` and ``env`` are
    the inputs that ``exc`` refused.
    """
    env = dict(env or {})
    original = exc.fix
    alternatives = alternatives_of(exc, schema, aliases)
    seen: dict[frozenset, BaseException | None] = {}

    def outcome(changes: tuple[Change, ...]) -> BaseException | None:
        key = frozenset(changes)
        if key not in seen:
            if len(seen) >= BUDGET:
                return ResolvableError("search budget spent")
            u, e = apply(user, env, changes)
            try:
                attempt(u, e)
                seen[key] = None
            except ResolvableError as err:
                seen[key] = err
        return seen[key]

    live = [
        (changes, expanded) for changes, expanded in alternatives if _changes_something(changes, user, env)
    ]
    if not live:
        return FixCheck("unchecked", original, original)
    first = [outcome(changes) for changes, _ in live]
    holds = [changes for (changes, _), err in zip(live, first) if err is None]
    as_is = len(holds) == len(live)
    # Complete the named alternatives that are refused. When the fix already holds for another
    # alternative, one further change at most: a longer detour would not be a fix of this one.
    extra = 1 if holds else MAX_EXTRA
    accepted: list[tuple[Change, ...]] = []  # in the order the fix names them
    refused: list[tuple[tuple[Change, ...], str]] = []
    for (changes, expanded), err in zip(live, first):
        if err is None:
            accepted.append(changes)
            continue
        if expanded:  # one of many choices: the accepted ones speak for the alternative
            continue
        completed = _complete(changes, err, outcome, schema, aliases, user, env, extra)
        if completed is not None and not any(set(h) <= set(completed) for h in holds):
            accepted.append(completed)  # (a superset of one that holds would be a detour)
        else:
            refused.append((changes, getattr(err, "rule", None) or type(err).__name__))
    attempts = len(seen)
    if as_is:
        return FixCheck("verified", original, original, tuple(accepted), (), attempts)
    if not accepted:
        text = (
            f"none on this platform (checked by resolving again: {(original or '').rstrip('.')} "
            f"is refused too, also with up to {MAX_EXTRA} further changes the next refusals suggest)"
        )
        return FixCheck("none", original, text, (), tuple(refused), attempts)
    return FixCheck(
        "corrected",
        original,
        _corrected_text(accepted, live, refused),
        tuple(accepted),
        tuple(refused),
        attempts,
    )


def _changes_something(changes: tuple[Change, ...], user: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    for kind, name, value in changes:
        if kind == "env":
            if env.get(name) != value:
                return True
        elif value is UNSET:
            if name in user:
                return True
        elif user.get(name, UNSET) != value:
            return True
    return False


def _complete(
    start: tuple[Change, ...],
    err: BaseException,
    outcome: Callable[[tuple[Change, ...]], BaseException | None],
    schema: Schema,
    aliases: Mapping[str, Iterable[str]] | None,
    user: Mapping[str, Any],
    env: Mapping[str, str],
    extra: int,
) -> tuple[Change, ...] | None:
    """Breadth-first: add the changes each further refusal's fix names, up to MAX_EXTRA more."""
    frontier = [(start, err)]
    for _ in range(extra):
        following = []
        for combo, e in frontier:
            if not isinstance(e, ConflictError):
                continue  # an invalid value or a spent budget: nothing further to read
            fixed = {(k, n) for k, n, _ in combo}
            for changes, _expanded in alternatives_of(e, schema, aliases):
                if any((k, n) in fixed for k, n, _ in changes):
                    continue
                candidate = combo + changes
                if not _changes_something(changes, user, env):
                    continue
                result = outcome(candidate)
                if result is None:
                    return candidate
                following.append((candidate, result))
        frontier = following
    return None


def _corrected_text(
    accepted: list[tuple[Change, ...]],
    live: list[tuple[tuple[Change, ...], bool]],
    refused: list[tuple[tuple[Change, ...], str]],
) -> str:
    phrases = _phrases(accepted)
    text = ", or ".join(p if p.startswith("drop ") else f"pass {p}" for p in phrases)
    named = {changes for changes, _ in live}
    notes = []
    alone = [
        render(base)
        for a in accepted
        if a not in named
        for base in [next((c for c, _ in live if a[: len(c)] == c), None)]
        if base is not None
    ]
    if alone:
        notes.append(f"{', '.join(alone)} alone {'is' if len(alone) == 1 else 'are'} refused too")
    dropped = _phrases([c for c, _ in refused])
    if dropped:
        notes.append(f"{', '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} refused here")
    others = sorted(
        {
            "--" + n.replace("_", "-")
            for c, expanded in live
            if expanded and c not in accepted
            for _, n, _ in c
        }
    )
    if others:
        notes.append(f"other values of {', '.join(others)} are refused here")
    return text + f" (checked by resolving again{': ' + '; '.join(notes) if notes else ''})"


def _phrases(alternatives: list[tuple[Change, ...]]) -> list[str]:
    """One phrase per alternative; single values of the same flag share one: ``--a x, y or z``."""
    values: dict[str, list[str]] = {}
    order: list[Any] = []
    for alt in alternatives:
        if len(alt) == 1 and alt[0][0] == "arg" and alt[0][2] not in (True, False, UNSET):
            field = alt[0][1]
            if field not in values:
                values[field] = []
                order.append(("flag", field))
            values[field].append(str(alt[0][2]))
        else:
            order.append(("alt", alt))
    phrases = []
    for kind, item in order:
        if kind == "alt":
            phrases.append(render(item))
            continue
        vals = values[item]
        if len(vals) > SHOWN:
            vals = [*vals[: SHOWN - 1], "…"]
        joined = vals[0] if len(vals) == 1 else ", ".join(vals[:-1]) + " or " + vals[-1]
        phrases.append(f"--{item.replace('_', '-')} {joined}")
    return phrases
