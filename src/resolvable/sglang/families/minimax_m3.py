"""MiniMax-M3 (sparse attention; new in sglang 0.5.16, ``arg_groups/overrides.py:_minimax_m3_overrides``).

Invariant: the checkpoint's quantization is adopted unless ``--quantization unquant``; the
attention backend is pinned per platform only when no backend flag was given (ROCm triton,
SM100 fa4, SM90 fa3), with 128-token pages when that backend is fa4 (SM100) / fa3 (SM90) and
the page size is unset; a bf16 checkpoint never runs the deep_gemm MoE runner. 0.5.15 has no
MiniMax-M3 rule (the generic defaults apply). Since 0.5.23 an ``mxfp8`` checkpoint whose experts
are NVFP4-packed is served as ``minimax_m3_nvfp4`` (MiniMax-M3.1) with its own stack: 128-token
pages always, FP8 KV, ``trtllm_mha`` and MegaMoE on Blackwell, ``fa3`` and ``marlin`` elsewhere.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import (
    backends_not_set,
    env_flag,
    quant_method,
    quantization_config,
    quantization_explicitly_unset,
)

ARCHS = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")


def _per_platform(ctx) -> dict:
    """The per-platform defaults of ``_minimax_m3_overrides`` (every checkpoint but M3.1 NVFP4);
    0.5.17 brought ``MINIMAX_M3_FP8_ATTN_GEMM`` (SM100 fp8_e4m3 KV → ``trtllm_mha``, not with
    ``SGLANG_DISABLE_M3_FP8_ATTN_GEMM``, and its 128-token pages), ``MINIMAX_M3_MIXED_ROUTED_MOE``
    and ``MINIMAX_M3_ROCM_CUSTOM_AR_ENV``."""
    args, platform, has = ctx.args, ctx.platform, ctx.release.has
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
        if not fusion and not (
            env_flag(ctx, "SGLANG_M3_ALLOW_CUSTOM_AR") and has(CHANGES.MINIMAX_M3_ROCM_CUSTOM_AR_ENV)
        ):
            out["disable_custom_all_reduce"] = True
    elif platform.is_sm100:
        if backends_not_set(args):
            fp8_gemm = (
                args.kv_cache_dtype == "fp8_e4m3"
                and not env_flag(ctx, "SGLANG_DISABLE_M3_FP8_ATTN_GEMM")
                and has(CHANGES.MINIMAX_M3_FP8_ATTN_GEMM)
            )
            backend = out["attention_backend"] = "trtllm_mha" if fp8_gemm else "fa4"
        if args.page_size is None and (
            backend == "fa4" or (backend == "trtllm_mha" and has(CHANGES.MINIMAX_M3_FP8_ATTN_GEMM))
        ):
            out["page_size"] = 128
        if moe == "auto" and quantization == "mxfp8":
            moe = out["moe_runner_backend"] = "deep_gemm"
        elif moe == "auto" and quantization == "modelopt_mixed" and has(CHANGES.MINIMAX_M3_MIXED_ROUTED_MOE):
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


# -- since 0.5.23 ----------------------------------------------------------------------------


def _checkpoint_method_0_5_23(hf) -> str | None:
    """``model_overrides/minimax_m3.py:_resolve_quant_method`` (0.5.23): a declared ``mxfp8``
    with ``moe_quant_algo`` NVFP4 and ``moe_quant_format`` ``nvfp4-pack-quantized`` is M3.1
    NVFP4 (``minimax_m3_nvfp4``); anything else is the declared method."""
    method = quant_method(hf)
    if method != "mxfp8":
        return method
    qc = quantization_config(hf) or {}
    if (
        str(qc.get("moe_quant_algo", "")).upper() != "NVFP4"
        or qc.get("moe_quant_format") != "nvfp4-pack-quantized"
    ):
        return method
    return "minimax_m3_nvfp4"


def _refuse(message: str, fields: tuple[str, ...], fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix)


def _m3_nvfp4(ctx, out: dict) -> dict:
    """The ``minimax_m3_nvfp4`` branch of ``_minimax_m3_overrides`` (0.5.23), in sglang's order."""
    args, platform = ctx.args, ctx.platform
    algorithm = args.speculative_algorithm
    if algorithm not in (None, "DSPARK", "DFLASH"):
        raise _refuse(
            "M3.1 NVFP4 only supports DSPARK or DFLASH speculation",
            ("speculative_algorithm",),
            "use --speculative-algorithm DSPARK or DFLASH, or drop speculation",
        )
    if algorithm is not None:
        if ctx.arch != "MiniMaxM3SparseForConditionalGeneration":
            raise _refuse(
                f"M3.1 NVFP4 {algorithm} requires MiniMaxM3SparseForConditionalGeneration, got {ctx.arch}",
                ("speculative_algorithm",),
                "serve the vision-language checkpoint, or drop speculation",
            )
        if not platform.is_blackwell:
            raise _refuse(
                f"M3.1 NVFP4 {algorithm} requires Blackwell", ("speculative_algorithm",), "drop speculation"
            )
        if str(ctx.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")) != "static":
            raise _refuse(
                f"M3.1 NVFP4 {algorithm} requires SGLANG_RAGGED_VERIFY_MODE=static",
                ("speculative_algorithm",),
                "unset SGLANG_RAGGED_VERIFY_MODE (or set it to static)",
            )
        if args.pp_size != 1:
            raise _refuse(f"M3.1 NVFP4 {algorithm} requires PP=1", ("pp_size",), Fix(drop=("pp_size",)))
        if algorithm == "DFLASH" and args.disaggregation_mode != "null":
            raise _refuse(
                "M3.1 NVFP4 DFLASH currently requires colocated serving",
                ("disaggregation_mode",),
                Fix(drop=("disaggregation_mode",)),
            )
        if algorithm == "DSPARK" and args.speculative_draft_attention_backend is None:
            out["speculative_draft_attention_backend"] = "trtllm_mha"
    if args.page_size not in (None, 128):
        raise _refuse(
            "M3.1 NVFP4 requires --page-size 128",
            ("page_size",),
            Fix(set={"page_size": 128}, text="pass --page-size 128 (or drop it)"),
        )
    out["page_size"] = 128
    if not platform.is_blackwell:
        # MegaMoE and the packed NVFP4 KV cache are SM100-only: the KV dtype stays as given.
        if args.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "marlin"
        if backends_not_set(args):
            out["attention_backend"] = "fa3"
        return out
    if args.moe_runner_backend == "flashinfer_trtllm_routed":
        if args.moe_a2a_backend not in ("none", "megamoe"):
            raise _refuse(
                "M3.1 NVFP4 flashinfer_trtllm_routed requires --moe-a2a-backend none or megamoe",
                ("moe_a2a_backend",),
                Fix.any_of(
                    Fix(set={"moe_a2a_backend": "megamoe"}),
                    Fix(set={"moe_a2a_backend": "none"}),
                    text="pass --moe-a2a-backend megamoe (or none)",
                ),
            )
    else:
        if args.moe_a2a_backend not in ("none", "megamoe"):
            raise _refuse(
                "M3.1 NVFP4 requires --moe-a2a-backend megamoe",
                ("moe_a2a_backend",),
                Fix(set={"moe_a2a_backend": "megamoe"}),
            )
        if args.moe_a2a_backend != "megamoe":
            out["moe_a2a_backend"] = "megamoe"
        if args.moe_runner_backend == "auto":
            out["moe_runner_backend"] = "deep_gemm"
    if args.kv_cache_dtype == "auto":
        out["kv_cache_dtype"] = "fp8_e4m3"
    elif args.kv_cache_dtype != "fp8_e4m3":
        raise _refuse(
            "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3",
            ("kv_cache_dtype",),
            Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
        )
    if backends_not_set(args):
        out["attention_backend"] = "trtllm_mha"
    return out


@registry.rule("model", archs=ARCHS, since="0.5.16")
def minimax_m3_defaults(ctx):
    """Since 0.5.16 (``overrides._minimax_m3_overrides``; since 0.5.23
    ``model_overrides/minimax_m3.py``): quantization, attention backend, page size, MoE runner
    and (ROCm) all-reduce defaults for MiniMax-M3 (``_per_platform``). ``MINIMAX_M3_NVFP4``
    (0.5.23, ``_resolve_quant_method``): an NVFP4-packed ``mxfp8`` checkpoint is
    ``minimax_m3_nvfp4`` with its own stack (page 128 or refused; Blackwell: MegaMoE A2A,
    ``deep_gemm``, FP8 KV, ``trtllm_mha``; elsewhere ``marlin``, ``fa3``)."""
    args = ctx.args
    if ctx.release.has(CHANGES.MINIMAX_M3_NVFP4):
        checkpoint = _checkpoint_method_0_5_23(ctx.hf)
        if (
            args.quantization is None
            and not quantization_explicitly_unset(ctx)
            and checkpoint == "minimax_m3_nvfp4"
        ):
            return _m3_nvfp4(ctx, {"quantization": checkpoint})
        # (``--quantization minimax_m3_nvfp4`` itself is refused earlier: release_choices.release_choices)
    return _per_platform(ctx)
