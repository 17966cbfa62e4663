"""`resolvable upgrade`: what moving one launch from one release of its engine to another changes,
for every registered pack, written once over the ``Pack`` interface.

Invariants: the launch is read by the front door (``cli.frontdoor``: tool flags, a pasted command,
``docker run``) and built by the pack once per side (``Pack.build_launch`` with that side's
release), so each side's flags are read with its own release's flag table and a flag that one
side lacks is that side's refusal, naming the release that added or removed it; both sides have
the same model, node, flags and environment, so every change listed is the upgrade's doing; each
side's verdict is ``Pack.verdict``'s, the one ``explain`` gives for that launch on that release
(``--json``: ``"verdict": {"from": …, "to": …}``). The judging and the attribution of each changed
value are ``resolvable.upgrade.compare``'s; this module reads the command line and renders. A
``--from`` that the pack only parses is split at the oldest resolved release
(``resolvable.upgrade_across``, rendered by ``cli/older.py``). The exit code is 0 when both sides
were judged (the answer is the comparison), 2 for the tool's own input errors. No engine is
named here.
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._text import table
from ..upgrade import compare
from ._common import UsageError


def build_parser() -> argparse.ArgumentParser:
    """``resolvable upgrade``'s own options (the engine's flags are read by the pack)."""
    from .frontdoor import command_parser

    p = command_parser(
        "resolvable upgrade",
        description="what an engine upgrade changes for one launch: fields, deciding rules, verdicts",
    )
    for action in p._actions:  # the release options: upgrade names its two with --from / --to
        if action.dest.startswith("release_of_"):
            action.help = argparse.SUPPRESS
    p.add_argument(
        "--from",
        dest="from_version",
        metavar="VERSION",
        help="the release you run now (default: a pasted image's release tag, else the installed "
        "engine's release when one is installed and modelled (e.g. the installed sglang), else the "
        "supported release before --to)",
    )
    p.add_argument(
        "--to",
        dest="to_version",
        metavar="VERSION",
        help="the release to upgrade to (default: "
        + ", ".join(f"{n} {packs.get(n).default_release}" for n in packs.names())
        + ": the pack's default)",
    )
    p.add_argument(
        "--no-startup-check",
        dest="startup_check",
        action="store_false",
        help="judge only argument resolution on each side (skip the start-up, node and memory checks)",
    )
    return p


def default_versions(from_version: str | None, to_version: str | None, pack: Any = None) -> tuple[str, str]:
    """(from, to) of ``pack`` (default: the first registered): ``to`` defaults to the pack's
    default release; ``from`` to the installed engine's release when one is installed and
    modelled, else the supported release before ``to``."""
    pack = pack or packs.get(packs.names()[0])
    to = pack.release(to_version)
    if from_version is not None:
        return pack.release(from_version), to
    installed = pack.installed_version()
    if installed is not None:
        try:
            return pack.release(installed), to
        except ValueError:  # installed, but not a release the pack models
            pass
    releases = list(pack.releases)
    earlier = releases[: releases.index(to)] if to in releases else []
    return (earlier[-1] if earlier else to), to


def _engine(args: argparse.Namespace, command: Any) -> Any:
    """The pack of the launch (the pasted command's engine, else ``--engine``, else the first)."""
    name = command.engine if command is not None and command.engine is not None else None
    return packs.get(name or args.engine or packs.names()[0])


def main(argv: Sequence[str]) -> int:
    """``argv`` after ``upgrade``: the launch on ``--from`` and on ``--to``, what changes between
    them, and each side's verdict."""
    from . import _split_pasted
    from .frontdoor import _release_dest
    from .paste import read, tag_pins, tag_release

    argv, pasted = _split_pasted(list(argv))
    args, extra = build_parser().parse_known_args(argv)
    for name in packs.names():
        if getattr(args, _release_dest(name), None) is not None:
            raise UsageError(
                f"upgrade takes --from VERSION and --to VERSION, not {packs.get(name).release_option}"
            )
    if extra and not extra[0].startswith("-") and args.model is None:
        args.model, extra = extra[0], extra[1:]
    command = read(pasted) if pasted is not None else None
    pack = _engine(args, command)
    from_version = args.from_version
    if from_version is None and command is not None and tag_pins(command.tag):
        # a pasted image whose tag names a release: the release the launch runs now
        from_version = tag_release(
            command.tag, list(pack.releases), pack.title or pack.name, parse_only=pack.parse_only_releases()
        )[0]
    if from_version is not None and pack.parse_only_releases():
        from .older import _named, upgrade_across

        old = _named(pack, from_version)
        if old is not None:  # a parse-only --from: the journey split at the boundary (cli/older.py)
            return upgrade_across(pack, args, extra, pasted, command, old)
    old_version, new_version = default_versions(from_version, args.to_version, pack)
    if old_version == new_version:
        raise UsageError(
            f"--from and --to are both {pack.name} {new_version}; name the release you run now with --from"
        )
    cmp = compare(pack, launch_on(args, extra, pasted), old_version, new_version, startup=args.startup_check)
    if args.json:
        print(json.dumps(comparison_json(cmp), indent=2, default=repr))
        return 0
    print_comparison(pack, cmp, pasted)
    return 0


def launch_on(
    args: argparse.Namespace, extra: Sequence[str], pasted: Sequence[str] | None, command: Any = None
):
    """``release`` → the launch of the command line built on that release (one side)."""
    from .frontdoor import read_launch

    def build(release: str) -> Any:
        return read_launch(args, list(extra), pasted, release=release, command=command)[1]

    return build


def comparison_json(cmp: Any) -> dict[str, Any]:
    """``resolvable.upgrade/1`` of a ``resolvable.upgrade.Comparison``."""
    old, new = cmp.old, cmp.new
    return {
        "schema": "resolvable.upgrade/1",
        "engine": cmp.engine,
        "model": old.launch.model,
        "from": old.release,
        "to": new.release,
        "outcome": {
            side: "refused" if s.verdict.status == "refused" else "accepted"
            for side, s in (("from", old), ("to", new))
        },
        "refusal": {"from": old.refusal, "to": new.refusal},
        "changes": [c.to_dict() for c in cmp.changes],
        "verdict": {"from": old.verdict.to_dict(), "to": new.verdict.to_dict()},
    }


def print_comparison(pack: Any, cmp: Any, pasted: Sequence[str] | None, *, head: bool = True) -> None:
    """The text answer of a comparison (``head`` False: without the model/platform/command lines)."""
    old, new = cmp.old, cmp.new
    shown, res = (
        (new.launch, new.resolution)
        if new.resolution is not None or old.resolution is None
        else (old.launch, old.resolution)
    )
    if head:
        arch = f"  [{res.arch}]" if res is not None and res.arch else ""
        print(f"model     {shown.model}{arch}")
        if res is not None:
            print(f"platform  {res.platform.name}: {res.platform.describe()}")
        else:
            print(f"platform  {shown.platform}")
        if pasted is not None:
            print(f"command   {shlex.join(pasted)}")
        else:
            print(f"flags     {' '.join(shown.argv) or '(none)'}")
        for note in shown.notes:
            print(f"note      {note}")
    print(f"upgrade   {pack.name} {old.release} → {new.release}")
    for side in (old, new):
        print(f"on {side.release:<7}{side.verdict.line().removeprefix('verdict   ')}")
    print()
    changes = [c.to_dict() for c in cmp.changes]
    print(_summary(new.release, old.refusal, new.refusal, changes, pack.name))
    if len(changes) > 1:
        rows = [
            [c["field"], repr(c["before"]), repr(c["after"]), c["decided_after"], c["named_by"]]
            for c in changes
        ]
        print()
        print(table(["field", old.release, new.release, f"decided on {new.release} by", "changed by"], rows))


def _summary(
    new_version: str,
    old_refusal: dict[str, Any] | None,
    new_refusal: dict[str, Any] | None,
    changes: list[dict[str, Any]],
    engine: str,
) -> str:
    """The one-paragraph answer: what changes on ``new_version``, or which side refuses."""
    lead = f"your launch on {new_version}:"
    if old_refusal is None and new_refusal is None:
        if not changes:
            return f"{lead} nothing changes; still accepted"
        if len(changes) == 1:
            c = changes[0]
            named = c["since"] or (c["named_by"] if c["named"] else None)
            since = f", {engine} {named}" if named else ""
            return (
                f"{lead} {c['field']} {c['before']!r} → {c['after']!r} (rule {c['decided_after']}{since}); "
                "still accepted"
            )
        return f"{lead} {len(changes)} fields change (below); still accepted"
    if new_refusal is not None and old_refusal is None:
        fix = f"\n  fix: {new_refusal['fix']}" if new_refusal["fix"] else ""
        where = f" ({new_refusal['location']})" if new_refusal["location"] else ""
        return f"{lead} REFUSED by {new_refusal['rule']}{where}:\n  {new_refusal['message']}{fix}"
    if new_refusal is None:
        return f"{lead} accepted (it was refused before: {old_refusal['message'] if old_refusal else ''})"
    if old_refusal is not None and new_refusal["message"] != old_refusal["message"]:
        return (
            f"{lead} still refused, for another reason: {new_refusal['message']} "
            f"(was: {old_refusal['message']})"
        )
    return f"{lead} still refused: {new_refusal['message']}"
