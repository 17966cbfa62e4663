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
from ..rules import HFConfig, Samples, find_in_hub_cache, load_hf_config, looks_like_repo_id
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


def load_model(
    spec: str,
    *,
    model_config_parser: str = "auto",
    revision: str | None = None,
    hub_timeout: float | str | None = None,
    release: str | None = None,
) -> HFConfig:
    """Resolve a MODEL argument: bundled name, config.json path, model directory, or hub id.

    A hub id is read from the local Hugging Face cache; one that is not cached (or any with a
    ``revision``) is fetched from the hub (``resolvable.hub``: config.json and the side files,
    never weights). When the hub cannot be reached (or ``HF_HUB_OFFLINE`` is set), a repo that a
    bundled sample copies is read from that sample.

    ``model_config_parser`` is sglang's ``--model-config-parser``: "auto" reads params.json for
    the Mistral-native names (``checkpoint.is_mistral_model``), "hf" always config.json,
    "mistral" always params.json. ``hub_timeout`` is the hub fetch's overall deadline in seconds
    (``--hub-timeout``; default ``$RESOLVABLE_HUB_TIMEOUT``, else 30). ``release`` is the pack
    release whose name routing "auto" follows (None: the newest; ``checkpoint.is_mistral_model``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("the model must be a non-empty name or path")
    key = spec.strip()
    if key.lower() in catalog():  # a bundled name is no hub id: a --revision does not apply to it
        return bundled(key.lower())
    if model_config_parser not in ("auto", "hf", "mistral"):
        raise ConfigError(f"unknown model config parser {model_config_parser!r}; choose auto, hf or mistral")
    parser = make_parser(model_config_parser, release)
    hub_id = looks_like_repo_id(key) and not os.path.exists(os.path.expanduser(key))
    if not hub_id or revision is None:
        try:
            return prepare(load_hf_config(key, sidecars=SIDECARS, parser=parser))
        except ConfigError as exc:
            if "no such file or directory" not in str(exc) or find_in_hub_cache(key) is not None:
                raise
            if not hub_id:
                raise ConfigError(
                    absent_path_message(key) if _pathlike(key) else unknown_message(key)
                ) from None
    from ..hub import HubOfflineError, HubUnreachableError, fetch_config

    try:
        snapshot = fetch_config(key, revision=revision, timeout=hub_timeout)
    except (HubOfflineError, HubUnreachableError) as exc:
        sample = bundled_for_repo(key) if revision is None else None
        if sample is not None:  # no hub here, but a bundled sample copies this repo's config
            return bundled(sample)
        raise ConfigError(f"{exc}{_suggestion(key)}") from None
    return prepare(load_hf_config(snapshot, sidecars=SIDECARS, parser=parser))


def _pathlike(text: str) -> bool:
    """A name written as a local path (``/models/X``, ``./X``, ``~/X``, ``a/b/c``), not a hub id."""
    return text.startswith(("/", ".", "~", "\\")) or text.count("/") >= 2 or text.endswith(".json")


def absent_path_message(path: str) -> str:
    """A local model path (``--model-path /models/X``) that is not on this machine."""
    return (
        f"model path {path!r} is not on this machine (it is the launch's local directory): pass "
        f"--model-config PATH|SAMPLE to say which config.json, model directory or bundled sample stands for it"
        f"{_suggestion(path)}"
    )


def _suggestion(name: str) -> str:
    hint = SAMPLES.suggest(name)
    return f" (for this model, perhaps --model-config {hint})" if hint else ""


__all__ = [
    "MODELS_DIR",
    "absent_path_message",
    "bundled",
    "bundled_for_repo",
    "catalog",
    "load_model",
    "unknown_message",
]
