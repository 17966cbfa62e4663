"""Shared helpers for the vLLM pack's tests: resolve a bundled model on a preset in one call."""

from __future__ import annotations

from resolvable import Platform
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.platforms import platform

#: The release of vllm-attention-spec.md (its decision tables and appendix): the golden cases are
#: pinned to it; the release differences (spec §9) are tested in test_releases.py.
SPEC_RELEASE = "0.33.0"


def res(model, preset, env=None, **flags):
    hf = load_model(model) if isinstance(model, str) else model
    p = preset if isinstance(preset, Platform) else platform(preset)
    flags.setdefault("vllm_version", SPEC_RELEASE)
    return resolve_vllm_args(hf, p, env, **flags)


def cuda(cc):
    """A CUDA platform with capability ``cc`` (the H100 preset with another capability)."""
    return Platform.preset("h100").replace(name=f"sm{cc[0]}{cc[1]}", capability=tuple(cc))


def candidates(resolution, field):
    """The candidate verdicts behind ``field``: {name: reasons}."""
    step = next(s for s in resolution.explain(field).steps if s.choice is not None)
    return {v.name: v.reasons for v in step.choice.verdicts}
