"""MiniMax-M3 (sparse attention; new in sglang 0.5.16, ``arg_groups/overrides.py:_minimax_m3_overrides``).

Invariant: the checkpoint's quantization is adopted unless ``--quantization unquant``; the
attention backend is pinned per platform only when no backend flag was given (ROCm triton,
SM100 fa4, SM90 fa3), with 128-token pages when that backend is fa4 (SM100) / fa3 (SM90) and
the page size is unset; a bf16 checkpoint never runs the deep_gemm MoE runner. 0.5.15 has no
MiniMax-M3 rule (the generic defaults apply).
"""

from __future__ import annotations

from ..._declaration import Force
from .._base import registry
from ..facts import backends_not_set, env_flag, quant_method, quantization_explicitly_unset

ARCHS = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")


@registry.rule("model", archs=ARCHS, since="0.5.16", until="0.5.17", series="minimax_m3_defaults")
def minimax_m3_defaults(ctx):
    """Since 0.5.16 (``overrides._minimax_m3_overrides``): quantization, attention backend,
    page size, MoE runner and (ROCm) all-reduce defaults for MiniMax-M3."""
    return _minimax_m3(ctx, release_0_5_17=False)


@registry.rule("model", archs=ARCHS, since="0.5.17", series="minimax_m3_defaults")
def minimax_m3_defaults_0_5_17(ctx):
    """0.5.17 ``overrides._minimax_m3_overrides``: on SM100 with no backend set, an ``fp8_e4m3``
    KV cache runs ``trtllm_mha`` (fp8 attention GEMMs; not with
    ``SGLANG_DISABLE_M3_FP8_ATTN_GEMM``), and ``trtllm_mha`` also gets 128-token pages; a
    ``modelopt_mixed`` checkpoint with MoE runner ``auto`` runs ``flashinfer_trtllm_routed``; on
    ROCm ``SGLANG_M3_ALLOW_CUSTOM_AR`` keeps the custom all-reduce on."""
    return _minimax_m3(ctx, release_0_5_17=True)


def _minimax_m3(ctx, *, release_0_5_17: bool) -> dict:
    """The body shared by the releases; ``release_0_5_17``: the 0.5.17 changes above."""
    args, platform = ctx.args, ctx.platform
    out: dict = {}
    quantization = args.quantization
    checkpoint = quant_method(ctx.hf)
    if quantization is None and not quantization_explicitly_unset(ctx) and checkpoint is not None:
        quantization = out["quantization"] = checkpoint
    backend = args.attention_backend
    moe = args.moe_runner_backend
    if platform.is_hip:
        if backends_not_set(args):
            backend = out["attention_backend"] = "triton"
        if moe == "auto" and quantization == "mxfp8":
            moe = out["moe_runner_backend"] = "triton"
        fusion = args.enable_aiter_allreduce_fusion
        if args.ep_size > 1 and args.moe_a2a_backend == "none" and fusion:
            fusion = False
            out["enable_aiter_allreduce_fusion"] = Force(
                False,
                "MiniMax-M3 standard EP on ROCm: the deferred fused all-reduce corrupts sparse MoE outputs",
            )
        if not fusion and not (release_0_5_17 and env_flag(ctx, "SGLANG_M3_ALLOW_CUSTOM_AR")):
            out["disable_custom_all_reduce"] = True
    elif platform.is_sm100:
        if backends_not_set(args):
            fp8_gemm = (
                release_0_5_17
                and args.kv_cache_dtype == "fp8_e4m3"
                and not env_flag(ctx, "SGLANG_DISABLE_M3_FP8_ATTN_GEMM")
            )
            backend = out["attention_backend"] = "trtllm_mha" if fp8_gemm else "fa4"
        paged = ("fa4", "trtllm_mha") if release_0_5_17 else ("fa4",)
        if args.page_size is None and backend in paged:
            out["page_size"] = 128
        if moe == "auto" and quantization == "mxfp8":
            moe = out["moe_runner_backend"] = "deep_gemm"
        elif release_0_5_17 and moe == "auto" and quantization == "modelopt_mixed":
            moe = out["moe_runner_backend"] = "flashinfer_trtllm_routed"
    elif platform.is_sm90:
        if backends_not_set(args):
            backend = out["attention_backend"] = "fa3"
        if args.page_size is None and backend == "fa3":
            out["page_size"] = 128
    if quantization is None and moe in ("auto", "deep_gemm"):
        out["moe_runner_backend"] = (
            Force("triton", "MiniMax-M3: the deep_gemm MoE runner corrupts bf16 full weights")
            if moe == "deep_gemm"
            else "triton"
        )
    return out
