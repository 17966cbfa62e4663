"""Cohere2 MoE (Command-A-Plus): the MoE runner on SM100 (since sglang 0.5.19).

Invariant: only a runner left at ``auto`` is filled, only on SM100, and only for an
unquantized checkpoint or an llm-compressor NVFP4-pack one.
"""

from __future__ import annotations

from .._base import registry
from ..checkpoint import hf_quantization_config
from ..facts import model_quantization

ARCHS = ("Cohere2MoeForCausalLM", "Cohere2VisionForConditionalGeneration")


def nvfp4_pack_quantized(hf) -> bool:
    """``_is_nvfp4_pack_quantized``: some ``format`` of the quantization config (top level or a
    config group) names nvfp4 — llm-compressor's ``nvfp4-pack-quantized``."""
    qc = hf_quantization_config(hf)
    if not hasattr(qc, "get"):
        return False
    groups = qc.get("config_groups") or {}
    formats = [qc.get("format", "")]
    formats += [g.get("format", "") for g in groups.values() if hasattr(g, "get")]
    return any("nvfp4" in str(fmt) for fmt in formats)


@registry.rule("model", archs=ARCHS, since="0.5.19")
def cohere2_moe_runner(ctx):
    """§3 (since 0.5.19, ``model_overrides/cohere2_moe.py:_cohere2_moe_runner_overrides``): on SM100
    the MoE runner ``auto`` becomes flashinfer_trtllm for an unquantized (model config) or an
    NVFP4-pack checkpoint."""
    args, platform = ctx.args, ctx.platform
    if args.moe_runner_backend != "auto" or not platform.is_sm100:
        return {}
    model_q, _ = model_quantization(args.quantization, ctx.hf, platform)
    if model_q is not None and not nvfp4_pack_quantized(ctx.hf):
        return {}
    return {"moe_runner_backend": "flashinfer_trtllm"}
