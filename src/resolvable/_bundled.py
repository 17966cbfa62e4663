"""The bundled ``config.json`` samples, shared by every rule pack, loaded without importing a pack.

The files live in ``resolvable/sglang/models/`` (where they started); this neutral module reads
them by path, so the vLLM pack can use them without importing the SGLang rules. Its behaviour is
that of ``resolvable.sglang.models`` (which may later delegate here).

Invariant: ``load_model(spec)`` accepts a bundled sample name, a path to a config.json or a
model directory, or a hub repo id present in the local Hugging Face cache, and raises
``ConfigError`` naming the input and the closest bundled names otherwise.
"""

from __future__ import annotations

import functools
import os

from ._hfconfig import HFConfig, find_in_hub_cache, load_hf_config
from .errors import ConfigError, closest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sglang", "models")


@functools.lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, Any]]:
    """Bundled samples: name → {repo_id, family, description}."""
    with open(os.path.join(MODELS_DIR, "catalog.json"), encoding="utf-8") as fh:
        text = fh.read()
    import json  # deferred: keeps imports light

    return dict(sorted(json.loads(text).items()))


@functools.cache
def bundled(name: str) -> HFConfig:
    """The bundled sample ``name`` (e.g. "gpt-oss-120b")."""
    if name not in catalog():
        raise ConfigError(_unknown_message(name))
    with open(os.path.join(MODELS_DIR, f"{name}.json"), encoding="utf-8") as fh:
        text = fh.read()
    import json

    return HFConfig(json.loads(text), source=f"bundled:{name}")


def _unknown_message(spec: str) -> str:
    hint = closest(spec.lower(), catalog())
    extra = f" Did you mean {hint!r}?" if hint else ""
    return (
        f"unknown model {spec!r}: not a bundled sample, a config.json, a model directory, or a hub id in the "
        f"local Hugging Face cache.{extra} Run `resolvable models` for the bundled names."
    )


def load_model(spec: str) -> HFConfig:
    """Resolve a MODEL argument: bundled name, config.json path, model directory, or cached hub id."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("the model must be a non-empty name or path")
    key = spec.strip()
    if key.lower() in catalog():
        return bundled(key.lower())
    try:
        return load_hf_config(key)
    except ConfigError as exc:
        if "no such file or directory" in str(exc) and find_in_hub_cache(key) is None:
            raise ConfigError(_unknown_message(key)) from None
        raise
