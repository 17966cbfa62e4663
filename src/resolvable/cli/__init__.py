"""The ``resolvable`` command: explain, resolve, diff, upgrade, matrix, backends, platforms, models, lint,
docs.

Invariants: every user error (unknown model, unreadable config, unknown preset, bad flag
value, refused configuration) prints one ``error:`` line with the fix and exits 2 — never a
traceback; ``--json`` output has a documented, versioned schema (docs/cli-json.md); the
platform is simulated from a preset unless ``--platform detect``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import ConflictError, ResolvableError
from . import backends as _backends
from . import vllm as _vllm
from ._common import (
    EXIT_USAGE,
    UsageError,
    _check_extras,
    _Parser,
    _report_ignored,
    refusal_json,
    refusal_prefix,
    use_ascii_where_needed,
)
from .commands import cmd_diff, cmd_lint, cmd_matrix, cmd_models, cmd_platforms, cmd_resolve
from .docs import cmd_docs, generate_docs, rules_reference
from .explain import cmd_explain
from .parity import cmd_parity
from .upgrade import cmd_upgrade

__all__ = ["build_parser", "generate_docs", "main", "rules_reference"]


def _add_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--engine",
        choices=("sglang", "vllm"),
        default="sglang",
        help="rule pack: sglang (default) or vllm (vLLM flag names; see `resolvable explain M --engine vllm -h`)",
    )


def _add_model_inputs(p: argparse.ArgumentParser, *, platform_default: str) -> None:
    from .._platform import Platform
    from ..sglang.cli_args import add_cli_args

    p.add_argument(
        "model",
        nargs="?",
        help="bundled sample name, config.json, model directory, or hub repo id; or paste the whole "
        "launch command after `--`: -- python -m sglang.launch_server --model-path X ...",
    )
    _add_engine(p)
    p.add_argument(
        "--platform",
        default=platform_default,
        metavar="PRESET",
        help=f"platform preset to simulate: {', '.join(Platform.presets())}; or 'detect' for this machine "
        f"(default: {platform_default})",
    )
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (schema in docs/cli-json.md)")
    _add_sglang_version(p)
    add_cli_args(p, skip=("model_path",))


def _add_sglang_version(p: argparse.ArgumentParser, flag: str = "--sglang-version", **kw: Any) -> None:
    from ..sglang import SGLANG_RELEASES, registry

    default = registry.default_release
    newest = ", the newest supported" if default == SGLANG_RELEASES[-1] else ""
    p.add_argument(
        flag,
        metavar="VERSION",
        help=kw.pop("help", None)
        or f"sglang release to model: {', '.join(SGLANG_RELEASES)}, or 'auto' for the installed one "
        f"(default: {default}{newest})",
        **kw,
    )


def build_parser() -> argparse.ArgumentParser:
    default_platform = "detect"
    parser = _Parser(
        prog="resolvable",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"resolvable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("explain", help="why each resolved field has its value (and why not another)")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument(
        "--field", help="explain only this field (default: every field that differs from its default)"
    )
    p.add_argument(
        "--why-not", metavar="VALUE", help="would FIELD=VALUE be accepted? who rejects or overrides it?"
    )
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.add_argument(
        "--no-startup-check",
        dest="startup_check",
        action="store_false",
        help="answer only what ServerArgs decides (skip the start-up check, after ServerArgs)",
    )
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("resolve", help="all resolved values and the published runtime context")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.add_argument(
        "--no-startup-check",
        dest="startup_check",
        action="store_false",
        help="answer only what ServerArgs decides (skip the start-up check, after ServerArgs)",
    )
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser(
        "diff", help="what changes between two platforms or flag sets, and which rule changes it"
    )
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--vs-platform", help="the platform preset to compare with")
    _add_sglang_version(p, "--vs-sglang-version", help="the sglang release to compare with (upgrade impact)")
    p.add_argument(
        "--vs-set", action="append", metavar="FLAG=VALUE", default=[], help="extra flag on the right side"
    )
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser(
        "upgrade", help="what an sglang upgrade changes for one launch: fields, deciding rules, outcome"
    )
    _add_model_inputs(p, platform_default=default_platform)
    _add_sglang_version(
        p,
        "--from",
        dest="from_version",
        help="the release you run now (default: auto, else the oldest supported)",
    )
    _add_sglang_version(
        p, "--to", dest="to_version", help="the release to upgrade to (default: the newest supported)"
    )
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_upgrade)

    p = sub.add_parser("matrix", help="models × platforms support table (text, md, csv, json, html)")
    p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
    p.add_argument(
        "--platforms", help="comma-separated presets (default: every preset; see `resolvable platforms`)"
    )
    p.add_argument("--fields", help="comma-separated fields per cell (default: attention_backend,page_size)")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help="SGLang flag applied to every cell")
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules"
    )
    p.add_argument("--format", choices=("text", "md", "csv", "json", "html"), default="text")
    p.add_argument("-o", "--output", help="write to FILE instead of stdout")
    p.add_argument(
        "--no-startup-check",
        dest="startup_check",
        action="store_false",
        help="answer only what ServerArgs decides (skip the start-up check, after ServerArgs)",
    )
    _add_sglang_version(p)
    _add_sglang_version(
        p,
        "--vs-sglang-version",
        help="list only the cells that change from --sglang-version to this release (upgrade impact), "
        "with the rule on each side",
    )
    _add_engine(p)
    p.set_defaults(func=cmd_matrix)

    _add_sglang_version(_backends.add_parser(sub))

    p = sub.add_parser("platforms", help="platform presets and their facts; --detect for this machine")
    p.add_argument("--detect", action="store_true", help="show what this machine is and how it was detected")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_platforms)

    p = sub.add_parser("models", help="the bundled model configs")
    p.add_argument("--json", action="store_true")
    _add_engine(p)
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("lint", help="check the rule registry over bundled models × presets × flag variants")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser(
        "parity", help="compare your procedural config function with the SGLang rules over the grid"
    )
    p.add_argument(
        "target", metavar="MODULE:FUNCTION", help="fn(args, hf, platform, env) that mutates args in place"
    )
    p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
    p.add_argument("--platforms", help="comma-separated presets (default: every preset)")
    p.add_argument("--fields", help="compare only these fields (default: every resolvable field)")
    p.add_argument(
        "--set", action="append", metavar="FLAG=VALUE", help="one flag set instead of the grid's variants"
    )
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by both sides"
    )
    p.add_argument("--limit", type=int, default=20, help="divergences to print (default: 20)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_parity)

    p = sub.add_parser("docs", help="regenerate docs/support-matrix.{md,html} (--check: fail if stale)")
    p.add_argument("--check", action="store_true")
    p.add_argument(
        "--root", default=".", help="the resolvable checkout to write docs/ into (default: current directory)"
    )
    p.set_defaults(func=cmd_docs)
    return parser


_TAKES_SGLANG_FLAGS = ("explain", "resolve", "diff", "upgrade")


def _split_pasted(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``resolvable explain [options] -- <launch command>``: (resolvable's argv, the command)."""
    if "--" not in argv:
        return argv, None
    i = argv.index("--")
    head, tail = argv[:i], argv[i + 1 :]
    # resolvable's own options may follow the pasted command too (sglang has no flag of these names)
    rest: list[str] = []
    j = 0
    while j < len(tail):
        name = tail[j].split("=", 1)[0]
        if name in _OWN_SWITCHES:
            head.append(tail[j])
        elif name in _OWN_OPTIONS:
            head.append(tail[j])
            if "=" not in tail[j] and j + 1 < len(tail):
                j += 1
                head.append(tail[j])
        else:
            rest.append(tail[j])
        j += 1
    return head, rest


def _route_pasted(argv: list[str], pasted: list[str]) -> tuple[list[str], list[str], Any]:
    """Read the pasted command (``cli.paste``): a vLLM command goes to the vLLM pack whatever
    ``--engine`` says by default; an SGLang docker image's tag names ``--sglang-version``."""
    from .paste import read, tag_release

    command = read(pasted)
    engine = _option_of(argv, "--engine")
    if command.engine is None:
        command.engine = engine or "sglang"
        return argv, pasted, command
    if engine is not None and engine != command.engine:
        raise UsageError(
            f"--engine {engine}, but the pasted command starts {command.engine}; drop --engine "
            "(the engine is read from the command)"
        )
    if command.engine == "vllm":
        return argv, pasted, command
    words = [f"{k}={v}" for k, v in command.env.items()] + command.words
    if command.tag is not None:
        from ..sglang import registry

        release, note = tag_release(command.tag, list(registry.releases), "sglang")
        named = _option_of(argv, "--sglang-version")
        if named is None:
            argv = [*argv, "--sglang-version", release]
        if note and "--json" not in argv:
            print(f"note: {note}", file=sys.stderr)
    return argv, words, command


def _option_of(argv: Sequence[str], name: str) -> str | None:
    for i, token in enumerate(argv):
        key, eq, value = token.partition("=")
        if key == name:
            return value if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return None


_OWN_SWITCHES = ("--json",)
_OWN_OPTIONS = (
    "--platform",
    "--env",
    "--field",
    "--why-not",
    "--vs-platform",
    "--vs-set",
    "--set",
    "--sglang-version",
    "--vs-sglang-version",
    "--from",
    "--to",
    "--engine",
    "--vllm-version",
    "--vs-vllm-version",
    "--kernels",
)


def _take_model(args: argparse.Namespace, pasted: list[str] | None) -> None:
    """The model comes from the positional MODEL, or from the pasted command's --model-path."""
    if not hasattr(args, "model"):
        return
    args.launch = None
    if pasted is not None:
        from ._common import parse_pasted

        args.launch = parse_pasted(pasted)
        model = args.launch.model
        if args.model is not None and model is not None and args.model != model:
            raise UsageError(
                f"two models: {args.model!r} before `--` and {model!r} in the pasted command; give one"
            )
        args.model = args.model or model
    if args.model is None:
        where = " (the pasted command has no --model-path or --model)" if pasted is not None else ""
        raise UsageError(
            f"no model{where}: pass MODEL, or paste the launch command after `--` "
            "(resolvable explain -- python -m sglang.launch_server --model-path MODEL ...)"
        )


def _named_release(argv: Sequence[str]) -> str | None:
    """The release ``--sglang-version`` names in resolvable's own arguments (None: not given, or
    not a supported release — resolving reports that later, with the supported list)."""
    from ..errors import ResolvableError as _Error
    from ..sglang.api import sglang_release

    for i, token in enumerate(argv):
        name, eq, value = token.partition("=")
        if name != "--sglang-version":
            continue
        if not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
        try:
            return sglang_release(value)
        except _Error:
            return None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from ..sglang import flags

    argv = list(sys.argv[1:] if argv is None else argv)
    use_ascii_where_needed(sys.stdout, sys.stderr)
    wants_json = "--json" in argv
    previous_table = flags.use_release(None)
    try:
        argv, pasted = _split_pasted(argv)
        command = None
        if pasted is not None:  # the engine (and a docker image's release) from the command itself
            argv, pasted, command = _route_pasted(argv, pasted)
        if (command is not None and command.engine == "vllm") or _vllm.wants_vllm(argv):
            if command is None and pasted is not None:
                from .paste import read

                command = read(pasted)
            return _vllm.main(argv, command)  # the vLLM pack has its own flag names
        # sglang's flags (their names and choices) are those of the release being modelled.
        flags.use_release(_named_release(argv))
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if pasted is not None and args.command not in _TAKES_SGLANG_FLAGS:
            raise UsageError(f"`--` (a pasted launch command) is for {', '.join(_TAKES_SGLANG_FLAGS)}")
        _take_model(args, pasted)
        if extra and args.command not in _TAKES_SGLANG_FLAGS:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        sub = parser._subparsers._group_actions[0].choices[args.command]  # type: ignore[union-attr]
        ignored = _check_extras(sub, extra) if extra else []
        _report_ignored(ignored)
        return int(args.func(args, ignored) or 0)
    except ConflictError as exc:
        if wants_json:  # scripts get the refusal as JSON too
            print(json.dumps(refusal_json(exc), indent=2, default=repr))
        print(f"error: {refusal_prefix(exc)}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ResolvableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse: --help, --version, usage errors (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: say so without a wall of traceback unless asked
        if os.environ.get("RESOLVABLE_DEBUG"):
            raise
        print(
            f"internal error: {type(exc).__name__}: {exc} (set RESOLVABLE_DEBUG=1 for a traceback; "
            "please report it)",
            file=sys.stderr,
        )
        return 70
    finally:
        flags.use_release(previous_table)


if __name__ == "__main__":
    sys.exit(main())
