"""Shared helpers for the vLLM pack's tests: resolve a bundled model on a preset in one call."""

from __future__ import annotations

from resolvable import Platform
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.platforms import platform

#: The release vllm-attention-spec.md describes (its appendix rows are 0.33.0's: block size 16).
ATTENTION_SPEC_RELEASE = "0.33.0"


def res(model, preset, env=None, **flags):
    hf = load_model(model) if isinstance(model, str) else model
    p = preset if isinstance(preset, Platform) else platform(preset)
    flags.setdefault("vllm_version", ATTENTION_SPEC_RELEASE)
    return resolve_vllm_args(hf, p, env, **flags)


def cuda(cc):
    """A CUDA platform with capability ``cc`` (the H100 preset with another capability)."""
    return Platform.preset("h100").replace(name=f"sm{cc[0]}{cc[1]}", capability=tuple(cc))


def candidates(resolution, field):
    """The candidate verdicts behind ``field``: {name: reasons}."""
    step = next(s for s in resolution.explain(field).steps if s.choice is not None)
    return {v.name: v.reasons for v in step.choice.verdicts}
