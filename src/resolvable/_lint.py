"""Registry lint: find broken or suspicious rules by resolving a grid of configurations.

Checks (each finding names the rule and its ``file:line``):

* ``invalid-declaration`` — a rule declared a non-resolvable field or a value outside choices;
* ``crash`` — a rule raised something other than a refusal on a valid input;
* ``dead-predicate`` — a predicate rule matches none of the known architectures;
* ``always-shadowed`` — every value a rule applied was replaced by a later rule;
* ``silent-override`` — a rule declared over a user's explicit value without ``Force``
  (the engine blocked it; the rule should check the input or force with a reason);
* ``duplicate-family`` — two modules declare the same field for the same architecture in
  the same stage (one family should own it).

Invariant: lint only reads the registry and resolves; it changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Iterable

from ._declaration import Outcome
from ._registry import Registry
from ._resolution import Resolution
from .errors import ConflictError, DeclarationError, RuleFailure

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Finding", "lint"]


@dataclasses.dataclass(frozen=True)
class Finding:
    check: str
    rule: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {self.rule} ({self.location}): {self.message}"


def lint(
    registry: Registry,
    attempts: Iterable[tuple[str, Callable[[], Resolution]]],
    known_archs: Iterable[str],
) -> tuple[list[Finding], dict[str, int]]:
    """Run every attempt, then apply the checks. Returns (findings, statistics)."""
    by_name = {r.name: r for r in registry.rules}
    by_origin = {(r.name, r.location): r for r in registry.rules}
    findings: dict[tuple[str, str], Finding] = {}
    applied: dict[str, int] = defaultdict(int)
    shadowed: dict[str, int] = defaultdict(int)
    owners: dict[tuple[str | None, str, str], set[str]] = defaultdict(set)
    stats = {"resolutions": 0, "refusals": 0}

    def add(check: str, rule: str, location: str, message: str) -> None:
        findings.setdefault((check, rule), Finding(check, rule, location, message))

    for label, attempt in attempts:
        try:
            res = attempt()
        except ConflictError:
            stats["refusals"] += 1
            continue
        except DeclarationError as exc:
            add("invalid-declaration", exc.rule or "?", exc.location or "?", f"{exc} (case {label})")
            continue
        except RuleFailure as exc:
            add("crash", "?", "?", f"{exc} (case {label})")
            continue
        stats["resolutions"] += 1
        last_writer: dict[str, tuple[str, Any]] = {}
        for decl in res.declarations:
            if decl.stage == "adjust":
                continue
            rule = by_origin.get((decl.rule, decl.location))
            module = rule.fn.__module__ if rule is not None and rule.constant is None else "constants"
            for w in decl.writes:
                if w.outcome is Outcome.BLOCKED:
                    add(
                        "silent-override",
                        decl.rule,
                        decl.location,
                        f"declared {w.field}={w.value!r} over the user's explicit {w.previous!r} without "
                        f"Force (case {label})",
                    )
                    continue
                owners[(res.arch, decl.stage, w.field)].add(module)
                previous = last_writer.get(w.field)
                if previous is not None and previous[1] != w.value:
                    shadowed[previous[0]] += 1
                applied[decl.rule] += 1
                last_writer[w.field] = (decl.rule, w.value)

    for name, count in applied.items():
        if count and shadowed.get(name, 0) == count and name in by_name:
            add(
                "always-shadowed",
                name,
                by_name[name].location,
                f"all {count} values it applied were replaced by later rules; it never decides anything",
            )
    known = list(known_archs)
    for rule in registry.rules:
        if rule.predicate is not None and not any(rule.predicate(a) for a in known):
            add(
                "dead-predicate",
                rule.name,
                rule.location,
                f"its predicate ({rule.predicate_label}) matches none of the {len(known)} known architectures",
            )
    for (arch, stage, field), modules in owners.items():
        if len(modules) > 1 and "constants" not in modules:
            add(
                "duplicate-family",
                f"{arch}:{field}",
                stage,
                f"{field} of {arch} is declared by several modules in stage {stage!r}: {sorted(modules)}",
            )
    ordered = sorted(findings.values(), key=lambda f: (f.check, f.rule))
    return ordered, stats
