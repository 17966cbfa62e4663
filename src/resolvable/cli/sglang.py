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


# -- explain, resolve: the launch read by the front door (cli.launchcmd) ------------------------


def _adapt(args: argparse.Namespace) -> None:
    """The front door's answer (``args.launch``: the ``Launch``; ``args.pasted``: the pasted
    command as read) in the words this pack's renderings read: ``args.front_launch`` is the
    launch judged (``_common.launch_of`` and ``_user_flags`` return it), ``args.launch`` the
    pasted command's launcher, environment and ``--revision`` (None without one), ``args.model``
    its model, ``args.flags_release`` its release, ``args.revision`` sglang's ``--revision``."""
    from ._common import Pasted

    launch = args.launch
    if args.set:  # --set's own errors are the tool's input errors (exit 2), as they always were
        from ._common import _set_namespace

        _set_namespace(args.set, launch.release)
    if launch.rejected is not None:  # the engine's parser refuses: say it in its usual words
        _refuse(launch)
    args.front_launch = launch
    args.model = launch.model
    args.flags_release = launch.release
    args.sglang_version = launch.release
    args.pasted_command = args.pasted
    args.launch = None
    revision = dict(launch.not_modelled_values).get("revision")
    args.revision = revision  # sglang's --revision: the hub revision the config is read at
    if launch.launcher is not None:
        command_env = {
            k: v for k, v in launch.env.items() if k in dict(getattr(args.pasted, "env", {}) or {})
        }
        args.launch = Pasted(
            launch.launcher, command_env, launch.model, argparse.Namespace(revision=revision)
        )


def _refuse(launch: object) -> None:
    """Read the refused launch's flags again with the release's parser as the engine would, to
    raise its refusal with the flag tables' words (the flag's release history, a near miss, the
    valid choices); the verdict's own refusal when that parser accepts them."""
    from ._common import _check_extras, _Parser, default_pack

    engine = default_pack()
    parser = _Parser(prog="sglang serve", add_help=False)
    parser.engine_refusals = True  # a value the launch's parser refuses is a refusal (exit 1)
    parser.release = launch.release  # type: ignore[attr-defined]
    parser.see = f"`resolvable flags --engine {engine.name} --release {launch.release}`"  # type: ignore[attr-defined]
    engine.add_cli_args(parser, launch.release)
    _namespace, extra = parser.parse_known_args(list(launch.argv))  # type: ignore[attr-defined]
    _check_extras(parser, extra, strict=True)


def explain(args: argparse.Namespace) -> int:
    """``resolvable explain`` of this pack (``cli.explain.cmd_explain``)."""
    from .explain import cmd_explain

    _adapt(args)
    return cmd_explain(args, [])


def resolve(args: argparse.Namespace) -> int:
    """``resolvable resolve`` of this pack (``cli.commands.cmd_resolve``)."""
    from .commands import cmd_resolve

    _adapt(args)
    return cmd_resolve(args, [])


def why_not(args: argparse.Namespace) -> int:
    """``--why-not VALUE`` in this pack's words (the field's schema, ServerArgs and the start-up
    check): ``cli.explain.cmd_explain``."""
    return explain(args)
