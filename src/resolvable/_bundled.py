"""Bundled ``config.json`` samples: a directory of ``<name>.json`` files plus ``catalog.json``.

A pack owns its samples and builds a ``Samples`` over its own directory (the engine knows no
pack's files): ``SAMPLES = Samples(os.path.join(os.path.dirname(__file__), "models"))``.

Invariant: ``Samples.load_model(spec)`` accepts a bundled sample name, a path to a config.json
or a model directory, or a hub repo id present in the local Hugging Face cache, and raises
``ConfigError`` naming the input and the closest bundled names otherwise. A set reads each
file at most once (its catalog and samples are cached).
"""

from __future__ import annotations

import os

from ._hfconfig import HFConfig, _hub_cache_dir, _looks_like_repo_id, find_in_hub_cache, load_hf_config
from .errors import ConfigError, closest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Samples"]


class Samples:
    """The bundled samples of one directory (``catalog.json`` names them)."""

    def __init__(self, directory: str) -> None:
        self.directory = os.path.abspath(directory)
        self._catalog: dict[str, dict[str, Any]] | None = None
        self._configs: dict[str, HFConfig] = {}

    def catalog(self) -> dict[str, dict[str, Any]]:
        """Bundled samples: name → {repo_id, family, description}."""
        if self._catalog is None:
            with open(os.path.join(self.directory, "catalog.json"), encoding="utf-8") as fh:
                text = fh.read()
            import json  # deferred: keeps imports light

            self._catalog = dict(sorted(json.loads(text).items()))
        return self._catalog

    def bundled(self, name: str) -> HFConfig:
        """The bundled sample ``name`` (e.g. "gpt-oss-120b")."""
        config = self._configs.get(name)
        if config is not None:
            return config
        if name not in self.catalog():
            raise ConfigError(self.unknown_message(name))
        with open(os.path.join(self.directory, f"{name}.json"), encoding="utf-8") as fh:
            text = fh.read()
        import json

        config = self._configs[name] = HFConfig(json.loads(text), source=f"bundled:{name}")
        return config

    def unknown_message(self, spec: str) -> str:
        """The error text for a MODEL argument that names nothing (with the closest bundled name,
        and for a hub id how to fetch its config alone)."""
        hint = closest(spec.lower(), self.catalog())
        extra = f" Did you mean {hint!r}?" if hint else ""
        message = (
            f"unknown model {spec!r}: not a bundled sample, a config.json, a model directory, or a hub id in "
            f"the local Hugging Face cache.{extra} Run `resolvable models` for the bundled names."
        )
        if _looks_like_repo_id(spec):
            message += (
                f" For the hub model, fetch only its config (no weights): `huggingface-cli download {spec} "
                f"config.json`; it goes to the cache at $HF_HUB_CACHE, else $HF_HOME/hub (now "
                f"{_hub_cache_dir(None)})."
            )
        return message

    def bundled_for_repo(self, repo_id: str) -> str | None:
        """The bundled sample whose catalog entry names hub repo ``repo_id`` (case-insensitive)."""
        wanted = repo_id.strip().lower()
        return next(
            (n for n, e in self.catalog().items() if str(e.get("repo_id", "")).lower() == wanted), None
        )

    def load_model(self, spec: str) -> HFConfig:
        """Resolve a MODEL argument: bundled name, config.json path, model directory, or cached hub id."""
        if not isinstance(spec, str) or not spec.strip():
            raise ConfigError("the model must be a non-empty name or path")
        key = spec.strip()
        if key.lower() in self.catalog():
            return self.bundled(key.lower())
        try:
            return load_hf_config(key)
        except ConfigError as exc:
            if "no such file or directory" in str(exc) and find_in_hub_cache(key) is None:
                sample = self.bundled_for_repo(key)
                if sample is not None:  # a hub id not in the local cache, but bundled as a sample
                    return self.bundled(sample)
                raise ConfigError(self.unknown_message(key)) from None
            raise

    def __repr__(self) -> str:
        return f"Samples({self.directory!r})"
