"""The bundled ``config.json`` samples, shared by every rule pack, loaded without importing a pack.

The files live in ``resolvable/sglang/models/`` (where they started); this neutral module reads
them by path, so the vLLM pack can use them without importing the SGLang rules. Its behaviour is
the pack-neutral part of ``resolvable.sglang.models``, which builds on it (sglang's side files and
config-class defaults).

Invariant: ``load_model(spec)`` accepts a bundled sample name, a path to a config.json or a
model directory, or a hub repo id present in the local Hugging Face cache, and raises
``ConfigError`` naming the input and the closest bundled names otherwise.
"""

from __future__ import annotations

import functools
import os

from ._hfconfig import HFConfig, _hub_cache_dir, _looks_like_repo_id, find_in_hub_cache, load_hf_config
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
        raise ConfigError(unknown_message(name))
    with open(os.path.join(MODELS_DIR, f"{name}.json"), encoding="utf-8") as fh:
        text = fh.read()
    import json

    return HFConfig(json.loads(text), source=f"bundled:{name}")


def unknown_message(spec: str) -> str:
    """The error text for a MODEL argument that names nothing (with the closest bundled name, and
    for a hub id how to fetch its config alone)."""
    hint = closest(spec.lower(), catalog())
    extra = f" Did you mean {hint!r}?" if hint else ""
    message = (
        f"unknown model {spec!r}: not a bundled sample, a config.json, a model directory, or a hub id in the "
        f"local Hugging Face cache.{extra} Run `resolvable models` for the bundled names."
    )
    if _looks_like_repo_id(spec):
        message += (
            f" For the hub model, fetch only its config (no weights): `huggingface-cli download {spec} "
            f"config.json`; it goes to the cache at $HF_HUB_CACHE, else $HF_HOME/hub (now {_hub_cache_dir(None)})."
        )
    return message


def bundled_for_repo(repo_id: str) -> str | None:
    """The bundled sample whose catalog entry names hub repo ``repo_id`` (case-insensitive): its
    ``repo_id``, or one of ``same_config_as`` (later checkpoints of the same model whose
    config.json equals the sample's, e.g. DeepSeek-R1-0528 for DeepSeek-R1)."""
    wanted = repo_id.strip().lower()
    for name, entry in catalog().items():
        ids = [entry.get("repo_id", ""), *entry.get("same_config_as", ())]
        if wanted in (str(i).lower() for i in ids):
            return name
    return None


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
            sample = bundled_for_repo(key)
            if sample is not None:  # a hub id not in the local cache, but bundled as a sample
                return bundled(sample)
            raise ConfigError(unknown_message(key)) from None
        raise
