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

__all__ = ["FAMILIES", "Samples", "suggest_sample"]


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


def suggest_sample(name: str, names: Any) -> str | None:
    """The sample of ``names`` that best stands for the model ``name``: its family's (by the family
    in the name, the nearest size and MoE-ness), else the closest spelling, else None."""
    import math
    import re

    lower = name.strip().lower().rstrip("/").rsplit("/", 1)[-1] or name.lower()
    for pattern, samples in FAMILIES:
        if re.search(pattern, lower):
            present = [s for s in samples if s in names]
            if not present:
                continue
            size, moe = _sizes(lower)

            def distance(sample: str, size: float | None = size, moe: bool = moe) -> tuple[int, float]:
                s_size, s_moe = _sizes(sample)
                gap = abs(math.log(size / s_size)) if size and s_size else 0.0
                return (0 if s_moe == moe else 1, gap)

            return min(present, key=distance)
    return closest(lower, names)


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
        """The error text for a MODEL argument that names nothing (with the bundled sample of its
        family, else the closest bundled name, and for a hub id how to fetch its config alone)."""
        hint = suggest_sample(spec, self.catalog())
        extra = f" Did you mean {hint!r}?" if hint else ""
        message = (
            f"unknown model {spec!r}: not a bundled sample, a config.json, a model directory, or a hub id in "
            f"the local Hugging Face cache.{extra} Run `resolvable models` for the bundled names."
        )
        if _looks_like_repo_id(spec):
            message += (
                f" For the hub model, fetch only its config (no weights): `hf download {spec} "
                f"config.json`; it goes to the cache at $HF_HUB_CACHE, else $HF_HOME/hub (now "
                f"{_hub_cache_dir(None)})."
            )
        return message

    def suggest(self, name: str) -> str | None:
        """The sample that best stands for the model ``name`` (``suggest_sample``)."""
        return suggest_sample(name, self.catalog())

    def bundled_for_repo(self, repo_id: str) -> str | None:
        """The bundled sample whose catalog entry names hub repo ``repo_id`` (case-insensitive): its
        ``repo_id``, or one of ``same_config_as`` (later checkpoints of the same model whose
        config.json equals the sample's, e.g. DeepSeek-R1-0528 for DeepSeek-R1)."""
        wanted = repo_id.strip().lower()
        for name, entry in self.catalog().items():
            ids = [entry.get("repo_id", ""), *entry.get("same_config_as", ())]
            if wanted in (str(i).lower() for i in ids):
                return name
        return None

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
