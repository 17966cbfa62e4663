"""One launch of an engine, as every command of the tool sees it: the ``Launch`` record.

A ``Launch`` is built once by the engine's pack (``Pack.build_launch``) from any input form (the
tool's own flags, a pasted command, ``docker run``, a deployment file) and then handed, unchanged,
to every command (explain, resolve, fit, upgrade, diff, matrix, lint, backends) and to
``Pack.verdict`` (``resolvable.verdict``). docs/architecture.md, "One launch, one verdict".

Invariants:

* frozen: a command never edits a launch; ``Launch.replace(...)`` makes another one (a fix
  being checked, the other side of a comparison);
* ``release`` is a release the pack models, and ``release_from`` says where it came from
  (``flag``: the tool's release option; ``image-tag``: a docker image's tag; ``command``: the
  launch itself, e.g. a deployment file or ``auto`` for the installed engine; ``default``: the
  pack's default) — no module global holds a release;
* ``user`` holds the engine flags *as that release parses them* (the modelled arguments, by
  field name); ``not_modelled`` the flags accepted but not read by the rules (as typed);
  ``rejected`` the engine's own parser's refusal (an unknown flag, a bad value), which the
  verdict reports as ``refused`` — the launch is still built so that every command can say so;
* ``env`` is the environment the engine would see (this shell's variables the rules read, the
  command's assignments and docker ``-e``, then the tool's ``--env``, in that order);
* standard library only; importing this module imports no pack.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

__all__ = ["CONFIG_SOURCES", "RELEASE_SOURCES", "Launch", "Node", "config_source_of"]

#: Where a launch's release came from.
RELEASE_SOURCES = ("flag", "image-tag", "command", "default")
#: Where a launch's model config is read from: a hub repo id, a local directory or file, a bundled
#: sample, or a stand-in named by the tool's ``--model-config`` (the model itself is not here).
CONFIG_SOURCES = ("hub", "local", "sample", "stand-in")


def _frozen_map(value: Any) -> MappingProxyType[str, Any]:
    return MappingProxyType(dict(value or {}))


@dataclass(frozen=True)
class Node:
    """Where the launch runs: a platform preset name (or ``detect``), the GPUs per node (None: the
    preset's own count), the number of nodes, and the device memory other processes already hold
    on each GPU (``used_gib``, the tool's ``--used-gib``: a shared GPU; the memory model reads it)."""

    platform: str = "detect"
    gpus_per_node: int | None = None
    nodes: int = 1
    used_gib: float = 0.0

    def __post_init__(self) -> None:
        from .errors import InvalidArgumentError

        for name in ("gpus_per_node", "nodes"):
            value = getattr(self, name)
            if value is None and name == "gpus_per_node":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                flag = "--gpus" if name == "gpus_per_node" else "--nnodes"
                raise InvalidArgumentError(f"{flag} must be a positive integer, got {value!r}")
        used = self.used_gib
        if isinstance(used, bool) or not isinstance(used, (int, float)) or not 0 <= used < 1 << 20:
            raise InvalidArgumentError(f"--used-gib must be a number of GiB >= 0, got {used!r}")

    @property
    def used_bytes(self) -> float:
        """``used_gib`` in bytes (what the memory models read as ``used_bytes``)."""
        return float(self.used_gib) * (1 << 30)

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "gpus_per_node": self.gpus_per_node,
            "nodes": self.nodes,
            "used_gib": self.used_gib,
        }


@dataclass(frozen=True, eq=False)
class Launch:
    """One launch of ``engine`` at ``release``: the model, the node, the flags and the environment.

    ``parsed`` is the pack's own parse of the flags (its front-end pieces read it: vLLM's
    ``VllmParsed``, SGLang's ``ParsedFlags``); everything a command needs across packs is in the
    other fields."""

    engine: str
    release: str
    release_from: str
    model: str
    config_source: str
    model_config: str | None = None
    node: Node = field(default_factory=Node)
    user: MappingProxyType[str, Any] = field(default_factory=lambda: _frozen_map({}))
    argv: tuple[str, ...] = ()
    not_modelled: tuple[str, ...] = ()
    not_modelled_values: MappingProxyType[str, Any] = field(default_factory=lambda: _frozen_map({}))
    env: MappingProxyType[str, str] = field(default_factory=lambda: _frozen_map({}))
    launcher: str | None = None
    image: str | None = None
    notes: tuple[str, ...] = ()
    rejected: str | None = None
    #: The pack's own tool options that are not engine flags (vLLM's ``--kernels``), by name.
    options: MappingProxyType[str, Any] = field(default_factory=lambda: _frozen_map({}))
    parsed: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.release_from not in RELEASE_SOURCES:
            raise ValueError(f"release_from {self.release_from!r}: one of {', '.join(RELEASE_SOURCES)}")
        if self.config_source not in CONFIG_SOURCES:
            raise ValueError(f"config_source {self.config_source!r}: one of {', '.join(CONFIG_SOURCES)}")
        for name in ("user", "not_modelled_values", "env", "options"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, _frozen_map(value))
        for name in ("argv", "not_modelled", "notes"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    @property
    def platform(self) -> str:
        return self.node.platform

    @property
    def config_path(self) -> str:
        """What the model config is read from: the stand-in when one is named, else the model."""
        return self.model_config if self.model_config is not None else self.model

    def release_text(self) -> str:
        """``0.33.0 (from the image tag)`` — the header's release words."""
        where = {
            "flag": "named by the release option",
            "image-tag": f"from the image tag {self.image}" if self.image else "from the image tag",
            "command": "named by the launch",
            "default": "the default release",
        }[self.release_from]
        return f"{self.release} ({where})"

    def replace(self, **changes: Any) -> Launch:
        """Another launch with ``changes`` (``user={...}`` replaces the whole mapping)."""
        return replace(self, **changes)

    def with_user(self, **fields: Any) -> Launch:
        """This launch with some modelled arguments set (a fix being checked, a TP being tried)."""
        return replace(self, user=_frozen_map({**self.user, **fields}))

    def to_dict(self) -> dict[str, Any]:
        """The ``launch`` object of ``--json`` (docs/cli-json.md)."""
        return {
            "engine": self.engine,
            "release": self.release,
            "release_from": self.release_from,
            "image": self.image,
            "model": self.model,
            "config_source": self.config_source,
            "model_config": self.model_config,
            "node": self.node.to_dict(),
            "launcher": self.launcher,
            "user_args": dict(self.user),
            "argv": list(self.argv),
            "not_modelled": list(self.not_modelled),
            "env": dict(self.env),
            "notes": list(self.notes),
            "rejected": self.rejected,
        }


def config_source_of(model: str, model_config: str | None, samples: Any = ()) -> str:
    """The ``config_source`` of a launch: ``stand-in`` when ``--model-config`` names one, ``sample``
    for a bundled sample's name, ``local`` for a path on this machine, else ``hub``."""
    import os

    if model_config is not None:
        return "stand-in"
    if model in samples:
        return "sample"
    if os.path.exists(model) or model.startswith(("/", "./", "../", "~")):
        return "local"
    return "hub"
