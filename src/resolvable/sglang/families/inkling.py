"""Inkling (hybrid SWA + mamba, multimodal; new in sglang 0.5.16, ``overrides._inkling_overrides``).

Invariant: each default yields to an explicit user value (sglang compares with the
``ServerArgs`` class default): attention fa4 on SM100 and triton elsewhere (the only backends
its attention runs on), a 0.1 SWA pool ratio, the ``extra_buffer`` mamba strategy. The full
prefill CUDA graph default is set before the CUDA-graph config is parsed, so it lives in the
device stage (``passes/device.py:cuda_graph_defaults_0_5_16``). 0.5.15 has no Inkling rule.
"""

from __future__ import annotations

from ...rules import Force
from .._base import registry
from ..facts import backends_not_set

ARCHS = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP")
# ServerArgs class defaults (from the schema: no dataclasses import)
_DEFAULTS = registry.schema.defaults


@registry.rule("model", archs=ARCHS, since="0.5.16")
def inkling_defaults(ctx):
    """Since 0.5.16 (``overrides._inkling_overrides``): fa4 (SM100) / triton attention when no
    backend is set, ``swa_full_tokens_ratio`` 0.1, ``mamba_radix_cache_strategy`` extra_buffer."""
    args = ctx.args
    out: dict = {}
    for field, value in (("swa_full_tokens_ratio", 0.1), ("mamba_radix_cache_strategy", "extra_buffer")):
        if args[field] == _DEFAULTS[field]:
            # sglang compares with the class default, so an explicit default value is replaced too
            out[field] = Force(value, "Inkling default") if ctx.user_set(field) else value
    if backends_not_set(args):
        out["attention_backend"] = "fa4" if ctx.platform.is_sm100 else "triton"
    return out
