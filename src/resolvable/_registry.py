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
* a stage may belong to a named *check phase* (``Stage(..., phase="startup")``): ``resolve`` never
  runs it; ``check`` runs it afterwards over the final values, and its rules may only refuse.
"""

from __future__ import annotations

import _thread  # not threading: the lock is all we need (import cost)
import os
import sys
from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping

from ._frozen import deep_freeze
from ._record import field as record_field
from ._record import record
from ._release import ReleaseRange, check_release, release_key
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
    namedtuple(
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
            return ", ".join(self.archs)
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
    target = _unwrap(fn)
    code = getattr(target, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{_relative(code.co_filename, getattr(target, '__module__', '') or '')}:{code.co_firstlineno}"


def caller_location(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return f"{_relative(frame.f_code.co_filename, frame.f_globals.get('__name__', ''))}:{frame.f_lineno}"


class Plan:
    """The rules that run for one architecture: per stage, in order (immutable)."""

    __slots__ = ("checks", "groups", "plan", "specific")

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
        #: Whether any architecture-specific rule (exact or predicate) is in the plan.
        self.specific = any(r.archs or r.predicate for _, rules in plan for r in rules)


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
        for stage in self.stages:
            ReleaseRange.of(stage.since, stage.until, f"stage {stage.name!r}")
        # Registration state, guarded by _lock: every rule in order, exact-arch rules and constants
        # indexed by architecture, predicate rules, rules for every architecture, duplicate keys.
        self._all: list[Rule] = []
        self._by_arch: dict[str, list[Rule]] = {}
        self._predicate_rules: list[Rule] = []
        self._global_rules: list[Rule] = []
        self._keys: set[tuple[Any, ...]] = set()
        self._lock = _thread.RLock()
        self._plans: dict[tuple[str | None, str | None], Plan] = {}
        self._frozen = False
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
        rule = Rule(
            name=f"constant[{arch}]",
            location=caller_location(),
            stage=stage,
            fn=lambda ctx, _v=values: _v,
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
    ) -> Callable[[RuleFn], RuleFn]:
        """Register ``fn(ctx) -> dict`` in ``stage``: for the exact ``archs``, for architectures
        accepted by ``when``, or (neither) for every architecture. ``since``/``until`` limit it
        to a release range (``since`` inclusive, ``until`` exclusive); ``series`` names the rule
        it replaces in other releases (default: its own name)."""
        archs = tuple(archs)
        if archs and when is not None:
            raise RegistrationError(
                "a rule is keyed either by exact architectures or by a predicate, not both"
            )
        if when is not None and not callable(when):
            raise RegistrationError(f"predicate {when!r} is not callable")
        self._check_stage(stage, "rule")

        predicate_label = label or getattr(when, "__doc__", None) or getattr(when, "__name__", None)

        def decorate(fn: RuleFn) -> RuleFn:
            self._check_signature(fn)
            original = _unwrap(fn)
            name = getattr(original, "__qualname__", None) or repr(fn)
            location = location_of(fn)
            rule = Rule(
                name=name,
                location=location,
                stage=stage,
                fn=fn,
                archs=archs,
                predicate=when,
                predicate_label=predicate_label,
                doc=_first_paragraph(getattr(original, "__doc__", None)),
                releases=ReleaseRange.of(since, until, f"rule {name} ({location})"),
                series=series or name,
            )
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

    def freeze(self) -> None:
        """Refuse further registration (resolution is unaffected)."""
        self._frozen = True

    def _add(self, rule: Rule) -> None:
        if rule.constant is not None:
            key: tuple[Any, ...] = ("constant", rule.archs[0], rule.stage, rule.releases)
            duplicate = f"constant for {rule.archs[0]!r} is already registered in stage {rule.stage!r}"
        else:
            key = ("rule", id(rule.fn), rule.stage)
            duplicate = f"{rule.name} ({rule.location}) is already registered in stage {rule.stage!r}"
        with self._lock:
            if self._frozen:
                raise RegistrationError(
                    f"registry {self.name!r} is frozen; cannot register {rule.name} ({rule.location})"
                )
            if key in self._keys:
                raise RegistrationError(duplicate)
            self._keys.add(key)
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
            self._plans = {}

    def _check_stage(self, stage: str, what: str) -> None:
        if stage not in self._stage_index:
            hint = closest(stage, self._stage_index)
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise RegistrationError(
                f"{what}: unknown stage {stage!r}{extra}; stages are {[s.name for s in self.stages]}"
            )

    def _check_field(self, field: str, what: str) -> None:
        if field not in self.schema.resolvable:
            raise RegistrationError(
                f"{what}: {field!r} is not a resolvable field of {self.schema.cls.__name__}"
            )

    @staticmethod
    def _check_signature(fn: Any) -> None:
        """A rule must be callable with exactly one positional argument (the context)."""
        if not callable(fn):
            raise RegistrationError(f"{fn!r} is not callable")
        original = _unwrap(fn)
        code = getattr(original, "__code__", None)
        if code is None or original is not fn:
            return  # builtins and wrappers: trust them (a wrapper's own signature is (ctx))
        positional = code.co_argcount
        defaults = len(getattr(fn, "__defaults__", None) or ())
        required = positional - defaults
        kwonly_required = code.co_kwonlyargcount - len(getattr(fn, "__kwdefaults__", None) or {})
        varargs = bool(code.co_flags & 0x04)
        if kwonly_required or required > 1 or (positional == 0 and not varargs):
            raise RegistrationError(
                f"rule {getattr(fn, '__qualname__', fn)} ({location_of(fn)}) must take exactly one "
                f"argument, the rule context: def {getattr(fn, '__name__', 'rule')}(ctx) -> dict; "
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
        picked = [r for r in self._global_rules if r.releases.contains(release)]
        if arch is not None:
            picked += [r for r in self._by_arch.get(arch, ()) if r.releases.contains(release)]
            picked += [
                r for r in self._predicate_rules if r.releases.contains(release) and _safe_predicate(r, arch)
            ]
        picked.sort(key=self._order_key)
        by_stage: dict[str, list[Rule]] = {}
        for rule in picked:
            by_stage.setdefault(rule.stage, []).append(rule)
        return tuple(
            (stage, tuple(by_stage[stage.name]))
            for stage in self.stages
            if stage.name in by_stage and ReleaseRange(stage.since, stage.until).contains(release)
        )

    def __repr__(self) -> str:
        return f"Registry({self.name!r}, {len(self._all)} rules, stages={[s.name for s in self.stages]})"


_GROUP_RANK = {"constant": 0, "arch": 1, "predicate": 2, "pass": 3}


def _describe_value(field: str, value: Any) -> str:
    reason = getattr(value, "reason", None)
    if reason is not None:
        return f"{field}={value.value!r} (forced: {reason})"
    return f"{field}={value!r}"


def _safe_predicate(rule: Rule, arch: str) -> bool:
    try:
        return bool(rule.predicate(arch))  # type: ignore[misc]
    except Exception as exc:
        raise RegistrationError(
            f"predicate of {rule.name} ({rule.location}) failed on {arch!r}: {exc!r}"
        ) from exc
