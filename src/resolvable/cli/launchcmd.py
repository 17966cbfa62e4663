"""`resolvable explain|resolve …` of every pack with a front-end module (``Pack.frontend``): one
parser per command, one ``Launch``, one verdict; the pack's front-end module only renders.

The launch is read once by the front door (``cli.frontdoor.launch_parser`` + ``read_launch`` →
``Pack.build_launch``), whatever the input form (tool flags, a pasted command, ``docker run``);
``--why-not`` is answered for every pack by ``cli.whynot`` (``Launch.with_user`` +
``Pack.verdict``); the rendering of the answer is the front-end module's ``explain(args)`` /
``resolve(args)`` (``args.pack``, ``args.launch``, ``args.pasted`` set here). Invariants: no
engine is named here; exit codes are the verdict's (0 would start, 1 would not, 2 the tool's own
input error).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from .. import packs

#: The launch commands this module parses for every pack.
COMMANDS = ("explain", "resolve")


def renderer(pack: packs.Pack) -> Any:
    """The front-end module that renders ``pack``'s answers (``resolvable.cli.<Pack.frontend>``)."""
    return importlib.import_module(f"{__package__}.{pack.frontend}")


def main(pack: packs.Pack, argv: Sequence[str], pasted: Any = None) -> int:
    """Run ``explain`` or ``resolve`` (``argv[0]``) of ``pack``; ``pasted`` is the pasted command
    already read (``cli.paste.read``) or None."""
    from ._common import check_platform_env
    from .frontdoor import launch_parser, read_launch

    command, rest = argv[0], list(argv[1:])
    args, extra = launch_parser(pack, command).parse_known_args(rest)
    if args.engine is None:  # routed here by --engine or the pasted command: this pack
        args.engine = pack.name
    if args.platform == "detect":
        check_platform_env()
    if args.set:  # --set FLAG=VALUE: the engine flag itself (its older spelling)
        from .diff import flag_words

        extra = [*extra, *flag_words(args.set)]
    pack, launch = read_launch(args, extra, None, command=pasted)
    args.pack, args.launch, args.pasted = pack, launch, pasted
    render = renderer(pack)
    if command == "explain" and args.why_not is not None:
        if hasattr(render, "why_not"):  # the pack's own words for it (its schema, its checks)
            return int(render.why_not(args) or 0)
        from .whynot import why_not

        return why_not(pack, launch, args.why_not, args.field, as_json=args.json)
    return int((render.explain if command == "explain" else render.resolve)(args) or 0)
