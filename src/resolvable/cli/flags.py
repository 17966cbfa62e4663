"""`resolvable flags --engine E [--release R] [WORD]`: the engine's launch flags of one release.

The launch commands' help (``explain --help``) lists the tool's own options only; the engine's
flags (hundreds per release) are listed here, with whether the rules read each one. Invariants:
the list is the pack's (``Pack.add_cli_args`` of that release, the same parser the launch is read
with), no engine is named here, and ``WORD`` filters by a substring of the flag or its help.
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import packs
from ._common import _Parser

__all__ = ["add_parser", "cmd_flags", "hide_engine_flags"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("flags", help="the engine's launch flags of one release (WORD filters them)")
    p.add_argument("word", nargs="?", metavar="WORD", help="show only flags whose name or help has WORD")
    p.add_argument("--engine", choices=packs.names(), default=packs.names()[0])
    p.add_argument("--release", metavar="VERSION", help="the release (default: the pack's default)")
    p.set_defaults(func=cmd_flags)
    return p


def engine_flags(pack: packs.Pack, release: str) -> list[tuple[str, str]]:
    """(the flag's option strings, its help) for every engine flag of ``release``."""
    parser = _Parser(prog=f"{pack.name} serve", add_help=False)
    pack.add_cli_args(parser, release)
    rows = []
    for action in parser._actions:
        if action.option_strings:
            rows.append((", ".join(action.option_strings), str(action.help or "").replace("%%", "%")))
    return rows


def cmd_flags(args: argparse.Namespace, ignored: Any = None) -> int:
    pack = packs.get(args.engine)
    release = pack.release(args.release)
    rows = engine_flags(pack, release)
    if args.word:
        word = args.word.lower()
        rows = [r for r in rows if word in r[0].lower() or word in r[1].lower()]
    print(
        f"{pack.title or pack.name} {release}: {len(rows)} launch flags"
        + (f" matching {args.word!r}" if args.word else "")
    )
    for options, text in rows:
        print(f"  {options}")
        if text:
            print(f"      {text}")
    return 0


def hide_engine_flags(parser: argparse.ArgumentParser, engine: str) -> None:
    """Leave the engine's flags out of ``parser``'s help (they are still parsed): every action of
    the argument groups ``Pack.add_cli_args`` added, and an epilog that names ``resolvable flags``."""
    for group in parser._action_groups:
        if group.title in ("positional arguments", "options", "optional arguments"):
            continue
        for action in group._group_actions:
            action.help = argparse.SUPPRESS
    parser.epilog = (
        f"The engine's launch flags are accepted here too (before `--`, or in the pasted command); "
        f"list them with `resolvable flags --engine {engine} [--release VERSION] [WORD]`."
    )
