"""`resolvable diff`: what changes for one launch between two platforms, two releases of its
engine or two flag sets, for every registered pack, written once over the ``Pack`` interface.

Invariants: the launch is read by the front door (``cli.frontdoor``: tool flags, a pasted command,
``docker run``) and built by the pack once per side (``Pack.build_launch``): the right side is the
same launch with ``--vs-platform``, the pack's ``--vs-<release option>`` (its flags read with that
release's own flag table: a flag it lacks is that side's parse refusal, naming the release that
removed or added it) and the ``--vs-set`` flags; each side is judged by ``Pack.verdict``, the
verdict ``explain`` gives (``--json``: ``"verdict": {"left": …, "right": …}``). A ``--vs-set``
value the engine's parser refuses is the tool's input error (2); a launch that neither side
resolves is refused (1); otherwise the comparison is the answer (0). No engine is named here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from .. import packs
from ._common import UsageError


def _vs_dest(name: str) -> str:
    from .frontdoor import _release_dest

    return "vs_" + _release_dest(name)


def _vs_option(pack: Any) -> str:
    return "--vs-" + pack.release_option.removeprefix("--")


def build_parser() -> argparse.ArgumentParser:
    """``resolvable diff``'s own options (the engine's flags are read by the pack)."""
    from .frontdoor import command_parser

    p = command_parser(
        "resolvable diff",
        description="what changes between two platforms, releases or flag sets, and which rule changes it",
    )
    p.add_argument("--vs-platform", metavar="PRESET", help="the platform preset to compare with")
    for name in packs.names():
        pack = packs.get(name)
        p.add_argument(
            _vs_option(pack),
            dest=_vs_dest(name),
            metavar="VERSION",
            help=f"the {pack.title or name} release to compare with (upgrade impact)",
        )
    p.add_argument(
        "--vs-set",
        action="append",
        metavar="FLAG=VALUE",
        default=[],
        help="extra engine flag on the right side",
    )
    p.add_argument(
        "--set", action="append", metavar="FLAG=VALUE", default=[], help=argparse.SUPPRESS
    )  # an engine flag on both sides (older spelling of passing the flag itself)
    return p


def flag_words(pairs: Sequence[str]) -> list[str]:
    """``FLAG=VALUE`` pairs (a flag or a field name; ``=true`` a switch) as engine argv."""
    words: list[str] = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        flag = "--" + key.lstrip("-").replace("_", "-")
        if not sep or value.lower() == "true":
            words.append(flag)
        elif value.lower() != "false":
            words += [flag, value]
    return words


def _refusal(verdict: Any) -> dict[str, Any]:
    return {
        "message": verdict.message,
        "fix": verdict.fix,
        "rule": verdict.rule,
        "location": verdict.location,
    }


def report_diff(
    args: argparse.Namespace,
    left: Any,
    right: Any,
    changes: list[Any],
    engine: str,
    verdicts: tuple[Any, Any],
) -> int:
    """Print the fields that differ between two resolutions of the pack ``engine`` (or
    ``--json``, with each side's top-level ``verdict``), each side labelled by its platform, its
    release when the releases differ, and the ``--vs-set`` flags."""
    from .._text import short, table

    versions = left.release != right.release
    labels = (
        f"{args.platform}" + (f" @ {engine} {left.release}" if versions else ""),
        f"{args.vs_platform or args.platform}"
        + (f" @ {engine} {right.release}" if versions else "")
        + (" + " + " ".join(args.vs_set) if args.vs_set else ""),
    )
    if args.json:
        data: dict[str, Any] = {"schema": "resolvable.diff/1", "engine": engine}
        data.update(left=labels[0], right=labels[1])
        data[f"{engine}_version"] = [left.release, right.release]
        data["changes"] = [c.to_dict() for c in changes]
        data["verdict"] = {"left": verdicts[0].to_dict(), "right": verdicts[1].to_dict()}
        print(json.dumps(data, indent=2))
        return 0
    print(f"{args.model}: {labels[0]}  vs  {labels[1]}")
    if not changes:
        print("no resolved field differs")
    else:
        rows = [
            [c.field, short(c.before, 24), c.decided_before, short(c.after, 24), c.decided_after]
            for c in changes
        ]
        print(table(["field", labels[0], "decided by", labels[1], "decided by"], rows))
    print()
    for label, verdict in zip(labels, verdicts):
        print(f"{label}: {verdict.line().removeprefix('verdict   ')}")
    return 0


def main(argv: Sequence[str]) -> int:
    """``argv`` after ``diff``: the launch on each side, the fields that differ and the rule that
    decides each, and each side's verdict."""
    from . import _split_pasted
    from .frontdoor import read_launch
    from .paste import read
    from .upgrade import _engine

    argv, pasted = _split_pasted(list(argv))
    args, extra = build_parser().parse_known_args(argv)
    command = read(pasted) if pasted is not None else None
    pack = _engine(args, command)
    vs_release = getattr(args, _vs_dest(pack.name))
    for flag, value in (("--vs-platform", args.vs_platform), (_vs_option(pack), vs_release)):
        if value is not None and not value.strip():  # an empty value is a mistake, not "not given"
            raise UsageError(
                f"{flag} is empty; name a preset (see `resolvable platforms`)"
                if flag == "--vs-platform"
                else f"{flag} is empty; name a release such as {pack.default_release}"
            )
    for name in packs.names():
        if name != pack.name and getattr(args, _vs_dest(name)) is not None:
            raise UsageError(
                f"{_vs_option(packs.get(name))} is for --engine {name}; this launch is "
                f"{pack.title or pack.name}: use {_vs_option(pack)}"
            )
    from .frontdoor import _release_dest
    from .older import hook

    own = ["diff"]
    for option, value in (
        (pack.release_option, getattr(args, _release_dest(pack.name))),
        (_vs_option(pack), vs_release),
    ):
        own += [option, value] if value else []
    hook(pack, own, command)  # a parse-only release: says so, with what reads it (cli/older.py)
    if args.vs_platform is None and not args.vs_set and vs_release is None:
        raise UsageError(
            f"diff needs --vs-platform PRESET, {_vs_option(pack)} VERSION and/or --vs-set FLAG=VALUE"
        )
    if args.vs_platform is not None:
        from .._platform import Platform

        Platform.preset(args.vs_platform)  # an unknown preset: the tool's input error, named
    if extra and not extra[0].startswith("-") and args.model is None:
        args.model, extra = extra[0], extra[1:]
    both = [*extra, *flag_words(args.set)]
    pack, left = read_launch(args, both, pasted)
    right_release = pack.release(vs_release) if vs_release is not None else None
    pack, right = read_launch(args, [*both, *flag_words(args.vs_set)], pasted, release=right_release)
    if right_release is None:  # the same release as the left side, wherever it came from
        right = right.replace(release=left.release, release_from=left.release_from)
    if args.vs_platform is not None:
        right = right.replace(node=dataclasses.replace(right.node, platform=args.vs_platform))
    if right.rejected and not left.rejected and right_release in (None, left.release):
        raise UsageError(f"--vs-set: {right.rejected} (see `resolvable flags --engine {pack.name}`)")
    args.model = left.model
    (res_left, v_left), (res_right, v_right) = (pack.verdict(s, trace=True) for s in (left, right))
    unresolved = [
        (launch.release, v)
        for launch, res, v in ((left, res_left, v_left), (right, res_right, v_right))
        if res is None or (v.status == "refused" and v.stage in ("parse", "resolve"))
    ]
    if len(unresolved) == 2 and v_left.message == v_right.message:  # refused whatever the side
        from .verdicts import say

        if args.json:
            print(
                json.dumps(
                    {
                        "schema": "resolvable.diff/1",
                        "verdict": {"left": v_left.to_dict(), "right": v_right.to_dict()},
                    },
                    indent=2,
                )
            )
        return say(v_left)
    if unresolved:
        return _side_refused(args, pack, (left, v_left), (right, v_right), unresolved)
    changes = [c for c in res_left.diff(res_right) if c.field != "device" or args.vs_platform]
    return report_diff(args, res_left, res_right, changes, pack.name, (v_left, v_right))


def _side_refused(
    args: argparse.Namespace, pack: Any, left: tuple[Any, Any], right: tuple[Any, Any], unresolved: list[Any]
) -> int:
    """One side does not resolve (a flag its release lacks, a rule that refuses it): that refusal
    is the difference."""
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.diff/1",
                    "engine": pack.name,
                    f"{pack.name}_version": [left[0].release, right[0].release],
                    "changes": [],
                    "refused": {release: _refusal(v) for release, v in unresolved},
                    "verdict": {"left": left[1].to_dict(), "right": right[1].to_dict()},
                },
                indent=2,
            )
        )
        return 0
    label = [f"{launch.platform} @ {pack.name} {launch.release}" for launch, _ in (left, right)]
    print(f"{args.model}: {label[0]}  vs  {label[1]}")
    for release, verdict in unresolved:
        fix = f" (fix: {verdict.fix})" if verdict.fix else ""
        print(f"refused on {release}: {verdict.message}{fix}")
    return 0
