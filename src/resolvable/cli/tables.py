"""`resolvable matrix | backends | models [--engine NAME]`: one parser per command for every
registered pack, the rendering by the pack's front-end module (``Pack.frontend``).

Each command's options are the same whatever the engine (the release option of every registered
pack, its ``--vs-`` twin for ``matrix``, ``--engine``); the pack is the one ``--engine`` names,
else the first registered; its front-end module renders the answer (``matrix(args)``,
``backends(args)``, ``models(args)``, reading ``args.pack`` and the raw ``args.release`` /
``args.vs_release`` of that pack's release option). Invariants: no engine is named here; a
release option of another pack is a usage error (exit 2), as in the launch commands
(``cli.frontdoor.read_launch``); a pack whose front-end has no rendering of the command says so
in one ``error:`` line (exit 2); ``-o FILE`` is written atomically for every pack.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence

from .. import packs
from ._common import UsageError

#: The table commands this module parses for every pack.
COMMANDS = ("matrix", "backends", "models")
#: ``--format`` choices, by command: the union over the packs (a pack's renderer refuses the
#: formats it does not render, naming those it does).
FORMATS = {
    "matrix": ("text", "md", "csv", "json", "html"),
    "backends": ("text", "md", "html", "json"),
}
HELP = {
    "matrix": "models × platforms support table (text, md, csv, json, html)",
    "backends": "attention-backend capability table of the engine, from its rules",
    "models": "the bundled model configs",
}


def _release_dest(name: str) -> str:
    from .frontdoor import _release_dest as dest

    return dest(name)


def _vs_dest(name: str) -> str:
    return "vs_" + _release_dest(name)


def _vs_option(pack: packs.Pack) -> str:
    return "--vs-" + pack.release_option.removeprefix("--")


def _loaded() -> list[packs.Pack]:
    loaded = []
    for name in packs.names():
        try:
            loaded.append(packs.get(name))
        except packs.PackError:  # a pack that cannot load breaks none of the others' tables
            continue
    return loaded


def build_parser(command: str) -> argparse.ArgumentParser:
    """The one parser of table command ``command`` (every pack's options; no abbreviations)."""
    from ._common import _Parser

    p = _Parser(prog=f"resolvable {command}", description=HELP[command], allow_abbrev=False)
    p.add_argument(
        "--engine",
        choices=packs.names(),
        default=None,
        help=f"rule pack: {', '.join(packs.names())} (default: {packs.names()[0]})",
    )
    if command == "models":
        p.add_argument("--json", action="store_true", help="machine-readable output (docs/cli-json.md)")
        return p
    if command == "matrix":
        p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
        p.add_argument("--platforms", help="comma-separated presets (default: the pack's grid of presets)")
        p.add_argument(
            "--fields",
            help="comma-separated resolved fields per cell (default: the attention backend and the "
            "page/block size); kv_tokens (SGLang): the KV-cache tokens per GPU",
        )
        p.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="FLAG=VALUE",
            help="engine flag applied to every cell",
        )
        p.add_argument(
            "--env", action="append", metavar="KEY=VALUE", help="environment variable the engine sees"
        )
        p.add_argument("--gpus", type=int, metavar="N", help="GPUs per node (default: the preset's)")
        p.add_argument(
            "--no-startup-check",
            dest="startup_check",
            action="store_false",
            help="judge each cell by argument resolution only (skip the start-up checks)",
        )
    else:
        p.add_argument("--backends", help="comma-separated backends (default: every backend of the table)")
        p.add_argument("--platforms", help="comma-separated presets to probe (default: every preset)")
    p.add_argument("--format", choices=FORMATS[command], default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    for pack in _loaded():
        p.add_argument(
            pack.release_option,
            dest=_release_dest(pack.name),
            metavar="VERSION",
            help=f"{pack.title or pack.name} release to model, or 'auto' for the installed one",
        )
        if command == "matrix":
            p.add_argument(
                _vs_option(pack),
                dest=_vs_dest(pack.name),
                metavar="VERSION",
                help=f"list only the cells that change from {pack.release_option} to this "
                f"{pack.title or pack.name} release (upgrade impact)",
            )
    return p


def main(command: str, argv: Sequence[str]) -> int:
    """Run table command ``command`` with ``argv`` (after the command's name)."""
    if "--" in argv:
        raise UsageError(
            f"`--` (a pasted launch command) is not for `resolvable {command}`; paste it to explain"
        )
    args = build_parser(command).parse_args(list(argv))
    pack = packs.get(args.engine or packs.names()[0])
    args.engine, args.pack, args.command = pack.name, pack, command
    for other in _loaded():
        named = [
            option
            for option, dest in (
                (other.release_option, _release_dest(other.name)),
                (_vs_option(other), _vs_dest(other.name)),
            )
            if getattr(args, dest, None) is not None
        ]
        if other.name != pack.name and named:
            raise UsageError(
                f"{named[0]} is for --engine {other.name}; this is the {pack.title or pack.name} "
                f"{command}: use {pack.release_option}"
            )
    from .older import hook

    hook(pack, [command, *argv], None)  # a parse-only release names what does take it (exit 2)
    args.release = getattr(args, _release_dest(pack.name), None)
    args.vs_release = getattr(args, _vs_dest(pack.name), None)
    from .launchcmd import renderer

    try:
        render = getattr(renderer(pack), command, None)
    except ImportError:
        render = None
    if render is None:
        raise UsageError(f"the {pack.title or pack.name} pack has no `resolvable {command}` table")
    output = getattr(args, "output", None)
    if not output or getattr(render, "writes_output", False):  # the renderer writes -o itself
        return int(render(args) or 0)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = int(render(args) or 0)
    from .._files import shown, write_atomic

    write_atomic(output, buffer.getvalue(), what=f"{command} output")
    print(f"wrote {shown(output)}", file=sys.stderr)
    return code
