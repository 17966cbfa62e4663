"""MiniMax-M2 (spec §3.17).

Invariant: TF32 matmuls are always allowed (0.5.15); attention is left to the generic default;
from 0.5.18 an NVFP4 checkpoint on SM10x gets the TRT-LLM routed MoE runner.
"""

from __future__ import annotations

from .._base import registry
from ..facts import model_quantization


@registry.rule("model", archs=("MiniMaxM2ForCausalLM",), since="0.5.15")
def minimax_m2_tf32(ctx):
    """§3.17 (since 0.5.15, spec §9 #9): ``enable_tf32_matmul`` := True (0.5.14 has no such field)."""
    return {"enable_tf32_matmul": True}


@registry.rule("model", archs=("MiniMaxM2ForCausalLM",), since="0.5.18")
def minimax_m2_nvfp4_moe(ctx):
    """``arg_groups/overrides.py:_minimax_m2_overrides`` (0.5.18): on SM10x an NVFP4
    (``model_config.quantization == "modelopt_fp4"``) checkpoint with ``--moe-runner-backend auto``
    uses ``flashinfer_trtllm_routed``."""
    args = ctx.args
    if not ctx.platform.is_sm100 or args.moe_runner_backend != "auto":
        return {}
    quantization, _method = model_quantization(args.quantization, ctx.hf, ctx.platform)
    if quantization == "modelopt_fp4":
        return {"moe_runner_backend": "flashinfer_trtllm_routed"}
    return {}
