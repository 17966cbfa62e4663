"""The ``resolvable`` command: explain, resolve, matrix, diff, platforms, models, lint, docs.

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

from ..errors import ConflictError, ResolvableError
from . import vllm as _vllm
from ._common import EXIT_USAGE, UsageError, _check_extras, _Parser, _report_ignored
from .commands import cmd_diff, cmd_lint, cmd_matrix, cmd_models, cmd_platforms, cmd_resolve
from .docs import cmd_docs, generate_docs, rules_reference
from .explain import cmd_explain
from .parity import cmd_parity

__all__ = ["build_parser", "generate_docs", "main", "rules_reference"]


def _add_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--engine",
        choices=("sglang", "vllm"),
        default="sglang",
        help="rule pack: sglang (default) or vllm (vLLM flag names; see `resolvable explain M --engine vllm -h`)",
    )


def _add_model_inputs(p: argparse.ArgumentParser, *, platform_default: str) -> None:
    from ..sglang.cli_args import add_cli_args

    p.add_argument("model", help="bundled sample name, config.json, model directory, or cached hub repo id")
    _add_engine(p)
    p.add_argument(
        "--platform",
        default=platform_default,
        help=f"platform preset to simulate, or 'detect' (default: {platform_default})",
    )
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (schema in docs/cli-json.md)")
    add_cli_args(p, skip=("model_path",))


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
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("resolve", help="all resolved values and the published runtime context")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser(
        "diff", help="what changes between two platforms or flag sets, and which rule changes it"
    )
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--vs-platform", help="the platform preset to compare with")
    p.add_argument(
        "--vs-set", action="append", metavar="FLAG=VALUE", default=[], help="extra flag on the right side"
    )
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("matrix", help="models × platforms support table (text, md, csv, json, html)")
    p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
    p.add_argument("--platforms", help="comma-separated presets (default: every preset)")
    p.add_argument("--fields", help="comma-separated fields per cell (default: attention_backend,page_size)")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help="SGLang flag applied to every cell")
    p.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules"
    )
    p.add_argument("--format", choices=("text", "md", "csv", "json", "html"), default="text")
    p.add_argument("-o", "--output", help="write to FILE instead of stdout")
    _add_engine(p)
    p.set_defaults(func=cmd_matrix)

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
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.set_defaults(func=cmd_docs)
    return parser


_TAKES_SGLANG_FLAGS = ("explain", "resolve", "diff")


def refusal_json(exc: ConflictError) -> dict[str, object]:
    """A refused configuration as the ``resolvable.refusal/1`` JSON document."""
    return {
        "schema": "resolvable.refusal/1",
        "rule": exc.rule,
        "location": exc.location,
        "message": exc.message,
        "fix": exc.fix,
        "upstream": exc.upstream,
        "fields": list(exc.fields),
        "origins": {
            f: {"value": v, "set_by": who, "location": loc} for f, (v, who, loc) in exc.origins.items()
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    wants_json = "--json" in argv
    try:
        if _vllm.wants_vllm(argv) or argv[:1] == ["backends"]:  # the vLLM pack has its own flag names
            return _vllm.main(argv)
        args, extra = parser.parse_known_args(argv)
        if extra and args.command not in _TAKES_SGLANG_FLAGS:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        sub = parser._subparsers._group_actions[0].choices[args.command]  # type: ignore[union-attr]
        ignored = _check_extras(sub, extra) if extra else []
        _report_ignored(ignored)
        return int(args.func(args, ignored) or 0)
    except ConflictError as exc:
        if wants_json:  # scripts get the refusal as JSON too
            print(json.dumps(refusal_json(exc), indent=2, default=repr))
        print(f"error: refused: {exc}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
