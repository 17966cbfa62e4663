"""`resolvable explain|resolve|models --engine NAME` for a pack without a front-end of its own.

A third engine is a new pack, not CLI surgery: a ``resolvable.packs.Pack`` that implements the
launch methods (``releases``, ``release``, ``add_cli_args``, ``parse_flags``, ``load_model``,
``resolve``; ``check_startup`` and ``checked_fix`` when it has them) gets these commands from
this module, which talks to the pack object only. Invariants: as for every command — a user
error is one ``error:`` line and exit code 2; ``--json`` output carries a versioned ``schema``
and names the engine and its release; a refusal's fix is checked by the pack before it is shown.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._text import checks_passed, short, table
from ..errors import ConflictError
from ._common import UsageError, _Parser
from .explain import _explain_lines, _refusal_lines

COMMANDS = ("explain", "resolve", "models")


def build_parser(pack: packs.Pack) -> argparse.ArgumentParser:
    """resolvable's options of ``models``; explain and resolve take the front door's
    (``cli.frontdoor.launch_parser``, through ``cli.launchcmd``)."""
    parser = _Parser(
        prog="resolvable", description=f"{pack.title or pack.name} rule pack (--engine {pack.name})"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    p = sub.add_parser("models", help="the pack's bundled model configs")
    p.add_argument("--engine", choices=packs.names(), default=pack.name)
    p.add_argument("--json", action="store_true")
    return parser


def main(pack: packs.Pack, argv: Sequence[str], pasted: Any = None) -> int:
    """Run one command of ``pack``; ``pasted`` is a ``cli.paste.Pasted`` of its launch, or None.
    ``explain`` and ``resolve`` go through the one front door (``cli.launchcmd``: the launch is
    read by ``cli.frontdoor.read_launch`` and judged by ``Pack.verdict``) and are rendered by
    ``explain``/``resolve`` below."""
    argv = list(argv)
    if argv and argv[0] in COMMANDS[:2]:
        from .launchcmd import main as launch_main

        return launch_main(pack, argv, pasted)
    args, extra = build_parser(pack).parse_known_args(argv)
    if extra:
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
    return _models(pack, args)


def _judged(args: argparse.Namespace) -> tuple[Any, ...]:
    from .verdicts import judge

    explain = args.command == "explain"
    try:
        return judge(args.pack, args.launch, trace=explain)
    except ConflictError as exc:
        if explain and not args.json:
            print("\n".join(_refusal_lines(exc)))
        raise


def explain(args: argparse.Namespace) -> int:
    """The generic rendering of ``explain`` (``cli.launchcmd``: ``args.pack``, ``args.launch``)."""
    from .verdicts import say

    args.command = "explain"
    res, verdict, passed, refusal = _judged(args)
    _explain(args.pack, args, args.launch.model, res, args.launch.not_modelled, verdict, passed, refusal)
    return say(verdict)


def resolve(args: argparse.Namespace) -> int:
    """The generic rendering of ``resolve`` (``cli.launchcmd``: ``args.pack``, ``args.launch``)."""
    from .verdicts import say

    args.command = "resolve"
    res, verdict, passed, refusal = _judged(args)
    _resolve(args.pack, args, args.launch.model, res, args.launch.not_modelled, verdict, passed, refusal)
    return say(verdict)


def _startup(pack: packs.Pack, passed: Sequence[Any], refusal: ConflictError | None) -> dict[str, Any]:
    return {
        "phase": pack.startup_phase,
        "label": pack.startup_label,
        "outcome": "accepted" if refusal is None else "refused",
        "checks": [r.name for r in passed],
        "refusal": None
        if refusal is None
        else {"message": refusal.message, "rule": refusal.rule, "fix": refusal.fix},
    }


def _header(pack: packs.Pack, model: str, res: Any, not_modelled: Sequence[str]) -> list[str]:
    lines = [
        f"model     {model}  [{res.arch}]",
        f"platform  {res.platform.name}: {res.platform.describe()}",
        f"flags     {' '.join(f'{k}={v!r}' for k, v in res.user.items()) or '(none)'}",
        f"rules     {pack.name} {res.release} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
    ]
    if not_modelled:
        lines.append(
            f"not modelled  {', '.join(not_modelled)}: accepted, does not affect the resolved fields"
        )
    return lines + [f"note      {n}" for n in res.notes]


def _startup_line(pack: packs.Pack, passed: Sequence[Any], refusal: ConflictError | None) -> str:
    if refusal is None:
        return f"{pack.startup_label}: accepted, and would start ({checks_passed(len(passed))})"
    return f"{pack.startup_label}: refused: {refusal.message}" + (
        f" (fix: {refusal.fix})" if refusal.fix else ""
    )


def _explain(
    pack: packs.Pack,
    args: argparse.Namespace,
    model: str,
    res: Any,
    not_modelled: Any,
    verdict: Any,
    *outcome: Any,
) -> None:
    hidden = frozenset() if args.field or args.all else pack.not_applicable(res)
    fields = (
        [args.field]
        if args.field
        else [f for f in res if (f in res.changed() or f in res.user) and f not in hidden]
    )
    explained = [res.explain(f) for f in fields]
    if args.json:
        data = {
            "schema": "resolvable.explain/1",
            "engine": pack.name,
            "model": model,
            "arch": res.arch,
            "release": res.release,
            "platform": res.platform.to_dict(),
            "user_args": dict(res.user),
            "not_modelled": list(not_modelled),
            "notes": list(res.notes),
            "fingerprint": res.fingerprint(),
            "fields": {e.field: e.to_dict() for e in explained},
            "startup": _startup(pack, *outcome),
            "verdict": verdict.to_dict(),
        }
        print(json.dumps(data, indent=2, default=repr))
        return
    print("\n".join(_header(pack, model, res, not_modelled)))
    print(_startup_line(pack, *outcome))
    print(verdict.line())
    for exp in explained:
        print()
        print("\n".join(_explain_lines(exp, res)))


def _resolve(
    pack: packs.Pack,
    args: argparse.Namespace,
    model: str,
    res: Any,
    not_modelled: Any,
    verdict: Any,
    *outcome: Any,
) -> None:
    ctx = res.publish()
    if args.json:
        data = res.to_dict()
        out = {
            "schema": "resolvable.resolve/1",
            "engine": pack.name,
            "model": model,
            "arch": res.arch,
            "release": res.release,
            "platform": data["platform"],
            "user_args": data["user"],
            "not_modelled": list(not_modelled),
            "values": data["values"],
            "context": ctx.to_dict(),
            "fingerprint": res.fingerprint(),
            "notes": data["notes"],
            "declarations": data["declarations"],
            "startup": _startup(pack, *outcome),
            "verdict": verdict.to_dict(),
        }
        print(json.dumps(out, indent=2, default=repr))
        return
    print("\n".join(_header(pack, model, res, not_modelled)))
    print(_startup_line(pack, *outcome))
    print(verdict.line())
    print()
    rows = [
        [path, short(ctx.leaf(path), 40), res.decided_by(field)[0]]
        for field, path in sorted(res.leaves.items(), key=lambda kv: kv[1])
    ]
    print(table(["published leaf", "value", "decided by"], rows))


def _models(pack: packs.Pack, args: argparse.Namespace) -> int:
    entries = pack.catalog()
    if args.json:
        print(json.dumps({"schema": "resolvable.models/1", "engine": pack.name, "models": entries}, indent=2))
        return 0
    print(
        table(
            ["model", "family", "hub repo"],
            [[n, e.get("family", ""), e.get("repo_id", "")] for n, e in entries.items()],
        )
    )
    return 0


#: The front-end entry point every ``Pack.frontend`` module has (``cli._frontend``).
run_pack = main
