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
from ..errors import ResolvableError, closest

EXIT_USAGE = 2


EXIT_FINDINGS = 1


class UsageError(ResolvableError):
    """A command-line mistake."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own usage errors: one line, exit 2
        match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            choices = re.findall(r"'([^']*)'", match.group(2))
            hint = closest(match.group(1), choices)
            message += f"; did you mean '{hint}'?" if hint else ""
        self.exit(EXIT_USAGE, f"error: {message} (see `{self.prog} --help`)\n")


def _platform(name: str) -> Platform:
    if name == "detect":
        return Platform.detect()
    return Platform.preset(name)


def _env(pairs: Sequence[str]) -> dict[str, str]:
    from ..sglang.api import env_from_os

    env = env_from_os()
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def _parse_set(pairs: Sequence[str]) -> dict[str, Any]:
    """``--set FLAG=VALUE`` (SGLang flag or field name) → typed user arguments."""
    from ..sglang.cli_args import add_cli_args

    if not pairs:
        return {}
    parser = _Parser(prog="--set", add_help=False)
    add_cli_args(parser, skip=("model_path",))
    argv: list[str] = []
    for pair in pairs:
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
    return vars(namespace)


def _is_switch(parser: argparse.ArgumentParser, flag: str) -> bool:
    for action in parser._actions:
        if flag in action.option_strings:
            return action.nargs == 0
    return False


def _check_extras(parser: argparse.ArgumentParser, extra: list[str], *, strict: bool = False) -> list[str]:
    """Unknown flags: a near-miss of a known flag is an error; others are reported as ignored."""
    known = [s for a in parser._actions for s in a.option_strings]
    ignored = []
    for token in extra:
        if not token.startswith("-"):
            if strict:
                raise UsageError(f"unexpected value {token!r}")
            ignored.append(token)
            continue
        name = token.split("=", 1)[0]
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        if hint or strict:
            extra_hint = f"; did you mean {hint[0]}?" if hint else ""
            raise UsageError(f"unknown flag {name}{extra_hint}")
        ignored.append(token)
    return ignored


def _resolve(
    args: argparse.Namespace, platform_name: str, user: dict[str, Any], *, trace: bool = False
) -> Any:
    from ..sglang import load_model, resolve_server_args

    hf = load_model(args.model, model_config_parser=user.get("model_config_parser") or "auto")
    args.loaded_config = hf  # for the header: which values came from config-class defaults
    return resolve_server_args(
        hf, _platform(platform_name), _env(args.env), model_path=args.model, trace=trace, **user
    )


def _user_flags(args: argparse.Namespace) -> dict[str, Any]:
    from ..sglang.cli_args import user_args_from_namespace

    user = user_args_from_namespace(args)
    user.pop("model_path", None)
    user.update(_parse_set(getattr(args, "set", None)))
    return user


def _header(res: Any, args: argparse.Namespace, user: dict[str, Any]) -> list[str]:
    from ..sglang import SGLANG_VERSION

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
        f"rules     sglang {SGLANG_VERSION} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
    ]
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
        print(f"note: ignored (not modelled by resolvable): {' '.join(ignored)}", file=sys.stderr)


def _csv_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]
