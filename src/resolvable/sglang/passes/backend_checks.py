"""Kernel/platform/KV-dtype checks of the chosen backends (spec §4.2 C10-C14, C20).

Invariant: these rules only refuse (or, for cutedsl_mla, fill the missing prefill side);
each refusal names the flag to change.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from ..facts import effective_backends, is_mla


@registry.rule("attention_checks")
def trtllm_mla_checks(ctx):
    """C10: trtllm_mla (A or D) needs Blackwell and a kv dtype in {fp8_e4m3, fp4_e2m1, bf16,
    auto}; ``TRTLLM_MLA_NO_FP4_KV`` (0.5.21, ``overrides._mla_kv_cache_dtype_checks``):
    ``fp4_e2m1`` is gone."""
    args = ctx.args
    if "trtllm_mla" not in (args.attention_backend, args.decode_attention_backend):
        return {}
    if not ctx.platform.is_blackwell:
        raise ConflictError(
            "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different backend.",
            fields=("attention_backend",),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "fa3"}),
                Fix(set={"attention_backend": "flashinfer"}),
                text="choose another --attention-backend (e.g. fa3 or flashinfer)",
            ),
        )
    if ctx.release.has(CHANGES.TRTLLM_MLA_NO_FP4_KV):
        kv_dtypes: tuple[str, ...] = ("fp8_e4m3", "bf16", "auto")
    else:
        kv_dtypes = ("fp8_e4m3", "fp4_e2m1", "bf16", "auto")
    if args.kv_cache_dtype not in kv_dtypes:
        listed = ", ".join(kv_dtypes[:-1]) + f", or {kv_dtypes[-1]}"
        others = [d for d in kv_dtypes if d not in ("bf16", "auto")]
        raise ConflictError(
            f"TensorRT-LLM MLA backend only supports kv-cache-dtype of {listed}.",
            fields=("attention_backend", "kv_cache_dtype"),
            fix=Fix.any_of(
                *(Fix(set={"kv_cache_dtype": d}) for d in ("bf16", *others, "auto")),
                text=f"pass --kv-cache-dtype bf16 (not 'bfloat16'), {', '.join(others)} or auto",
            ),
        )
    return {}


@registry.rule("attention_checks")
def tokenspeed_mla_checks(ctx):
    """C11: tokenspeed_mla needs Blackwell and ``fp8_e4m3`` KV."""
    args = ctx.args
    if "tokenspeed_mla" not in (args.attention_backend, args.decode_attention_backend):
        return {}
    if not ctx.platform.is_blackwell:
        raise ConflictError(
            "tokenspeed_mla backend is only supported on Blackwell GPUs (SM100/SM12x).",
            fields=("attention_backend",),
            fix=Fix(another=("attention_backend",)),
        )
    if args.kv_cache_dtype != "fp8_e4m3":
        raise ConflictError(
            f"tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got {args.kv_cache_dtype}.",
            fields=("kv_cache_dtype",),
            fix=Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
        )
    return {}


@registry.rule("attention_checks")
def cutedsl_mla_checks(ctx):
    """C12: cutedsl_mla is decode-only, SM100-only, with a compatible KV dtype; prefill defaults to trtllm_mla."""
    args = ctx.args
    if "cutedsl_mla" not in (
        args.attention_backend,
        args.decode_attention_backend,
        args.prefill_attention_backend,
    ):
        return {}
    if args.prefill_attention_backend == "cutedsl_mla":
        raise ConflictError(
            "CuteDSL MLA only supports decoding for now",
            fields=("prefill_attention_backend",),
            fix=Fix(
                another=("decode_attention_backend",),
                text="use cutedsl_mla with --decode-attention-backend only",
            ),
            upstream="AssertionError",
        )
    if not ctx.platform.is_sm100:
        raise ConflictError(
            "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a different backend.",
            fields=("decode_attention_backend",),
            fix=Fix(another=("decode_attention_backend",)),
        )
    if args.kv_cache_dtype not in ("fp8_e4m3", "bf16", "bfloat16", "auto"):
        raise ConflictError(
            f"CuteDSL MLA backend does not support kv-cache-dtype {args.kv_cache_dtype}.",
            fields=("kv_cache_dtype",),
            fix=Fix.any_of(
                Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
                Fix(set={"kv_cache_dtype": "bf16"}),
                Fix(set={"kv_cache_dtype": "auto"}),
                text="pass --kv-cache-dtype fp8_e4m3, bf16 or auto",
            ),
        )
    if args.prefill_attention_backend is None:
        return {"prefill_attention_backend": "trtllm_mla"}
    return {}


def _trtllm_mha_decode_check(platform, decode) -> None:
    """C14 (every release): trtllm_mha decode needs SM90, SM100 or SM120."""
    if decode == "trtllm_mha" and not (platform.is_sm90 or platform.is_sm100 or platform.is_sm120):
        raise ConflictError(
            "TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and (SM120) "
            "GPUs. Please use a different decode backend.",
            fields=("attention_backend", "decode_attention_backend"),
            fix=Fix.any_of(
                Fix(another=("attention_backend",)),
                Fix(another=("decode_attention_backend",)),
                text="choose another --attention-backend / --decode-attention-backend",
            ),
        )


@registry.rule("attention_checks")
def trtllm_mha_platform_checks(ctx):
    """C13/C14 (``attention_hook.handle_attention_backend_compatibility``; before 0.5.19
    ``_handle_attention_backend_compatibility``): trtllm_mha prefill needs SM100; decode needs
    SM90, SM100 or SM120. ``TRTLLM_MHA_FMHAV2_PREFILL`` (0.5.19): prefill runs on SM90, SM100 or
    SM120 (FMHAv2 off SM100); on SM120 not with an fp8_e4m3 KV cache; off SM100 not with prefill
    context parallelism (``attn_cp_size > 1``). The skip-softmax env threshold is not read."""
    args = ctx.args
    prefill, decode = effective_backends(args)
    platform = ctx.platform
    if "trtllm_mha" not in (prefill, decode):
        return {}
    fmhav2 = ctx.release.has(CHANGES.TRTLLM_MHA_FMHAV2_PREFILL)
    if prefill == "trtllm_mha" and not platform.is_sm100 and not fmhav2:
        raise ConflictError(
            "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100). "
            "Please use a different prefill backend.",
            fields=("attention_backend", "prefill_attention_backend"),
            fix=Fix.any_of(
                Fix(another=("attention_backend",)),
                Fix(another=("prefill_attention_backend",)),
                text="choose another --attention-backend / --prefill-attention-backend",
            ),
        )
    if not fmhav2:
        _trtllm_mha_decode_check(platform, decode)
        return {}
    if prefill == "trtllm_mha":
        if not (platform.is_sm90 or platform.is_sm100 or platform.is_sm120):
            raise ConflictError(
                "TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs. "
                "Please use a different prefill backend.",
                fields=("attention_backend", "prefill_attention_backend"),
                fix=Fix.any_of(
                    Fix(another=("attention_backend",)),
                    Fix(another=("prefill_attention_backend",)),
                    text="choose another --attention-backend / --prefill-attention-backend",
                ),
            )
        if platform.is_sm120 and args.kv_cache_dtype == "fp8_e4m3":
            raise ConflictError(
                "TRTLLM FMHAv2 prefill on SM120 does not support fp8_e4m3 KV cache or skip-softmax.",
                fields=("attention_backend", "prefill_attention_backend", "kv_cache_dtype"),
                fix=Fix(
                    another=("kv_cache_dtype",),
                    text="use another --kv-cache-dtype, or another prefill backend",
                ),
            )
    _trtllm_mha_decode_check(platform, decode)
    if prefill == "trtllm_mha" and not platform.is_sm100 and args.attn_cp_size > 1:
        raise ConflictError(
            "Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 (trtllm-gen "
            "context kernel): the SM90/SM120 fmha_v2 prefill path does not implement CP shard masking.",
            fields=("attention_backend", "prefill_attention_backend", "attn_cp_size"),
            fix="use another prefill backend, or drop prefill context parallelism",
        )
    return {}


@registry.rule("attention_checks", until="0.5.20")
def intel_xpu_mla_prefill(ctx):
    """C20 (until 0.5.20): for MLA models intel_xpu is decode-only. sglang 0.5.20 drops the check
    (``attention_hook.handle_attention_backend_compatibility``): intel_xpu MLA prefill is accepted.
    Not checked before 0.5.11 (``INTEL_XPU_MLA_DECODE_ONLY``)."""
    if not ctx.release.has(CHANGES.INTEL_XPU_MLA_DECODE_ONLY):
        return {}
    if is_mla(ctx.hf, ctx.release) and effective_backends(ctx.args)[0] == "intel_xpu":
        raise ConflictError(
            "intel_xpu backend is only supported on decode for MLA models, please set "
            "--decode-attention-backend to intel_xpu and use another prefill backend.",
            fields=("attention_backend", "prefill_attention_backend"),
            fix=Fix(set={"decode_attention_backend": "intel_xpu", "prefill_attention_backend": "triton"}),
        )
    return {}


@registry.rule("attention_late", since="0.5.15")
def deepseek_trtllm_mla_prefill_graph(ctx):
    """C24 (since 0.5.15, spec §9 #3): DeepSeek-V3 with trtllm_mla prefill runs prefill without CUDA graphs,
    unless the user locked the prefill graph backend."""
    args = ctx.args
    if (
        not ctx.user_set("cuda_graph_backend_prefill")
        and args.cuda_graph_backend_prefill != "disabled"
        and "DeepseekV3ForCausalLM" in ctx.hf.architectures
        and effective_backends(args)[0] == "trtllm_mla"
    ):
        return {"cuda_graph_backend_prefill": "disabled"}
    return {}
