"""Registry lint: find broken or suspicious rules by resolving a grid of configurations.

Checks (each finding names the rule and its ``file:line``):

* ``invalid-declaration`` — a rule declared a non-resolvable field or a value outside choices;
* ``crash`` — a rule raised something other than a refusal on a valid input;
* ``dead-predicate`` — a predicate rule matches none of the known architectures;
* ``always-shadowed`` — every value a rule applied was replaced by a later rule;
* ``silent-override`` — a rule declared over a user's explicit value without ``Force``
  (the engine blocked it; the rule should check the input or force with a reason);
* ``duplicate-family`` — two modules declare the same field for the same architecture in
  the same stage (one family should own it);
* ``release-overlap`` — two rules of one series (a rule and the rules that replace it in other
  releases) both apply to some release;
* ``release-gap`` — a series applies before and after a supported release but not in it;
* ``release-bound`` — a release range names a release the registry does not support, or
  contains none of them (the rule never runs).

Invariant: lint only reads the registry and resolves; it changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Iterable

from ._declaration import Outcome
from ._registry import Registry, Rule
from ._release import release_key
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
    for finding in release_findings(registry):
        add(finding.check, finding.rule, finding.location, finding.message)
    ordered = sorted(findings.values(), key=lambda f: (f.check, f.rule))
    return ordered, stats


def release_findings(registry: Registry) -> list[Finding]:
    """The release-range checks, from the registry alone (no resolution needed)."""
    releases = registry.releases
    if not releases:
        return []
    out = []
    series: dict[tuple[str, str], list[Rule]] = defaultdict(list)
    for rule in registry.rules:
        series[(rule.stage, rule.series)].append(rule)
        for bound in (rule.releases.since, rule.releases.until):
            if (
                bound is not None
                and bound not in releases
                and release_key(bound) <= release_key(releases[-1])
            ):
                out.append(
                    Finding(
                        "release-bound",
                        rule.name,
                        rule.location,
                        f"range bound {bound!r} is not a supported release ({', '.join(releases)})",
                    )
                )
        if not any(rule.releases.contains(r) for r in releases):
            out.append(
                Finding(
                    "release-bound",
                    rule.name,
                    rule.location,
                    f"its range ({rule.releases.describe(releases)}) contains no supported release",
                )
            )
    for (stage, name), rules in series.items():
        for i, a in enumerate(rules):
            for b in rules[i + 1 :]:
                if a.selector() == b.selector() and a.releases.overlaps(b.releases):
                    out.append(
                        Finding(
                            "release-overlap",
                            b.name,
                            b.location,
                            f"series {name!r} in stage {stage!r}: {a.name} ({a.releases.describe(releases)}) "
                            f"and {b.name} ({b.releases.describe(releases)}) both apply to one release",
                        )
                    )
        covered = [r for r in releases if any(rule.releases.contains(r) for rule in rules)]
        if covered:
            inside = releases[releases.index(covered[0]) : releases.index(covered[-1]) + 1]
            missing = [r for r in inside if r not in covered]
            if missing:
                rule = rules[-1]
                out.append(
                    Finding(
                        "release-gap",
                        rule.name,
                        rule.location,
                        f"series {name!r} in stage {stage!r} applies in {covered[0]} and {covered[-1]} "
                        f"but not in {', '.join(missing)}",
                    )
                )
    return out
