"""Shared pieces of the CLI: parsing helpers, inputs (model, platform, env, flags), errors.

Invariant: every user mistake becomes a ``ResolvableError`` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any

from .._platform import Platform
from ..errors import ConflictError, ResolvableError, closest

EXIT_USAGE = 2


EXIT_FINDINGS = 1


class UsageError(ResolvableError):
    """A command-line mistake."""


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

    def error(self, message: str) -> Any:  # argparse's own usage errors: one line, exit 2
        match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            choices = re.findall(r"'([^']*)'", match.group(2))
            hint = closest(match.group(1), choices)
            message += f"; did you mean '{hint}'?" if hint else ""
        self.exit(EXIT_USAGE, f"error: {message} (see {self.see or f'`{self.prog} --help`'})\n")


#: Symbols of the text output and their ASCII stand-ins, for consoles that cannot show them.
ASCII_SYMBOLS = {"✓": "+", "✗": "x", "→": "->", "…": "...", "×": "x", "—": "-", "–": "-", "§": "S"}


def _ascii_stand_in(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    text = err.object[err.start : err.end]
    return "".join(ASCII_SYMBOLS.get(ch, "?") for ch in text), err.end


def use_ascii_where_needed(*streams: Any) -> None:
    """A console that cannot encode the symbols (cp1252, the Windows default) gets ASCII
    stand-ins for them instead of a UnicodeEncodeError."""
    import codecs

    codecs.register_error("resolvable.ascii", _ascii_stand_in)
    for stream in streams:
        encoding = getattr(stream, "encoding", None)
        if not encoding:
            continue  # an in-memory stream holds any text
        try:
            "".join(ASCII_SYMBOLS).encode(encoding)
        except (UnicodeEncodeError, LookupError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
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
    from ..sglang.api import env_from_os

    env = env_from_os()
    env.update(pasted or {})
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def _set_namespace(pairs: Sequence[str]) -> argparse.Namespace:
    """``--set FLAG=VALUE`` (SGLang flag or field name) → the parsed sglang namespace."""
    from ..sglang.cli_args import add_cli_args

    parser = _Parser(prog="--set", add_help=False)
    parser.see = "`resolvable explain --help` for the SGLang flags"
    add_cli_args(parser, skip=("model_path",))
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


def _parse_set(pairs: Sequence[str]) -> dict[str, Any]:
    """``--set FLAG=VALUE`` → the modelled user arguments (not-modelled flags get a note)."""
    from ..sglang.cli_args import parse_namespace

    if not pairs:
        return {}
    parsed = parse_namespace(_set_namespace(pairs))
    if parsed.shown:
        print(
            f"note: not modelled (accepted, no effect on the resolved fields): {' '.join(parsed.shown)}",
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
    from ..sglang.flags import chosen_release, option_history

    known = [s for a in parser._actions for s in a.option_strings]
    for token in extra:
        if not token.startswith("-"):
            raise UsageError(
                f"unexpected value {token!r} (sglang would reject it as an unrecognized argument)"
            )
        name = token.split("=", 1)[0]
        release = chosen_release()
        history = option_history(name, release)
        if history is not None:  # a real flag of another release: say which, not a near-miss
            raise UsageError(f"{name} is not a flag of sglang {release}; {history}")
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        extra_hint = f"; did you mean {hint[0]}?" if hint else f" (sglang {release} has no such flag)"
        raise UsageError(f"unknown flag {name}{extra_hint}")
    return []


class Pasted:
    """A pasted launch command: its environment, model and parsed sglang flags."""

    def __init__(self, launcher: str, env: dict[str, str], model: str | None, namespace: argparse.Namespace):
        self.launcher, self.env, self.model, self.namespace = launcher, env, model, namespace


def parse_pasted(tokens: Sequence[str]) -> Pasted:
    """Parse the words after ``--`` as sglang's own parser would (``prog`` ``sglang serve``)."""
    from ..sglang.cli_args import add_cli_args
    from ..sglang.launch import parse_launch

    launch = parse_launch(tokens)
    parser = _Parser(prog="sglang serve", add_help=False)
    add_cli_args(parser)
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
    from ..sglang import load_model, resolve_server_args

    parser = getattr(args, "not_modelled_values", {}).get("model_config_parser") or user.get(
        "model_config_parser"
    )
    hf = load_model(args.model, model_config_parser=parser or "auto")
    args.loaded_config = hf  # for the header: which values came from config-class defaults
    launch = getattr(args, "launch", None)
    platform = _platform(platform_name)
    env = _env(args.env, launch.env if launch is not None else None)
    sglang_version = version or getattr(args, "sglang_version", None)
    try:
        return resolve_server_args(
            hf, platform, env, model_path=args.model, trace=trace, sglang_version=sglang_version, **user
        )
    except ConflictError as exc:  # show a fix only after resolving again with it
        from ..sglang.fixes import with_checked_fix

        raise with_checked_fix(
            exc, hf, platform, env, {**user, "model_path": args.model}, sglang_version=sglang_version
        ) from None


def release_of_rule(rule: str, location: str) -> str | None:
    """The release range of the pack's rule ``rule`` at ``location`` in words (``since 0.5.15``),
    or None when the rule applies to every release (or is not a registered rule)."""
    from ..sglang import registry
    from ..sglang.api import rule_releases

    releases = rule_releases(rule, location)
    return None if releases is None or releases.unbounded else releases.describe(registry.releases)


def _startup(args: argparse.Namespace, res: Any) -> tuple[tuple[Any, ...], ConflictError | None]:
    """The start-up checks (after ServerArgs) of ``res``: (checks passed, None) or ((), refusal);
    ((), None) with ``--no-startup-check``."""
    from ..sglang import check_startup, load_model

    if not getattr(args, "startup_check", True):
        return (), None

    try:
        return check_startup(res, load_model(args.model), _env(args.env)), None
    except ConflictError as exc:
        return (), exc


def _user_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The modelled flags (pasted command, then flags given to resolvable, then ``--set``), after
    sglang's input normalisation. Sets ``args.not_modelled`` (as typed) and ``args.input_notes``."""
    from ..sglang.cli_args import PASSED, parse_namespace
    from ..sglang.flags import load_table, modelled_dests

    dests = load_table().dests | modelled_dests()
    merged = argparse.Namespace()
    passed: list[Any] = []
    sources = [getattr(args, "launch", None) and args.launch.namespace, args]
    if getattr(args, "set", None):
        sources.append(_set_namespace(args.set))
    for ns in sources:
        if ns is None:
            continue
        for key, value in vars(ns).items():
            if key in dests and key != "model_path":
                setattr(merged, key, value)
        passed += getattr(ns, PASSED, [])
    setattr(merged, PASSED, passed)
    parsed = parse_namespace(merged)
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
        f"model     {args.model}  [{res.arch}]",
        f"platform  {platform.name}: {platform.describe()}"
        + (f"  (detected by {platform.detected_by})" if platform.name == "detected" else ""),
        f"flags     {flags}",
        f"rules     sglang {res.release} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
    ]
    launch = getattr(args, "launch", None)
    if launch is not None:
        lines.insert(0, f"command   {launch.launcher}" + "".join(f"  {k}={v}" for k, v in launch.env.items()))
        from ..sglang.api import ENV_VARS

        # Every variable of the launch is accounted for: the rules read ENV_VARS, nothing else.
        other = [f"{k}={v}" for k, v in launch.env.items() if k not in ENV_VARS]
        if other:
            lines.append(f"env       not modelled (not read by the rules): {', '.join(other)}")
    shown = getattr(args, "not_modelled", None)
    if shown:
        lines.append(
            f"not modelled  {', '.join(shown)}: accepted, does not affect the resolved fields in this pack"
        )
    lines += [f"note      {n}" for n in getattr(args, "input_notes", ())]
    if platform.vendor == "cpu" and str(platform.detected_by or "").startswith("fallback to CPU"):
        lines.append(
            "note      no GPU detected: resolving for this machine's CPU; "
            "simulate a GPU with --platform PRESET (e.g. --platform h100; `resolvable platforms` lists them)"
        )
    lines += [f"note      {n}" for n in res.notes]
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
        print(f"note: ignored: {' '.join(ignored)}", file=sys.stderr)


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
