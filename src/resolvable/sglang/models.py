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

from ..errors import ConfigError
from ..rules import HFConfig, Samples, find_in_hub_cache, load_hf_config
from .checkpoint import SIDECARS, make_parser, prepare

#: Where the samples are (``resolvable/sglang/models/``); the pack owns them (the vLLM pack reads
#: the same directory: ``vllm/models.py``).
MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
#: The sample set over ``MODELS_DIR`` (raw configs, before sglang's config-class defaults).
SAMPLES = Samples(MODELS_DIR)
catalog = SAMPLES.catalog
unknown_message = SAMPLES.unknown_message
bundled_for_repo = SAMPLES.bundled_for_repo


@functools.cache
def bundled(name: str) -> HFConfig:
    """The bundled sample ``name`` (e.g. "gpt-oss-120b") as sglang reads it (config-class defaults)."""
    return prepare(SAMPLES.bundled(name))


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
            raise ConfigError(unknown_message(key)) from None
        raise


__all__ = ["MODELS_DIR", "bundled", "bundled_for_repo", "catalog", "load_model", "unknown_message"]
