"""DeepSeek family: MLA and DSA models (spec §3.1).

Archs: DeepSeek-V3/V3.2, Kimi-K2.5, Mistral-Large-3, Pixtral, GLM-5 (GlmMoeDsa); since 0.5.16
also LongCat-Flash (``LONGCAT_ARCHS``: the same rules, registered ``since="0.5.16"``; DSA when
its config sets ``index_topk``).
Invariants: DSA models (``index_topk`` set) get the ``dsa`` backend when nothing was chosen,
64-token pages (1 on ROCm without the AITER preshuffle), a bf16/fp8_e4m3 KV cache and split
DSA kernels per side; non-DSA models get ``trtllm_mla`` on SM100 when nothing was chosen.
Mistral-Large-3 and Pixtral always run in bfloat16.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry
from ..facts import (
    backends_not_set,
    capability_major,
    env_flag,
    is_deepseek_dsa,
    is_mla,
    quant_method,
    quantization_config,
    quantization_explicitly_unset,
)

ARCHS = (
    "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM",
    "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration",
    "GlmMoeDsaForCausalLM",
)
#: sglang 0.5.16 adds LongCat-Flash to the DeepSeek branch of ``_handle_model_specific_adjustments``,
#: to ``overrides._deepseek_family_overrides`` / ``_DEEPSEEK_FAMILY_ARCHS`` and to
#: ``model_config.is_deepseek_dsa``. (The NextN draft arch only matters for draft workers.)
LONGCAT_ARCHS = ("LongcatFlashForCausalLM",)


def _longcat_dsa(hf) -> bool:
    """``is_deepseek_dsa`` for LongCat-Flash (0.5.16): its config sets ``index_topk``."""
    return hf.text_config.get("index_topk") is not None


for _arch in ("MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"):
    # §3.1: the checkpoint runs only in bfloat16, whatever --dtype says.
    registry.constant(_arch, {"dtype": Force("bfloat16", f"{_arch} runs only in bfloat16")})


def _aiter_preshuffle(ctx) -> bool:
    """``aiter_can_use_preshuffle_paged_mqa`` (spec §1); the triton version is taken as >= 3.5."""
    if not ctx.platform.is_hip or not env_flag(ctx, "SGLANG_USE_AITER"):
        return False
    return not (
        env_flag(ctx, "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE")
        or env_flag(ctx, "SGLANG_NSA_HIP_DISABLE_PRESHUFFLE")
    )


def _prefill_cp(args, *, dsa: bool, release_0_5_22: bool = False) -> dict:
    """Prefill context parallelism switches (both DSA and MLA arms).

    Since 0.5.22 (``model_override_base.context_parallel_attn_dp_size``) the layout runs
    ``--dp-size`` groups as attention DP, so DP attention is on only when ``dp_size > 1``;
    interleave DSA CP accepts DP, keeps an explicit ``attn_cp_size`` and leaves
    ``moe_dense_tp_size`` alone."""
    if release_0_5_22:
        return _prefill_cp_0_5_22(args, dsa=dsa)
    out = {
        "enable_dp_attention": True,
        "moe_dense_tp_size": 1,
        "attn_cp_size": args.tp_size // args.dp_size,
        "cuda_graph_backend_prefill": Force(
            "disabled", "prefill context parallelism runs without prefill graphs"
        ),
    }
    if not dsa or args.cp_strategy == "zigzag":
        reason = "prefill context parallelism dispatches experts with deepep over all TP ranks"
        out.update(moe_a2a_backend=Force("deepep", reason), ep_size=Force(args.tp_size, reason))
        return out
    if args.dp_size != 1:
        raise ConflictError(
            "interleave DSA CP does not support DP attention.",
            fields=("enable_prefill_cp", "dp_size"),
            fix="pass --dp-size 1 or --cp-strategy zigzag",
            upstream="AssertionError",
        )
    return out


def _prefill_cp_0_5_22(args, *, dsa: bool) -> dict:
    out: dict = {
        "cuda_graph_backend_prefill": Force(
            "disabled", "prefill context parallelism runs without prefill graphs"
        ),
    }
    if args.dp_size > 1:
        # ``--dp-size N`` under CP is the deprecated spelling of ``--attn-dp-size N``.
        out["enable_dp_attention"] = True
    interleave = dsa and args.cp_strategy == "interleave"
    out["attn_cp_size"] = (
        args.attn_cp_size if interleave and args.attn_cp_size > 1 else args.tp_size // args.dp_size
    )
    if not dsa or args.cp_strategy == "zigzag":
        reason = "prefill context parallelism dispatches experts with deepep over all TP ranks"
        out.update(
            moe_dense_tp_size=1, moe_a2a_backend=Force("deepep", reason), ep_size=Force(args.tp_size, reason)
        )
    return out


def _dsa_dcp_0_5_22(args) -> dict:
    """``model_overrides/deepseek_v2._dsa_dcp_overrides`` (0.5.22): DSA with ``--dcp-size > 1``."""
    if args.dcp_size <= 1:
        return {}
    if args.enable_hisparse or args.enable_hierarchical_cache:
        raise ConflictError(
            "DSA DCP does not support HiSparse or HiCache.",
            fields=("dcp_size", "enable_hisparse", "enable_hierarchical_cache"),
            fix="pass --dcp-size 1, or drop --enable-hisparse / --enable-hierarchical-cache",
        )
    if args.disaggregation_mode != "null":
        raise ConflictError(
            "DSA DCP does not support PD disaggregation.",
            fields=("dcp_size", "disaggregation_mode"),
            fix="pass --dcp-size 1",
        )
    if args.speculative_eagle_topk not in (None, 1):
        raise ConflictError(
            "DSA DCP requires --speculative-eagle-topk 1.",
            fields=("dcp_size", "speculative_eagle_topk"),
            fix="pass --speculative-eagle-topk 1",
        )
    return {f: "trtllm" for f in ("dsa_prefill_backend", "dsa_decode_backend") if args[f] is None}


def _dsa_page_size_0_5_22(ctx) -> Force:
    """``deepseek_v2`` DSA arm (0.5.22): a page holds whole pooled index groups, 64 * ``index_kpool``."""
    kpool = ctx.hf.text_config.get_typed("index_kpool", int) or 1
    if kpool > 1 and ctx.args.dcp_size > 1:
        raise ConflictError(
            f"--dcp-size > 1 is not supported for DSA with index_kpool={kpool}: a pooled index key spans "
            "positions owned by different DCP ranks.",
            fields=("dcp_size",),
            fix="pass --dcp-size 1",
        )
    if kpool == 1:
        return Force(64, "DSA kernels use 64-token pages")
    return Force(64 * kpool, f"DSA pages hold whole pooled index groups (64 * index_kpool {kpool})")


def _family(ctx, dsa: bool, release_0_5_22: bool = False) -> dict:
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    out = {}
    if dsa:
        text = hf.text_config
        if release_0_5_22:
            out.update(_dsa_dcp_0_5_22(args))
        if backends_not_set(args):
            out["attention_backend"] = "dsa"
        if args.enable_two_batch_overlap:
            pattern = text.get_typed("index_topk_pattern", (str, tuple))
            if (text.get_typed("index_topk_freq", int) or 1) > 1 or (pattern is not None and "S" in pattern):
                raise ConflictError(
                    "--enable-two-batch-overlap is not supported with DSA index-topk sharing",
                    fields=("enable_two_batch_overlap",),
                    fix="drop --enable-two-batch-overlap",
                )
        if args.enable_prefill_cp and args.disaggregation_mode == "decode":
            raise ConflictError(
                "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp.",
                fields=("enable_prefill_cp", "disaggregation_mode"),
                fix="drop --enable-prefill-cp",
                upstream="AssertionError",
            )
        if not (platform.is_npu or platform.is_xpu):
            if args.enable_prefill_cp:
                if args.tp_size > 8:
                    raise ConflictError(
                        "DSA prefill context parallelism supports --tp-size <= 8",
                        fields=("tp_size",),
                        fix="use --tp-size 8 or less",
                        upstream="AssertionError",
                    )
                out.update(_prefill_cp(args, dsa=True, release_0_5_22=release_0_5_22))
            if platform.is_hip and not _aiter_preshuffle(ctx):
                out["page_size"] = Force(1, "DSA on ROCm without the AITER preshuffle uses 1-token pages")
            elif release_0_5_22:
                out["page_size"] = _dsa_page_size_0_5_22(ctx)
            else:
                out["page_size"] = Force(64, "DSA kernels use 64-token pages")
        return out
    if platform.is_sm100 and backends_not_set(args):
        out["attention_backend"] = "trtllm_mla"
    if args.enable_prefill_cp and is_mla(hf):
        out.update(_prefill_cp(args, dsa=False, release_0_5_22=release_0_5_22))
    return out


@registry.rule("model", archs=ARCHS, until="0.5.22")
def deepseek_family(ctx):
    """§3.1 (a)/(b): DSA fill, TBO check, prefill CP, DSA page size; non-DSA trtllm_mla on SM100."""
    return _family(ctx, is_deepseek_dsa(ctx.hf))


@registry.rule("model", archs=ARCHS, since="0.5.22", series="deepseek_family")
def deepseek_family_0_5_22(ctx):
    """§3.1 (a)/(b) (since 0.5.22, ``model_overrides/deepseek_v2.py``: ``_dsa_dcp_overrides``, the DSA
    arm's ``get_dsa_index_kpool`` page size, ``context_parallel_attn_dp_size`` for prefill CP): DSA
    DCP refusals and trtllm DSA kernels, 64 * ``index_kpool`` pages, interleave CP with DP."""
    return _family(ctx, is_deepseek_dsa(ctx.hf), release_0_5_22=True)


@registry.rule("model", archs=LONGCAT_ARCHS, since="0.5.16", until="0.5.22")
def longcat_family(ctx):
    """§3.1 (a)/(b) for LongCat-Flash (since 0.5.16, ``overrides._deepseek_family_overrides``)."""
    return _family(ctx, _longcat_dsa(ctx.hf))


def _dsa_kv_check(kv: str) -> dict:
    """The DSA KV-cache choices once ``auto`` is resolved: bf16 is spelled bfloat16."""
    if kv == "bf16":
        return {"kv_cache_dtype": Force("bfloat16", "DSA spells the bf16 KV cache 'bfloat16'")}
    if kv not in ("bfloat16", "fp8_e4m3"):
        raise ConflictError(
            "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype",
            fields=("kv_cache_dtype",),
            fix="pass --kv-cache-dtype fp8_e4m3 or bf16",
            upstream="AssertionError",
        )
    return {}


@registry.rule("model_checks", archs=ARCHS, since="0.5.20")
def dsa_xpu_page_size(ctx):
    """§3.1 (since 0.5.20, ``model_overrides/deepseek_v2.py``): DSA models on XPU use 128-token
    pages (before 0.5.20 the XPU arm left the page size to the generic default)."""
    if not (ctx.platform.is_xpu and is_deepseek_dsa(ctx.hf)):
        return {}
    return {"page_size": Force(128, "DSA on XPU uses 128-token pages")}


@registry.rule("model_checks", archs=("DeepseekV32ForCausalLM",), since="0.5.20")
def deepseek_v32_prefill_cp_strategy(ctx):
    """Since 0.5.20 (``parallel_hook.handle_context_parallelism``): DeepSeek-V3.2 prefill context
    parallelism refuses the zigzag strategy."""
    args = ctx.args
    if args.enable_prefill_cp and args.cp_strategy == "zigzag":
        raise ConflictError(
            "DeepSeek V3.2 prefill CP does not support --cp-strategy zigzag; use interleave.",
            fields=("enable_prefill_cp", "cp_strategy"),
            fix="pass --cp-strategy interleave",
        )
    return {}


@registry.rule("model", archs=LONGCAT_ARCHS, since="0.5.22", series="longcat_family")
def longcat_family_0_5_22(ctx):
    """§3.1 (a)/(b) for LongCat-Flash since 0.5.22 (same ``deepseek_v2.py`` arm as DeepSeek)."""
    return _family(ctx, _longcat_dsa(ctx.hf), release_0_5_22=True)


def _dsa_kv_cache_dtype(ctx, dsa: bool) -> dict:
    if not dsa or ctx.platform.is_npu or ctx.platform.is_xpu:
        return {}
    kv = ctx.args.kv_cache_dtype
    if kv == "auto":
        kv = "fp8_e4m3" if capability_major(ctx.platform) >= 10 else "bfloat16"
        return {"kv_cache_dtype": kv}
    if kv == "bf16":
        return {"kv_cache_dtype": Force("bfloat16", "DSA spells the bf16 KV cache 'bfloat16'")}
    if kv not in ("bfloat16", "fp8_e4m3"):
        raise ConflictError(
            "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype",
            fields=("kv_cache_dtype",),
            fix="pass --kv-cache-dtype fp8_e4m3 or bf16",
            upstream="AssertionError",
        )
    return {}


@registry.rule("model_checks", archs=ARCHS, until="0.5.20", series="dsa_kv_cache_dtype")
def dsa_kv_cache_dtype(ctx):
    """§3.1 (a): DSA KV cache — auto → fp8_e4m3 on capability >= 10 else bfloat16; bf16 → bfloat16."""
    return _dsa_kv_cache_dtype(ctx, is_deepseek_dsa(ctx.hf))


@registry.rule("model_checks", archs=ARCHS, since="0.5.20", series="dsa_kv_cache_dtype")
def dsa_kv_cache_dtype_0_5_20(ctx):
    """§3.1 (a) (since 0.5.20, ``overrides._dsa_kv_cache_dtype_default``): on XPU ``auto`` →
    bfloat16; a config with ``learnable_sink`` needs a bf16 KV cache (``auto`` → bfloat16 on
    every capability); otherwise as before."""
    if not is_deepseek_dsa(ctx.hf) or ctx.platform.is_npu:
        return {}
    kv = ctx.args.kv_cache_dtype
    if ctx.platform.is_xpu:
        return {"kv_cache_dtype": "bfloat16"} if kv == "auto" else {}
    sinks = bool(ctx.hf.text_config.get("learnable_sink"))
    if sinks and kv not in ("auto", "bf16", "bfloat16"):
        raise ConflictError(
            f"Learnable DSA attention sinks require a bfloat16 KV cache; got kv_cache_dtype={kv}.",
            fields=("kv_cache_dtype",),
            fix="pass --kv-cache-dtype bfloat16 (or leave it auto)",
        )
    if kv == "auto":
        return {
            "kv_cache_dtype": "fp8_e4m3" if capability_major(ctx.platform) >= 10 and not sinks else "bfloat16"
        }
    return _dsa_kv_check(kv)


@registry.rule("model_checks", archs=LONGCAT_ARCHS, since="0.5.16")
def longcat_dsa_kv_cache_dtype(ctx):
    """§3.1 (a) for LongCat-Flash with ``index_topk`` (since 0.5.16, ``_set_default_dsa_kv_cache_dtype``)."""
    return _dsa_kv_cache_dtype(ctx, _longcat_dsa(ctx.hf))


def _dsa_split_backends(
    ctx, dsa: bool, *, glm_sm120_fp8: bool = False, tilelang_fp8_check: bool = False
) -> dict:
    """§3.1 DSA split backends up to 0.5.20. ``glm_sm120_fp8`` (since 0.5.17): GLM-5 with an FP8
    KV cache on SM120 runs ``flashinfer_sparse_mla``; ``tilelang_fp8_check`` (since 0.5.17): the
    tilelang kernels refuse an FP8 KV cache off ROCm."""
    args, platform = ctx.args, ctx.platform
    if not dsa or platform.is_npu or platform.is_xpu:
        return {}
    user_p, user_d = args.dsa_prefill_backend, args.dsa_decode_backend
    kv, major = args.kv_cache_dtype, capability_major(platform)
    check_tilelang = False
    if (
        glm_sm120_fp8
        and ctx.arch == "GlmMoeDsaForCausalLM"
        and major == 12
        and kv == "fp8_e4m3"
        and not platform.is_hip
    ):
        prefill = decode = "flashinfer_sparse_mla"
    elif args.enable_hisparse:
        value = "tilelang" if platform.is_hip else "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse"
        prefill = decode = value
    else:
        check_tilelang = tilelang_fp8_check
        if platform.is_hip and user_p is None and user_d is None:
            prefill = decode = "tilelang"
        elif kv == "fp8_e4m3":
            prefill = decode = "trtllm" if major >= 10 else "flashmla_kv"
        else:
            prefill, decode = ("flashmla_sparse", "trtllm") if major >= 10 else ("flashmla_sparse", "fa3")
    out = {}
    if user_p is None:
        out["dsa_prefill_backend"] = prefill
    if user_d is None:
        out["dsa_decode_backend"] = decode
    if check_tilelang:
        _check_tilelang_fp8(ctx, out, " with the tilelang backend")
    return out


def _check_tilelang_fp8(ctx, out: dict, wording: str) -> None:
    """``overrides._check_tilelang_dsa_fp8_kv`` (since 0.5.17): on CUDA the tilelang DSA kernels
    need a bf16 KV cache. ``wording`` is the release's phrase after "--kv-cache-dtype bfloat16"."""
    args, platform = ctx.args, ctx.platform
    if platform.is_hip or args.kv_cache_dtype != "fp8_e4m3":
        return
    chosen = {out.get(f, args[f]) for f in ("dsa_prefill_backend", "dsa_decode_backend")}
    if "tilelang" in chosen:
        raise ConflictError(
            "The tilelang DSA prefill/decode kernels only support an fp8_e4m3 KV cache on ROCm/HIP; "
            f"on CUDA they require a bfloat16 KV cache. Use --kv-cache-dtype bfloat16{wording}, or keep "
            "--kv-cache-dtype fp8_e4m3 and pick an fp8-capable DSA backend "
            "(flashmla_kv on Hopper, trtllm on Blackwell).",
            fields=("dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype"),
            fix="pass --kv-cache-dtype bfloat16, or another --dsa-prefill/decode-backend",
        )


@registry.rule("model_checks", archs=ARCHS, until="0.5.17", series="dsa_split_backends")
def dsa_split_backends(ctx):
    """§3.1 DSA split backends: fill the prefill/decode DSA kernels the user did not set."""
    return _dsa_split_backends(ctx, is_deepseek_dsa(ctx.hf))


@registry.rule("model_checks", archs=ARCHS, since="0.5.17", until="0.5.20", series="dsa_split_backends")
def dsa_split_backends_0_5_17(ctx):
    """§3.1 DSA split backends (0.5.17 ``overrides._dsa_split_backend_resolution``): GLM-5 with an
    FP8 KV cache on SM120/SM121 fills both with ``flashinfer_sparse_mla`` (before the HiSparse
    branch); outside HiSparse, a tilelang kernel with an FP8 KV cache on CUDA is refused
    (``_check_tilelang_dsa_fp8_kv``)."""
    return _dsa_split_backends(ctx, is_deepseek_dsa(ctx.hf), glm_sm120_fp8=True, tilelang_fp8_check=True)


def _fill_dsa(args, prefill: str, decode: str) -> dict:
    """Fill the DSA kernels the user left unset."""
    out = {}
    if args.dsa_prefill_backend is None:
        out["dsa_prefill_backend"] = prefill
    if args.dsa_decode_backend is None:
        out["dsa_decode_backend"] = decode
    return out


@registry.rule("model_checks", archs=ARCHS, since="0.5.20", until="0.5.22", series="dsa_split_backends")
def dsa_split_backends_0_5_20(ctx):
    """§3.1 DSA split backends (since 0.5.20, ``overrides._dsa_split_backend_resolution`` and
    ``_check_dsa_backend_constraints``): XPU fills ``intel_xpu``; ``learnable_sink`` configs run
    ``flashmla_sparse`` on both sides (another explicit kernel is refused); ROCm fills ``triton``
    per unset side (was ``tilelang``, only when both were unset); the ``triton`` DSA kernel is
    refused off ROCm."""
    return _dsa_split_0_5_20(ctx, release_0_5_22=False)


@registry.rule("model_checks", archs=ARCHS, since="0.5.22", series="dsa_split_backends")
def dsa_split_backends_0_5_22(ctx):
    """§3.1 DSA split backends (since 0.5.22, ``overrides._check_dsa_backend_constraints``): on
    CUDA an fp8_e4m3 KV cache works with the tilelang kernels when both sides are tilelang, on
    SM89 or newer and without DCP (each case its own refusal); HiSparse with CUDA tilelang FP8 KV
    is refused. Otherwise as 0.5.20."""
    return _dsa_split_0_5_20(ctx, release_0_5_22=True)


def _check_tilelang_fp8_0_5_22(ctx, out: dict) -> None:
    """``_check_dsa_backend_constraints`` (0.5.22) for CUDA tilelang with an FP8 KV cache."""
    args, platform = ctx.args, ctx.platform
    prefill, decode = (out.get(f, args[f]) for f in ("dsa_prefill_backend", "dsa_decode_backend"))
    if platform.is_hip or args.kv_cache_dtype != "fp8_e4m3" or "tilelang" not in (prefill, decode):
        return
    fields = ("dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype")
    if prefill != "tilelang" or decode != "tilelang":
        raise ConflictError(
            "CUDA TileLang FP8 KV requires both DSA backends to be tilelang; raw and scaled FP8 KV "
            "layouts cannot be mixed.",
            fields=fields,
            fix="pass tilelang for both --dsa-prefill-backend and --dsa-decode-backend",
        )
    if args.dcp_size > 1:
        raise ConflictError(
            "CUDA TileLang FP8 KV does not support --dcp-size > 1.",
            fields=(*fields, "dcp_size"),
            fix="pass --dcp-size 1, or another DSA backend",
        )
    if (platform.capability or (0, 0)) < (8, 9):
        raise ConflictError(
            "CUDA TileLang FP8 KV requires SM89 or newer.",
            fields=fields,
            fix="pass --kv-cache-dtype bfloat16, or run on SM89 or newer",
        )


def _dsa_split_0_5_20(ctx, *, release_0_5_22: bool) -> dict:
    """The 0.5.20 resolution; ``release_0_5_22``: 0.5.22's tilelang FP8 rules."""
    args, platform = ctx.args, ctx.platform
    if not is_deepseek_dsa(ctx.hf) or platform.is_npu:
        return {}
    if platform.is_xpu:
        return _fill_dsa(args, "intel_xpu", "intel_xpu")
    kv, major = args.kv_cache_dtype, capability_major(platform)
    if ctx.hf.text_config.get("learnable_sink"):
        for field in ("dsa_prefill_backend", "dsa_decode_backend"):
            value = args[field]
            if value is not None and value != "flashmla_sparse":
                flag = "--" + field.replace("_", "-")
                raise ConflictError(
                    f"{ctx.hf.architecture} uses learnable attention sinks and requires {flag} "
                    f"'flashmla_sparse'; got {value!r}",
                    fields=(field,),
                    fix=f"pass {flag} flashmla_sparse (or leave it unset)",
                )
        return _fill_dsa(args, "flashmla_sparse", "flashmla_sparse")
    if ctx.arch == "GlmMoeDsaForCausalLM" and major == 12 and kv == "fp8_e4m3" and not platform.is_hip:
        return _fill_dsa(args, "flashinfer_sparse_mla", "flashinfer_sparse_mla")
    if args.enable_hisparse:
        value = "tilelang" if platform.is_hip else "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse"
        out = _fill_dsa(args, value, value)
        chosen = {out.get(f, args[f]) for f in ("dsa_prefill_backend", "dsa_decode_backend")}
        if release_0_5_22 and not platform.is_hip and kv == "fp8_e4m3" and "tilelang" in chosen:
            raise ConflictError(
                "CUDA TileLang FP8 KV does not support HiSparse.",
                fields=("enable_hisparse", "dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype"),
                fix="drop --enable-hisparse, or pick another DSA backend",
            )
    elif platform.is_hip:
        out = _fill_dsa(args, "triton", "triton")
    elif kv == "fp8_e4m3":
        value = "trtllm" if major >= 10 else "flashmla_kv"
        out = _fill_dsa(args, value, value)
    else:
        out = _fill_dsa(args, "flashmla_sparse", "trtllm" if major >= 10 else "fa3")
    chosen = {out.get(f, args[f]) for f in ("dsa_prefill_backend", "dsa_decode_backend")}
    if not platform.is_hip and "triton" in chosen:
        raise ConflictError(
            "The triton DSA backend is only supported on ROCm/HIP. Pick an alternative DSA backend "
            "for CUDA (flashmla_kv on Hopper, trtllm on Blackwell).",
            fields=("dsa_prefill_backend", "dsa_decode_backend"),
            fix="pass --dsa-prefill-backend/--dsa-decode-backend flashmla_kv (Hopper) or trtllm (Blackwell)",
        )
    if release_0_5_22:
        _check_tilelang_fp8_0_5_22(ctx, out)
    else:
        _check_tilelang_fp8(ctx, out, "")
    return out


_INT4_THINKING = {"num_bits": 4, "group_size": 32, "strategy": "group", "type": "int"}


@registry.rule(
    "model_checks", archs=LONGCAT_ARCHS, since="0.5.16", until="0.5.17", series="longcat_dsa_split_backends"
)
def longcat_dsa_split_backends(ctx):
    """§3.1 DSA split backends for LongCat-Flash with ``index_topk`` (since 0.5.16)."""
    return _dsa_split_backends(ctx, _longcat_dsa(ctx.hf))


@registry.rule("model_checks", archs=LONGCAT_ARCHS, since="0.5.17", series="longcat_dsa_split_backends")
def longcat_dsa_split_backends_0_5_17(ctx):
    """§3.1 DSA split backends for LongCat-Flash (since 0.5.17, ``overrides._check_tilelang_dsa_fp8_kv``
    in ``_dsa_split_backend_resolution``): a tilelang kernel with an FP8 KV cache on CUDA is refused."""
    return _dsa_split_backends(ctx, _longcat_dsa(ctx.hf), tilelang_fp8_check=True)


_INT4_THINKING = {"num_bits": 4, "group_size": 32, "strategy": "group", "type": "int"}


def _is_int4_thinking(hf) -> bool:
    qc = quantization_config(hf)
    if qc is None or qc.get("quant_method") != "compressed-tensors":
        return False
    groups = qc.get("config_groups") or {}
    weights = (groups.get("group_0") or {}).get("weights") if hasattr(groups, "get") else None
    return bool(weights) and all(weights.get(k) == v for k, v in _INT4_THINKING.items())


def _moe_quant(ctx) -> dict:
    args, hf = ctx.args, ctx.hf
    if not ctx.platform.is_sm100:
        return {}
    out = {}
    quantization = args.quantization
    if quantization is None and not quantization_explicitly_unset(ctx):
        quantization = quant_method(hf)
        if quantization is not None:
            out["quantization"] = quantization
    fits = quantization in (
        None,
        "fp8",
        "modelopt_fp8",
        "modelopt_fp4",
        "modelopt_mixed",
    ) or _is_int4_thinking(hf)
    if args.moe_a2a_backend == "none" and args.moe_runner_backend == "auto" and fits:
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out


@registry.for_arch(*ARCHS, stage="model_checks")
def deepseek_moe_quant(ctx):
    """§3.1 (c), SM100: take the checkpoint's quantization; flashinfer_trtllm MoE when it fits.

    Checkpoint weights are not inspected, so the "FP8 experts in an unquantized DeepSeek-V3"
    case of sglang is treated as "no FP8 found" (see docs/fidelity.md)."""
    return _moe_quant(ctx)


@registry.rule("model_checks", archs=LONGCAT_ARCHS, since="0.5.16")
def longcat_moe_quant(ctx):
    """§3.1 (c) for LongCat-Flash (since 0.5.16, ``overrides._deepseek_moe_quant_resolution``);
    its FP8 GEMM backend default (``fp8_gemm_runner_backend``) is not a field of this pack."""
    return _moe_quant(ctx)


def _spec_moe(ctx) -> dict:
    args = ctx.args
    if not (
        ctx.platform.is_hip
        and args.quantization == "modelopt_fp4"
        and args.speculative_algorithm == "EAGLE"
        and args.speculative_moe_runner_backend is None
        and args.speculative_moe_a2a_backend is None
    ):
        return {}
    if env_flag(ctx, "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"):
        if args.ep_size == 1:
            raise ConflictError(
                "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE needs expert parallelism (deepep) for the draft MoE",
                fields=("ep_size",),
                fix="pass --ep-size > 1",
            )
        return {"speculative_moe_runner_backend": "deep_gemm", "speculative_moe_a2a_backend": "deepep"}
    return {"speculative_moe_runner_backend": "triton", "speculative_moe_a2a_backend": "none"}


@registry.for_arch(*ARCHS, stage="model_checks")
def deepseek_spec_moe(ctx):
    """§3.1 (c), ROCm: NVFP4 checkpoints with EAGLE pick the draft MoE runner and A2A backend."""
    return _spec_moe(ctx)


@registry.rule("model_checks", archs=LONGCAT_ARCHS, since="0.5.16")
def longcat_spec_moe(ctx):
    """§3.1 (c), ROCm, for LongCat-Flash (since 0.5.16, ``overrides._deepseek_spec_moe_resolution``)."""
    return _spec_moe(ctx)


@registry.rule("model_checks", archs=("GlmMoeDsaForCausalLM",), since="0.5.21")
def glm5_rocm_aiter_allreduce_fusion(ctx):
    """Since 0.5.21 (``arg_groups/model_hook.handle_model_specific_adjustments``, the DeepSeek
    branch's HIP arm): GLM-5 on ROCm without DP attention on one node turns AITER all-reduce
    fusion on (decode only: ``--disable-aiter-allreduce-fusion-in-prefill``, not a pack field)."""
    args = ctx.args
    if not ctx.platform.is_hip or args.enable_dp_attention or args.nnodes != 1:
        return {}
    if args.enable_aiter_allreduce_fusion:
        return {}
    return {"enable_aiter_allreduce_fusion": True}
