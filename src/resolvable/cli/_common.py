"""Shared pieces of the CLI: parsing helpers, inputs (model, platform, env, flags), errors.

Invariant: every user mistake becomes a ``ResolvableError`` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._platform import Platform
from ..errors import ConflictError, ResolvableError, closest, one_line
from ..packs import Pack

EXIT_USAGE = 2


def pack(name: str) -> Pack:
    """The rule pack ``name`` (``resolvable.packs``): the CLI's only way into a pack."""
    return packs.get(name)


def engine_named(argv: Sequence[str]) -> str | None:
    """The pack ``--engine NAME`` (or ``--engine=NAME``) names in ``argv``, or None."""
    for i, token in enumerate(argv):
        if token == "--engine" and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith("--engine="):
            return token.partition("=")[2]
    return None


EXIT_FINDINGS = 1


class UsageError(ResolvableError):
    """A command-line mistake."""


class EngineFlagError(UsageError):
    """An engine flag the release does not accept: the engine's own parser refuses the launch, so
    it would not start (exit 1, not the tool's input error)."""


class FlagError(EngineFlagError):
    """A flag the release being parsed does not accept (one side of a comparison may lack it)."""


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a wrapped line never breaks inside a name such as ``xpu-noxmx``."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    #: Where to read about the flags, in the error line (a command that exists; default: this one's help).
    see: str | None = None

    #: Raise ``FlagError`` instead of printing and exiting (parsing one side of a comparison).
    raise_errors = False

    #: The engine release whose flags this parser holds (None: the default release); set by
    #: whoever adds the flags, so that an error names the release the launch was read with.
    release: str | None = None

    #: A launch command's parser (explain, resolve): an engine flag's value that argparse refuses
    #: is the engine's parser refusing the launch (``EngineFlagError``, exit 1), not a usage error.
    engine_refusals = False

    def exit(self, status: int = 0, message: str | None = None) -> Any:  # type: ignore[override]
        """argparse's exit, its message redacted as every error line is (``cli._say``)."""
        if message:
            from ..hub._secrets import redact

            message = redact(message)
        super().exit(status, message)

    def error(self, message: str) -> Any:  # argparse's own usage errors: one line, exit 2
        ambiguous = re.match(r"ambiguous option: (\S+?)(=\S*)? could match", message)
        if ambiguous:  # a flag of another release that is now a prefix of this one's flags
            sglang = default_pack()
            release = sglang.release(self.release)
            history = sglang.option_history(ambiguous.group(1), release)
            if history is not None:
                message = f"{ambiguous.group(1)} is not a flag of sglang {release}; {history}"
                if _Parser.raise_errors:
                    raise FlagError(message)
                self.exit(EXIT_USAGE, f"error: {message}\n")
        if _Parser.raise_errors:
            raise FlagError(message)
        match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            choices = re.findall(r"'([^']*)'", match.group(2))
            hint = closest(match.group(1), choices)
            message += f"; did you mean '{hint}'?" if hint else ""
        see = self.see or f"`{self.prog} --help`"
        if self.engine_refusals and _engine_flag_error(self, message):  # the engine refuses: exit 1
            raise EngineFlagError(f"{one_line(message)} (see {one_line(see)})")
        self.exit(EXIT_USAGE, f"error: {one_line(message)} (see {one_line(see)})\n")


def _engine_flag_error(parser: argparse.ArgumentParser, message: str) -> bool:
    """Whether argparse's ``message`` is about one of the engine's flags (an action of the argument
    groups ``Pack.add_cli_args`` added), not one of the tool's own options."""
    found = re.match(r"argument (\S+?): ", message)
    if found is None:
        return False
    names = set(found.group(1).split("/"))
    for group in parser._action_groups:
        if group.title in ("positional arguments", "options", "optional arguments"):
            continue
        if any(names & set(action.option_strings) for action in group._group_actions):
            return True
    return False


#: Symbols of the text output and their ASCII stand-ins, for consoles that cannot show them.
ASCII_SYMBOLS = {"✓": "+", "✗": "x", "→": "->", "…": "...", "×": "x", "—": "-", "–": "-", "§": "S"}


def _ascii_stand_in(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    text = err.object[err.start : err.end]
    return "".join(
        ASCII_SYMBOLS.get(ch) or ch.encode("ascii", "backslashreplace").decode() for ch in text
    ), err.end


def use_ascii_where_needed(*streams: Any) -> None:
    """A stream never fails on a character it cannot encode: a console that cannot encode the
    symbols (cp1252, the Windows default) gets ASCII stand-ins for them, and any other character
    it cannot encode (a lone surrogate from an undecodable file name, even on a UTF-8 stream) is
    written as its escape (``\\udce9``) instead of raising UnicodeEncodeError."""
    import codecs

    codecs.register_error("resolvable.ascii", _ascii_stand_in)
    for stream in streams:
        encoding = getattr(stream, "encoding", None)
        if not encoding or getattr(stream, "errors", None) == "resolvable.ascii":
            continue  # an in-memory stream holds any text
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a detached or closed stream
                reconfigure(errors="resolvable.ascii")


def _platform(name: str) -> Platform:
    if name == "detect":
        check_platform_env()
        return Platform.detect()
    return Platform.preset(name)


def check_platform_env() -> None:
    """``RESOLVABLE_PLATFORM`` names a preset, or the command stops (detection would ignore it)."""
    import os

    from .._platform import PLATFORM_ENV_VAR
    from ..errors import UnknownPresetError

    name = os.environ.get(PLATFORM_ENV_VAR)
    if not name:
        return
    try:
        Platform.preset(name)
    except UnknownPresetError:
        presets = list(Platform.presets())
        hint = closest(name.strip().lower(), presets)
        extra = f" Did you mean --platform {hint} (or {PLATFORM_ENV_VAR}={hint})?" if hint else ""
        raise UnknownPresetError(
            f"{PLATFORM_ENV_VAR}={name!r} is not a platform preset.{extra} "
            f"Valid presets: {', '.join(presets)}; unset {PLATFORM_ENV_VAR} to detect this machine"
        ) from None


def _env(pairs: Sequence[str], pasted: dict[str, str] | None = None) -> dict[str, str]:
    """The environment the rules see: this shell's SGLang variables, then the pasted command's
    ``KEY=VALUE`` assignments (as sglang would see them), then ``--env`` (it has the last word)."""
    env = default_pack().env_from_os()
    env.update(pasted or {})
    env.update(_env_pairs(pairs))
    return env


def _env_pairs(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--env KEY=VALUE`` pairs as a dict (a pair without ``=`` or key is a ``UsageError``)."""
    env: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def unread_env(args: argparse.Namespace) -> dict[str, str]:
    """The launch's environment assignments (pasted ``KEY=VALUE`` words and ``--env``) that no rule
    reads (not in ``sglang.api.ENV_VARS``): listed as not modelled, never dropped silently."""
    env_vars = default_pack().env_vars
    launch = getattr(args, "launch", None)
    given = dict(launch.env) if launch is not None else {}
    for pair in getattr(args, "env", None) or ():
        key, _, value = pair.partition("=")
        given[key] = value
    return {k: v for k, v in given.items() if k not in env_vars}


def _set_namespace(pairs: Sequence[str], release: str | None = None) -> argparse.Namespace:
    """``--set FLAG=VALUE`` (SGLang flag or field name) → the namespace sglang ``release``'s
    flag table parses (None: the default release)."""
    parser = _Parser(prog="--set", add_help=False)
    parser.see = "`resolvable explain --help` for the SGLang flags"
    parser.release = release
    default_pack().add_cli_args(parser, release, skip=("model_path",))
    argv: list[str] = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        flag = "--" + key.lstrip("-").replace("_", "-")
        if not sep:
            argv.append(flag)  # boolean switch
        elif value.lower() in ("true", "false") and _is_switch(parser, flag):
            if value.lower() == "true":
                argv.append(flag)
        else:
            argv += [flag, value]
    namespace, extra = parser.parse_known_args(argv)
    _check_extras(parser, extra, strict=True)
    return namespace


def _parse_set(pairs: Sequence[str], release: str | None = None) -> dict[str, Any]:
    """``--set FLAG=VALUE`` → the modelled user arguments of ``release``'s flags (not-modelled
    flags get a note)."""
    if not pairs:
        return {}
    parsed = default_pack().parse_namespace(_set_namespace(pairs, release), release=release)
    if parsed.shown:
        print(
            one_line(
                f"note: not modelled (accepted, no effect on the resolved fields): {' '.join(parsed.shown)}"
            ),
            file=sys.stderr,
        )
    return parsed.user


def _is_switch(parser: argparse.ArgumentParser, flag: str) -> bool:
    for action in parser._actions:
        if flag in action.option_strings:
            return action.nargs == 0
    return False


def _check_extras(parser: argparse.ArgumentParser, extra: list[str], *, strict: bool = False) -> list[str]:
    """Unknown flags are errors (the flag table holds every flag sglang accepts). A flag of
    another sglang release says which release added or removed it; otherwise a near-miss of a
    known flag names it."""
    sglang = default_pack()
    release = sglang.release(getattr(parser, "release", None))
    known = [s for a in parser._actions for s in a.option_strings]
    for token in extra:
        if not token.startswith("-"):
            raise EngineFlagError(
                f"unexpected value {token!r} (sglang would reject it as an unrecognized argument)"
            )
        name = token.split("=", 1)[0]
        history = sglang.option_history(name, release)
        if history is not None:  # a real flag of another release: say which, not a near-miss
            raise FlagError(f"{name} is not a flag of sglang {release}; {history}")
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        extra_hint = f"; did you mean {hint[0]}?" if hint else f" (sglang {release} has no such flag)"
        raise EngineFlagError(f"unknown flag {name}{extra_hint}")
    return []


class Pasted:
    """A pasted launch command: its environment, model and parsed sglang flags."""

    def __init__(self, launcher: str, env: dict[str, str], model: str | None, namespace: argparse.Namespace):
        self.launcher, self.env, self.model, self.namespace = launcher, env, model, namespace


def parse_pasted(tokens: Sequence[str], release: str | None = None) -> Pasted:
    """Parse the words after ``--`` as sglang ``release``'s own parser would (``prog``
    ``sglang serve``; None: the default release)."""
    sglang = default_pack()
    launch = sglang.parse_launch(tokens)
    parser = _Parser(prog="sglang serve", add_help=False)
    parser.engine_refusals = True  # the launch's own parser: a value it refuses is a refusal (1)
    parser.release = release
    sglang.add_cli_args(parser, release)
    namespace, extra = parser.parse_known_args(launch.argv)
    _check_extras(parser, extra, strict=True)
    model = vars(namespace).pop("model_path", None)
    return Pasted(launch.launcher, launch.env, model, namespace)


def _resolve(
    args: argparse.Namespace,
    platform_name: str,
    user: dict[str, Any],
    *,
    trace: bool = False,
    version: str | None = None,
) -> Any:
    """Resolve the command's model on a platform for ``version`` (default: ``--sglang-version``);
    a refusal's fix is checked by resolving again with it before it is shown."""
    from ..errors import ConflictError

    sglang = default_pack()
    hf = model_config(args, user)
    launch = getattr(args, "launch", None)
    platform = _platform(platform_name)
    env = _env(args.env, launch.env if launch is not None else None)
    sglang_version = version or getattr(args, "sglang_version", None)
    try:
        return sglang.resolve(
            hf, platform, env, model_path=args.model, trace=trace, release=sglang_version, **user
        )
    except ConflictError as exc:  # show a fix only after resolving again with it
        raise sglang.checked_fix(
            exc, hf, platform, env, {**user, "model_path": args.model}, release=sglang_version
        ) from None


def launch_of(args: argparse.Namespace, user: dict[str, Any]) -> Any:
    """The ``Launch`` of the default command set's parsed arguments (``user``: the modelled flags
    of the pasted command, the flags beside it and ``--set``, from ``_user_flags``), for
    ``Pack.verdict``; ``RESOLVABLE_PLATFORM`` is checked when the platform is detected."""
    from ..launch import Launch, Node, config_source_of

    engine = default_pack()
    if args.platform == "detect":
        check_platform_env()
    front = getattr(args, "front_launch", None)
    if front is not None:  # read by the front door: the launch itself
        return front.replace(user={k: v for k, v in user.items() if k != "model_path"})
    pasted = getattr(args, "launch", None)
    named = getattr(args, engine.release_option.removeprefix("--").replace("-", "_"), None)
    stand_in = getattr(args, "model_config", None)
    release = engine.release(named)
    source = "default" if named is None else "command" if named == "auto" else "flag"
    command = getattr(args, "pasted_command", None)  # a docker image's tag named the release
    image = None
    if command is not None and command.image is not None:
        image = command.image if command.tag is None else f"{command.image}:{command.tag}"
        if command.tag is not None and source == "flag" and engine.tag_release(command.tag) == release:
            source = "image-tag"
    return Launch(
        engine=engine.name,
        release=release,
        release_from=source,
        image=image,
        model=args.model,
        config_source=config_source_of(args.model, stand_in, engine.catalog()),
        model_config=stand_in,
        node=Node(args.platform, getattr(args, "gpus", None), used_gib=getattr(args, "used_gib", 0.0) or 0.0),
        user={k: v for k, v in user.items() if k != "model_path"},
        not_modelled=tuple(getattr(args, "not_modelled", ())),
        not_modelled_values=dict(getattr(args, "not_modelled_values", {}) or {}),
        env=_env(args.env, pasted.env if pasted is not None else None),
        launcher=pasted.launcher if pasted is not None else None,
        notes=tuple(getattr(args, "input_notes", ())),
    )


def default_pack() -> Pack:
    """The pack of the default command set (``explain``, ``resolve``, ``matrix`` … without
    ``--engine`` or a pasted command of another engine): the first registered, whose flags the
    default parser holds (``cli.__init__``; the others have their own ``Pack.frontend``)."""
    return packs.get(packs.names()[0])


def model_config(args: argparse.Namespace, user: dict[str, Any] | None = None) -> Any:
    """The config of the command's model, read once per command (``args.loaded_config``).

    ``--config PATH|SAMPLE`` names the config that stands for the model (a launch's local
    ``--model-path`` that is not on this machine); otherwise MODEL is read by ``load_model``,
    fetching a hub id that is not cached, at sglang's ``--revision`` when one is given."""
    load_model = default_pack().load_model
    cached = getattr(args, "loaded_config", None)
    if cached is not None:
        return cached
    not_modelled = getattr(args, "not_modelled_values", None) or {}
    parser = not_modelled.get("model_config_parser") or (user or {}).get("model_config_parser") or "auto"
    stand_in = getattr(args, "model_config", None)
    if stand_in is not None:
        hf = load_model(stand_in, model_config_parser=parser)
    else:
        hf = load_model(
            args.model,
            model_config_parser=parser,
            revision=model_revision(args),
            hub_timeout=getattr(args, "hub_timeout", None),
        )
    args.loaded_config = hf  # also for the header: which values came from config-class defaults
    return hf


def model_revision(args: argparse.Namespace) -> str | None:
    """sglang's ``--revision`` (the hub branch, tag or commit), from the pasted command or the flags."""
    launch = getattr(args, "launch", None)
    pasted = getattr(launch.namespace, "revision", None) if launch is not None else None
    return getattr(args, "revision", None) or pasted


def flag_refusal(error: Exception, release: str) -> ConflictError:
    """A flag that sglang ``release``'s parser refuses, as a refusal of that side (with the
    replacement the flag tables or the release logs name)."""
    message = str(error)
    use = re.search(r", use (.+)$", message)
    refusal = ConflictError(
        message,
        fix=f"use {use.group(1)} on sglang {release}" if use else None,
        upstream="SystemExit (argparse: sglang's parser exits with status 2)",
    )
    refusal.rule = "sglang's argument parser"
    refusal.location = f"resolvable/sglang/flags/sglang-{default_pack().flag_table(release).release}.json"
    refusal.stage = "parse"
    return refusal


def release_of_rule(rule: str, location: str, res: Any = None) -> str | None:
    """The release range of the pack's rule ``rule`` at ``location`` in words, with the engine's
    name (``sglang since 0.5.15``), or None when the rule applies to every release (or is not a
    registered rule); with the resolution ``res``, the pack is the one whose registry made it and
    the range is narrowed by the named changes the rule asked there."""
    pack = packs.of_resolution(res) or default_pack()
    releases = pack.rule_releases(rule, location, res)
    return (
        None if releases is None or releases.unbounded else f"{pack.name} {releases.describe(pack.releases)}"
    )


def _startup(args: argparse.Namespace, res: Any) -> tuple[tuple[Any, ...], ConflictError | None]:
    """The start-up checks (after ServerArgs) of ``res``: (checks passed, None) or ((), refusal);
    ((), None) with ``--no-startup-check``."""
    if not getattr(args, "startup_check", True):
        return (), None

    try:
        launch = getattr(args, "launch", None)  # the pasted command's KEY=VALUE words count too
        env = _env(args.env, launch.env if launch is not None else None)
        return default_pack().check_startup(res, model_config(args), env), None
    except ConflictError as exc:
        return (), exc


def _user_flags(args: argparse.Namespace, release: str | None = None) -> dict[str, Any]:
    """The modelled flags (pasted command, then flags given to resolvable, then ``--set``), after
    the input normalisation of sglang ``release`` (default: ``args.flags_release``, the release
    whose flag table parsed ``args``). Sets ``args.not_modelled`` (as typed) and ``args.input_notes``."""
    front = getattr(args, "front_launch", None)
    if front is not None:  # read by the front door (cli.frontdoor.read_launch, Pack.build_launch)
        args.not_modelled = list(front.not_modelled)
        args.not_modelled_values = dict(front.not_modelled_values)
        args.input_notes = list(front.notes)
        return dict(front.user)
    sglang = default_pack()
    if release is None:
        release = getattr(args, "flags_release", None)
    PASSED = sglang.passed_attr
    dests = sglang.flag_table(release).dests | sglang.modelled_dests()
    merged = argparse.Namespace()
    passed: list[Any] = []
    sources = [getattr(args, "launch", None) and args.launch.namespace, args]
    if getattr(args, "set", None):
        sources.append(_set_namespace(args.set, release))
    for ns in sources:
        if ns is None:
            continue
        for key, value in vars(ns).items():
            if key in dests and key != "model_path":
                setattr(merged, key, value)
        passed += getattr(ns, PASSED, [])
    setattr(merged, PASSED, passed)
    parsed = sglang.parse_namespace(merged, release=release)
    args.not_modelled = parsed.shown
    args.not_modelled_values = parsed.not_modelled
    args.input_notes = parsed.notes
    return parsed.user


def _header(res: Any, args: argparse.Namespace, user: dict[str, Any]) -> list[str]:
    platform = res.platform
    flags = (
        " ".join(
            f"--{k.replace('_', '-')} {v}" if v is not True else f"--{k.replace('_', '-')}"
            for k, v in user.items()
        )
        or "(none)"
    )
    lines = [
        f"model     {one_line(str(args.model))}  [{one_line(str(res.arch))}]",
        f"platform  {platform.name}: {platform.describe()}"
        + (f"  (detected by {platform.detected_by})" if platform.name == "detected" else ""),
        f"flags     {flags}",
        f"rules     sglang {res.release} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
    ]
    judged = getattr(args, "judged", None)  # the Launch judged (``launch_of``): release and node
    if judged is not None:
        from .render import node_line, release_line, release_note

        engine = default_pack()
        command = getattr(args, "pasted_command", None)
        lines += [
            release_line(engine, judged, release_note(engine, judged, command)),
            node_line(platform, judged.node),
        ]
    launch = getattr(args, "launch", None)
    if launch is not None:
        lines.insert(0, f"command   {launch.launcher}" + "".join(f"  {k}={v}" for k, v in launch.env.items()))
        # Every variable of the launch is accounted for: the rules read ENV_VARS, nothing else.
        env_vars = default_pack().env_vars
        other = [f"{k}={v}" for k, v in launch.env.items() if k not in env_vars]
        if other:
            lines.append(f"env       not modelled (not read by the rules): {', '.join(other)}")
    shown = getattr(args, "not_modelled", None)
    if shown:
        lines.append(
            f"not modelled  {', '.join(shown)}: accepted, does not affect the resolved fields in this pack"
        )
    unread = unread_env(args)
    if unread:
        lines.append(
            f"not modelled  env {' '.join(f'{k}={v}' for k, v in unread.items())}: no rule of this pack reads it"
        )
    lines += [f"note      {n}" for n in getattr(args, "input_notes", ())]
    if platform.vendor == "cpu" and str(platform.detected_by or "").startswith("fallback to CPU"):
        lines.append(
            "note      no GPU detected: resolving for this machine's CPU; "
            "simulate a GPU with --platform PRESET (e.g. --platform h100; `resolvable platforms` lists them)"
        )
    lines += [f"note      {n}" for n in res.notes]
    stand_in = getattr(args, "model_config", None)
    if stand_in is not None:
        lines.append(f"config    read from {stand_in} (--model-config), standing for {args.model}")
    lines += config_origin_lines(getattr(args, "loaded_config", None))
    return lines


def config_origin_lines(hf: Any) -> list[str]:
    """One line per config value that is not in config.json as written (a config-class default,
    a derived value, sglang's reading of params.json / hf_quant_config.json)."""
    if hf is None:
        return []
    lines = [
        f"config    {key}={hf_value(hf, key)!r} from {origin}" for key, origin in sorted(hf.origins.items())
    ]
    lines += [f"config    also read {side.source}" for side in hf.sidecars.values()]
    return lines


def hf_value(hf: Any, dotted: str) -> Any:
    outer, dot, inner = dotted.partition(".")
    value = hf.get(outer)
    return value.get(inner) if dot and hasattr(value, "get") else value


def _report_ignored(ignored: list[str]) -> None:
    if ignored:
        print(one_line(f"note: ignored: {' '.join(ignored)}"), file=sys.stderr)


def _csv_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def refusal_phase(exc: ConflictError) -> str:
    """``"server_args"`` for a refusal while resolving, else the check phase (``"startup"``)."""
    return exc.phase or "server_args"


def refusal_prefix(exc: ConflictError) -> str:
    """How the one-line error names a refusal: ``refused`` or ``refused at start-up (after ServerArgs)``."""
    return "refused at start-up (after ServerArgs)" if exc.phase == "startup" else "refused"


def refusal_json(exc: ConflictError) -> dict[str, object]:
    """A refused configuration as the ``resolvable.refusal/1`` JSON document."""
    return {
        "schema": "resolvable.refusal/1",
        "rule": exc.rule,
        "location": exc.location,
        "message": exc.message,
        "fix": exc.fix,
        "fix_check": exc.fix_check.to_dict() if exc.fix_check is not None else None,  # type: ignore[attr-defined]
        "upstream": exc.upstream,
        "fields": list(exc.fields),
        "origins": {
            f: {"value": v, "set_by": who, "location": loc} for f, (v, who, loc) in exc.origins.items()
        },
        "phase": refusal_phase(exc),
        "stage": exc.stage,
    }
