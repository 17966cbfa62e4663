"""The standard grid of the SGLang pack: bundled models × platform presets × flag variants.

Invariant: one definition, shared by ``resolvable matrix``, ``resolvable lint``, the docs
support matrix and the benchmarks, so they all exercise the same configurations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._platform import Platform
from .models import bundled, catalog

#: Flag variants a deployment commonly combines with a model (each is applied alone).
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "tp8": {"tp_size": 8},
    "deterministic": {"enable_deterministic_inference": True},
    "eagle-topk1": {"speculative_algorithm": "EAGLE", "speculative_eagle_topk": 1},
    "eagle-topk4": {"speculative_algorithm": "EAGLE", "speculative_eagle_topk": 4},
    "kv-fp8": {"kv_cache_dtype": "fp8_e4m3"},
    "page16": {"page_size": 16},
    "triton": {"attention_backend": "triton"},
    "no-cuda-graph": {"disable_cuda_graph": True},
    "fp16": {"dtype": "float16"},
}


def presets() -> list[str]:
    return list(Platform.presets())


def models() -> list[str]:
    return list(catalog())


def cases(
    model_names: list[str] | None = None,
    platform_names: list[str] | None = None,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
) -> Iterator[tuple[str, str, str, Any, Platform, dict[str, Any]]]:
    """(model, platform, variant, hf, Platform, flags) for every cell of the grid."""
    variants = VARIANTS if variants is None else variants
    hfs = {m: bundled(m) for m in (model_names or models())}
    plats = {p: Platform.preset(p) for p in (platform_names or presets())}
    for m, hf in hfs.items():
        for p, platform in plats.items():
            for v, flags in variants.items():
                yield m, p, v, hf, platform, dict(flags)
