"""The vLLM rule pack: how vLLM 0.33.0 selects the attention backend of every layer kind.

``resolve_vllm_args(hf_config, platform, **flags)`` answers for any config and platform: the
backend per layer kind (full, sliding window, MLA, indexer, encoder, cross), the block size,
the kv-cache dtype, the FlashAttention version, the MLA prefill backend and the CUDA-graph mode.
Backends are chosen from candidates (``resolvable._choose``), so ``explain`` lists every
candidate and why it was rejected. Bundled model configs are shared with the SGLang pack
(``resolvable.vllm.models``). Reference: vllm-attention-spec.md (§ numbers in docstrings).
"""

from __future__ import annotations

import importlib

from ._base import VLLM_VERSION, registry

#: Rule modules in registration order (stages order them; this order only matters inside a stage).
RULE_MODULES = (
    "rules.model",
    # Engine configuration (vllm-config-spec.md §2-§4), in vLLM's order inside each stage.
    "config.model_config",
    "config.caching",
    "config.kv_cache",
    "config.parallel",
    "config.lora",
    # after parallel: VllmConfig.__post_init__ runs verify_with_parallel_config before
    # _get_quantization_config (config-3117-00036: EP on a dense model wins over "Cannot find")
    "config.quantization",
    "config.speculative",
    "config.batch",
    # after batch: create_engine_config builds the LoRA config and merges the capture sizes last
    "config.late_args",
    "config.model_hooks",
    "config.scheduling",
    # after scheduling: 0.33 limits the length under the V2 model runner only
    "config.draft_length",
    "config.compilation",
    "config.platform",
    "config.startup",
    "rules.overrides",
    "rules.attention",
    "rules.block_size",
    "rules.fa",
    "rules.mla_prefill",
    "rules.cudagraph",
)
for _module in RULE_MODULES:
    importlib.import_module(f"{__name__}.{_module}")

from .api import resolve_vllm_args  # noqa: E402
from .args import KIND_FIELDS, VllmArgs  # noqa: E402
from .models import catalog, load_model  # noqa: E402


def __getattr__(name: str):  # the capability table is built on first use
    if name in ("capability_table", "capability_markdown"):
        from . import capabilities

        return getattr(capabilities, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "KIND_FIELDS",
    "VLLM_VERSION",
    "VllmArgs",
    "capability_markdown",
    "capability_table",
    "catalog",
    "load_model",
    "registry",
    "resolve_vllm_args",
]
