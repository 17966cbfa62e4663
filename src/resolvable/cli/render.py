"""Header lines of the launch commands that every pack's rendering shares (explain, resolve).

Invariants: no engine is named here (the pack's ``title`` and ``release_option`` name it); the
release line always says where the release came from (the default, the release option, the
image tag and what it named, the installed engine); the node line is the platform the launch is
judged on, GPUs per node × nodes (docs/architecture.md, "One launch, one verdict").
"""

from __future__ import annotations

from typing import Any


def release_note(pack: Any, launch: Any, pasted: Any = None) -> str | None:
    """Where the release came from when it is not the default or the release option: the image
    tag (and what it named), or the installed engine (``auto``); None otherwise."""
    tag = getattr(pasted, "tag", None)
    if tag is not None:
        from ..errors import ResolvableError
        from .paste import tag_release

        try:
            _, note = tag_release(tag, pack.releases, pack.title, parse_only=pack.parse_only_releases())
        except ResolvableError:  # refused where the release was read; only the words are wanted here
            note = None
        return note or f"from the image tag {tag!r}"
    if launch.release_from == "command":
        installed = pack.installed_version()
        if installed is None:
            return f"{pack.release_option} auto, and no {pack.name} is installed here: the default release"
        return f"the installed {pack.name} {installed} ({pack.release_option} auto)"
    return None


def release_line(pack: Any, launch: Any, note: str | None = None) -> str:
    """``release   <Engine> X.Y.Z  (where it came from)``."""
    line = f"release   {pack.title or pack.name} {launch.release}"
    if note:
        return f"{line}  ({note})"
    if launch.release_from == "default":
        return f"{line}  (the default release)"
    return f"{line}  (named by {pack.release_option})"


def node_line(platform: Any, node: Any = None) -> str:
    """``node      8 × NVIDIA H100 80GB HBM3, 80 GiB each  (--gpus N to change)``: GPUs per node
    × the device; the number of nodes when more than one, the memory other processes hold
    (``--used-gib``) when any (``node``: the launch's ``resolvable.launch.Node``)."""
    line = f"node      {platform.device_count} × {platform.device_name or platform.name}"
    if platform.memory_gib:
        line += f", {platform.memory_gib:g} GiB each"
    nodes = getattr(node, "nodes", 1)
    if nodes > 1:
        line += f"; {nodes} nodes"
    used = getattr(node, "used_gib", 0.0)
    if used:
        line += f"; {used:g} GiB of each held by other processes (--used-gib)"
    return line + "  (--gpus N to change)"
