"""Resolution: run the registry's rules over (args, hf config, platform, env).

Invariants:

* ``resolve`` is a pure function of its inputs: rules get everything through their context
  (no hardware probing, no ``os.environ``), so the same inputs give the same resolution in
  any process;
* a rule reads a read-only ``View`` (user input overlaid with declarations so far; in an
  isolated stage, the state at the start of the stage) and *returns* a dict; it never writes;
* a refused configuration surfaces as ``ConflictError`` naming the rule and its stage; any other
  exception from a rule becomes ``RuleFailure`` (a ``ValueError``) naming the rule and the cause;
* a rule registered with ``only_if_set=`` is not called while none of its fields is set (by the
  user or an earlier declaration): ``Plan.pruned`` leaves it out, and a declaration of a field a
  left-out rule switches, from the next rule on, to the plan pruned for the fields set by then
  (``Plan.rest_after``), so the rules called are the whole plan's minus inert ones and the answer (values,
  declarations, asked changes, refusals) is always the whole plan's;
* ``resolve`` runs the resolution stages only; ``check`` runs the stages of one check phase over
  a finished resolution: its rules read the final values and may only refuse, so a check never
  changes a value or the fingerprint, and its refusal carries the phase and the resolution.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ._changes import RecordingReleaseView, ReleaseView, TracedReleaseView
from ._declaration import Outcome, apply_declaration, check_value
from ._frozen import HiddenDict, real_dict, set_real_dict
from ._hfconfig import HFConfig
from ._platform import Platform
from ._registry import Registry
from ._resolution import Resolution
from .errors import (
    ConflictError,
    DeclarationError,
    FrozenContextError,
    InvalidArgumentError,
    ResolvableError,
    RuleFailure,
    UnknownChangeError,
)

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RuleContext", "View", "check", "resolve"]


class View(HiddenDict):
    """Read-only access to the arguments as resolved so far: ``view.page_size``, ``view["dtype"]``.

    The view's instance dictionary *is* the values dictionary the resolver updates, so a
    read is a plain attribute lookup (this is the hot path of every rule) and a live view
    sees each declaration as soon as it is applied. Writes raise ``FrozenContextError``, and
    ``vars(view)`` is a read-only proxy (``HiddenDict``): no write path through ``__dict__``.
    """

    def __init__(self, values: dict[str, Any]) -> None:
        set_real_dict(self, values)

    def _values(self) -> dict[str, Any]:
        return real_dict(self)

    def __getattr__(self, name: str) -> Any:  # only reached when the name is not a field
        raise AttributeError(f"no argument named {name!r}")

    # The hot paths read the instance dictionary directly (``_TracedView`` overrides them).
    def __getitem__(self, name: str) -> Any:
        return real_dict(self)[name]

    def get(self, name: str, default: Any = None) -> Any:
        return real_dict(self).get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._values()

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())

    def keys(self) -> Any:
        return self._values().keys()

    def items(self) -> Any:
        return self._values().items()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenContextError(
            f"cannot set {name!r}: the view is read-only; a rule returns its declarations, "
            f"e.g. return {{{name!r}: {value!r}}}"
        )

    def __setitem__(self, name: str, value: Any) -> None:
        self.__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenContextError("the view is read-only")

    def __delitem__(self, name: str) -> None:
        raise FrozenContextError("the view is read-only")

    def __copy__(self) -> View:  # a snapshot: a view of a copy of the values
        return View(dict(self._values()))

    def __deepcopy__(self, memo: Any) -> View:
        return self.__copy__()

    def __reduce__(self) -> Any:
        return (View, (dict(self._values()),))

    def __repr__(self) -> str:
        return f"View({self._values()!r})"


class _TracedView(View):
    """A view that also records every argument a rule reads (``trace=True``; slower)."""

    def __init__(self, values: dict[str, Any], reads: list[tuple[str, Any]]) -> None:
        set_real_dict(self, {"_state": (values, reads)})

    @property  # type: ignore[misc]
    def __dict__(self) -> Any:
        return MappingProxyType(self._values())

    def _values(self) -> dict[str, Any]:
        return real_dict(self)["_state"][0]

    def __getattr__(self, name: str) -> Any:
        values, reads = real_dict(self)["_state"]
        try:
            value = values[name]
        except KeyError:
            raise AttributeError(f"no argument named {name!r}") from None
        reads.append(("args." + name, value))
        return value

    def __getitem__(self, name: str) -> Any:
        if name not in self._values():
            raise KeyError(name)
        return self.__getattr__(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self.__getattr__(name) if name in self else default


class _Traced:
    """Records what a rule reads from the platform, the config or the environment."""

    __slots__ = ("_prefix", "_reads", "_target")

    def __init__(self, target: Any, prefix: str, reads: list[tuple[str, Any]]) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_prefix", prefix)
        object.__setattr__(self, "_reads", reads)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        """The traced object's class, so ``isinstance(view, HFConfig)`` in a rule answers as it
        does untraced (issue 27: vLLM's ``_quant_config`` took a traced ModelOpt config for none
        and refused ``--quantization modelopt``); ``type(view)`` is still ``_Traced``."""
        return type(self._target)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if callable(value) and not isinstance(value, type):
            return self._wrap_call(name, value)
        if isinstance(value, HFConfig):
            return _Traced(value, f"{self._prefix}.{name}", self._reads)
        self._reads.append((f"{self._prefix}.{name}{self._origin(name)}", value))
        return value

    def _origin(self, key: Any) -> str:
        """`` [origin]`` for a config value that did not come from the file (config-class default)."""
        target = self._target
        origin = target.origin(key) if isinstance(target, HFConfig) and isinstance(key, str) else None
        return f" [{origin}]" if origin else ""

    def _wrap_call(self, name: str, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if isinstance(result, HFConfig):
                return _Traced(
                    result, f"{self._prefix}.{name}({args[0]!r})" if args else self._prefix, self._reads
                )
            shown = ", ".join(repr(a) for a in args[:1])
            where = self._origin(args[0]) if args and name in ("get", "get_typed") else ""
            self._reads.append((f"{self._prefix}.{name}({shown}){where}", result))
            return result

        return call

    def __getitem__(self, key: str) -> Any:
        value = self._target[key]
        if isinstance(value, HFConfig):
            return _Traced(value, f"{self._prefix}[{key!r}]", self._reads)
        self._reads.append((f"{self._prefix}[{key!r}]{self._origin(key)}", value))
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._target

    def __iter__(self) -> Iterator[Any]:
        return iter(self._target)

    def __len__(self) -> int:
        return len(self._target)

    def __bool__(self) -> bool:
        return bool(self._target)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenContextError(f"{self._prefix} is read-only")


class RuleContext:
    """What a rule sees: ``args`` (read-only view), ``hf``, ``platform``, ``env``, ``arch`` and
    ``release`` (the release resolved for: ``ctx.release.has(CHANGES.X)``, ``ctx.release.version``)."""

    __slots__ = ("arch", "args", "env", "explicit", "hf", "platform", "release")

    def __init__(
        self,
        args: View,
        hf: Any,
        platform: Any,
        env: Mapping[str, str],
        arch: str | None,
        explicit: frozenset[str],
        release: ReleaseView | None = None,
    ) -> None:
        # The slots' own setters (below the class): a C call each, half an ``object.__setattr__``
        # (two contexts per resolution; docs/benchmarks.md §9).
        _set_args(self, args)
        _set_hf(self, hf)
        _set_platform(self, platform)
        _set_env(self, env)
        _set_arch(self, arch)
        _set_explicit(self, explicit)
        _set_release(self, release if release is not None else _NO_RELEASE)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenContextError(
            f"cannot set ctx.{name}: the rule context is read-only; a rule returns its declarations"
        )

    def __delattr__(self, name: str) -> None:
        raise FrozenContextError(f"cannot delete ctx.{name}: the rule context is read-only")

    def user_set(self, field: str) -> bool:
        """Whether the user chose ``field`` explicitly (a non-default value)."""
        return field in self.explicit


#: The slot descriptors' ``__set__`` of ``RuleContext`` (its ``__setattr__`` refuses writes).
_set_args, _set_hf, _set_platform, _set_env, _set_arch, _set_explicit, _set_release = (
    RuleContext.__dict__[name].__set__
    for name in ("args", "hf", "platform", "env", "arch", "explicit", "release")
)


def _user_args(registry: Registry, args: Any) -> dict[str, Any]:
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise InvalidArgumentError(
            f"user arguments must be a mapping of field name to value, got {type(args).__name__}"
        )
    schema = registry.schema
    out = {}
    for name, value in args.items():
        if not isinstance(name, str):
            raise InvalidArgumentError(f"argument names must be strings, got {name!r}")
        spec = schema.spec(name)
        spec.check_type(value, what=f"argument {name}")
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            raise InvalidArgumentError(f"argument {name}: {value!r} is not a finite number")
        spec.validate(value, what=f"argument {name}")
        try:
            out[name] = check_value(value, f"argument {name}")
        except ResolvableError as exc:
            raise InvalidArgumentError(str(exc)) from None
    return out


class _Switch(Exception):
    """A rule declared a field that a rule left out of the pruned plan waits on (``only_if_set``)."""


_EMPTY_ENV: Mapping[str, str] = MappingProxyType({})
_NO_RELEASE = ReleaseView(None)


def checked_platform(platform: Any, what: str = "platform") -> Platform | None:
    """``platform`` as a ``Platform``: a ``Platform`` as is, a preset name (``"h100"``) as that
    preset, None as None (detect); anything else is an ``InvalidArgumentError`` naming it."""
    if platform is None or isinstance(platform, Platform):
        return platform
    if isinstance(platform, str):
        return Platform.preset(platform)  # an unknown name: UnknownPresetError with the presets
    raise InvalidArgumentError(
        f"{what} must be a Platform or a preset name such as 'h100', got {type(platform).__name__} "
        f"{platform!r}"[:200]
    )


def checked_env(env: Any, what: str = "env") -> Mapping[str, str] | None:
    """``env`` as a mapping of variable name to value (both strings), or None."""
    if env is None:
        return None
    if not isinstance(env, Mapping):
        raise InvalidArgumentError(
            f"{what} must be a mapping of environment variable names to string values, got "
            f"{type(env).__name__} {env!r}"[:200]
        )
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise InvalidArgumentError(
                f"{what}: {key!r}={value!r} is not a string name and a string value (environment "
                "values are strings, e.g. '1')"[:300]
            )
    return env


def _checked_inputs(hf: Any, platform: Any, env: Any) -> tuple[Any, Platform | None, Any]:
    if env is None and type(hf) is HFConfig and type(platform) is Platform:  # the usual call
        return hf, platform, env
    if hf is not None and not isinstance(hf, HFConfig):
        if not isinstance(hf, Mapping):
            raise InvalidArgumentError(
                f"hf must be a model config (HFConfig or a mapping), got {type(hf).__name__}"
            )
        hf = HFConfig(hf)
    return hf, checked_platform(platform), checked_env(env)


def resolve(
    registry: Registry,
    args: Mapping[str, Any] | None = None,
    hf: HFConfig | Mapping[str, Any] | None = None,
    platform: Platform | None = None,
    env: Mapping[str, str] | None = None,
    *,
    trace: bool = False,
    release: str | None = None,
) -> Resolution:
    """Resolve the registry's fields for these inputs.

    ``args`` holds only what the user chose (a missing field takes its schema default);
    ``trace=True`` also records, for every declaration, the inputs its rule read; ``release``
    picks the modelled engine release of a release-aware registry (default: its newest).
    """
    if not isinstance(registry, Registry):
        raise InvalidArgumentError(f"registry must be a Registry, got {type(registry).__name__}")
    hf, platform, env = _checked_inputs(hf, platform, env)
    if not isinstance(trace, bool):
        raise InvalidArgumentError(f"trace must be True or False, got {trace!r}")
    if release is not None and not isinstance(release, str):
        raise InvalidArgumentError(f"release must be a version string such as '0.5.15', got {release!r}")
    release = registry.release(release)
    schema = registry.schema
    user = _user_args(registry, args)
    values = schema.json_defaults  # a fresh dict (fresh lists): this resolution's own
    # A loop, not a generator: ``values`` stays a plain local (no closure cell: the rule loop
    # below reads it on every declaration).
    chosen = []
    for name, value in user.items():
        if value != values[name]:
            chosen.append(name)
    explicit = frozenset(chosen)
    values.update(user)
    if platform is None:
        platform = Platform.detect()
    env_map: Mapping[str, str] = _EMPTY_ENV if not env else MappingProxyType(dict(env))
    arch = hf.architecture if hf is not None else None

    compiled = registry.compiled(arch, release)
    notes: list[str] = []
    if arch is not None and not compiled.specific:
        notes.append(f"no architecture-specific rule matches {arch!r}; only the generic rules applied")
    reads: list[tuple[str, Any]] | None = [] if trace else None
    if reads is not None:
        rule_hf: Any = _Traced(hf, "hf", reads) if hf is not None else None
        rule_platform: Any = _Traced(platform, "platform", reads)
        rule_env: Any = _Traced(env_map, "env", reads)
    else:
        rule_hf, rule_platform, rule_env = hf, platform, env_map
    # The changes each rule asks (a resolution without named changes keeps the shared view).
    asked: list[Any] = []
    rule_release: ReleaseView = registry.release_view(release)
    if registry.records_changes:
        if reads is not None:
            rule_release = TracedReleaseView(rule_release, reads, asked)
        else:
            rule_release = RecordingReleaseView(rule_release, asked)
    resolvable = schema.resolvable
    # The plan without the rules that cannot fire for what the user set (``only_if_set``). A
    # declaration of a field one of them waits on switches to the plan pruned for the fields set
    # now, from the rule after the declaring one (``_Switch``): the left-out rules before it were
    # inert (their fields still held defaults), so the rules run are the whole plan's, in its
    # order, minus rules that were inert when their turn came.
    groups, watched = compiled.pruned(explicit)
    now_set = explicit
    live: View = _TracedView(values, reads) if reads is not None else View(values)
    live_ctx = RuleContext(live, rule_hf, rule_platform, rule_env, arch, explicit, rule_release)
    asked_by: dict[int, tuple[Any, ...]] = {}
    declarations = []
    seq = 0
    while True:
        try:
            for stage_name, isolated, guard, rules in groups:
                if isolated:  # every rule of the stage reads the state as it was when the stage began
                    if isolated is True:
                        snapshot = dict(values)
                        view = _TracedView(snapshot, reads) if reads is not None else View(snapshot)
                        ctx = RuleContext(
                            view, rule_hf, rule_platform, rule_env, arch, explicit, rule_release
                        )
                    else:  # the rest of an isolated stage after a switch: its snapshot's context
                        ctx = isolated
                else:
                    ctx = live_ctx
                if guard is not None and not guard(ctx.args):
                    continue
                for rule in rules:
                    if reads is not None:
                        reads.clear()
                    try:
                        out = rule.fn(ctx)
                    except ConflictError as exc:
                        if exc.rule is None:
                            exc.rule, exc.location, exc.stage = rule.name, rule.location, stage_name
                            exc.origins = _origins(exc.fields, values, user, declarations)
                        raise
                    except UnknownChangeError as exc:
                        raise _asked_by(exc, rule) from None
                    except ResolvableError:
                        raise
                    except Exception as exc:
                        raise RuleFailure(
                            f"rule {rule.name} ({rule.location}) failed on this input: "
                            f"{type(exc).__name__}: {exc}. Check the model config keys it reads."
                        ) from exc
                    if type(out) is not dict and not isinstance(out, Mapping):
                        raise TypeError(
                            f"rule {rule.name} ({rule.location}) must return a dict of declarations, "
                            f"got {type(out).__name__}"
                        )
                    if not out:
                        if asked:
                            asked.clear()
                        continue
                    seq += 1
                    if asked:
                        asked_by[seq] = tuple(asked)
                        asked.clear()
                    declarations.append(
                        apply_declaration(
                            values,
                            explicit,
                            schema,
                            resolvable,
                            out,
                            rule.name,
                            rule.location,
                            stage_name,
                            seq,
                            _dedupe(reads) if reads is not None else (),
                        )
                    )
                    if watched is not None and not watched.isdisjoint(out):
                        raise _Switch  # a left-out rule may fire from here on: the whole plan decides
        except _Switch:
            now_set = now_set.union(out)
            groups, watched = compiled.rest_after(stage_name, rule, ctx if isolated else False, now_set)
            continue
        break
    return Resolution(
        values=values,
        user=user,
        explicit=explicit,
        declarations=tuple(declarations),
        platform=platform,
        arch=arch,
        notes=tuple(notes),
        ruleset=f"{registry.name}@{registry.version}",
        schema=schema,
        leaves=schema.leaves,
        owned=True,
        release=release,
        asked=asked_by,
    )


def check(
    registry: Registry,
    res: Resolution,
    hf: HFConfig | Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    phase: str,
) -> tuple[Any, ...]:
    """Run the rules of the check phase ``phase`` over the final values of ``res``.

    Returns the rules that ran (all passed). A refusal is a ``ConflictError`` whose ``phase`` is
    ``phase``, ``stage`` its stage and ``resolution`` is ``res``. A check rule that returns a
    non-empty dict is a ``DeclarationError``: checks refuse, they never declare.
    """
    if not isinstance(phase, str) or phase not in registry.phases:
        raise InvalidArgumentError(
            f"unknown check phase {phase!r}; registry {registry.name!r} has {list(registry.phases)}"
        )
    if not isinstance(res, Resolution):
        raise InvalidArgumentError(f"res must be a Resolution, got {type(res).__name__}")
    hf, _, env = _checked_inputs(hf, None, env)
    env_map: Mapping[str, str] = _EMPTY_ENV if not env else MappingProxyType(dict(env))
    values = dict(res)
    view = registry.release_view(res.release)
    ctx = RuleContext(View(values), hf, res.platform, env_map, res.arch, res.explicit, view)
    passed = []
    for stage_name, _isolated, guard, rules in registry.compiled(res.arch, res.release).checks.get(phase, ()):
        if guard is not None and not guard(ctx.args):
            continue
        for rule in rules:
            try:
                out = rule.fn(ctx)
            except ConflictError as exc:
                if exc.rule is None:
                    exc.rule, exc.location, exc.stage = rule.name, rule.location, stage_name
                    exc.origins = _origins(exc.fields, values, dict(res.user), list(res.declarations))
                exc.phase, exc.resolution = phase, res
                raise
            except UnknownChangeError as exc:
                raise _asked_by(exc, rule) from None
            except ResolvableError:
                raise
            except Exception as exc:
                raise RuleFailure(
                    f"rule {rule.name} ({rule.location}) failed on this input: "
                    f"{type(exc).__name__}: {exc}. Check the model config keys it reads."
                ) from exc
            if out:
                err = DeclarationError(
                    f"rule {rule.name} ({rule.location}) is a {phase} check (stage {stage_name!r}) and "
                    f"declared {sorted(out)}; a check only refuses (raise ConflictError) or returns {{}}"
                )
                err.rule, err.location = rule.name, rule.location
                raise err
            passed.append(rule)
    return tuple(passed)


def _asked_by(exc: UnknownChangeError, rule: Any) -> UnknownChangeError:
    """The same error, naming the rule that asked for the unknown change."""
    return UnknownChangeError(f"rule {rule.name} ({rule.location}): {exc}")


def _origins(
    fields: tuple[str, ...], values: dict[str, Any], user: dict[str, Any], declarations: list[Any]
) -> dict[str, tuple[Any, str, str | None]]:
    """Who set each field a refusal names: the last effective declaration, the user, or the default."""
    out = {}
    for field in fields:
        if field not in values:
            continue
        origin: tuple[str, str | None] = ("user", None) if field in user else ("default", None)
        for decl in reversed(declarations):
            if any(w.field == field and w.outcome is not Outcome.BLOCKED for w in decl.writes):
                origin = (decl.rule, decl.location)
                break
        out[field] = (values[field], *origin)
    return out


def _dedupe(reads: list[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    seen: dict[str, Any] = {}
    for name, value in reads:
        if name not in seen:
            seen[name] = value
    return tuple(
        (n, v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)) for n, v in seen.items()
    )
