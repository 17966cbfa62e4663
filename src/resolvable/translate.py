"""Translating one engine's launch flags into another engine's, rule by rule.

A *translation table* (``Table``) pairs two packs, ``a`` and ``b``; it is a list of ``Rule``
objects, each owning some flags (by dest) of each side and knowing how to write them in the
other engine's form, in both directions. The pair's table lives in a pack (the vLLM pack holds
``vllm ↔ sglang``) and is reached through ``resolvable.packs.translation``; this module holds no
engine's semantics, only the driver.

Invariants:

* nothing is dropped silently: every flag of the source command is either consumed by a rule
  (``Translation.steps``) or named in ``Translation.untranslated`` with the reason;
* a rule writes only flags that the *target release's* flag table has; a target flag missing
  from that release turns the step into an ``untranslated`` entry naming the release;
* the driver is a pure function of (table, source words, source and target flag tables): the
  same input gives the same output, in any process;
* the source words are read with the source release's own flag table (aliases, ``--x=v``,
  ``--no-x``), so a flag the release does not know is named as such, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import ResolvableError

__all__ = [
    "NoEquivalent",
    "Parsed",
    "Row",
    "Rule",
    "Step",
    "Table",
    "Translation",
    "TranslationError",
    "parse_flags",
    "translate",
    "translate_env",
]


class TranslationError(ResolvableError):
    """A launch that cannot be read for translation (a value missing after a flag)."""


@dataclass(frozen=True)
class Parsed:
    """One flag of the source command: the option as written, its dest, its raw value (a string,
    or True/False for a switch)."""

    option: str
    dest: str
    value: Any

    def text(self) -> str:
        if self.value is True:
            return self.option
        if self.value is False:
            return self.option
        return f"{self.option} {self.value}"


@dataclass(frozen=True)
class Step:
    """One rule applied: the source flags it read and the target flags it wrote."""

    rule: str
    source: tuple[str, ...]
    target: tuple[str, ...]
    note: str = ""
    cite: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "from": list(self.source),
            "to": list(self.target),
            "note": self.note,
            "cite": self.cite,
        }


@dataclass(frozen=True)
class Translation:
    """The target command's flags, what each rule did, and what has no equivalent."""

    source_engine: str
    target_engine: str
    target_words: tuple[str, ...]
    steps: tuple[Step, ...]
    untranslated: tuple[tuple[str, str], ...]  # (source flag text, why)

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.source_engine,
            "to": self.target_engine,
            "flags": list(self.target_words),
            "steps": [s.to_dict() for s in self.steps],
            "untranslated": [{"flag": f, "why": why} for f, why in self.untranslated],
        }


#: A rule's direction function: (the source flags it owns, by dest; the target flag table; every
#: source flag, by dest, to read) → (target words, note). Raising ``NoEquivalent`` names the flag
#: as untranslated.
Writer = Callable[[Mapping[str, Parsed], Any, Mapping[str, Parsed]], tuple[list[str], str]]


class NoEquivalent(Exception):
    """Raised by a rule's writer: this value has no equivalent (the message says why)."""


@dataclass(frozen=True)
class Rule:
    """One translation rule between the flags ``a`` (dests of side a) and ``b`` (side b).

    ``to_b`` writes side a's flags in side b's form and ``to_a`` the other way. ``cite`` names
    the two engines' sources (spec section, upstream file) the equivalence rests on."""

    name: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    to_b: Writer
    to_a: Writer
    cite: str
    doc: str = ""

    def owns(self, side: str) -> tuple[str, ...]:
        return self.a if side == "a" else self.b

    def writer(self, side: str) -> Writer:
        """The writer that reads ``side``'s flags."""
        return self.to_b if side == "a" else self.to_a


@dataclass(frozen=True)
class Row:
    """One row of a side-by-side comparison: the fields of each side it shows, how each side's
    resolved values read (``show_a``/``show_b``: values → text) and what is compared
    (``same_a``/``same_b``: values → a value of one vocabulary, so that ``fa3`` and
    ``FLASH_ATTN`` compare equal)."""

    name: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    show_a: Callable[[Mapping[str, Any]], str]
    show_b: Callable[[Mapping[str, Any]], str]
    same_a: Callable[[Mapping[str, Any]], Any]
    same_b: Callable[[Mapping[str, Any]], Any]

    def fields(self, side: str) -> tuple[str, ...]:
        return self.a if side == "a" else self.b

    def show(self, side: str, values: Mapping[str, Any]) -> str:
        return (self.show_a if side == "a" else self.show_b)(values)

    def same(self, side: str, values: Mapping[str, Any]) -> Any:
        return (self.same_a if side == "a" else self.same_b)(values)


@dataclass(frozen=True)
class Table:
    """The translation rules between two packs, ``a`` and ``b``, and the flags of each side
    that translate to nothing on purpose (``ignored``: dest → why, e.g. the memory knob)."""

    a: str
    b: str
    rules: tuple[Rule, ...]
    ignored_a: Mapping[str, str] = field(default_factory=dict)
    ignored_b: Mapping[str, str] = field(default_factory=dict)
    #: The comparison rows (``resolvable compare``), engine-neutral names.
    rows: tuple[Row, ...] = ()
    #: Environment variables: side a's name → side b's; variables whose name starts with one of
    #: ``neutral_env`` belong to neither engine and carry over unchanged.
    env: Mapping[str, str] = field(default_factory=dict)
    neutral_env: tuple[str, ...] = ()
    #: Each side's memory knob: engine → (field, flag) (``--same-memory-budget``).
    memory_knobs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: The dest that names the model, per engine (a positional model is read before the flags).
    model_dests: Mapping[str, str] = field(default_factory=dict)

    def side(self, engine: str) -> str:
        if engine == self.a:
            return "a"
        if engine == self.b:
            return "b"
        raise TranslationError(f"the {self.a} ↔ {self.b} table has no engine {engine!r}")


def translate_env(
    table: Table, source: str, env: Mapping[str, str]
) -> tuple[dict[str, str], list[tuple[str, str]], list[tuple[str, str]]]:
    """(the target's environment, the steps ``(from, to)``, the untranslated ``(var, why)``)."""
    side = table.side(source)
    mapping = dict(table.env) if side == "a" else {v: k for k, v in table.env.items()}
    out: dict[str, str] = {}
    steps: list[tuple[str, str]] = []
    left: list[tuple[str, str]] = []
    for key, value in env.items():
        if key in mapping:
            out[mapping[key]] = value
            steps.append((f"{key}={value}", f"{mapping[key]}={value}"))
        elif key.startswith(table.neutral_env):
            out[key] = value
        else:
            left.append((f"{key}={value}", "no equivalent environment variable"))
    return out, steps, left


def parse_flags(
    words: Sequence[str], by_option: Mapping[str, Any], release: str
) -> tuple[list[Parsed], list[str]]:
    """Read ``words`` (flags only) with a release's flag table: (the flags, the words the table
    does not know). A flag object has ``dest`` and ``takes_value``; an option in its
    ``negatives`` (``--no-x``) is a switch set to False; ``--x_y`` stands for ``--x-y`` and
    ``--x.key VALUE`` for one key of the value of ``--x`` (the forms vLLM reads); a unique prefix of
    a long option stands for it, as argparse reads abbreviations (an engine that refuses them refuses the source
    command itself, which its side of ``compare`` shows)."""
    parsed: list[Parsed] = []
    unknown: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, inline = word.partition("=")
        flag = by_option.get(option) if option.startswith("-") else None
        if flag is None and option.startswith("--") and "_" in option:  # --enable_x for --enable-x
            flag = by_option.get("--" + option[2:].replace("_", "-"))
        if flag is None and option.startswith("--") and "." in option:  # --json-flag.key value
            base = by_option.get(option.split(".", 1)[0])
            if base is not None and base.takes_value:
                flag = base
        if flag is None and option.startswith("--"):
            # argparse's abbreviations (``--tp`` for ``--tp-size``): a unique prefix of one dest
            near = {by_option[o].dest: by_option[o] for o in by_option if o.startswith(option)}
            if len(near) == 1:
                flag = next(iter(near.values()))
        if flag is None:
            unknown.append(word)
            i += 1
            continue
        negative = option in tuple(getattr(flag, "negatives", ()) or ())
        if negative:
            parsed.append(Parsed(option, flag.dest, False))
        elif flag.takes_value:
            if eq:
                value = inline
            elif i + 1 < len(words):
                i += 1
                value = words[i]
            else:
                raise TranslationError(f"{option} (release {release}) expects a value; give one after it")
            parsed.append(Parsed(option, flag.dest, value))
        elif eq:  # --switch=true/false (a boolean-optional flag given a value)
            parsed.append(Parsed(option, flag.dest, inline.lower() not in ("false", "0", "no")))
        else:
            parsed.append(Parsed(option, flag.dest, True))
        i += 1
    return parsed, unknown


def translate(
    table: Table,
    source: str,
    flags: Sequence[Parsed],
    target_table: Any,
    *,
    unknown: Sequence[str] = (),
) -> Translation:
    """Translate the parsed ``flags`` of engine ``source`` with ``table`` into the other side's
    words, checked against ``target_table`` (the target release's flag table: ``by_option``)."""
    side = table.side(source)
    target = table.b if side == "a" else table.a
    ignored = table.ignored_a if side == "a" else table.ignored_b
    by_dest: dict[str, Parsed] = {}
    for p in flags:
        by_dest[p.dest] = p  # the last occurrence wins, as argparse does
    words: list[str] = []
    steps: list[Step] = []
    untranslated: list[tuple[str, str]] = [(w, "not a flag of this release (read as given)") for w in unknown]
    used: set[str] = set()
    for rule in table.rules:
        owned = {d: by_dest[d] for d in rule.owns(side) if d in by_dest}
        if not owned:
            continue
        used.update(owned)
        source_text = tuple(p.text() for p in owned.values())
        try:
            out, note = rule.writer(side)(owned, target_table, by_dest)
        except NoEquivalent as exc:
            untranslated.extend((t, f"{rule.name}: {exc}") for t in source_text)
            continue
        missing = [w for w in out if w.startswith("--") and w.split("=", 1)[0] not in target_table.by_option]
        if missing:
            why = f"{target} {target_table.release} has no {', '.join(missing)}"
            untranslated.extend((t, f"{rule.name}: {why}") for t in source_text)
            continue
        words.extend(out)
        steps.append(Step(rule.name, source_text, tuple(out), note, rule.cite))
    for dest, p in by_dest.items():
        if dest in used:
            continue
        why = ignored.get(dest, f"no {target} equivalent")
        untranslated.append((p.text(), why))
    return Translation(source, target, tuple(words), tuple(steps), tuple(untranslated))
