"""What vLLM's model registry knows about an architecture: text generation, pooling, pipeline
parallelism, LoRA (vllm-config-spec.md §3.7 step 1, §3.15).

Data: ``model_info.json``, written by ``tools/extract_vllm_model_info.py`` from each wheel
(``model_executor/models/registry.py : ModelRegistry``, ``_ModelInfo.from_model_cls``; the newest
release that imports the class wins — between 0.30 and 0.34 only Aria's ``SupportsPP`` changed, in
0.34, not modelled). An architecture the registry does not hold is matched by name as vLLM does
(``config/model.py : _SUFFIX_TO_DEFAULTS`` and ``registry.py : _normalize_arch``: the registered
class of the same model with another suffix, e.g. ``Qwen3ForSequenceClassification`` → the
``Qwen3ForCausalLM`` class, adapted).

Per release (issue 32): ``model_registry_history.json`` (``tools/extract_vllm_model_info.py
--history``, one extraction per wheel 0.20.0-0.34.0) says which classes each release's
``ModelRegistry`` holds and where ``supports_pp``/``supports_lora`` differ between releases. It is
read as upstream lists with release ranges (``ArchList``) that a rule asks through
``ctx.release.holds`` (traced: explain narrows the release range by them), never by reading the
version: ``normalized(..., release=ctx.release)`` answers for that release. Without a release the
answer is the newest release's (the registry's membership at the newest release read).

Invariants: standard library only; the tables are read once, lazily (json imported on first use);
``None`` means "unknown to this table" and callers fall back to the name-based defaults.
"""

from __future__ import annotations

import functools
import os
from collections import namedtuple

from ...rules import ArchList

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_info.json")
#: ``tools/extract_transformers_pooling_classes.py``: transformers' pooling-suffix classes.
_HISTORY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_registry_history.json")
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


@functools.cache
def history() -> dict[str, Any]:
    """``model_registry_history.json`` as stored (see the module docstring)."""
    import json

    with open(_HISTORY_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def _lists(key: str, what: str) -> tuple[ArchList, ...]:
    """The history's ``key`` ranges as upstream lists: the first list holds each class's first
    range, the second its second range (a class that left and came back), and so on."""
    ranged: dict[str, list] = history()[key]
    depth = max((len(r) for r in ranged.values()), default=0)
    return tuple(
        ArchList(
            *((a, r[k][0], r[k][1]) for a, r in sorted(ranged.items()) if len(r) > k),
            what=what if k == 0 else f"{what} (again)",
        )
        for k in range(depth)
    )


@functools.cache
def registry_lists() -> tuple[ArchList, ...]:
    """vLLM's ``ModelRegistry.models`` as upstream lists with release ranges, for the classes
    that some release read lacks (the others are in every release)."""
    return _lists("registered", "vLLM's model registry")


@functools.cache
def fact_lists(key: str) -> tuple[ArchList, ...]:
    """The classes whose ``supports_pp`` (``pp``) or ``supports_lora`` (``lora``) differs
    between releases, with the releases where it holds."""
    return _lists(key, f"vLLM's {'SupportsPP' if key == 'pp' else 'SupportsLoRA'} classes")


@functools.cache
def _every_release() -> frozenset[str]:
    """The classes the registry holds in every release read."""
    return frozenset(_table()) - frozenset(history()["registered"])


def _newest(lists: tuple[ArchList, ...], arch: str) -> bool:
    """Whether the newest release read is in one of ``arch``'s ranges."""
    return any(lst.member_range(arch) is not None and lst.range(arch).until is None for lst in lists)


def _holds(release: Any, lists: tuple[ArchList, ...], arch: str) -> bool:
    """``release.holds`` over the lists of one history key (asked through the release view)."""
    if release is None:
        return _newest(lists, arch)
    return any(release.holds(lst, arch) for lst in lists)


def is_registered(arch: str, release: Any = None) -> bool:
    """Whether ``release``'s ``ModelRegistry.models`` holds ``arch`` (None: the newest release
    read). A class whose module does not import on the extraction's CPU build still counts."""
    if arch in _every_release():
        return True
    return arch in history()["registered"] and _holds(release, registry_lists(), arch)


def registered_ranges(arch: str) -> str:
    """The releases read whose registry holds ``arch``, in words ("from 0.30.0 on",
    "0.20.0-0.24.0, from 0.32.0 on"; "" for a class every release read holds or none does)."""
    ranges = history()["registered"].get(arch)
    if not ranges:
        return ""
    releases: list[str] = history()["releases"]
    words = []
    for since, until in ranges:
        first = since or releases[0]
        if until is None:
            words.append(f"from {first} on")
        else:
            last = releases[releases.index(until) - 1]
            words.append(first if first == last else f"{first}-{last}")
    return ", ".join(words)


def previously_supported(arch: str, release: Any) -> str | None:
    """``_PREVIOUSLY_SUPPORTED_MODELS[arch]`` in ``release`` (the last vLLM release that served
    the class), or None when the release's dict does not list it."""
    entry = history()["previously"].get(arch)
    if entry is None or not release.holds(_previously_list(), arch):
        return None
    return entry[1]


@functools.cache
def _previously_list() -> ArchList:
    entries = history()["previously"]
    oldest = history()["releases"][0]
    return ArchList(
        *((a, None if since == oldest else since) for a, (since, _) in sorted(entries.items())),
        what="vLLM's _PREVIOUSLY_SUPPORTED_MODELS",
    )


def transformers_serves(arch: str, release: Any) -> bool | None:
    """``_try_resolve_transformers`` for a class vLLM registers in some release read: whether
    transformers exports a backend-compatible class of that name (``is_backend_compatible()``;
    since ``CHANGES.TRANSFORMERS_BACKEND_ATTN_IMPLEMENTATION`` also ``_can_set_attn_implementation()``),
    from the oracle's transformers install; None for a class the history does not know."""
    known = history().get("transformers", {})
    if arch not in history()["registered"]:
        return None
    found = known.get(arch)
    if found is None:
        return False
    from ..changes import CHANGES

    return "B" in found or ("A" in found and release.has(CHANGES.TRANSFORMERS_BACKEND_ATTN_IMPLEMENTATION))


def architectures() -> frozenset[str]:
    """Every architecture vLLM registers in-tree (the union over the wheels the table was read from)."""
    return frozenset(_table())


def registered(arch: str, release: Any = None) -> ArchInfo | None:
    """The registry's facts for ``arch`` when ``release`` (None: the newest release read)
    registers it in-tree: ``supports_pp``/``supports_lora`` as of that release."""
    info = _table().get(arch)
    if info is None or not is_registered(arch, release):
        return None
    for key in ("pp", "lora"):
        if arch in history()[key]:
            info = info._replace(**{key: _holds(release, fact_lists(key), arch)})
    return info


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
    arch: str, runner: str | None = None, convert: str | None = None, release: Any = None
) -> tuple[str, ArchInfo] | None:
    """``ModelRegistry._normalize_arch`` + ``inspect_model_cls``: the registered class ``arch``
    names, directly or as the same model under another suffix; None when neither is registered
    (vLLM would try the Transformers backend). ``release``: ``ctx.release`` (None: the newest)."""
    info = registered(arch, release)
    if info is not None:
        return arch, info
    match = suffix_defaults(arch, runner, convert)
    if match is None:
        return None
    for other, _, _ in SUFFIX_DEFAULTS:
        base = arch.replace(match[0], other)
        info = registered(base, release)
        if info is not None:
            return base, info
    return None


@functools.cache
def _transformers_pooling() -> frozenset[str]:
    import json

    with open(_TRANSFORMERS_PATH, encoding="utf-8") as fh:
        return frozenset(json.load(fh)["classes"])


def transformers_backend_pools(arch: str, runner: str, release: Any = None) -> bool:
    """Whether vLLM serves ``arch`` with a pooling class of its Transformers backend
    (``registry.py : inspect_model_cls``, the fallback tried first for an architecture it does not
    register, 0.28-0.34; ``config/model.py : _get_transformers_backend_cls``): transformers exports a
    backend-compatible class of that name (``transformers_pooling.json``, transformers 5.20.2) and
    the runner — the user's, else the name's suffix default — is pooling with an embed/classify
    suffix. ``runner`` is the ``--runner`` option (``auto`` for the suffix's); ``release``: the
    registry of that release (``ctx.release``; None: the newest)."""
    if registered(arch, release) is not None or arch not in _transformers_pooling():
        return False
    match = suffix_defaults(arch)
    if match is None or match[2] not in RUNNER_CONVERTS["pooling"]:
        return False
    return (match[1] if runner == "auto" else runner) == "pooling"
