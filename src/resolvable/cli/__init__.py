"""The ``resolvable`` command: explain, resolve, fit, diff, upgrade, matrix, backends, flags, platforms,
models, lint, parity, docs — for every registered engine (SGLang, vLLM).

Invariants: every user error (unknown model, unreadable config, unknown preset, bad flag
value, refused configuration) prints one ``error:`` line with the fix and exits 2 — never a
traceback; ``--json`` output has a documented, versioned schema (docs/cli-json.md); the
platform is simulated from a preset unless ``--platform detect``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .. import packs
from ..errors import ConflictError, EngineParserError, ResolvableError, one_line
from ._common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    EngineFlagError,
    UsageError,
    _Parser,
    default_pack,
    engine_named,
    pack,
    refusal_json,
    refusal_prefix,
    use_ascii_where_needed,
)
from .commands import cmd_lint, cmd_platforms
from .docs import cmd_docs, generate_docs, rules_reference
from .parity import cmd_parity

__all__ = ["build_parser", "generate_docs", "main", "rules_reference"]


def _add_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--engine",
        choices=packs.names(),
        default=default_pack().name,
        help=f"rule pack: {', '.join(packs.names())} (default: {packs.names()[0]})",
    )


def build_parser(release: str | None = None) -> argparse.ArgumentParser:
    """resolvable's parser, the launch commands holding the flags of sglang ``release`` (None: the
    default release): the release travels as this argument, never as process-wide state."""
    parser = _Parser(
        prog="resolvable",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"resolvable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    # `explain` and `resolve` have one parser each for every pack (cli/frontdoor.py's
    # launch_parser, through cli/launchcmd.py; main() routes to it first): listed here.
    sub.add_parser(
        "explain",
        help="why each resolved field has its value (and why not another); any engine, any input "
        "form (see `resolvable explain -h`)",
        add_help=False,
    )
    sub.add_parser(
        "resolve",
        help="all resolved values and the published runtime context; any engine, any input form",
        add_help=False,
    )

    # `diff` has its own parser, one for every pack (cli/diff.py; main() routes to it first)
    sub.add_parser(
        "diff",
        help="what changes between two platforms, releases or flag sets, and which rule changes it; "
        "any engine, any input form (see `resolvable diff -h`)",
        add_help=False,
    )

    # `upgrade` has its own parser, one for every pack (cli/upgrade.py; main() routes to it first)
    sub.add_parser(
        "upgrade",
        help="what an engine upgrade changes for one launch: fields, deciding rules, each side's "
        "verdict; any engine, any input form (see `resolvable upgrade -h`)",
        add_help=False,
    )

    # `matrix`, `backends` and `models` have one parser each for every pack (cli/tables.py;
    # main() routes to it first): listed here so that `resolvable -h` names them.
    from .tables import COMMANDS as _TABLES
    from .tables import HELP as _TABLE_HELP

    for name in _TABLES:
        sub.add_parser(
            name, help=f"{_TABLE_HELP[name]}; any engine (see `resolvable {name} -h`)", add_help=False
        )

    # `fit` has its own parser per engine (cli/fit.py; main() routes to it first): listed here
    # so that `resolvable -h` names it.
    sub.add_parser(
        "fit",
        help="will it fit? weights, KV-cache tokens, requests at the full context, the smallest TP; "
        "any engine, any input form (see `resolvable fit -h`)",
        add_help=False,
    )

    p = sub.add_parser(
        "releases",
        help="every release each engine pack resolves, and the older ones it parses only "
        "(vLLM 0.11.0…, sglang 0.5.1…)",
    )
    p.add_argument("--engine", choices=packs.names())
    p.add_argument("--json", action="store_true")
    sub.add_parser(
        "compare",
        help="one launch in both engines side by side (translated flags, verdicts, settings, why they "
        "differ; see `resolvable compare -h`)",
        add_help=False,
    )
    from .flags import add_parser as _add_flags

    _add_flags(sub)
    sub.add_parser(
        "check-log",
        help="read an engine's start-up log, predict the same launch, show what diverged "
        "(see `resolvable check-log -h`)",
        add_help=False,
    )

    p = sub.add_parser("platforms", help="platform presets and their facts; --detect for this machine")
    p.add_argument("--detect", action="store_true", help="show what this machine is and how it was detected")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_platforms)

    p = sub.add_parser(
        "lint", help="check a pack's rule registry over its bundled models × presets (× flag variants)"
    )
    p.add_argument("--json", action="store_true")
    _add_engine(p)
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

    sub.add_parser(
        "launches", help="the launches in deployment files (k8s, KServe, OME, helm values, compose, scripts)"
    )
    sub.add_parser(
        "check", help="the verdict on every launch in deployment files (text, --json, --format sarif)"
    )
    p = sub.add_parser("docs", help="regenerate docs/support-matrix.{md,html} (--check: fail if stale)")
    p.add_argument("--check", action="store_true")
    p.add_argument(
        "--root", default=".", help="the resolvable checkout to write docs/ into (default: current directory)"
    )
    p.set_defaults(func=cmd_docs)
    for command in sub.choices.values():
        command.release = release  # type: ignore[attr-defined]
    return parser


def _split_pasted(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``resolvable explain [options] -- <launch command>``: (resolvable's argv, the command)."""
    if "--" not in argv:
        return argv, None
    i = argv.index("--")
    head, tail = argv[:i], argv[i + 1 :]
    # resolvable's own options may follow the pasted command too (sglang has no flag of these names)
    rest: list[str] = []
    # `docker run --platform linux/amd64 --env K=V …`: docker's own options, not resolvable's
    docker = bool(tail) and tail[0] in ("docker", "podman", "nvidia-docker")
    j = 0
    while j < len(tail):
        name = tail[j].split("=", 1)[0]
        if docker and name in _DOCKER_OWN:
            rest.append(tail[j])
        elif name in _OWN_SWITCHES:
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


def _launch_command(argv: list[str], pasted: list[str] | None) -> int:
    """``explain``/``resolve`` of every pack: the pasted command read once (``cli.paste.read``),
    the engine from it (else ``--engine``, else the first pack), a parse-only release answered by
    ``cli.older``, the rest by the front door (``cli.launchcmd``)."""
    from .launchcmd import main as launch_main
    from .older import hook
    from .paste import read

    command = read(pasted) if pasted is not None else None
    engine = command.engine if command is not None and command.engine is not None else engine_named(argv)
    chosen = pack(engine) if engine in packs.names() else default_pack()
    code = hook(chosen, argv, command)
    if code is not None:
        return code
    return launch_main(chosen, argv, command)


_OWN_SWITCHES = ("--json", "--all", "--no-startup-check")
#: Options of ``docker run`` that are also resolvable's: in a pasted docker line they are docker's.
_DOCKER_OWN = ("--platform", "--env")
_OWN_OPTIONS = (
    "--platform",
    "--model-config",
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
    "--hub-timeout",
)


#: Exit status when standard output is a closed pipe (``resolvable … | head``): 128 + SIGPIPE,
#: what a shell reports for a program that the closed pipe ended.
EXIT_CLOSED_PIPE = 141


class _StreamFailed(Exception):
    """Writing to standard output failed (a full device, a closed pipe): not a bug of ours."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _GuardedStream:
    """Standard output during a command: a failed write or flush raises ``_StreamFailed``, so
    ``main`` can tell an output failure from a bug and end cleanly."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:  # started with stdout closed (`resolvable … >&-`)
            raise _StreamFailed(OSError(errno.EBADF, "standard output is closed"))
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _StreamFailed(exc) from None

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            raise _StreamFailed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _say(text: str) -> None:
    """One line on stderr, secrets redacted (a hub token, URL credentials, authorisation values:
    ``resolvable.hub._secrets.redact``, whatever raised the error); a stderr that cannot be
    written to is not an error of its own."""
    from ..hub._secrets import redact

    with contextlib.suppress(OSError, ValueError):
        print(redact(text), file=sys.stderr, flush=True)


def _detach_stdout(stream: Any) -> None:
    """Point the file descriptor of a failed stdout at /dev/null, so that the interpreter's final
    flush does not fail again ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


def _parse(argv: list[str], pasted: list[str] | None) -> argparse.Namespace:
    """The argv of a command of the default command set (platforms, parity, docs, flags, lint)."""
    args, extra = build_parser().parse_known_args(argv)
    if pasted is not None:
        raise UsageError(
            "`--` (a pasted launch command) is for explain, resolve, fit, diff, upgrade and compare"
        )
    if extra:
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """The ``resolvable`` command; returns the exit status (0, 1 findings, 2 an error, 141 a
    closed output pipe). Output failures end cleanly, never as an internal error."""
    use_ascii_where_needed(sys.stdout, sys.stderr)
    stdout = sys.stdout
    sys.stdout = _GuardedStream(stdout)  # type: ignore[assignment]
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    except _StreamFailed as exc:
        _detach_stdout(stdout)
        if isinstance(exc.cause, BrokenPipeError):
            return EXIT_CLOSED_PIPE
        _say(f"error: cannot write to standard output ({exc.cause.strerror or exc.cause})")
        return EXIT_USAGE
    finally:
        if isinstance(sys.stdout, _GuardedStream):
            sys.stdout = stdout


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wants_json = "--json" in argv
    try:
        if argv[:1] == ["fit"]:  # memory fit: the one front door (cli/fit.py, cli/frontdoor.py)
            from .fit import main as fit_main

            return fit_main(argv[1:])
        if argv[:1] == ["upgrade"]:  # one release to another: the one front door (cli/upgrade.py)
            from .upgrade import main as upgrade_main

            return upgrade_main(argv[1:])
        if argv[:1] == ["diff"]:  # two sides of one launch: the one front door (cli/diff.py)
            from .diff import main as diff_main

            return diff_main(argv[1:])
        if argv[:1] in (["launches"], ["check"]):  # deployment files (cli/deploy.py)
            from .deploy import main as deploy_main

            return deploy_main(argv)
        if argv[:1] == ["releases"]:  # the release listing (cli/older.py)
            from .older import cmd_releases

            return cmd_releases(argv[1:])
        if argv[:1] == ["compare"]:  # both engines side by side: its own parser (cli/compare.py)
            from .compare import main as compare_main

            return compare_main(argv[1:])
        if argv[:1] in (["matrix"], ["backends"], ["models"]):  # one parser for every pack (cli/tables.py)
            from .tables import main as tables_main

            return tables_main(argv[0], argv[1:])
        if argv[:1] in (["flags"], ["lint"]):  # any engine's flag table; any pack's registry lint
            args = build_parser().parse_args(argv)
            return int(args.func(args) or 0)
        if argv[:1] == ["check-log"]:  # a start-up log against the prediction (cli/check_log.py)
            from .check_log import main as check_log_main

            return check_log_main(argv[1:])
        argv, pasted = _split_pasted(argv)
        if argv[:1] in (["explain"], ["resolve"]):  # every pack: the one front door (cli/launchcmd.py)
            return _launch_command(argv, pasted)
        args = _parse(argv, pasted)
        return int(args.func(args, []) or 0)
    except ConflictError as exc:  # the engine refuses the launch: it would not start (exit 1)
        if wants_json:  # scripts get the refusal as JSON too, with the verdict every command gives
            from ..verdict import from_refusal

            # the verdict's stage is docs/cli-json.md's (`resolve` for argument resolution, as
            # `Pack.verdict` and `fit` say), the rule's own phase stays in `refusal_json`
            stage = "startup" if getattr(exc, "phase", None) == "startup" else "resolve"
            data = {**refusal_json(exc), "verdict": from_refusal(exc, stage=stage).to_dict()}
            print(json.dumps(data, indent=2, default=repr))
        _say(f"error: {refusal_prefix(exc)}: {exc}")
        return EXIT_FINDINGS
    except (EngineFlagError, EngineParserError) as exc:  # the engine's parser refuses: no start
        if wants_json:
            from ..verdict import Verdict

            refused = Verdict("refused", stage="parse", rule="argument parser", message=one_line(str(exc)))
            print(json.dumps({"verdict": refused.to_dict()}, indent=2))
        _say(f"error: {exc}")
        return EXIT_FINDINGS
    except ResolvableError as exc:
        _say(f"error: {exc}")
        return EXIT_USAGE
    except SystemExit as exc:  # argparse: --help, --version, usage errors (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except _StreamFailed:
        raise
    except BrokenPipeError as exc:  # a stream other than stdout (a pager's pipe, say)
        raise _StreamFailed(exc) from None
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # input nested beyond what any check anticipated: refuse, do not crash
        _say("error: the input is nested too deeply to process; this is not a valid model config or command")
        return EXIT_USAGE
    except MemoryError:
        _say("error: out of memory while processing the input; it is too large to be a model config")
        return EXIT_USAGE
    except Exception as exc:  # a bug: say so without a wall of traceback unless asked
        if os.environ.get("RESOLVABLE_DEBUG"):
            raise
        _say(
            one_line(
                f"internal error: {type(exc).__name__}: {exc} (set RESOLVABLE_DEBUG=1 for a traceback; "
                "please report it)"
            )
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
