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
from .explain import _explain_lines, _refusal_lines


def main(pack: packs.Pack, argv: Sequence[str], pasted: Any = None) -> int:
    """Run ``explain`` or ``resolve`` of ``pack`` (``argv[0]``); ``pasted`` is a ``cli.paste.Pasted``
    of its launch, or None. The launch is read by the front door (``cli.launchcmd``:
    ``cli.frontdoor.read_launch``), judged by ``Pack.verdict`` and rendered by ``explain`` /
    ``resolve`` below; ``models`` is parsed by ``cli.tables`` and rendered by ``models`` below."""
    from .launchcmd import main as launch_main

    return launch_main(pack, list(argv), pasted)


def _judged(args: argparse.Namespace) -> tuple[Any, ...]:
    from .verdicts import judge

    explain = args.command == "explain"
    try:
        return judge(args.pack, args.launch, trace=explain, startup=getattr(args, "startup_check", True))
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


def models(args: argparse.Namespace) -> int:
    """``resolvable models --engine NAME`` (parsed by ``cli.tables``): the pack's catalog."""
    pack = args.pack
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
