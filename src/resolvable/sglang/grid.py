"""The standard grid of the SGLang pack: bundled models × platform presets × flag variants.

Invariant: one definition, shared by ``resolvable matrix``, ``resolvable lint``, the docs
support matrix and the benchmarks, so they all exercise the same configurations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..rules import Platform
from .models import bundled, catalog

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

#: Flag variants a deployment commonly combines with a model (each is applied alone).
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "tp8": {"tp_size": 8},
    "deterministic": {"enable_deterministic_inference": True},
    # With a topk, sglang 0.5.15 also needs --speculative-num-steps (speculative_hook.py
    # _handle_eagle_family asserts topk unset when it chooses the parameters itself).
    "eagle-topk1": {
        "speculative_algorithm": "EAGLE",
        "speculative_eagle_topk": 1,
        "speculative_num_steps": 3,
    },
    "eagle-topk4": {
        "speculative_algorithm": "EAGLE",
        "speculative_eagle_topk": 4,
        "speculative_num_steps": 3,
    },
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


def alternative(schema_choices: Any, value: Any, default: Any) -> Any:
    """A valid value different from ``value`` and from the default (None if there is none)."""
    if schema_choices:
        for choice in schema_choices:
            if choice != value and choice != default:
                return choice
        return None
    if isinstance(value, bool) or isinstance(default, bool):
        return not value
    if isinstance(value, int) or (value is None and isinstance(default, int)):
        return 16 if value != 16 else 32
    if isinstance(value, float):
        return 0.5 if value != 0.5 else 0.25
    return None


def explicit_variants(res: Any) -> list[dict[str, Any]]:
    """For each field a rule declared, the same inputs with that field set explicitly to
    another value valid at the resolution's release: a rule that still declares it must say so
    with ``Force``."""
    from .choices import choices_in

    schema = res.schema
    variants = []
    for field in sorted({w.field for d in res.declarations if d.stage != "adjust" for w in d.writes}):
        if field in res.user:
            continue
        spec = schema.fields[field]
        # the release's own choices: a name a later release added is an argparse error here
        choices = [c for c in choices_in(res.release, field, tuple(spec.arg.choices or ())) if c is not None]
        other = alternative(sorted(choices, key=str), res[field], spec.default)
        if other is not None:
            variants.append({**res.user, field: other})
    return variants
