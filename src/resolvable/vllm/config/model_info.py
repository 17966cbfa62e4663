"""What vLLM's model registry knows about an architecture: text generation, pooling, pipeline
parallelism, LoRA (vllm-config-spec.md §3.7 step 1, §3.15).

Data: ``model_info.json``, written by ``tools/extract_vllm_model_info.py`` from each wheel
(``model_executor/models/registry.py : ModelRegistry``, ``_ModelInfo.from_model_cls``; the newest
release that imports the class wins — between 0.30 and 0.34 only Aria's ``SupportsPP`` changed, in
0.34, not modelled). An architecture the registry does not hold is matched by name as vLLM does
(``config/model.py : _SUFFIX_TO_DEFAULTS`` and ``registry.py : _normalize_arch``: the registered
class of the same model with another suffix, e.g. ``Qwen3ForSequenceClassification`` → the
``Qwen3ForCausalLM`` class, adapted).

Invariants: standard library only; the table is read once, lazily (json imported on first use);
``None`` means "unknown to this table" and callers fall back to the name-based defaults.
"""

from __future__ import annotations

import functools
import os
from collections import namedtuple

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_info.json")
#: ``tools/extract_transformers_pooling_classes.py``: transformers' pooling-suffix classes.
_TRANSFORMERS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transformers_pooling.json")

#: ``config/model.py : _SUFFIX_TO_DEFAULTS`` — (suffix, default runner, default convert), in order.
SUFFIX_DEFAULTS: tuple[tuple[str, str, str], ...] = (
    ("ForCausalLM", "generate", "none"),
    ("ForConditionalGeneration", "generate", "none"),
    ("ChatModel", "generate", "none"),
    ("LMHeadModel", "generate", "none"),
    ("ForTextEncoding", "pooling", "embed"),
    ("EmbeddingModel", "pooling", "embed"),
    ("ForSequenceClassification", "pooling", "classify"),
    ("ForTokenClassification", "pooling", "classify"),
    ("ForAudioClassification", "pooling", "classify"),
    ("ForImageClassification", "pooling", "classify"),
    ("ForVideoClassification", "pooling", "classify"),
    ("ClassificationModel", "pooling", "classify"),
    ("ForRewardModeling", "pooling", "embed"),
    ("RewardModel", "pooling", "embed"),
    ("Model", "pooling", "embed"),
)
#: ``config/model.py : _RUNNER_CONVERTS``: the converts that adapt a model to a runner.
RUNNER_CONVERTS = {"generate": (), "pooling": ("embed", "classify"), "draft": ()}


class ArchInfo(namedtuple("ArchInfo", "generate pooling pp lora")):
    """``_ModelInfo`` fields the configuration reads: ``is_text_generation_model``,
    ``is_pooling_model``, ``supports_pp``, ``supports_lora`` (booleans)."""

    __slots__ = ()


@functools.cache
def _table() -> dict[str, ArchInfo]:
    import json

    with open(_PATH, encoding="utf-8") as fh:
        raw = json.load(fh)["archs"]
    return {arch: ArchInfo("G" in c, "P" in c, "p" in c, "L" in c) for arch, c in raw.items()}


def architectures() -> frozenset[str]:
    """Every architecture vLLM registers in-tree (the union over the wheels the table was read from)."""
    return frozenset(_table())


def registered(arch: str) -> ArchInfo | None:
    """The registry's facts for ``arch`` when vLLM registers it in-tree."""
    return _table().get(arch)


def suffix_defaults(
    arch: str, runner: str | None = None, convert: str | None = None
) -> tuple[str, str, str] | None:
    """``try_match_architecture_defaults``: the first (suffix, runner, convert) whose suffix ends
    ``arch`` (and whose runner and convert are ``runner`` and ``convert`` when given)."""
    for suffix, run, conv in SUFFIX_DEFAULTS:
        if (
            (runner is None or runner == run)
            and (convert is None or convert == conv)
            and arch.endswith(suffix)
        ):
            return suffix, run, conv
    return None


def normalized(
    arch: str, runner: str | None = None, convert: str | None = None
) -> tuple[str, ArchInfo] | None:
    """``ModelRegistry._normalize_arch`` + ``inspect_model_cls``: the registered class ``arch``
    names, directly or as the same model under another suffix; None when neither is registered
    (vLLM would try the Transformers backend)."""
    info = registered(arch)
    if info is not None:
        return arch, info
    match = suffix_defaults(arch, runner, convert)
    if match is None:
        return None
    for other, _, _ in SUFFIX_DEFAULTS:
        base = arch.replace(match[0], other)
        info = registered(base)
        if info is not None:
            return base, info
    return None


@functools.cache
def _transformers_pooling() -> frozenset[str]:
    import json

    with open(_TRANSFORMERS_PATH, encoding="utf-8") as fh:
        return frozenset(json.load(fh)["classes"])


def transformers_backend_pools(arch: str, runner: str) -> bool:
    """Whether vLLM serves ``arch`` with a pooling class of its Transformers backend
    (``registry.py : inspect_model_cls``, the fallback tried first for an architecture it does not
    register, 0.28-0.34; ``config/model.py : _get_transformers_backend_cls``): transformers exports a
    backend-compatible class of that name (``transformers_pooling.json``, transformers 5.20.2) and
    the runner — the user's, else the name's suffix default — is pooling with an embed/classify
    suffix. ``runner`` is the ``--runner`` option (``auto`` for the suffix's)."""
    if registered(arch) is not None or arch not in _transformers_pooling():
        return False
    match = suffix_defaults(arch)
    if match is None or match[2] not in RUNNER_CONVERTS["pooling"]:
        return False
    return (match[1] if runner == "auto" else runner) == "pooling"
