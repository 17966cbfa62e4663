"""The front-end module of the pack whose ``Pack.frontend`` names it (the default command set's
pack, ``_common.default_pack()``): its renderings of the table commands that ``cli.tables``
parses for every pack.

Invariants: parsing is ``cli.tables``'s (one parser per command for every pack); these functions
read ``args.pack``, ``args.release`` and ``args.vs_release`` (the raw values of the pack's release
option and its ``--vs-`` twin) and render; ``matrix`` and ``backends`` write ``-o`` themselves
(``writes_output``: the stderr line says how many cells).
"""

from __future__ import annotations

import argparse


def matrix(args: argparse.Namespace) -> int:
    """``resolvable matrix`` (``cli.commands.cmd_matrix``)."""
    from .commands import cmd_matrix

    if args.gpus is not None:
        from ._common import UsageError

        raise UsageError(
            f"--gpus: the {args.pack.title} matrix probes each preset with its own GPUs; "
            "use `resolvable explain MODEL --gpus N` for one launch"
        )
    return cmd_matrix(args, [])


def backends(args: argparse.Namespace) -> int:
    """``resolvable backends`` (``cli.backends.cmd_backends``)."""
    from .backends import cmd_backends

    return cmd_backends(args, [])


def models(args: argparse.Namespace) -> int:
    """``resolvable models`` (``cli.commands.cmd_models``)."""
    from .commands import cmd_models

    return cmd_models(args, [])


matrix.writes_output = True  # type: ignore[attr-defined]
backends.writes_output = True  # type: ignore[attr-defined]
