"""DeepSeek-V4 (spec §3.2).

Invariant: DeepSeek-V4 always runs the ``dsv4`` backend (over any user choice) with
256-token pages (128 on Ascend, where prefill/decode are ``dsv4`` too) and an fp8_e4m3
(Ascend: bfloat16) KV cache; speculative decoding must be EAGLE with topk 1.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..checkpoint import hf_quantization_config
from ..facts import env_flag

ARCH = "DeepseekV4ForCausalLM"
_WHY = "DeepSeek-V4 runs only the dsv4 attention backend"


def _refuse(message: str, *fields: str, fix: str | Fix, upstream: str = "AssertionError") -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream=upstream)


def _speculative(ctx) -> None:
    """The speculative algorithms DeepSeek-V4 accepts: EAGLE with topk 1; ``DSV4_DSPARK`` (0.5.16)
    also DSPARK (topk 1 is asked of EAGLE only)."""
    args = ctx.args
    if not ctx.release.has(CHANGES.DSV4_DSPARK):
        if args.speculative_algorithm != "EAGLE":
            raise _refuse(
                "Only EAGLE speculative algorithm is supported for DeepseekV4ForCausalLM",
                "speculative_algorithm",
                fix="pass --speculative-algorithm EAGLE (NEXTN is not accepted here)",
            )
        _eagle_topk_one(args)
        return
    if args.speculative_algorithm not in ("EAGLE", "DSPARK"):
        raise _refuse(
            "Only EAGLE and DSPARK speculative algorithms are supported for DeepseekV4ForCausalLM",
            "speculative_algorithm",
            fix=Fix.any_of(
                Fix(set={"speculative_algorithm": "EAGLE"}),
                Fix(set={"speculative_algorithm": "DSPARK"}),
                text="pass --speculative-algorithm EAGLE or DSPARK",
            ),
        )
    if args.speculative_algorithm == "EAGLE":
        _eagle_topk_one(args)


def _eagle_topk_one(args) -> None:
    if args.speculative_eagle_topk != 1:
        raise _refuse(
            "Only EAGLE speculative algorithm with topk == 1 is supported for DeepseekV4ForCausalLM",
            "speculative_eagle_topk",
            fix=Fix(set={"speculative_eagle_topk": 1}),
        )


@registry.rule("model", archs=(ARCH,), since="0.5.12")
def deepseek_v4_defaults(ctx):
    """§3.2 (``deepseek_v4_hook.apply_deepseek_v4_defaults``, new in 0.5.12: 0.5.11 has no
    DeepSeek-V4): backend, pages, request cap, speculative limits (``DSV4_DSPARK``, 0.5.16),
    SWA ratio, MoE runner, prefill CP."""
    args, hf = ctx.args, ctx.hf
    out = {"attention_backend": Force("dsv4", _WHY)}
    if args.device == "npu":
        out.update(
            page_size=Force(128, "DeepSeek-V4 on Ascend uses 128-token pages"),
            prefill_attention_backend=Force("dsv4", _WHY),
            decode_attention_backend=Force("dsv4", _WHY),
        )
    else:
        out["page_size"] = Force(256, "DeepSeek-V4 uses 256-token pages")
    if args.max_running_requests is None:
        out["max_running_requests"] = 256
    if args.speculative_algorithm is not None:
        _speculative(ctx)
    if args.swa_full_tokens_ratio == 0.8:
        out["swa_full_tokens_ratio"] = 0.1
    if args.moe_runner_backend == "auto" and hf.get("nvfp4_moe_meta") is not None:
        out["moe_runner_backend"] = "flashinfer_trtllm_routed"
    if args.enable_prefill_cp:
        if args.cp_strategy != "interleave":
            raise _refuse(
                "DeepseekV4ForCausalLM prefill context parallelism requires --cp-strategy interleave",
                "cp_strategy",
                fix=Fix(set={"cp_strategy": "interleave"}),
                upstream="ValueError",
            )
        if args.dp_size != 1 or args.tp_size > 8:
            raise _refuse(
                "DeepseekV4ForCausalLM prefill context parallelism needs --dp-size 1 and --tp-size <= 8",
                "dp_size",
                "tp_size",
                fix=Fix(set={"dp_size": 1, "tp_size": 8}, text="pass --dp-size 1 and at most --tp-size 8"),
            )
        out.update(
            enable_dsa_prefill_context_parallel=True,
            dsa_prefill_cp_mode="round-robin-split",
            enable_dp_attention=True,
            moe_dense_tp_size=1,
            attn_cp_size=args.tp_size // args.dp_size,
        )
    return out


@registry.rule("model_checks", archs=(ARCH,), since="0.5.12")
def deepseek_v4_kv_cache_dtype(ctx):
    """§3.2 (since 0.5.12, as DeepSeek-V4 itself): KV auto → fp8_e4m3; Ascend → bfloat16;
    anything else is refused."""
    kv = ctx.args.kv_cache_dtype
    out = {}
    if kv == "auto":
        kv = out["kv_cache_dtype"] = "fp8_e4m3"
    if ctx.args.device == "npu" and kv != "bfloat16":
        kv = "bfloat16"
        out["kv_cache_dtype"] = Force(kv, "DeepSeek-V4 on Ascend keeps a bfloat16 KV cache")
    if kv not in ("fp8_e4m3", "bfloat16"):
        raise _refuse(
            f"{kv} is not supported for DeepseekV4ForCausalLM",
            "kv_cache_dtype",
            fix=Fix.any_of(
                Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
                Fix(set={"kv_cache_dtype": "bfloat16"}),
                text="pass --kv-cache-dtype fp8_e4m3 or bfloat16",
            ),
        )
    return out


@registry.rule("model_checks", archs=(ARCH,), since="0.5.12", until="0.5.19", series="deepseek_v4_sm120_moe")
def deepseek_v4_sm120_moe(ctx):
    """§3.2 (``overrides._deepseek_v4_sm120_moe``, up to 0.5.18; 0.5.19 replaced it with
    ``deepseek_v4_fp4_moe``): on SM120 the MoE runner defaults to marlin, the flashinfer_mxfp4
    runner since 0.5.16 (``DSV4_SM120_MXFP4``)."""
    if not (ctx.platform.is_sm120 and ctx.args.moe_runner_backend == "auto"):
        return {}
    return {
        "moe_runner_backend": "flashinfer_mxfp4" if ctx.release.has(CHANGES.DSV4_SM120_MXFP4) else "marlin"
    }


def fp4_experts(ctx) -> bool:
    """``ModelConfig.is_fp4_experts`` (0.5.19, ``configs/model_config.py``): the checkpoint marks
    MXFP4 routed experts with ``routed_experts_quant_method``; a DeepSeek-V4 checkpoint without
    that key takes ``SGLANG_DSV4_FP4_EXPERTS`` (default on). sglang then probes the weights'
    dtype, which a config alone does not show: the default stands."""
    qc = hf_quantization_config(ctx.hf)
    method = qc.get("routed_experts_quant_method") if hasattr(qc, "get") else None
    if method is not None:
        return method == "mxfp4"
    return env_flag(ctx, "SGLANG_DSV4_FP4_EXPERTS", default=True)


@registry.rule("model_checks", archs=(ARCH,), since="0.5.19", series="deepseek_v4_sm120_moe")
def deepseek_v4_fp4_moe(ctx):
    """§3.2 (since 0.5.19, ``model_overrides/deepseek_v4.py:_deepseek_v4_overrides``; the SM120
    pass is gone): with the runner still ``auto`` (the NVFP4 routed default comes first) on a
    CUDA device (not ROCm) with ``moe_a2a_backend none``, FP4 experts and SM90/SM100/SM120, the
    MoE runner is flashinfer_mxfp4 (not with ``SGLANG_DSV4_FP4_DEQUANT``)."""
    args, platform = ctx.args, ctx.platform
    if (
        args.moe_runner_backend == "auto"
        and args.device == "cuda"
        and not platform.is_hip
        and args.moe_a2a_backend == "none"
        and not env_flag(ctx, "SGLANG_DSV4_FP4_DEQUANT")
        and fp4_experts(ctx)
        and (platform.is_sm90 or platform.is_sm100 or platform.is_sm120)
    ):
        return {"moe_runner_backend": "flashinfer_mxfp4"}
    return {}


#: sglang's smallest memory-dependent chunked-prefill default (``_handle_gpu_memory_settings``);
#: the pack does not model that default, so an unset size is checked at this lower bound.
_MIN_DEFAULT_CHUNK = 2048


@registry.rule("model_checks", archs=(ARCH,), since="0.5.17")
def deepseek_v4_mega_moe_token_budget(ctx):
    """0.5.17 ``deepseek_v4_hook.validate_deepseek_v4_mega_moe_token_budget`` (not on decode
    servers): with MegaMoE (``--moe-a2a-backend megamoe`` or ``SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE``)
    chunked prefill must be on, and each rank's share of a chunk (split over the prefill-CP or DP
    groups, rounded up to the attention-TP size) must fit
    ``SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK`` (default 1024). An unset chunk size
    is checked at sglang's smallest default (2048), so only certain refusals are reported;
    ``--enable-dynamic-chunking`` (skips the check with PP) is not a pack field."""
    args = ctx.args
    mega = args.moe_a2a_backend == "megamoe" or env_flag(ctx, "SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE")
    if not mega or args.disaggregation_mode == "decode":
        return {}
    chunk = args.chunked_prefill_size
    if chunk is not None and chunk <= 0:
        raise _refuse(
            "DeepSeekV4 with MegaMoE requires chunked prefill to be enabled. Set --chunked-prefill-size to "
            "a positive value; --chunked-prefill-size=-1 is unsafe because MegaMoE's per-rank token "
            "requirement would not have a strict prefill-forward bound.",
            "chunked_prefill_size",
            "moe_a2a_backend",
            fix="pass a positive --chunked-prefill-size",
            upstream="ValueError",
        )
    size = _MIN_DEFAULT_CHUNK if chunk is None else chunk
    cp = max(1, args.attn_cp_size or 1)
    if args.enable_prefill_cp:
        local, align = (size + cp - 1) // cp, 1
    elif args.enable_dp_attention:
        local, align = size // max(1, args.dp_size), max(args.tp_size // max(1, args.dp_size) // cp, 1)
    else:
        local, align = size, max(args.tp_size // cp, 1)
    if local <= 0:
        raise _refuse(
            "DeepSeekV4 with MegaMoE requires a positive effective per-rank chunked prefill size.",
            "chunked_prefill_size",
            "dp_size",
            fix="raise --chunked-prefill-size",
            upstream="ValueError",
        )
    required = (local + align - 1) // align * align
    budget = int(ctx.env.get("SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK", 1024))
    if budget < required:
        raise _refuse(
            "DeepSeekV4 with MegaMoE requires SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK to cover "
            f"each rank's effective prefill token budget (required_per_rank={required}, "
            f"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK={budget}).",
            "chunked_prefill_size",
            "moe_a2a_backend",
            fix=f"set SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK to at least {required}, or lower "
            "--chunked-prefill-size (or use DP attention)",
            upstream="ValueError",
        )
    return {}
