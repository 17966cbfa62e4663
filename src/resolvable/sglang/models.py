"""Bundled ``config.json`` samples of popular checkpoints, and model lookup by name or path.

Invariant: ``load_model(spec)`` accepts a bundled sample name, a path to a config.json or a
model directory, or a hub repo id present in the local Hugging Face cache (else the bundled
sample whose catalog entry names that repo id) — and raises
``ConfigError`` naming the input and the closest bundled names otherwise. A directory or hub
id is read as sglang reads it (``checkpoint``: ``hf_quant_config.json``, Mistral-native
``params.json``), and every config gets its config-class defaults (``config_defaults``).
"""

from __future__ import annotations

import functools
import os

from .._hfconfig import HFConfig, _hub_cache_dir, _looks_like_repo_id, find_in_hub_cache, load_hf_config
from ..errors import ConfigError, closest
from .checkpoint import SIDECARS, make_parser, prepare

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

_MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


@functools.lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, Any]]:
    """Bundled samples: name → {repo_id, family, description}."""
    with open(os.path.join(_MODELS_DIR, "catalog.json"), encoding="utf-8") as fh:
        text = fh.read()
    import json

    return dict(sorted(json.loads(text).items()))


@functools.cache
def bundled(name: str) -> HFConfig:
    """The bundled sample ``name`` (e.g. "gpt-oss-120b")."""
    if name not in catalog():
        raise ConfigError(_unknown_message(name))
    with open(os.path.join(_MODELS_DIR, f"{name}.json"), encoding="utf-8") as fh:
        text = fh.read()
    import json

    return prepare(HFConfig(json.loads(text), source=f"bundled:{name}"))


def _unknown_message(spec: str) -> str:
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


def load_model(spec: str, *, model_config_parser: str = "auto") -> HFConfig:
    """Resolve a MODEL argument: bundled name, config.json path, model directory, or cached hub id.

    ``model_config_parser`` is sglang's ``--model-config-parser``: "auto" reads params.json for
    the Mistral-native names (``checkpoint.is_mistral_model``), "hf" always config.json,
    "mistral" always params.json."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("the model must be a non-empty name or path")
    key = spec.strip()
    if key.lower() in catalog():
        return bundled(key.lower())
    if model_config_parser not in ("auto", "hf", "mistral"):
        raise ConfigError(f"unknown model config parser {model_config_parser!r}; choose auto, hf or mistral")
    try:
        return prepare(load_hf_config(key, sidecars=SIDECARS, parser=make_parser(model_config_parser)))
    except ConfigError as exc:
        if "no such file or directory" in str(exc) and find_in_hub_cache(key) is None:
            sample = bundled_for_repo(key)
            if sample is not None:  # a hub id not in the local cache, but bundled as a sample
                return bundled(sample)
            raise ConfigError(_unknown_message(key)) from None
        raise


def bundled_for_repo(repo_id: str) -> str | None:
    """The bundled sample whose catalog entry names hub repo ``repo_id`` (case-insensitive)."""
    wanted = repo_id.strip().lower()
    return next((n for n, e in catalog().items() if str(e.get("repo_id", "")).lower() == wanted), None)
