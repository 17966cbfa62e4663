"""The rule registry: constants, per-architecture rules, predicate rules and staged passes.

Invariants:

* stage order is declared once, at construction, and never changes;
* inside a stage the order is: constants, exact-architecture rules, predicate rules, then
  rules for every architecture — each group in registration order (``Registry.plan`` shows it);
* registration validates at once (signature, stage, duplicates) and names the culprit;
* registration and plan building happen under one lock and a plan is an immutable tuple, so
  registering while other threads resolve is safe: a resolution uses the plan it started with
  (the rule set before or after the registration, never a mix);
* dispatch is indexed: rules are indexed by architecture at registration and the plan for an
  architecture is computed once and cached, so neither registering nor resolving grows with the
  number of registered architectures;
* a stage may carry a guard (``Stage(..., when=...)``): when it is false on the arguments, the
  whole stage is skipped with one check;
* a release-aware registry (``releases=(...)``) builds one plan per (architecture, release): a
  rule or stage with a release range (``since=``/``until=``, half-open, see ``_release``) is in
  the plan of exactly the releases its range contains; rules that replace each other across
  releases share a ``series`` name (lint checks a series for overlaps and gaps);
* behaviour that changed in a release is a named change of the pack's ``ChangeTable``
  (``Registry(..., changes=CHANGES)``, see ``_changes``): one rule body asks
  ``ctx.release.has(CHANGES.X)``; ``ctx.release`` is one immutable view per release;
* a release that rewrites a rule wholesale registers the new body with ``extends=<old rule>``:
  it is called as ``fn(ctx, previous)`` (``previous`` runs the predecessor's body), takes over
  from its ``since`` (the predecessor's range ends there), and joins the predecessor's series.
  A chain is checked at registration (same stage and selector, adjacent ranges, one successor
  per rule) and every series again by ``validate()`` (``freeze()`` runs it): an overlap, a gap
  inside the supported releases or two heads is a ``RegistrationError`` naming the rules;
* a rule may declare ``only_if_set=(fields...)``: it declares nothing and refuses nothing while
  every one of those fields holds its schema default. A resolution then leaves it out of the rules
  it calls when none of the fields is user-set (``Plan.pruned``: per plan and set of user-set gate
  fields, built once); when a rule declares one of the fields the pruned rules wait on, the
  resolution goes on after it with the plan pruned for the fields set by then
  (``Plan.rest_after``), so the answer is the whole plan's, always;
* a stage may belong to a named *check phase* (``Stage(..., phase="startup")``): ``resolve`` never
  runs it; ``check`` runs it afterwards over the final values, and its rules may only refuse.
"""

from __future__ import annotations

import _thread  # not threading: the lock is all we need (import cost)
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from itertools import compress
from operator import attrgetter, not_

from ._changes import ChangeTable, ReleaseView
from ._frozen import deep_freeze
from ._record import field as record_field
from ._record import record, record_replace, record_tuple
from ._release import ArchList, ReleaseRange, check_release, release_key
from ._schema import Schema, schema_of
from .errors import RegistrationError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

    RuleFn = Callable[[Any], Mapping[str, Any]]  # a rule: fn(ctx) -> dict

__all__ = ["Plan", "Registry", "Rule", "Stage"]

_PLAN_CACHE_LIMIT = 4096
_PLAN_KEY_MAX_CHARS = 256
_ALL_RELEASES = ReleaseRange()  # immutable, so one shared default is safe


class Stage(
    record_tuple(
        "Stage", "name isolated doc when since until phase", defaults=(False, "", None, None, None, None)
    )
):
    """A named step of resolution (immutable). ``isolated``: every rule of the stage reads the
    state as it was when the stage began (rules never see each other's declarations), like
    SGLang's model providers. ``when``: an optional guard on the arguments (a read-only view);
    the stage runs only when it is true. ``since``/``until``: the releases the stage exists in
    (half-open range; a release-aware registry leaves it out of other releases' plans).
    ``phase``: None for a resolution stage; a name (e.g. ``"startup"``) makes it a check stage of
    that phase, run by ``check`` after resolution, whose rules only refuse (a refusal carries the
    phase)."""

    __slots__ = ()


@record(frozen=True)  # a frozen dataclass in behaviour (see _record: import cost)
class Rule:
    """One registered rule (frozen provenance record)."""

    name: str
    location: str
    stage: str
    fn: RuleFn = record_field(repr=False, compare=False)
    archs: tuple[str, ...] = ()
    predicate: Callable[[str], bool] | None = record_field(default=None, repr=False, compare=False)
    predicate_label: str | None = None
    constant: Mapping[str, Any] | None = record_field(default=None, compare=False)
    seq: int = 0
    doc: str = ""
    #: Releases the rule applies to (half-open); unbounded for a registry without releases.
    releases: ReleaseRange = _ALL_RELEASES
    #: Rules that replace each other across releases share a series (default: the rule name).
    series: str = ""
    #: The rule this one extends (``extends=``; its body gets the predecessor as ``previous``).
    extends: str | None = None
    #: For a rule keyed on an ``ArchList``: the members that are not in every release, with
    #: their ranges (the rule is in an architecture's plan only for the releases listing it).
    arch_releases: Mapping[str, ReleaseRange] | None = record_field(default=None, compare=False)
    #: ``only_if_set=``: the fields without which the rule is inert (None: no such promise).
    only_if_set: frozenset[str] | None = None

    def applies(self, arch: str, release: str | None) -> bool:
        """Whether the rule is in the plan of ``arch`` in ``release`` (architecture ranges only)."""
        bounded = self.arch_releases.get(arch) if self.arch_releases else None
        return bounded is None or bounded.contains(release)

    @property
    def kind(self) -> str:
        if self.constant is not None:
            return "constant"
        if self.archs:
            return "arch"
        if self.predicate is not None:
            return "predicate"
        return "pass"

    def selector(self) -> str:
        if self.archs:
            ranges = self.arch_releases or {}
            return ", ".join(f"{a} ({ranges[a].describe()})" if a in ranges else a for a in self.archs)
        if self.predicate is not None:
            return f"arch matching {self.predicate_label}"
        return "every architecture"


#: (source file, top-level package file) -> the file relative to the package root. Rules of one
#: module share it: computing it once per file keeps registration cheap (import time).
_RELATIVE: dict[tuple[str, str | None], str] = {}


def _package_root(module: str) -> str | None:
    top = sys.modules.get(module.partition(".")[0])
    path = getattr(top, "__file__", None)
    return os.path.dirname(os.path.dirname(path)) if path else None


def _relative(path: str, module: str) -> str:
    key = (path, getattr(sys.modules.get(module.partition(".")[0]), "__file__", None))
    relative = _RELATIVE.get(key)
    if relative is None:
        root = _package_root(module)
        relative = path
        if root and path.startswith(root + os.sep):
            relative = path[len(root) + 1 :].replace(os.sep, "/")
        _RELATIVE[key] = relative
    return relative


def _unwrap(fn: Any) -> Any:
    """Follow ``__wrapped__`` (functools.wraps) to the original function."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 100:
        fn, seen = fn.__wrapped__, seen + 1
    return fn


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def location_of(fn: Callable[..., Any]) -> str:
    """``file:line`` of a function (its first decorator line), relative to its package."""
    return _location_of_unwrapped(_unwrap(fn))


def _location_of_unwrapped(target: Any) -> str:
    code = getattr(target, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{_relative(code.co_filename, getattr(target, '__module__', '') or '')}:{code.co_firstlineno}"


def caller_location(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return f"{_relative(frame.f_code.co_filename, frame.f_globals.get('__name__', ''))}:{frame.f_lineno}"


class Plan:
    """The rules that run for one architecture: per stage, in order (immutable)."""

    __slots__ = ("_gated", "_pruned", "checks", "groups", "plan", "specific")

    def __init__(self, plan: tuple[tuple[Stage, tuple[Rule, ...]], ...]) -> None:
        self.plan = plan
        #: (stage name, isolated, guard, rules) of the resolution stages — what the resolver iterates.
        self.groups = tuple(
            (stage.name, stage.isolated, stage.when, rules) for stage, rules in plan if stage.phase is None
        )
        #: The same for each check phase: {phase: groups}, in stage order.
        checks: dict[str, list[tuple[Any, ...]]] = {}
        for stage, rules in plan:
            if stage.phase is not None:
                checks.setdefault(stage.phase, []).append((stage.name, stage.isolated, stage.when, rules))
        self.checks = {phase: tuple(groups) for phase, groups in checks.items()}
        #: Whether any architecture-specific rule (exact or predicate) is in the plan. Inside a
        #: stage they come first (kind rank 0-2 before the rules for every architecture, rank 3:
        #: ``Registry._order_key``), so the first rule of each stage tells.
        self.specific = any(rules[0].archs or rules[0].predicate for _, rules in plan if rules)
        #: Every field some resolution rule of the plan is gated on (``only_if_set``).
        gated: set[str] = set()
        for _, _, _, rules in self.groups:
            for rule in rules:
                if rule.only_if_set is not None:
                    gated |= rule.only_if_set
        self._gated = frozenset(gated)
        #: user-set gate fields -> (groups, watched fields): ``pruned``'s cache.
        self._pruned: dict[frozenset[str], tuple[tuple[Any, ...], frozenset[str] | None]] = {}

    def pruned(self, explicit: frozenset[str]) -> tuple[tuple[Any, ...], frozenset[str] | None]:
        """The resolution groups without the rules that cannot fire when exactly the fields of
        ``explicit`` are user-set (their ``only_if_set`` fields all hold defaults), and the fields
        those left-out rules wait on (None: none left out). A resolution that declares a watched
        field must run ``groups`` instead (the left-out rule may fire then)."""
        gated = self._gated
        if not gated:
            return self.groups, None
        key = gated & explicit if explicit else _NO_FIELDS
        hit = self._pruned.get(key)
        if hit is not None:
            return hit
        groups = []
        watched: set[str] = set()
        for name, isolated, guard, rules in self.groups:
            kept = []
            for rule in rules:
                gate = rule.only_if_set
                if gate is not None and gate.isdisjoint(key):
                    watched |= gate
                else:
                    kept.append(rule)
            if kept:
                groups.append((name, isolated, guard, tuple(kept)))
        hit = (tuple(groups), frozenset(watched)) if watched else (self.groups, None)
        if len(self._pruned) >= _PRUNED_LIMIT:  # keys come from user input: keep it bounded
            self._pruned.clear()
        self._pruned[key] = hit
        return hit

    def rest_after(
        self, stage: str, rule: Rule, context: Any, set_fields: frozenset[str]
    ) -> tuple[tuple[tuple[Any, ...], ...], frozenset[str] | None]:
        """``pruned(set_fields)`` from the rule after ``rule`` of ``stage`` on (``rule`` ran, so it
        is in every pruned plan with at least these fields set): the rest of that stage (no
        guard: it was true; ``context``: the stage's own context when it is isolated, else
        False), then the later stages; and the fields the rules still left out wait on."""
        groups, watched = self.pruned(set_fields)
        for index, (name, _isolated, _guard, rules) in enumerate(groups):
            if name == stage:
                rest = rules[rules.index(rule) + 1 :]
                return ((name, context, None, rest), *groups[index + 1 :]), watched
        raise ValueError(f"stage {stage!r} is not in this plan")  # unreachable: the rule ran in it


_NO_FIELDS: frozenset[str] = frozenset()
_PRUNED_LIMIT = 256


class Registry:
    """Rules for one argument schema. ``Registry(ServerArgs, stages=[...], model_stage="model")``."""

    def __init__(
        self,
        schema: type | Schema,
        stages: Iterable[str | Stage],
        *,
        model_stage: str | None = None,
        name: str = "registry",
        version: str = "0",
        releases: Iterable[str] = (),
        default_release: str | None = None,
        changes: ChangeTable | None = None,
    ) -> None:
        self.schema = schema if isinstance(schema, Schema) else schema_of(schema)
        self.stages: tuple[Stage, ...] = tuple(s if isinstance(s, Stage) else Stage(s) for s in stages)
        names = [s.name for s in self.stages]
        if len(set(names)) != len(names) or not names:
            raise RegistrationError(f"stage names must be unique and non-empty, got {names}")
        self._stage_index = {s.name: i for i, s in enumerate(self.stages)}
        seen_check = False
        for stage in self.stages:
            if stage.phase is not None and not isinstance(stage.phase, str):
                raise RegistrationError(f"stage {stage.name!r}: phase must be a string, got {stage.phase!r}")
            if stage.phase is None and seen_check:
                raise RegistrationError(
                    f"stage {stage.name!r} resolves but comes after a check stage; check stages "
                    "(phase=...) run after resolution, so declare them last"
                )
            seen_check = seen_check or stage.phase is not None
        #: Check phases in stage order (e.g. ``("startup",)``).
        self.phases: tuple[str, ...] = tuple(dict.fromkeys(s.phase for s in self.stages if s.phase))
        self.model_stage = model_stage or names[0]
        self._check_stage(self.model_stage, "model_stage")
        if self.stages[self._stage_index[self.model_stage]].phase is not None:
            raise RegistrationError(f"model_stage {self.model_stage!r} is a check stage; it must resolve")
        self.name = name
        self.version = version
        #: Supported releases of the modelled engine, oldest first (empty: not release-aware).
        self.releases: tuple[str, ...] = tuple(sorted(set(releases), key=release_key))
        if default_release is not None and default_release not in self.releases:
            raise RegistrationError(
                f"default_release {default_release!r} is not one of the releases {list(self.releases)}"
            )
        self.default_release = default_release or (self.releases[-1] if self.releases else None)
        if changes is not None and not isinstance(changes, ChangeTable):
            raise RegistrationError(f"changes must be a ChangeTable, got {type(changes).__name__}")
        if changes is not None and not self.releases:
            raise RegistrationError("a change table needs a release-aware registry (releases=...)")
        #: The pack's named changes (an empty table when the pack declares none).
        self.changes: ChangeTable = changes if changes is not None else ChangeTable(name, ())
        #: Whether resolutions record the changes each rule asks (only a table with changes).
        self.records_changes = len(self.changes) > 0
        #: What ``ctx.release`` is for each supported release (and None), built on first use
        #: (``release_view``): a view costs a set per release, import time no resolution needs.
        self._release_views: dict[str | None, ReleaseView] = {}
        for stage in self.stages:
            ReleaseRange.of(stage.since, stage.until, f"stage {stage.name!r}")
        # Registration state, guarded by _lock: every rule in order, exact-arch rules and constants
        # indexed by architecture, predicate rules, rules for every architecture, duplicate keys.
        self._all: list[Rule] = []
        self._by_arch: dict[str, list[Rule]] = {}
        self._predicate_rules: list[Rule] = []
        self._global_rules: list[Rule] = []
        self._keys: set[tuple[Any, ...]] = set()
        #: (id(fn), stage) -> the rule registered with that function, for ``extends=``.
        self._by_fn: dict[tuple[int, str], Rule] = {}
        #: (id(fn), stage) of a rule another rule extends -> its successor (one successor each:
        #: a second would be a second head).
        self._extended: dict[tuple[int, str], Rule] = {}
        self._lock = _thread.RLock()
        self._plans: dict[tuple[str | None, str | None], Plan] = {}
        #: The rules for every architecture, split: (in every release, with a release range), each
        #: in registration order; built on the first plan after registration (``_build_plan``).
        self._global_index: tuple[tuple[Rule, ...], tuple[Rule, ...]] | None = None
        self._frozen = False
        #: The rule modules in their declared order, as ``freeze(order=...)`` gave them.
        self.declared_order: tuple[str, ...] = ()
        self._seq = 0

    # -- registration ------------------------------------------------------------------
    def constant(
        self,
        arch: str,
        values: Mapping[str, Any],
        *,
        stage: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> None:
        """Declare fixed values for one architecture (data, not code)."""
        stage = stage or self.model_stage
        self._check_stage(stage, "constant")
        if self.stages[self._stage_index[stage]].phase is not None:
            raise RegistrationError(
                f"constant for {arch!r}: stage {stage!r} is a check stage (its rules only refuse)"
            )
        releases = ReleaseRange.of(since, until, f"constant for {arch!r}")
        if not isinstance(values, Mapping):
            raise RegistrationError(
                f"constant for {arch!r}: values must be a mapping, got {type(values).__name__}"
            )
        values = deep_freeze(dict(values))  # data: nobody may change it after registration
        for field in values:
            self._check_field(field, f"constant for {arch!r}")
        fn = lambda ctx, _v=values: _v  # noqa: E731
        fn.__module__ = sys._getframe(1).f_globals.get("__name__", "")  # the declaring module
        rule = Rule(
            name=f"constant[{arch}]",
            location=caller_location(),
            stage=stage,
            fn=fn,
            archs=(arch,),
            constant=values,
            doc="declares " + ", ".join(_describe_value(k, v) for k, v in values.items()),
            releases=releases,
            series=f"constant[{arch}]",
        )
        self._add(rule)

    def rule(
        self,
        stage: str,
        *,
        archs: Iterable[str] = (),
        when: Callable[[str], bool] | None = None,
        label: str | None = None,
        since: str | None = None,
        until: str | None = None,
        series: str | None = None,
        extends: Callable[..., Any] | None = None,
        only_if_set: Iterable[str] | None = None,
    ) -> Callable[[RuleFn], RuleFn]:
        """Register ``fn(ctx) -> dict`` in ``stage``: for the exact ``archs`` (an ``ArchList``
        keys it on upstream's list per release), for architectures
        accepted by ``when``, or (neither) for every architecture. ``since``/``until`` limit it
        to a release range (``since`` inclusive, ``until`` exclusive); ``series`` names the rule
        it replaces in other releases (default: its own name).

        ``extends=old`` (a rule function registered in the same stage, for the same
        architectures): from ``since`` on, ``fn(ctx, previous)`` replaces ``old``, and
        ``previous(ctx)`` runs ``old``'s body — a release that rewrites a rule extends it
        instead of copying it. ``old``'s range ends at ``since``.

        ``only_if_set=(field, ...)`` promises that the body declares nothing and refuses nothing
        while every one of those fields holds its schema default (e.g. its first line returns
        ``{}`` unless ``--dcp-size`` is above 1): a resolution where none of them is set, by the
        user or by an earlier rule, does not call it (``Plan.pruned``)."""
        arch_releases = (archs.ranges or None) if isinstance(archs, ArchList) else None
        archs = tuple(archs)
        if archs and when is not None:
            raise RegistrationError(
                "a rule is keyed either by exact architectures or by a predicate, not both"
            )
        if when is not None and not callable(when):
            raise RegistrationError(f"predicate {when!r} is not callable")
        self._check_stage(stage, "rule")
        gate = self._check_gate(stage, only_if_set) if only_if_set is not None else None

        predicate_label = label or getattr(when, "__doc__", None) or getattr(when, "__name__", None)

        def decorate(fn: RuleFn) -> RuleFn:
            # once: the checks and the location below share it (a plain function is its own)
            original = _unwrap(fn) if hasattr(fn, "__wrapped__") else fn
            self._check_signature(fn, 2 if extends is not None else 1, original)
            name = getattr(original, "__qualname__", None) or repr(fn)
            location = _location_of_unwrapped(original)
            rule = Rule(
                name=name,
                location=location,
                stage=stage,
                fn=fn,
                archs=archs,
                predicate=when,
                predicate_label=predicate_label,
                doc=_first_paragraph(getattr(original, "__doc__", None)),
                releases=(
                    _ALL_RELEASES
                    if since is None and until is None
                    else ReleaseRange.of(since, until, f"rule {name} ({location})")
                ),
                series=series or name,
                arch_releases=arch_releases,
                only_if_set=gate,
            )
            if extends is not None:
                self._add_extension(rule, extends, series)
            else:
                self._add(rule)
            return fn

        return decorate

    def for_arch(self, *archs: str, stage: str | None = None) -> Callable[[RuleFn], RuleFn]:
        if not archs:
            raise RegistrationError("for_arch() needs at least one architecture name")
        return self.rule(stage or self.model_stage, archs=archs)

    def for_arch_matching(
        self, predicate: Callable[[str], bool], *, stage: str | None = None, label: str | None = None
    ) -> Callable[[RuleFn], RuleFn]:
        return self.rule(stage or self.model_stage, when=predicate, label=label)

    def freeze(self, order: Iterable[str] | None = None, *, check: bool = True) -> None:
        """Validate the release chains (``validate``) and, with ``order`` (the rule modules in
        their declared order), the registration order (``check_order``); then refuse further
        registration. ``order`` is kept as ``declared_order``.

        ``check=False`` skips both checks: for a pack whose rules are fixed data checked by its
        test suite instead (the shipped packs: ``tests/engine/test_pack_registration.py``), so
        that every import does not re-check them — ``validate`` walks every release of every
        series, work that grows with the release count (1.2 % of ``import resolvable.sglang``,
        docs/benchmarks.md §9)."""
        if order is not None:
            order = tuple(order)
            self.declared_order = order
        if check:
            self.validate()
            if order is not None:
                self.check_order(order)
        self._frozen = True

    def check_order(self, order: Iterable[str]) -> None:
        """Inside a stage, rules of one kind run in registration order: check that it is the
        declared module order ``order`` (dotted module names), so the order is visible in one
        place and not an import side effect. Raises ``RegistrationError`` naming the first rule
        of a module that is not listed, or that was registered after a later-listed module's."""
        rank = {name: i for i, name in enumerate(order)}
        with self._lock:
            rules = sorted(self._all, key=lambda r: r.seq)
        latest: tuple[int, str] | None = None
        for rule in rules:
            module = _module_of(rule)
            if module not in rank:
                raise RegistrationError(
                    f"{rule.name} ({rule.location}) is registered by {module}, which the declared "
                    "rule-module order does not list"
                )
            if latest is not None and rank[module] < latest[0]:
                raise RegistrationError(
                    f"{rule.name} ({rule.location}) of {module} is registered after the rules of "
                    f"{latest[1]}, which the declared order lists later: an import registered it "
                    "early; list the modules in the order they register"
                )
            if latest is None or rank[module] > latest[0]:
                latest = (rank[module], module)

    def validate(self) -> None:
        """Check every series (a rule and the rules that replace it across releases): no two
        members apply to one release (overlap, e.g. two heads), and no supported release inside
        the series' span lacks a member (gap). Raises ``RegistrationError`` naming the rules."""
        releases = self.releases
        if not releases:
            return
        with self._lock:
            rules = list(self._all)
        # A series of one rule has nothing to check: only rules that share (stage, series) with
        # another are keyed by their selector (rendering every selector was most of the cost).
        sizes: dict[tuple[str, str], int] = {}
        for rule in rules:
            sizes[rule.stage, rule.series] = sizes.get((rule.stage, rule.series), 0) + 1
        series: dict[tuple[str, str, str], list[Rule]] = {}
        for rule in rules:
            if sizes[rule.stage, rule.series] > 1:
                series.setdefault((rule.stage, rule.series, rule.selector()), []).append(rule)
        for (stage, name, _), members in series.items():
            if len(members) < 2:
                continue
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    if a.releases.overlaps(b.releases):
                        heads = a.releases.until is None and b.releases.until is None
                        raise RegistrationError(
                            f"series {name!r} in stage {stage!r}: {a.name} ({a.location}, "
                            f"{a.releases.describe(releases)}) and {b.name} ({b.location}, "
                            f"{b.releases.describe(releases)}) both apply to one release"
                            + (" (two heads: give the older one until=, or extend it)" if heads else "")
                        )
            covered = [r for r in releases if any(m.releases.contains(r) for m in members)]
            if covered:
                inside = releases[releases.index(covered[0]) : releases.index(covered[-1]) + 1]
                missing = [r for r in inside if r not in covered]
                if missing:
                    last = members[-1]
                    raise RegistrationError(
                        f"series {name!r} in stage {stage!r} ({last.name}, {last.location}) applies in "
                        f"{covered[0]} and {covered[-1]} but not in {', '.join(missing)} (a gap)"
                    )

    def release_view(self, release: str | None) -> ReleaseView:
        """``ctx.release`` for ``release`` (a supported release or None), one shared view each."""
        view = self._release_views.get(release)
        if view is None:
            # None is the view of no release (what a registry without releases resolves with).
            view = ReleaseView(self.release(release) if release is not None else None, self.changes)
            if release is None or release in self.releases:  # bounded: one per supported release
                # setdefault: threads that built the same view at once all share the first one.
                view = self._release_views.setdefault(release, view)
        return view

    def _add_extension(self, rule: Rule, extends: Callable[..., Any], series: str | None) -> None:
        """Register ``rule`` as the successor of the rule registered with ``extends``."""
        what = f"rule {rule.name} ({rule.location})"
        key = (id(extends), rule.stage)
        with self._lock:
            if self._frozen:
                raise RegistrationError(f"registry {self.name!r} is frozen; cannot register {what}")
            old = self._by_fn.get(key)
            if old is None:
                target = getattr(_unwrap(extends), "__qualname__", repr(extends))
                raise RegistrationError(
                    f"{what} extends {target}, which is not a rule registered in stage {rule.stage!r}; "
                    "register the predecessor first, in the same stage"
                )
            if old.selector() != rule.selector():
                raise RegistrationError(
                    f"{what} extends {old.name} ({old.location}) but applies to {rule.selector()}, "
                    f"not {old.selector()}; a release chain keeps its architectures"
                )
            if series is not None and series != old.series:
                raise RegistrationError(
                    f"{what}: series {series!r} differs from its predecessor's {old.series!r}"
                )
            since = rule.releases.since
            if since is None:
                raise RegistrationError(
                    f"{what} extends {old.name}: give since=, the release it takes over in"
                )
            if key in self._extended:
                other = self._extended[key]
                raise RegistrationError(
                    f"{what} and {other.name} ({other.location}) both extend {old.name}: two heads; "
                    f"extend {other.name} instead"
                )
            if old.releases.since is not None and release_key(old.releases.since) >= release_key(since):
                raise RegistrationError(
                    f"{what} takes over since {since}, but {old.name} ({old.location}) starts at "
                    f"{old.releases.since}: the chain overlaps"
                )
            if old.releases.until is not None and old.releases.until != since:
                kind = "gap" if release_key(old.releases.until) < release_key(since) else "overlap"
                raise RegistrationError(
                    f"{what} takes over since {since}, but {old.name} ({old.location}) ends at "
                    f"{old.releases.until}: a {kind} in the chain; let the predecessor end where "
                    "its successor starts (or drop its until=)"
                )
            body, previous = rule.fn, old.fn

            def bound(ctx: Any, _body: Any = body, _previous: Any = previous) -> Any:
                return _body(ctx, _previous)

            bound.__wrapped__ = body  # type: ignore[attr-defined]
            new = record_replace(rule, fn=bound, series=old.series, extends=old.name)
            ended = record_replace(old, releases=ReleaseRange(old.releases.since, since))
            self._replace(old, ended)
            self._extended[key] = new
        self._add(new, by_fn=body)

    def _replace(self, old: Rule, new: Rule) -> None:
        """Swap a registered rule's record for ``new`` (same function and order; under the lock)."""
        for rules in (self._all, self._predicate_rules, self._global_rules, *self._by_arch.values()):
            for i, rule in enumerate(rules):
                if rule is old:
                    rules[i] = new
        for key, rule in list(self._by_fn.items()):
            if rule is old:
                self._by_fn[key] = new
        self._plans = {}
        self._global_index = None

    def _add(self, rule: Rule, by_fn: Any = None) -> None:
        if rule.constant is not None:
            key: tuple[Any, ...] = ("constant", rule.archs[0], rule.stage, rule.releases)
        else:
            key = ("rule", id(rule.fn), rule.stage)
        with self._lock:
            if self._frozen:
                raise RegistrationError(
                    f"registry {self.name!r} is frozen; cannot register {rule.name} ({rule.location})"
                )
            if key in self._keys:
                if rule.constant is not None:
                    raise RegistrationError(
                        f"constant for {rule.archs[0]!r} is already registered in stage {rule.stage!r}"
                    )
                raise RegistrationError(
                    f"{rule.name} ({rule.location}) is already registered in stage {rule.stage!r}"
                )
            self._keys.add(key)
            if rule.constant is None:
                self._by_fn[(id(by_fn if by_fn is not None else rule.fn), rule.stage)] = rule
            self._seq += 1
            object.__setattr__(rule, "seq", self._seq)  # the record is not shared yet
            self._all.append(rule)
            if rule.archs:
                for arch in rule.archs:
                    self._by_arch.setdefault(arch, []).append(rule)
            elif rule.predicate is not None:
                self._predicate_rules.append(rule)
            else:
                self._global_rules.append(rule)
            if self._plans:  # registration at import: nothing to drop yet
                self._plans = {}
            self._global_index = None

    def _check_stage(self, stage: str, what: str) -> None:
        if stage not in self._stage_index:
            hint = closest(stage, self._stage_index)
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise RegistrationError(
                f"{what}: unknown stage {stage!r}{extra}; stages are {[s.name for s in self.stages]}"
            )

    def _check_gate(self, stage: str, fields: Iterable[str]) -> frozenset[str]:
        """``only_if_set=`` as a frozenset of schema fields of a resolution stage."""
        gate = None if isinstance(fields, str) else frozenset(fields)
        if gate is None or not all(type(f) is str for f in gate):
            raise RegistrationError(
                f"only_if_set must be a tuple of field names, e.g. only_if_set=('dcp_size',), got {fields!r}"
            )
        if not gate:
            raise RegistrationError(
                "only_if_set=() gates on nothing; name at least one field or leave it out"
            )
        if self.stages[self._stage_index[stage]].phase is not None:
            raise RegistrationError(
                f"only_if_set: stage {stage!r} is a check stage, which reads the final values; gate "
                "only resolution rules"
            )
        known = self.schema.fields
        for field in gate:  # a lookup each (a set difference would walk every schema field)
            if field not in known:
                near = closest(field, known)
                raise RegistrationError(
                    f"only_if_set: {field!r} is not a field of {self.schema.cls.__name__}"
                    + (f"; did you mean {near!r}?" if near else "")
                )
        return gate

    def _check_field(self, field: str, what: str) -> None:
        if field not in self.schema.resolvable:
            raise RegistrationError(
                f"{what}: {field!r} is not a resolvable field of {self.schema.cls.__name__}"
            )

    @staticmethod
    def _check_signature(fn: Any, arity: int = 1, original: Any = None) -> None:
        """A rule must be callable with exactly one positional argument (the context); a rule
        that extends another takes two (the context and ``previous``). ``original``: ``fn``
        unwrapped, when the caller has it."""
        code = getattr(fn, "__code__", None)
        if code is not None and original is fn and code.co_argcount == arity and not code.co_kwonlyargcount:
            return  # ``def rule(ctx)`` (the usual case): the checks below cannot fail
        if not callable(fn):
            raise RegistrationError(f"{fn!r} is not callable")
        if original is None:
            original = _unwrap(fn)
        code = getattr(original, "__code__", None)
        if code is None or original is not fn:
            return  # builtins and wrappers: trust them (a wrapper's own signature is (ctx))
        positional = code.co_argcount
        defaults = len(getattr(fn, "__defaults__", None) or ())
        required = positional - defaults
        kwonly_required = code.co_kwonlyargcount - len(getattr(fn, "__kwdefaults__", None) or {})
        varargs = bool(code.co_flags & 0x04)
        if kwonly_required or required > arity or (positional < arity and not varargs):
            shape = "(ctx)" if arity == 1 else "(ctx, previous)"
            count = (
                "one argument, the rule context" if arity == 1 else "two arguments, the context and previous"
            )
            raise RegistrationError(
                f"rule {getattr(fn, '__qualname__', fn)} ({location_of(fn)}) must take exactly {count}: "
                f"def {getattr(fn, '__name__', 'rule')}{shape} -> dict; "
                f"it takes {code.co_varnames[: positional + code.co_kwonlyargcount]}"
            )

    # -- queries -------------------------------------------------------------------------
    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every registered rule, in plan order for an architecture that matches them all."""
        with self._lock:
            rules = list(self._all)
        return tuple(sorted(rules, key=self._order_key))

    def _order_key(self, rule: Rule) -> tuple[int, int, int]:
        return (self._stage_index[rule.stage], _GROUP_RANK[rule.kind], rule.seq)

    def knows(self, arch: str | None) -> bool:
        """Whether any architecture-specific rule (exact or predicate) applies to ``arch``."""
        return arch is not None and self.compiled(arch).specific

    def rule_releases(self, rule: str, location: str | None, res: Any = None) -> ReleaseRange | None:
        """The release range of the registered rule ``rule`` at ``location`` (``.describe()`` words
        it: ``since 0.5.15``, ``all releases``), or None when no registered rule has that name and
        place (``"user"``, ``"default"``, a load-time adjustment). With the resolution ``res`` it
        declared in, the range is narrowed to the releases in which the named changes the rule
        asked answer alike (``Resolution.releases_of``): where it declares the same."""
        for r in self.rules:
            if r.name == rule and r.location == location:
                asked = res.releases_of(rule, location) if res is not None else None
                if asked is None or asked.unbounded:
                    return r.releases
                lo = [b for b in (r.releases.since, asked.since) if b is not None]
                hi = [b for b in (r.releases.until, asked.until) if b is not None]
                return ReleaseRange(
                    max(lo, key=release_key) if lo else None, min(hi, key=release_key) if hi else None
                )
        return None

    def architectures(self) -> frozenset[str]:
        """Architectures named by exact rules and constants."""
        with self._lock:
            return frozenset(self._by_arch)

    def plan(
        self, arch: str | None, release: str | None = None
    ) -> tuple[tuple[Stage, tuple[Rule, ...]], ...]:
        """The rules that run for ``arch`` (in ``release``), grouped by stage, in execution order."""
        return self.compiled(arch, release).plan

    def release(self, release: str | None) -> str | None:
        """The supported release ``release`` names (``None``: the default release). A registry
        without releases only accepts ``None``; an unknown release is an ``InvalidArgumentError``
        listing the supported ones."""
        if release is None:
            return self.default_release
        if release in self.releases:  # already a supported base release (every resolution asks)
            return release
        if not self.releases:
            raise RegistrationError(f"registry {self.name!r} is not release-aware; do not pass a release")
        return check_release(release, self.releases, f"the {self.name!r} rule set")

    def compiled(self, arch: str | None, release: str | None = None) -> Plan:
        """The execution plan for ``arch`` in ``release`` (a supported release, or None for the
        default; cached per (architecture, release); rebuilt after registration)."""
        key = (arch, release)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        if release is not None and release not in self.releases:
            release = self.release(release)
            key = (arch, release)
        elif release is None:
            release = self.default_release
        with self._lock:
            plan = Plan(self._build_plan(arch, release))
            if len(self._plans) >= _PLAN_CACHE_LIMIT:
                self._plans = {}
            # The key holds the architecture name from the user's config: an absurdly long one is
            # not kept (a cache keyed on user input must stay bounded in bytes, not only entries).
            if arch is None or len(arch) <= _PLAN_KEY_MAX_CHARS:
                self._plans[key] = plan
        return plan

    def _build_plan(
        self, arch: str | None, release: str | None
    ) -> tuple[tuple[Stage, tuple[Rule, ...]], ...]:
        # Inside a stage the order is (kind rank, seq): the architecture-specific rules (ranks
        # 0-2) sorted by their key, then the rules for every architecture (all of rank 3), which
        # are kept in registration (seq) order: they need no key, only a release test, and only
        # the ones with a release range take it (``_global_index``, split once after registration).
        by_stage: dict[str, list[Rule]] = {}
        if arch is not None:
            specific = [
                r
                for r in self._by_arch.get(arch, ())
                if r.releases.contains(release) and r.applies(arch, release)
            ]
            specific += [
                r for r in self._predicate_rules if r.releases.contains(release) and _safe_predicate(r, arch)
            ]
            specific.sort(key=self._order_key)
            for rule in specific:
                by_stage.setdefault(rule.stage, []).append(rule)
        index = self._global_index
        if index is None:
            every = self._global_rules
            # C-level passes (map/compress): which rules apply in every release.
            unbounded = list(map(_ALL_RELEASES.__eq__, map(_RELEASES, every)))
            index = self._global_index = (
                tuple(compress(every, unbounded)),
                tuple(compress(every, map(not_, unbounded))),
            )
        always, bounded = index
        picked = [r for r in bounded if r.releases.contains(release)]
        if picked:
            picked += always
            picked.sort(key=_SEQ)  # back in registration order (a C key)
        for rule in picked or always:
            by_stage.setdefault(rule.stage, []).append(rule)
        return tuple(
            (stage, tuple(by_stage[stage.name]))
            for stage in self.stages
            if stage.name in by_stage and ReleaseRange(stage.since, stage.until).contains(release)
        )

    def __repr__(self) -> str:
        return f"Registry({self.name!r}, {len(self._all)} rules, stages={[s.name for s in self.stages]})"


_GROUP_RANK = {"constant": 0, "arch": 1, "predicate": 2, "pass": 3}
_SEQ = attrgetter("seq")
_RELEASES = attrgetter("releases")


def _describe_value(field: str, value: Any) -> str:
    reason = getattr(value, "reason", None)
    if reason is not None:
        return f"{field}={value.value!r} (forced: {reason})"
    return f"{field}={value!r}"


def _module_of(rule: Rule) -> str:
    """The module that registered ``rule`` (its function's module; a constant's declaring module)."""
    return getattr(_unwrap(rule.fn), "__module__", "") or ""


def _safe_predicate(rule: Rule, arch: str) -> bool:
    try:
        return bool(rule.predicate(arch))  # type: ignore[misc]
    except Exception as exc:
        raise RegistrationError(
            f"predicate of {rule.name} ({rule.location}) failed on {arch!r}: {exc!r}"
        ) from exc
