"""The one front door of the launch commands: the tool's options, then one ``Launch`` per input.

Every input form — the tool's flags (``MODEL --tp-size 8``), a pasted command after ``--``
(``vllm serve …``, ``python -m sglang.launch_server …``, ``docker run IMAGE …``) — becomes one
``resolvable.launch.Launch`` built by the engine's pack (``Pack.build_launch``), whatever the
command (docs/architecture.md, "One launch, one verdict").

Invariants:

* the tool's options are parsed once, by argparse, without abbreviations (``--model`` is vLLM's
  flag, never a prefix of ``--model-config``); what argparse does not know is the engine's argv,
  read by the pack with the flag table of the release being modelled;
* the engine comes from the pasted command, else ``--engine``, else the first registered pack;
  the release from the pack's release option (``flag``), else the image tag (``image-tag``), else
  the pack's default (``default``); a release option of another pack is a usage error;
* no engine is named here: everything engine-specific is a ``Pack`` member.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .. import packs
from ..errors import ResolvableError
from ._common import UsageError, _env_pairs

#: Tool options that take no value / take one, by name (``cli._split_pasted`` moves them from
#: after a pasted command to the tool's side).
SWITCHES = ("--json", "--all", "--no-startup-check")


def add_launch_options(p: argparse.ArgumentParser, *, platform_default: str = "detect") -> None:
    """The options every launch command takes (MODEL, the engine, the node, the environment, the
    stand-in config, the release option of every registered pack)."""
    from .._platform import Platform

    p.add_argument(
        "model",
        nargs="?",
        help="bundled sample, config.json, model directory or hub repo id; or paste the launch "
        "command after `--` (vllm serve M …, python -m sglang.launch_server …, docker run …)",
    )
    p.add_argument(
        "--engine",
        choices=packs.names(),
        default=None,
        help=f"rule pack: {', '.join(packs.names())} (default: read from a pasted command, else {packs.names()[0]})",
    )
    p.add_argument(
        "--platform",
        default=platform_default,
        metavar="PRESET",
        help=f"platform preset to simulate: {', '.join(Platform.presets())}; or 'detect' for this "
        f"machine (default: {platform_default})",
    )
    p.add_argument("--gpus", type=int, metavar="N", help="GPUs per node (default: the preset's)")
    p.add_argument(
        "--used-gib",
        type=float,
        default=0.0,
        metavar="GIB",
        help="device memory other processes already hold on each GPU (a shared GPU), in GiB; "
        "the memory model starts from what is left",
    )
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment variable the engine sees")
    p.add_argument(
        "--model-config",
        dest="model_config",
        metavar="PATH|SAMPLE",
        help="a config.json, model directory or bundled sample that stands for the model "
        "(a local model path that is not on this machine); the header says when one is used",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (docs/cli-json.md)")
    for name in packs.names():
        try:
            other = packs.get(name)
        except packs.PackError:  # a pack that cannot load breaks none of the others' launches
            continue
        p.add_argument(
            other.release_option,
            dest=_release_dest(name),
            metavar="VERSION",
            help=f"{other.title or name} release to model, or 'auto' for the installed one",
        )


def command_parser(
    prog: str, *, description: str | None = None, epilog: str | None = None, platform_default: str = "detect"
) -> argparse.ArgumentParser:
    """The parser of one launch command (``resolvable explain``, ``fit``, ``diff``, ``upgrade`` …):
    no abbreviations (``--model`` is vLLM's flag, never a prefix of ``--model-config``), the
    launch options of every pack (``add_launch_options``); the caller adds the command's own."""
    from ._common import _Parser

    p = _Parser(prog=prog, description=description, epilog=epilog, allow_abbrev=False)
    add_launch_options(p, platform_default=platform_default)
    return p


#: The launch commands' own options beyond the launch, by command (every pack takes them).
EXPLAIN_OPTIONS = ("--field", "--why-not", "--all")


def launch_parser(pack: packs.Pack, command: str) -> argparse.ArgumentParser:
    """The one parser of launch command ``command`` (explain, resolve) of ``pack``: the launch
    options, the command's own options and the pack's tool options (``Pack.add_tool_options``);
    the engine's flags are left over, for ``read_launch`` (one parser per command, not one per
    engine)."""
    p = command_parser(
        f"resolvable {command}",
        epilog="The engine's launch flags are accepted here too (before `--`, or in the pasted "
        f"command); list them with `resolvable flags --engine {pack.name} [--release VERSION] [WORD]`.",
    )
    if command == "explain":
        p.add_argument(
            "--field", help="explain only this field (default: every field that differs from its default)"
        )
        p.add_argument(
            "--why-not", metavar="VALUE", help="would FIELD=VALUE be accepted? who rejects or overrides it?"
        )
    p.add_argument(
        "--all", action="store_true", help="also the fields that the model or platform makes irrelevant"
    )
    p.add_argument(
        "--no-startup-check",
        dest="startup_check",
        action="store_false",
        help="skip the start-up checks and the node check (judge argument resolution and memory)",
    )
    p.add_argument(
        "--hub-timeout",
        metavar="SECONDS",
        help="overall deadline for fetching a hub model's config.json and side files, never retried "
        "(default: $RESOLVABLE_HUB_TIMEOUT, else 30)",
    )
    # an engine flag on every launch, FLAG=VALUE (a flag or a field name): the older spelling of
    # giving the flag itself, read with the release's flag table like any other
    p.add_argument("--set", action="append", default=[], metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(tool_options=tuple(pack.add_tool_options(p, command)))
    return p


def _release_dest(name: str) -> str:
    return "release_of_" + name.replace("-", "_")


def read_launch(
    args: argparse.Namespace,
    engine_argv: Sequence[str],
    pasted: Sequence[str] | None,
    *,
    release: str | None = None,
    command: Any = None,
) -> tuple[packs.Pack, Any]:
    """(the pack, the ``Launch``) of the parsed tool options, the engine flags argparse left over
    and the pasted command's words (None: nothing after ``--``). ``release`` builds the launch on
    that release whatever the release option or the image tag say (one side of ``upgrade``);
    ``command`` is the pasted command already read (``cli.paste.read``), instead of its words."""
    from .paste import read, tag_release

    if command is None:
        command = read(pasted) if pasted is not None else None
    engine = args.engine
    if command is not None and command.engine is not None:
        if engine is not None and engine != command.engine:
            raise UsageError(
                f"--engine {engine}, but the pasted command starts {command.engine}; drop --engine "
                "(the engine is read from the command)"
            )
        engine = command.engine
    engine = engine or packs.names()[0]
    pack = packs.get(engine)
    for other in packs.names():
        if other != engine and getattr(args, _release_dest(other), None) is not None:
            raise UsageError(
                f"{packs.get(other).release_option} is for --engine {other}; this launch is "
                f"{pack.title or engine}: use {pack.release_option}"
            )
    side, release = release, getattr(args, _release_dest(engine), None)
    release_from = None
    image = command.image if command is not None else None
    if side is not None:
        release, release_from = side, "flag"
        if command is not None and command.tag is not None:
            image = f"{image}:{command.tag}"
    elif command is not None and command.tag is not None:
        tagged, _note = tag_release(command.tag, list(pack.releases), pack.title or engine)
        if release is None:
            release, release_from = tagged, "image-tag"
        elif pack.release(release) != tagged:
            raise UsageError(
                f"{pack.release_option} {release} and the image {image}:{command.tag} name different "
                "releases; give one"
            )
        image = f"{image}:{command.tag}"
    extra = list(engine_argv)
    if extra and not extra[0].startswith("-") and args.model is None:
        args.model, extra = extra[0], extra[1:]
    if command is not None and args.model is not None:  # MODEL and a pasted command: one model
        try:
            named = pack.build_launch(command=command.words, command_env=command.env, release=release).model
        except ResolvableError:  # the command names none (or is refused: judged below)
            named = None
        if named is not None and named != args.model:
            raise UsageError(
                f"two models: {args.model!r} before `--` and {named!r} in the pasted command; give one"
            )
    launch = _build(pack, command, extra, args, release, release_from, image)
    options = {dest: getattr(args, dest, None) for dest in getattr(args, "tool_options", ())}
    if options:  # the pack's own tool options (``Pack.add_tool_options``): its launch carries them
        launch = launch.replace(options={**launch.options, **options})
    used = getattr(args, "used_gib", 0.0) or 0.0
    if used:
        from dataclasses import replace

        launch = launch.replace(node=replace(launch.node, used_gib=used))
    return pack, launch


def _build(
    pack: packs.Pack,
    command: Any,
    extra: list[str],
    args: argparse.Namespace,
    release: str | None,
    release_from: str | None,
    image: str | None,
) -> Any:
    return pack.build_launch(
        command=command.words if command is not None else None,
        command_env=command.env if command is not None else None,
        argv=extra,
        model=args.model,
        release=release,
        release_from=release_from,
        image=image,
        platform=args.platform,
        gpus=args.gpus,
        env=_env_pairs(args.env),
        model_config=args.model_config,
    )
