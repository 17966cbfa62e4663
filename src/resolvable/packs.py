"""Rule packs by name: the one interface between the ``resolvable`` command and an engine's pack.

A pack (``resolvable.sglang``, ``resolvable.vllm``, or a third engine) exposes one object,
``PACK``, an instance of a ``Pack`` subclass, in its ``pack`` module. The command line never
imports a pack's modules: it asks this registry for the pack by name (``get("vllm")``), or
for the pack whose launch command was pasted (``recognise(words)``), and talks to the object.

Invariants:

* ``REGISTRY`` maps a name to a ``"module:ATTRIBUTE"`` string, resolved on first use, so that
  ``import resolvable`` (and ``import resolvable.packs``) imports no pack;
* ``register(name, target)`` checks the name and the target's form at once, and ``get`` checks
  that what the target names is a ``Pack`` whose ``name`` is the registered name (a pluggy-style
  error naming the culprit, never a late ``AttributeError``);
* the base class holds no engine's semantics: each method either has an engine-neutral default
  or raises ``PackError`` naming the pack and the missing capability.

How a third engine plugs in: write ``mypack/pack.py`` with ``class MyPack(Pack)`` implementing
the launch methods (``releases``, ``release``, ``load_model``, ``add_cli_args``,
``parse_flags``, ``resolve``), then ``register("myengine", "mypack.pack:PACK")``; ``resolvable
explain MODEL --engine myengine`` and ``resolve`` then work through the generic front-end
(``resolvable.cli.generic``). See docs/architecture.md.
"""

from __future__ import annotations

import importlib
import re

from .errors import ResolvableError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["REGISTRY", "Pack", "PackError", "get", "member", "names", "recognise", "register", "translation"]


class PackError(ResolvableError):
    """An unknown pack, a malformed registration, or a capability a pack does not have."""


class member:
    """A pack's member that lives in one of its modules, imported on first use:
    ``flag_table = member("resolvable.sglang.flags", "load_table")``. It keeps the pack object a
    table of what the command line may use, without importing the pack when the object is built."""

    def __init__(self, module: str, attr: str) -> None:
        self.module, self.attr = module, attr

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        # Read from the module each time (not cached on the object): a test that patches the
        # module's function (``monkeypatch.setattr(api, "installed_sglang_version", ...)``)
        # is seen through the pack, as it is through a direct import at the call.
        return getattr(importlib.import_module(self.module), self.attr)


class Pack:
    """What the command line asks of an engine's rule pack.

    Launch (every pack): ``releases``, ``default_release``, ``release``, ``installed_version``,
    ``recognises``, ``add_cli_args``, ``parse_flags``, ``load_model``, ``catalog``, ``env_from_os``,
    ``resolve``, ``check_startup``, ``checked_fix``, ``rule_releases``.
    Tables (optional): ``capability_table``, ``memory_capacity``, ``platform_facts``,
    ``startup_log``.
    """

    #: The name ``--engine`` takes and ``REGISTRY`` keys it by.
    name: str = ""
    #: The engine's name in prose ("SGLang", "vLLM").
    title: str = ""
    #: Which front-end of the command line renders this pack's commands: ``generic`` (any pack
    #: that implements the launch methods) or the name of a pack-specific front-end module of
    #: ``resolvable.cli`` (``sglang``'s is the default command set; ``vllm`` has its own flags).
    frontend: str = "generic"
    #: The resolvable option that names the release (``--sglang-version``).
    release_option: str = "--release"
    #: The pack's own resolve function and fix checker (``member(...)``), called by ``resolve``
    #: and ``checked_fix`` with the release under ``release_keyword`` (``sglang_version=``); a
    #: pack without them overrides those two methods instead.
    resolve_launch: Any = None
    with_checked_fix: Any = None
    release_keyword: str = "release"
    #: The label and phase of the start-up checks (after argument resolution).
    startup_label: str = "start-up"
    startup_phase: str = "startup"
    #: Environment variables the rules read (the others of a launch are listed as not modelled).
    env_vars: tuple[str, ...] = ()
    #: Container images (repository, no registry host) published by the engine's project, whose
    #: tag names the engine release; ``image_command`` is what their entrypoint runs before the
    #: container's arguments (empty: the container gives the whole command).
    images: tuple[str, ...] = ()
    image_command: tuple[str, ...] = ()
    #: Repository prefixes of images that other projects build around this engine (their tag
    #: names the distribution's version, not the engine's release).
    distribution_images: tuple[str, ...] = ()
    #: Translation tables to other packs' flags (``resolvable.translate.Table``), by the other
    #: pack's name; a pair's table is held by one of the two packs (see ``translation``).
    translations: Any = {}

    #: The field of the tensor-parallel size (``fit`` tries TP sizes through it).
    tp_field: str = "tp_size"
    #: The field of the context length (``fit`` proposes the length that fits one request).
    context_field: str = "context_length"
    #: What ``fit`` tries when a launch does not fit: (field, values in order, a note), each
    #: checked by judging the launch again with it.
    fit_trials: tuple[tuple[str, tuple[Any, ...], str], ...] = ()
    #: The start-up log reader of ``check-log`` (a module with ``recognises(text)``,
    #: ``read(text) -> resolvable.startup_log.LogFacts`` and ``launch(facts, hf, platform,
    #: release)``), or None when the pack has none.
    startup_log: Any = None

    def _missing(self, what: str) -> PackError:
        return PackError(f"the {self.name} pack has no {what}; implement Pack.{what} in its pack module")

    # -- releases ------------------------------------------------------------------------------

    @property
    def registry(self) -> Any:
        """The pack's frozen rule ``Registry`` (releases, rules, changes)."""
        raise self._missing("registry")

    @property
    def releases(self) -> tuple[str, ...]:
        return tuple(self.registry.releases)

    @property
    def default_release(self) -> str:
        return str(self.registry.default_release)

    def release(self, version: str | None) -> str:
        """The supported release ``version`` names (None: the default), or a ``PackError``."""
        if version is None:
            return self.default_release
        if version in self.releases:
            return version
        raise PackError(
            f"{self.title or self.name} {version} is not modelled; supported: {', '.join(self.releases)}"
        )

    def installed_version(self) -> str | None:
        """The engine's version installed in this environment, or None."""
        return None

    def tag_release(self, tag: str) -> str | None:
        """The engine release an official image tag names (``v0.34.0``, ``v0.5.5.post3-cu129-amd64``
        → ``0.5.5``; a ``.postN`` the pack resolves as a release of its own is kept:
        ``v0.5.6.post1`` → ``0.5.6.post1``), modelled or not; None when the tag names none
        (``latest``, ``nightly``)."""
        from ._release import base_release, release_name

        head = tag.split("-", 1)[0]
        if not re.fullmatch(r"[vV]?\d+\.\d+(\.\d+)*([.+]?(post|rc|dev|a|b)?\d*)*", head):
            return None
        try:
            name = release_name(head)
            return name if name in self.releases else base_release(head)
        except ResolvableError:
            return None

    def nearest_release(self, release: str) -> str:
        """The modelled release closest to ``release`` (a release outside the modelled range)."""

        def key(text: str) -> tuple[int, ...]:
            return tuple(int(p) for p in text.split(".") if p.isdigit())

        modelled = sorted(self.releases, key=key)
        if key(release) <= key(modelled[0]):
            return modelled[0]
        older = [r for r in modelled if key(r) <= key(release)]
        return older[-1]

    def option_strings(self, release: str | None = None) -> list[str]:
        """Every option string the engine's parser of ``release`` accepts (for abbreviations)."""
        table = getattr(self, "flag_table", None)
        if table is None:
            raise self._missing("flag_table")
        return list(table(release).options())

    def parse_only_releases(self) -> tuple[str, ...]:
        """Releases whose flags the pack reads (a flag table from the wheel) but which no rule
        resolves, oldest first (``resolvable.flag_history``); none by default."""
        return ()

    def flag_releases(self) -> list[str]:
        """Every release with a flag table of its own that rules resolve, oldest first: the
        resolved releases and their ``.postN`` patches (a patch resolves as its base release,
        ``resolvable._release``, and is read with its own flags); none by default."""
        return list(self.releases)

    def removed_between(self, old: str, new: str) -> tuple[Any, ...]:
        """The flags of release ``old`` that ``new`` does not accept, with their replacements
        (``resolvable.flag_history.FlagChange``)."""
        raise self._missing("removed_between")

    def read_release_flags(self, words: Sequence[str], release: str) -> tuple[str | None, list[Any]]:
        """(model, [(option as typed, dest, value), ...]) of the launch command ``words`` read with
        release ``release``'s own flags; a flag it does not have is a ``ResolvableError``."""
        raise self._missing("read_release_flags")

    # -- input ---------------------------------------------------------------------------------

    def recognises(self, words: Sequence[str]) -> bool:
        """Whether the launch command ``words`` (environment assignments removed) starts this engine."""
        return bool(words) and words[0] == self.name

    def launch_flags(self, words: Sequence[str]) -> list[str]:
        """The flags of the launch command ``words`` (default: from the first word that starts
        with ``-``; the launcher and its subcommand before it)."""
        start = next((i for i, w in enumerate(words) if w.startswith("-")), len(words))
        return list(words[start:])

    def launch_command(self, model: str, flags: Sequence[str]) -> list[str]:
        """The launch command that serves ``model`` with ``flags`` (default: ``NAME serve MODEL …``),
        as ``recognises`` and ``launch_flags`` read it back."""
        return [self.name, "serve", model, *flags]

    def add_cli_args(self, parser: argparse.ArgumentParser, release: str | None = None) -> None:
        """Add the engine's launch flags (of ``release``) to ``parser``."""
        raise self._missing("add_cli_args")

    def parse_flags(
        self, namespace: argparse.Namespace, release: str | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        """(the modelled user arguments, the flags accepted but not modelled) of a namespace that
        ``add_cli_args(parser, release)`` parsed (``release`` None: the default release)."""
        raise self._missing("parse_flags")

    def load_model(self, name: str, **options: Any) -> Any:
        """The ``HFConfig`` of a bundled sample, config.json, directory or hub id."""
        raise self._missing("load_model")

    def catalog(self) -> Mapping[str, Mapping[str, Any]]:
        """The bundled model samples: name → {family, repo_id, ...}."""
        return {}

    def env_from_os(self) -> dict[str, str]:
        """The variables of this process's environment that the rules read."""
        import os

        return {k: v for k, v in os.environ.items() if k in self.env_vars}

    # -- resolution ----------------------------------------------------------------------------

    def resolve(
        self,
        hf: Any,
        platform: Any,
        env: Mapping[str, str] | None = None,
        *,
        release: str | None = None,
        trace: bool = False,
        **user: Any,
    ) -> Any:
        """The ``Resolution`` of a launch (a ``ConflictError`` when the rules refuse it)."""
        if self.resolve_launch is None:
            raise self._missing("resolve")
        return self.resolve_launch(hf, platform, env, trace=trace, **{self.release_keyword: release}, **user)

    def check_startup(self, res: Any, hf: Any, env: Mapping[str, str] | None = None) -> tuple[Any, ...]:
        """The start-up checks run after resolution: the checks passed, or a ``ConflictError``."""
        return ()

    def checked_fix(self, exc: Any, hf: Any, platform: Any, env: Any, user: Any, *, release: Any) -> Any:
        """``exc`` with its fix checked by resolving again with it (default: unchanged)."""
        if self.with_checked_fix is None:
            return exc
        return self.with_checked_fix(exc, hf, platform, env, user, **{self.release_keyword: release})

    def rule_releases(self, rule: str, location: str | None, res: Any = None) -> Any:
        """The ``ReleaseRange`` of a registered rule (None: every release, or not a rule)."""
        return None

    def change_since(self, res: Any, field: str, old: str, new: str) -> str | None:
        """Why ``field`` of ``res`` (resolved on release ``new``) differs from release ``old``, in
        words: the deciding rule's release range or the named change (``upgrade``'s "since"
        column; None: nothing known beyond the rule)."""
        return None

    # -- one launch, one verdict (resolvable.launch, resolvable.verdict) --------------------------

    def build_launch(
        self,
        *,
        command: Sequence[str] | None = None,
        argv: Sequence[str] = (),
        model: str | None = None,
        release: str | None = None,
        release_from: str | None = None,
        image: str | None = None,
        platform: str = "detect",
        gpus: int | None = None,
        nodes: int = 1,
        env: Mapping[str, str] | None = None,
        command_env: Mapping[str, str] | None = None,
        model_config: str | None = None,
    ) -> Any:
        """The ``Launch`` of one input, whatever its form: ``command`` is a launch command's words
        (the launcher included, environment assignments removed into ``command_env``), ``argv``
        engine flags given beside it (the tool's own command line; they come after the command's,
        so they win), ``model`` the tool's MODEL. ``release`` None is the pack's default
        (``release_from`` ``default``), else ``flag`` unless told (``image-tag``, ``command``).
        ``env`` is the tool's ``--env`` (the last word). An engine flag the release does not accept
        is kept as ``Launch.rejected`` (the engine's refusal), not raised."""
        from .launch import Launch, Node, config_source_of

        node = Node(platform, gpus, nodes)
        chosen = self.release(release)
        source = release_from or ("default" if release is None else "flag")
        if source == "flag" and release == "auto":
            source = "command"
        words = self.launch_flags(command) if command is not None else []
        parser = _raising_parser(prog=f"{self.name} serve", add_help=False)
        parser.add_argument("--model", dest="_model")
        self.add_cli_args(parser, chosen)
        rejected = None
        try:
            namespace, unknown = parser.parse_known_args([*words, *argv])
        except _ParserRefusal as exc:
            namespace, unknown, rejected = parser.parse_known_args([])[0], [], str(exc)
        if unknown and rejected is None:
            rejected = f"{self.name} serve {chosen}: unrecognized arguments: {' '.join(unknown)}"
        given = vars(namespace).pop("_model", None)
        name = model or given
        if name is None:
            raise PackError(
                f"no model: pass MODEL, or paste the launch command after `--` ({self.name} serve ...)"
            )
        user, shown = self.parse_flags(namespace, chosen)
        return Launch(
            engine=self.name,
            release=chosen,
            release_from=source,
            model=name,
            config_source=config_source_of(name, model_config, self.catalog()),
            model_config=model_config,
            node=node,
            user=user,
            argv=(*words, *argv),
            not_modelled=tuple(shown),
            env={**self.env_from_os(), **(command_env or {}), **(env or {})},
            image=image,
            rejected=rejected,
        )

    def lint_attempts(self, release: str) -> list[tuple[str, Any]]:
        """``resolvable lint``'s cases of ``release``: ``(label, thunk)`` pairs, each resolving
        one launch when called (default: every bundled model on every platform preset, no flags)."""
        from ._platform import Platform

        attempts = []
        for model in self.catalog():
            hf = self.load_model(model)
            for name in Platform.presets():
                platform = Platform.preset(name)
                attempts.append(
                    (
                        f"{model}@{name}@{release}",
                        lambda hf=hf, pl=platform: self.resolve(hf, pl, {}, release=release),
                    )
                )
        return attempts

    def lint_architectures(self) -> list[str]:
        """The architectures a rule predicate may name (``lint``'s dead-predicate check)."""
        return sorted(
            {a for m in self.catalog() for a in self.load_model(m).architectures}
            | self.registry.architectures()
        )

    def add_tool_options(self, parser: Any, command: str) -> tuple[str, ...]:
        """Add the pack's own tool options of launch command ``command`` (options that are not
        engine flags, e.g. an override of installed-kernel facts) to ``parser``; returns their
        ``dest`` names, which the front door copies into ``Launch.options`` (default: none)."""
        return ()

    def launch_config(self, launch: Any) -> Any:
        """The ``HFConfig`` a launch's model is read from (the stand-in when one is named)."""
        return self.load_model(launch.config_path)

    def launch_platform(self, launch: Any) -> Any:
        """The ``Platform`` of a launch's node (its preset, or this machine; ``--gpus``)."""
        from ._platform import Platform

        name = launch.node.platform
        plat = Platform.detect() if name == "detect" else Platform.preset(name)
        gpus = launch.node.gpus_per_node
        if gpus is not None and gpus != plat.device_count:
            from ._record import record_replace

            plat = record_replace(plat, device_count=gpus)
        return plat

    def resolve_kwargs(self, launch: Any) -> dict[str, Any]:
        """The user arguments ``resolve`` takes for a launch (default: ``launch.user``)."""
        return dict(launch.user)

    def not_applicable(self, res: Any, hf: Any = None) -> frozenset[str]:
        """The resolved fields that the model (``hf``, its config) or platform makes irrelevant
        (``explain`` and ``resolve`` leave them out unless ``--all``; default: none)."""
        return frozenset()

    def node_check(self, res: Any, hf: Any, launch: Any) -> None:
        """Refuse (``ConflictError``) a launch whose world size the node cannot hold, or whose
        heads TP cannot split, as the engine does (default: nothing to check)."""

    def memory_report(self, res: Any, hf: Any, launch: Any) -> Any:
        """The memory model's ``FitReport`` of a resolved launch (a ``MemoryModelError`` or
        ``PackError`` when it is not modelled here: the reason goes to the verdict's ``unknowns``)."""
        from .memory import checkpoint_total_size

        return self.memory_capacity(
            {k: res[k] for k in res},
            hf,
            device_name=res.platform.device_name,
            memory_gib=res.platform.memory_gib,
            index_total_size=checkpoint_total_size(launch.model),
        )

    def verdict(
        self,
        launch: Any,
        *,
        trace: bool = False,
        startup: bool = True,
        memory: bool = True,
        config: Any = None,
    ) -> tuple[Any, Any]:
        """``(resolution or None, Verdict)`` of a launch: the parser, argument resolution, the
        start-up checks, the node, then memory; the first refusal wins (``resolvable.verdict``).
        A refusal's fix is checked by resolving again with it before it is shown; the verdict
        carries it (``Verdict.refusal``) and the start-up checks passed (``Verdict.checks``).
        ``config`` is the launch's ``HFConfig`` when the caller has read it already (None:
        ``launch_config``)."""
        from dataclasses import replace

        from .errors import ConflictError
        from .verdict import Verdict, from_fit, from_refusal

        if launch.rejected is not None:
            return None, Verdict(
                "refused",
                stage="parse",
                rule=f"{self.name} {launch.release} argument parser",
                message=launch.rejected,
                fix=None,
            )
        hf = config if config is not None else self.launch_config(launch)
        platform = self.launch_platform(launch)
        env, user = dict(launch.env), self.resolve_kwargs(launch)
        try:
            res = self.resolve(hf, platform, env, release=launch.release, trace=trace, **user)
        except ConflictError as exc:
            checked = self.checked_fix(exc, hf, platform, env, user, release=launch.release)
            return getattr(exc, "resolution", None), from_refusal(checked, stage="resolve")
        passed: tuple[Any, ...] = ()
        if startup:
            try:
                passed = tuple(self.check_startup(res, hf, env))
                self.node_check(res, hf, launch)
            except ConflictError as exc:
                checked = self.checked_fix(exc, hf, platform, env, user, release=launch.release)
                refused = from_refusal(checked, stage=getattr(exc, "phase", None) or "startup")
                return res, replace(refused, checks=passed)
        if not memory:
            return res, Verdict("starts", checks_passed=len(passed), checks=passed)
        from .memory import MemoryModelError

        try:
            report, unknowns = self.memory_report(res, hf, launch), ()
        except (MemoryModelError, PackError) as exc:
            report, unknowns = None, (f"{MEMORY_UNKNOWN}{exc}",)
        return res, replace(from_fit(report, checks_passed=len(passed), unknowns=unknowns), checks=passed)

    # -- tables --------------------------------------------------------------------------------

    def capability_table(self, *args: Any, **kwargs: Any) -> Any:
        """The backend capability table (rows computed by resolving probe inputs)."""
        raise self._missing("capability_table")

    def memory_capacity(self, values: Mapping[str, Any], hf: Any, **kwargs: Any) -> Any:
        """The memory model's verdict for resolved ``values`` (``resolvable.memory``)."""
        raise self._missing("memory_capacity")

    def platform_facts(self, platform: Any) -> dict[str, bool]:
        """The platform predicates this pack's engine gates on (``define_platform_fact``), by the
        column name ``resolvable platforms`` shows them under (default: none)."""
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


#: name → "module:ATTRIBUTE" of its ``Pack``; the order is the order of ``names()`` and of
#: ``recognise`` (the first pack that recognises a command wins).
REGISTRY: dict[str, str] = {
    "sglang": "resolvable.sglang.pack:PACK",
    "vllm": "resolvable.vllm.pack:PACK",
}

_loaded: dict[str, Pack] = {}
#: How ``Pack.verdict`` lists a memory model that cannot size the launch in ``Verdict.unknowns``
#: (the reason follows).
MEMORY_UNKNOWN = "memory: "

_NAME = re.compile(r"[a-z][a-z0-9_-]*")
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def register(name: str, target: str) -> None:
    """Register the pack ``name`` as ``"module:ATTRIBUTE"`` (imported on first ``get``).

    A name already registered is replaced only by the same target (registering twice is
    harmless; two packs under one name are refused)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PackError(f"pack name {name!r}: use lower-case letters, digits, '-' and '_' (e.g. 'myengine')")
    if not isinstance(target, str) or not _TARGET.fullmatch(target):
        raise PackError(
            f"pack {name!r}: target {target!r} is not 'module:ATTRIBUTE' (e.g. 'mypack.pack:PACK')"
        )
    if REGISTRY.get(name, target) != target:
        raise PackError(
            f"pack {name!r} is already registered as {REGISTRY[name]}; unregister it first or pick another name"
        )
    REGISTRY[name] = target


def unregister(name: str) -> None:
    """Forget the pack ``name`` (tests; a third pack that is gone)."""
    REGISTRY.pop(name, None)
    _loaded.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered pack names, in registration order."""
    return tuple(REGISTRY)


def of_resolution(res: Any) -> Pack | None:
    """The registered pack whose registry made ``res`` (its ``ruleset`` is ``name@version``), or
    None when no registered pack's registry has that name."""
    name = str(getattr(res, "ruleset", "") or "").partition("@")[0]
    if not name:
        return None
    if name in REGISTRY and getattr(get(name).registry, "name", None) == name:
        return get(name)
    for other in REGISTRY:
        pack = get(other)
        if getattr(pack.registry, "name", None) == name:
            return pack
    return None


def get(name: str) -> Pack:
    """The pack registered as ``name`` (imported on first use). A pack whose module fails to
    import, whatever it raises, is a ``PackError`` naming the pack (issue 29)."""
    if not isinstance(name, str):
        raise PackError(
            f"a pack name is a string such as 'vllm', not {type(name).__name__} {_short(name)}; "
            f"registered: {', '.join(REGISTRY)}"
        )
    pack = _loaded.get(name)
    if pack is not None and REGISTRY.get(name) is not None:
        return pack
    target = REGISTRY.get(name)
    if target is None:
        from .errors import closest

        hint = closest(name, list(REGISTRY))
        raise PackError(
            f"no rule pack named {name!r}"
            + (f"; did you mean {hint!r}?" if hint else "")
            + f" (registered: {', '.join(REGISTRY)})"
        )
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or anything the pack's module raises on import
        from .errors import one_line

        detail = one_line(f"{type(exc).__name__}: {exc}")[:200]
        raise PackError(
            f"pack {name!r}: cannot import {module_name} ({detail}); fix or reinstall that pack, or "
            f"unregister it"
        ) from None
    pack = getattr(module, attr, None)
    if not isinstance(pack, Pack):
        raise PackError(
            f"pack {name!r}: {target} is {type(pack).__name__}, not a resolvable.packs.Pack instance"
        )
    if pack.name != name:
        raise PackError(f"pack {name!r}: {target} calls itself {pack.name!r}; register it under that name")
    _loaded[name] = pack
    return pack


def translation(source: str, target: str) -> Any:
    """The ``resolvable.translate.Table`` between the packs ``source`` and ``target``, whichever
    of the two holds it, or a ``PackError`` naming the pair."""
    for holder, other in ((source, target), (target, source)):
        table = get(holder).translations.get(other)
        if table is not None:
            return table
    raise PackError(
        f"no translation table between {source!r} and {target!r}; a pack declares it in Pack.translations"
    )


class _ParserRefusal(ResolvableError):
    """The engine's own argument parser refuses the launch (a bad value, a missing argument)."""


def _raising_parser_class() -> type:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:  # argparse would exit 2: the engine's refusal
            raise _ParserRefusal(f"{self.prog}: {message}")

    return Parser


def _raising_parser(**kwargs: Any) -> Any:
    return _raising_parser_class()(**kwargs)


def recognise(words: Sequence[str]) -> str | None:
    """The name of the pack whose engine the launch command ``words`` starts, or None.

    A pack that cannot be loaded (or whose ``recognises`` raises) does not hide the others: it
    is skipped, and named in a ``PackError`` only when no other pack recognises the command."""
    broken: list[str] = []
    for name in list(REGISTRY):
        try:
            if get(name).recognises(words):
                return name
        except PackError as exc:
            broken.append(str(exc))
        except Exception as exc:  # a third pack's recognises() failing
            broken.append(f"pack {name!r}: recognises() failed ({type(exc).__name__})")
    if broken:
        raise PackError(f"no working pack recognises this command; {'; '.join(broken)}")
    return None


def _short(value: object) -> str:
    from .errors import one_line

    text = one_line(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."
