"""One launch found in a deployment file (``FileLaunch``), built from a container-like record:
an image, its command and arguments, its environment and the node it is scheduled on.

Invariants:

* ``argv`` is the engine command as the container runs it, after the orchestrator's and the
  shell's expansions (``expand``), with an official image's entrypoint in front when the
  container gives flags only; argparse abbreviations are written out in full as the engine's
  own parser reads them (``--mem-frac`` → ``--mem-fraction-static``, by unique prefix over the
  option strings of that release's flag table, ``Pack.option_strings``); ``notes`` says so;
* ``arg_lines[i]`` is the file line of ``argv[i]`` (the orchestrator's own words take the line of
  the container), so a finding points at the argument that causes it;
* ``release`` comes from the image tag only (``images.read_image``), never guessed from a flag;
* ``runtime`` names every value used that is known at run time only, with why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import packs
from .expand import Scope
from .images import Image, read_image
from .shell import commands

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

_SHELLS = ("bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env")


@dataclass(frozen=True)
class FileLaunch:
    engine: str | None
    release: str | None
    release_from: str
    image: str | None
    model: str | None
    argv: tuple[str, ...]
    env: dict[str, str]
    gpus_per_node: int | str | None
    nodes: int
    gpu: str | None
    file: str
    line: int
    source: str = ""
    arg_lines: tuple[int, ...] = ()
    runtime: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    modelled: bool = True
    nearest: str | None = None
    platform_hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "release": self.release,
            "release_from": self.release_from,
            "release_modelled": self.modelled,
            "image": self.image,
            "model": self.model,
            "argv": list(self.argv),
            "env": dict(self.env),
            "gpus_per_node": self.gpus_per_node,
            "nodes": self.nodes,
            "gpu": self.gpu,
            "file": self.file,
            "line": self.line,
            "source": self.source,
            "runtime": dict(self.runtime),
            "notes": list(self.notes),
        }

    def line_of(self, flag: str) -> int:
        """The file line of ``flag`` (``--tp-size``) in ``argv`` (the launch's line if absent)."""
        for i, word in enumerate(self.argv):
            if word == flag or word.startswith(flag + "="):
                return self.arg_lines[i] if i < len(self.arg_lines) else self.line
        return self.line


@dataclass
class Node:
    """Where a container runs: GPUs per node (int, "all", or None), nodes, the GPU product."""

    gpus_per_node: int | str | None = None
    nodes: int = 1
    gpu: str | None = None


def build(
    *,
    image: str | None,
    command: Sequence[str],
    lines: Sequence[int],
    env: dict[str, str],
    scope: Scope,
    file: str,
    line: int,
    node: Node,
    source: str,
    notes: Sequence[str] = (),
) -> list[FileLaunch]:
    """The launches a container runs (none when it starts no engine this tool knows)."""
    image_info = read_image(image) if image else None
    words, word_lines = list(command), list(lines) or [line] * len(command)
    found: list[tuple[list[str], list[int], dict[str, str], bool]] = []
    if words and words[0] in _SHELLS and "-c" in words[1:3]:
        at = words.index("-c")
        if at + 1 < len(words):
            script_scope = scope
            rest = [w for w in words[at + 2 :] if w != "--"]
            script_scope.values["@"] = " ".join(rest)
            first = word_lines[at + 1] if at + 1 < len(word_lines) else line
            for cmd in commands(words[at + 1], script_scope, first):
                found.append((list(cmd.words), list(cmd.lines), cmd.env, True))
    else:
        found.append((words, word_lines, {}, False))
    out = []
    for cmd_words, cmd_lines, cmd_env, in_script in found:
        launch = _one(image_info, image, cmd_words, cmd_lines, {**env, **cmd_env}, scope, file, line, node, source,
                      notes, in_script)  # fmt: skip
        if launch is not None:
            out.append(launch)
    return out


def _one(
    image_info: Image | None,
    image: str | None,
    words: list[str],
    lines: list[int],
    env: dict[str, str],
    scope: Scope,
    file: str,
    line: int,
    node: Node,
    source: str,
    notes: Sequence[str],
    in_script: bool = False,
) -> FileLaunch | None:
    engine = packs.recognise(words) if words else None
    notes = list(notes)
    if engine is None and not in_script and image_info is not None and image_info.engine is not None:
        pack = packs.get(image_info.engine)
        if pack.image_command and _flags_only(words):
            words = [*pack.image_command, *words]
            lines = [line] * len(pack.image_command) + lines
            engine = pack.name
            if not image_info.official:
                notes.append(
                    f"{image_info.repository}'s entrypoint is taken to be `{' '.join(pack.image_command)}`, as in {pack.images[0]}"
                )
    if engine is None:
        return None
    pack = packs.get(engine)
    if image_info is not None and image_info.engine in (engine, None):
        release, release_from = image_info.release, image_info.release_from
        modelled, nearest, hint = image_info.modelled, image_info.nearest, image_info.platform_hint
        if image_info.engine is None and image_info.release is None and "placeholder" not in release_from:
            release_from = f"{image_info.repository}:{image_info.tag}: not an image of {pack.title}; the release is unknown"
    elif image_info is not None:
        release, release_from, modelled, nearest, hint = (
            None, f"{image_info.ref} is a {image_info.engine} image but the command starts {pack.title}",
            False, None, image_info.platform_hint,
        )  # fmt: skip
    else:
        release, release_from, modelled, nearest, hint = (
            None,
            "no image: the release is unknown",
            False,
            None,
            None,
        )
    words, expanded = _expand_abbreviations(words, pack, release if modelled else None)
    notes += expanded
    prefix = f"{engine.upper()}_"
    engine_env = {
        k: v for k, v in env.items() if k in pack.env_vars or k.startswith(prefix) or k.startswith("SGL_")
    }
    return FileLaunch(
        engine=engine,
        release=release,
        release_from=release_from,
        image=image,
        model=model_of(words),
        argv=tuple(words),
        env=engine_env,
        gpus_per_node=node.gpus_per_node,
        nodes=node.nodes,
        gpu=node.gpu,
        file=file,
        line=line,
        source=source,
        arg_lines=tuple(lines[: len(words)]) + (line,) * max(0, len(words) - len(lines)),
        runtime=dict(scope.runtime),
        notes=tuple(notes),
        modelled=modelled,
        nearest=nearest,
        platform_hint=hint,
    )


def _flags_only(words: list[str]) -> bool:
    """Whether a container's words are arguments to the image's entrypoint (flags, or a model
    name first), not a program of their own."""
    if not words:
        return True
    head = words[0]
    return head.startswith("-") or not (
        head.startswith(("/", "./")) or "python" in head or head in _SHELLS or head in ("exec", "env")
    )


def _expand_abbreviations(
    words: list[str], pack: packs.Pack, release: str | None
) -> tuple[list[str], list[str]]:
    """Long options written as a unique prefix, as argparse (allow_abbrev) reads them."""
    try:
        options = pack.option_strings(release)
    except Exception:  # a pack without a flag table: leave the words as written
        return words, []
    known = set(options)
    out, notes = [], []
    for word in words:
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word.partition("=")
            if name not in known and name.replace("_", "-") not in known:
                matches = [o for o in options if o.startswith(name)]
                if len(matches) == 1:
                    notes.append(
                        f"{name} is an abbreviation of {matches[0]} (argparse reads a unique prefix)"
                    )
                    word = matches[0] + eq + value
        out.append(word)
    return out, notes


def model_of(words: Sequence[str]) -> str | None:
    """The model a launch command names (``--model-path``, ``--model``, or ``serve``'s positional)."""
    for i, word in enumerate(words):
        for flag in ("--model-path", "--model"):
            if word == flag and i + 1 < len(words):
                return words[i + 1]
            if word.startswith(flag + "="):
                return word.split("=", 1)[1]
    if "serve" in words[:3]:
        at = list(words).index("serve")
        if at + 1 < len(words) and not words[at + 1].startswith("-"):
            return words[at + 1]
    return None
