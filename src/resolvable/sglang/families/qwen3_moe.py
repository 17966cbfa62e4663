"""Qwen3 MoE family (spec §3.13): Qwen3-MoE, Qwen3-VL-MoE and the Qwen3.5 hybrid archs.

Invariant: no attention logic; on SM100 the checkpoint's quantization is adopted and FP8 /
NVFP4 / unquantized experts run on the flashinfer_trtllm MoE runner.
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES
from ..facts import adopted_quantization
from .qwen3_5 import ARCHS as QWEN3_5_ARCHS

ARCHS = ("Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration", *QWEN3_5_ARCHS)


@registry.for_arch(*ARCHS)
def qwen3_moe_runner(ctx):
    """§3.13 (SM100 only). The Qwen3-MoE / Qwen3-VL-MoE SM100 arm is new in 0.5.6
    (``QWEN3_MOE_SM100_ARM``), and so is Qwen3-Next's (``QWEN3_NEXT_SM100_TRITON``).
    ``QWEN3_MOE_SM100_UNQUANTIZED_TRTLLM`` (0.5.8): before it unquantized experts kept the auto
    runner."""
    args = ctx.args
    if not ctx.platform.is_sm100:
        return {}
    new = (
        CHANGES.QWEN3_NEXT_SM100_TRITON if ctx.arch == "Qwen3NextForCausalLM" else CHANGES.QWEN3_MOE_SM100_ARM
    )
    if not ctx.release.has(new):
        return {}
    quantization, adopted = adopted_quantization(ctx)
    out = {"quantization": quantization} if adopted else {}
    # QWEN3_MOE_SM100_UNQUANTIZED_TRTLLM (0.5.8): unquantized experts too (0.5.7: fp8, modelopt_fp4)
    kinds = ("fp8", "modelopt_fp4", None)
    if not ctx.release.has(CHANGES.QWEN3_MOE_SM100_UNQUANTIZED_TRTLLM):
        kinds = ("fp8", "modelopt_fp4")
    if quantization in kinds and args.moe_a2a_backend == "none" and (args.moe_runner_backend == "auto"):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out
