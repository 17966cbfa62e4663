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


#: Model families recognised in a name (most specific first) → the bundled samples of that family.
#: A name of a family is answered with the family's sample before any spelling match: GLM-4.6-FP8
#: is a GLM-4.5-architecture model, Qwen3-VL-235B a Qwen3-VL one.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"qwen3[-_.]?vl", ("qwen3-vl-8b", "qwen3-vl-30b-a3b")),
    (r"qwen3[._]5", ("qwen3.5-397b-a17b",)),
    (r"qwen3[-_]?next", ("qwen3-next-80b-a3b",)),
    (r"qwen3", ("qwen3-8b", "qwen3-30b-a3b", "qwen3-235b-a22b-fp8")),
    (r"qwen2", ("qwen2.5-7b-instruct-1m",)),
    (r"glm[-_]?5", ("glm-5",)),
    (r"glm[-_]?4", ("glm-4.5",)),
    (r"deepseek[-_]?v3[._]2", ("deepseek-v3.2",)),
    (r"deepseek[-_]?r1", ("deepseek-r1",)),
    (r"deepseek[-_]?v3", ("deepseek-v3",)),
    (r"deepseek[-_]?v2", ("deepseek-v2-lite",)),
    (r"deepseek[-_]?v4", ("deepseek-v4-flash",)),
    (r"kimi[-_]?k2[._]5", ("kimi-k2.5",)),
    (r"kimi[-_]?k2", ("kimi-k2-instruct",)),
    (r"llama[-_]?4", ("llama-4-scout", "llama-4-maverick")),
    (r"llama[-_]?3", ("llama-3.1-8b", "llama-3.3-70b")),
    (r"gpt[-_]?oss", ("gpt-oss-20b", "gpt-oss-120b")),
    (r"gemma[-_]?4", ("gemma-4-31b",)),
    (r"gemma[-_]?3", ("gemma-3-27b",)),
    (r"gemma[-_]?2", ("gemma-2-9b",)),
    (r"mistral[-_]?large[-_]?3", ("mistral-large-3",)),
    (r"minimax[-_]?m2", ("minimax-m2",)),
    (r"step[-_]?3[._]5", ("step-3.5-flash",)),
    (r"mimo[-_]?v2", ("mimo-v2-flash",)),
    (r"granite[-_]?4", ("granite-4.0-micro", "granite-4.0-h-small")),
    (r"olmo[-_]?3", ("olmo-3-7b",)),
    (r"olmo[-_]?2", ("olmo-2-7b",)),
    (r"exaone[-_]?4", ("exaone-4.0-32b",)),
    (r"nemotron[-_]?h", ("nemotron-h-8b",)),
    (r"falcon[-_]?h1", ("falcon-h1-7b",)),
    (r"lfm2", ("lfm2-1.2b",)),
    (r"llada2", ("llada2-mini",)),
    (r"whisper", ("whisper-large-v3",)),
    (r"minicpm[-_]?v", ("minicpm-v-4.6",)),
)


def _sizes(name: str) -> tuple[float | None, bool]:
    """(total parameters in billions named in ``name``, whether it names active ones: MoE)."""
    import re

    lower = name.lower()
    moe = re.search(r"-a\d+(\.\d+)?b", lower) is not None or re.search(r"\d+e\b", lower) is not None
    sizes = [float(m) for m in re.findall(r"(?<![a-z])(\d+(?:\.\d+)?)b(?![a-z])", lower)]
    return (max(sizes) if sizes else None), moe


def suggest_sample(name: str) -> str | None:
    """The bundled sample that best stands for the model ``name``: its family's (by the family in
    the name, the nearest size and MoE-ness), else the closest spelling, else None."""
    import math
    import re

    lower = name.strip().lower().rstrip("/").rsplit("/", 1)[-1] or name.lower()
    for pattern, samples in FAMILIES:
        if re.search(pattern, lower):
            present = [s for s in samples if s in catalog()]
            if not present:
                continue
            size, moe = _sizes(lower)

            def distance(sample: str, size: float | None = size, moe: bool = moe) -> tuple[int, float]:
                s_size, s_moe = _sizes(sample)
                gap = abs(math.log(size / s_size)) if size and s_size else 0.0
                return (0 if s_moe == moe else 1, gap)

            return min(present, key=distance)
    return closest(lower, catalog())


def unknown_message(spec: str) -> str:
    """The error text for a MODEL argument that names nothing (with the bundled sample of its
    family, else the closest bundled name, and for a hub id how to fetch its config alone)."""
    hint = suggest_sample(spec)
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
    """The bundled sample whose catalog entry names hub repo ``repo_id`` (case-insensitive)."""
    wanted = repo_id.strip().lower()
    return next((n for n, e in catalog().items() if str(e.get("repo_id", "")).lower() == wanted), None)


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
