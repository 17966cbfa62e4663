"""DeepSeek family: MLA and DSA models (spec §3.1).

One rule per upstream function, keyed on upstream's architecture lists with their releases
(checked against the wheels 0.5.15-0.5.23): ``DEEPSEEK_FAMILY`` is the DeepSeek branch of
``handle_model_specific_adjustments`` / ``model_overrides/deepseek_v2._deepseek_family_overrides``
(LongCat-Flash since 0.5.16, Dots3 since 0.5.19, GLM-5-Next and HY-V4 since 0.5.20);
``DEEPSEEK_MOE_FAMILY`` is ``overrides._DEEPSEEK_FAMILY_ARCHS``; the DSA passes follow
``is_deepseek_dsa`` (``facts.DSA_ARCHS``). What changed in a release is a named change
(``changes.py``) the bodies ask for.
Invariants: DSA models (``index_topk`` set) get the ``dsa`` backend when nothing was chosen,
64-token pages (1 on ROCm without the AITER preshuffle), a bf16/fp8_e4m3 KV cache and split
DSA kernels per side; non-DSA models get ``trtllm_mla`` on SM100 when nothing was chosen.
Mistral-Large-3 and Pixtral always run in bfloat16.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import (
    DSA_ARCHS,
    adopted_quantization,
    backends_not_set,
    capability_major,
    env_flag,
    is_deepseek_dsa,
    is_mla,
    quantization_config,
    quantization_explicitly_unset,
)

#: Kimi-K2.5 and GLM-5 (GlmMoeDsaForCausalLM) joined the DeepSeek branch in 0.5.9, with their
#: models (sglang 0.5.8's registry has neither).
_BASE = (
    "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM",
    ("KimiK25ForConditionalGeneration", "0.5.9"),
    ("MistralLarge3ForCausalLM", "0.5.6.post1"),  # the branch's list grew them in 0.5.6.post1
    ("PixtralForConditionalGeneration", "0.5.6.post1"),
    ("GlmMoeDsaForCausalLM", "0.5.9"),
)
#: The DeepSeek branch of ``handle_model_specific_adjustments`` (0.5.15-0.5.18: server_args.py;
#: since 0.5.19 ``model_overrides/deepseek_v2._deepseek_family_overrides``'s registration).
DEEPSEEK_FAMILY = ArchList(
    *_BASE,
    ("LongcatFlashForCausalLM", "0.5.16"),
    ("LongcatFlashForCausalLMNextN", "0.5.19"),
    ("Dots3NoteForCausalLM", "0.5.19"),
    ("Glm5NextForConditionalGeneration", "0.5.20"),
    ("HYV4ForCausalLM", "0.5.20"),
    ("HYV4ForCausalLMNextN", "0.5.20"),
    what="DeepSeek family",
)
#: ``overrides._DEEPSEEK_FAMILY_ARCHS``: the MoE quantization and draft-MoE passes.
DEEPSEEK_MOE_FAMILY = ArchList(
    *_BASE,
    ("LongcatFlashForCausalLM", "0.5.16"),
    ("LongcatFlashForCausalLMNextN", "0.5.16"),
    ("Dots3NoteForCausalLM", "0.5.19"),
    ("Glm5NextForConditionalGeneration", "0.5.20"),
    ("HYV4ForCausalLM", "0.5.20"),
    ("HYV4ForCausalLMNextN", "0.5.20"),
    what="_DEEPSEEK_FAMILY_ARCHS",
)
#: Kept for readers of the old name: the family's architectures (every release).
ARCHS = DEEPSEEK_FAMILY


for _arch in ("MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"):
    # §3.1: the checkpoint runs only in bfloat16, whatever --dtype says (the arm is new in
    # 0.5.6.post1's _handle_model_specific_adjustments; 0.5.6 kept --dtype).
    registry.constant(
        _arch, {"dtype": Force("bfloat16", f"{_arch} runs only in bfloat16")}, since="0.5.6.post1"
    )


def _aiter_preshuffle(ctx) -> bool:
    """``aiter_can_use_preshuffle_paged_mqa`` (spec §1); the triton version is taken as >= 3.5."""
    if not ctx.platform.is_hip or not env_flag(ctx, "SGLANG_USE_AITER"):
        return False
    return not (
        env_flag(ctx, "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE")
        or env_flag(ctx, "SGLANG_NSA_HIP_DISABLE_PRESHUFFLE")
    )


_NO_PREFILL_GRAPHS = "prefill context parallelism runs without prefill graphs"
_DEEPEP_OVER_TP = "prefill context parallelism dispatches experts with deepep over all TP ranks"


def _prefill_cp(ctx, *, dsa: bool) -> dict:
    """Prefill context parallelism switches (both DSA and MLA arms).

    ``PREFILL_CP_ATTN_DP`` (0.5.22, ``model_override_base.context_parallel_attn_dp_size``): the
    layout runs ``--dp-size`` groups as attention DP, so DP attention is on only when
    ``dp_size > 1``; interleave DSA CP accepts DP, keeps an explicit ``attn_cp_size`` and leaves
    ``moe_dense_tp_size`` alone. Before it, CP always turned DP attention on and interleave DSA
    CP refused DP."""
    args = ctx.args
    zigzag_or_mla = not dsa or args.cp_strategy == "zigzag"
    if ctx.release.has(CHANGES.PREFILL_CP_ATTN_DP):
        out: dict = {"cuda_graph_backend_prefill": Force("disabled", _NO_PREFILL_GRAPHS)}
        if args.dp_size > 1:
            # ``--dp-size N`` under CP is the deprecated spelling of ``--attn-dp-size N``.
            out["enable_dp_attention"] = True
        interleave = dsa and args.cp_strategy == "interleave"
        out["attn_cp_size"] = (
            args.attn_cp_size if interleave and args.attn_cp_size > 1 else args.tp_size // args.dp_size
        )
        if zigzag_or_mla:
            out.update(
                moe_dense_tp_size=1,
                moe_a2a_backend=Force("deepep", _DEEPEP_OVER_TP),
                ep_size=Force(args.tp_size, _DEEPEP_OVER_TP),
            )
        return out
    out = {
        "enable_dp_attention": True,
        "moe_dense_tp_size": 1,
        "attn_cp_size": args.tp_size // args.dp_size,
        "cuda_graph_backend_prefill": Force("disabled", _NO_PREFILL_GRAPHS),
    }
    if zigzag_or_mla:
        out.update(
            moe_a2a_backend=Force("deepep", _DEEPEP_OVER_TP), ep_size=Force(args.tp_size, _DEEPEP_OVER_TP)
        )
        return out
    if args.dp_size != 1:
        raise ConflictError(
            "interleave DSA CP does not support DP attention.",
            fields=("enable_prefill_cp", "dp_size"),
            fix=Fix.any_of(
                Fix(set={"dp_size": 1}),
                Fix(set={"cp_strategy": "zigzag"}),
                text="pass --dp-size 1 or --cp-strategy zigzag",
            ),
            upstream="AssertionError",
        )
    return out


def _dsa_dcp(args) -> dict:
    """``model_overrides/deepseek_v2._dsa_dcp_overrides`` (``DSA_DCP``): DSA with ``--dcp-size > 1``."""
    if args.dcp_size <= 1:
        return {}
    if args.enable_hisparse or args.enable_hierarchical_cache:
        raise ConflictError(
            "DSA DCP does not support HiSparse or HiCache.",
            fields=("dcp_size", "enable_hisparse", "enable_hierarchical_cache"),
            fix=Fix.any_of(
                Fix(set={"dcp_size": 1}),
                Fix(drop=("enable_hisparse",)),
                Fix(set={"enable_hierarchical_cache": True}),
                text="pass --dcp-size 1, or drop --enable-hisparse / --enable-hierarchical-cache",
            ),
        )
    if args.disaggregation_mode != "null":
        raise ConflictError(
            "DSA DCP does not support PD disaggregation.",
            fields=("dcp_size", "disaggregation_mode"),
            fix=Fix(set={"dcp_size": 1}),
        )
    if args.speculative_eagle_topk not in (None, 1):
        raise ConflictError(
            "DSA DCP requires --speculative-eagle-topk 1.",
            fields=("dcp_size", "speculative_eagle_topk"),
            fix=Fix(set={"speculative_eagle_topk": 1}),
        )
    return {f: "trtllm" for f in ("dsa_prefill_backend", "dsa_decode_backend") if args[f] is None}


def _dsa_page_size(ctx) -> Force:
    """The DSA page size off ROCm: 64 tokens; with ``DSA_KPOOL_PAGES`` (0.5.22, ``deepseek_v2``
    DSA arm) a page holds whole pooled index groups, 64 * ``index_kpool``."""
    if not ctx.release.has(CHANGES.DSA_KPOOL_PAGES):
        return Force(64, "DSA kernels use 64-token pages")
    kpool = ctx.hf.text_config.get_typed("index_kpool", int) or 1
    if kpool > 1 and ctx.args.dcp_size > 1:
        raise ConflictError(
            f"--dcp-size > 1 is not supported for DSA with index_kpool={kpool}: a pooled index key spans "
            "positions owned by different DCP ranks.",
            fields=("dcp_size",),
            fix=Fix(set={"dcp_size": 1}),
        )
    if kpool == 1:
        return Force(64, "DSA kernels use 64-token pages")
    return Force(64 * kpool, f"DSA pages hold whole pooled index groups (64 * index_kpool {kpool})")


def _in_deepseek_branch(ctx) -> bool:
    """DeepSeek-V3.2 reaches the DeepSeek branch only with ``DSA_V32_DEEPSEEK_BRANCH`` (0.5.12);
    before it, its architecture was not in the branch's list (0.5.11 ``server_args.py``). Before
    ``DSA_IN_DEEPSEEK_BRANCH`` (0.5.6) the sparse-attention arm ran outside the branch, for every
    ``is_deepseek_nsa`` architecture (0.5.5.post3 ``server_args.py``): V3.2 took it too."""
    if ctx.arch != "DeepseekV32ForCausalLM" or ctx.release.has(CHANGES.DSA_V32_DEEPSEEK_BRANCH):
        return True
    return not ctx.release.has(CHANGES.DSA_IN_DEEPSEEK_BRANCH) and is_deepseek_dsa(ctx.hf, ctx.release)


def _dsa_gpu_arm(ctx) -> bool:
    """The DSA GPU arm runs off NPU, and off XPU with ``DSA_GPU_ARM_SKIPS_XPU`` (0.5.12; 0.5.11
    sent XPU down the CUDA path: 64-token pages, KV cache and kernels by capability)."""
    platform = ctx.platform
    return not (platform.is_npu or (platform.is_xpu and ctx.release.has(CHANGES.DSA_GPU_ARM_SKIPS_XPU)))


@registry.rule("model", archs=DEEPSEEK_FAMILY)
def deepseek_family(ctx):
    """§3.1 (a)/(b) (``model_overrides/deepseek_v2._deepseek_family_overrides``; before 0.5.19
    the DeepSeek branch of ``_handle_model_specific_adjustments``): DSA fill, TBO check, prefill
    CP, DSA page size; non-DSA ``trtllm_mla`` on SM100. Asks ``DSA_DCP``, ``DSA_KPOOL_PAGES``
    and ``PREFILL_CP_ATTN_DP`` (0.5.22); ``DSA_NAMING`` and ``DSA_TBO_TOPK_SHARING_REFUSED``
    (0.5.13: before it the backend was named ``nsa`` and TBO was not checked). Before
    ``DSA_DP_SIZE_KEPT`` (0.5.6) the GPU arm also set ``dp_size`` to ``tp_size``. Before 0.5.8
    (``DSA_DP_ATTENTION_WITH_CP_ONLY``, ``DSA_ROCM_ONE_TOKEN_PAGES``, ``DSA_CP_PD_DECODE_REFUSED``) the
    GPU arm turned DP attention on for every DSA launch, ROCm took 64-token pages as CUDA did, and
    prefill CP on a PD decode server was not refused."""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if not _in_deepseek_branch(ctx):
        return {}
    out = {}
    if is_deepseek_dsa(hf, ctx.release):
        text = hf.text_config
        if ctx.release.has(CHANGES.DSA_DCP):
            out.update(_dsa_dcp(args))
        if backends_not_set(args):
            out["attention_backend"] = "dsa" if ctx.release.has(CHANGES.DSA_NAMING) else "nsa"
        if args.enable_two_batch_overlap and ctx.release.has(CHANGES.DSA_TBO_TOPK_SHARING_REFUSED):
            pattern = text.get_typed("index_topk_pattern", (str, tuple))
            if (text.get_typed("index_topk_freq", int) or 1) > 1 or (pattern is not None and "S" in pattern):
                raise ConflictError(
                    "--enable-two-batch-overlap is not supported with DSA index-topk sharing",
                    fields=("enable_two_batch_overlap",),
                    fix=Fix(drop=("enable_two_batch_overlap",)),
                )
        if (
            args.enable_prefill_cp
            and args.disaggregation_mode == "decode"
            and ctx.release.has(CHANGES.DSA_CP_PD_DECODE_REFUSED)
        ):
            raise ConflictError(
                "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp.",
                fields=("enable_prefill_cp", "disaggregation_mode"),
                fix=Fix(drop=("enable_prefill_cp",)),
                upstream="AssertionError",
            )
        if _dsa_gpu_arm(ctx):
            if not ctx.release.has(CHANGES.DSA_DP_ATTENTION_WITH_CP_ONLY) and not args.enable_dp_attention:
                out["enable_dp_attention"] = Force(True, "DP attention is enabled for DeepSeek NSA")
            if not ctx.release.has(CHANGES.DSA_DP_SIZE_KEPT) and args.dp_size != args.tp_size:
                out["dp_size"] = Force(args.tp_size, "DP attention for DeepSeek NSA sets dp_size to tp_size")
            if args.enable_prefill_cp:
                if not ctx.release.has(CHANGES.DSA_PREFILL_CP_TP_AT_MOST_8) and args.tp_size != 8:
                    raise ConflictError(
                        "Current multi-machine CP support suffers from precision issues. So context "
                        "parallel only support Single machine(tp_size == 8)",
                        fields=("tp_size",),
                        fix=Fix(set={"tp_size": 8}, text="use --tp-size 8"),
                        upstream="AssertionError",
                    )
                if args.tp_size > 8:
                    raise ConflictError(
                        "DSA prefill context parallelism supports --tp-size <= 8",
                        fields=("tp_size",),
                        fix=Fix(set={"tp_size": 8}, text="use --tp-size 8 or less"),
                        upstream="AssertionError",
                    )
                out.update(_prefill_cp(ctx, dsa=True))
            preshuffle = _aiter_preshuffle(ctx) and ctx.release.has(CHANGES.DSA_ROCM_PRESHUFFLE_PAGES)
            if platform.is_hip and not preshuffle and ctx.release.has(CHANGES.DSA_ROCM_ONE_TOKEN_PAGES):
                out["page_size"] = Force(1, "DSA on ROCm without the AITER preshuffle uses 1-token pages")
            else:
                out["page_size"] = _dsa_page_size(ctx)
        return out
    if platform.is_sm100 and backends_not_set(args):
        out["attention_backend"] = "trtllm_mla"
    if args.enable_prefill_cp and is_mla(hf, ctx.release):
        out.update(_prefill_cp(ctx, dsa=False))
    return out


@registry.rule("model_checks", archs=DEEPSEEK_FAMILY, since="0.5.20")
def dsa_xpu_page_size(ctx):
    """§3.1 (since 0.5.20, ``model_overrides/deepseek_v2.py``): DSA models on XPU use 128-token
    pages (before 0.5.20 the XPU arm left the page size to the generic default)."""
    if not (ctx.platform.is_xpu and is_deepseek_dsa(ctx.hf, ctx.release)):
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
            fix=Fix(set={"cp_strategy": "interleave"}),
        )
    return {}


def _dsa_kv_check(kv: str) -> dict:
    """The DSA KV-cache choices once ``auto`` is resolved: bf16 is spelled bfloat16."""
    if kv == "bf16":
        return {"kv_cache_dtype": Force("bfloat16", "DSA spells the bf16 KV cache 'bfloat16'")}
    if kv not in ("bfloat16", "fp8_e4m3"):
        raise ConflictError(
            "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype",
            fields=("kv_cache_dtype",),
            fix=Fix.any_of(
                Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
                Fix(set={"kv_cache_dtype": "bf16"}),
                text="pass --kv-cache-dtype fp8_e4m3 or bf16",
            ),
            upstream="AssertionError",
        )
    return {}


@registry.rule("model_checks", archs=DSA_ARCHS)
def dsa_kv_cache_dtype(ctx):
    """§3.1 (a) (``overrides._dsa_kv_cache_dtype_default``; before 0.5.19
    ``_set_default_dsa_kv_cache_dtype``): DSA KV cache — auto → fp8_e4m3 on capability >= 10
    else bfloat16; bf16 → bfloat16. ``DSA_KV_BF16_ON_XPU`` (0.5.20): on XPU ``auto`` → bfloat16
    (before, XPU was left alone); ``DSA_LEARNABLE_SINK`` (0.5.20): a config with
    ``learnable_sink`` needs a bf16 KV cache (``auto`` → bfloat16 on every capability)."""
    platform = ctx.platform
    if not is_deepseek_dsa(ctx.hf, ctx.release) or not _in_deepseek_branch(ctx) or platform.is_npu:
        return {}
    kv = ctx.args.kv_cache_dtype
    if not _dsa_gpu_arm(ctx):
        if not ctx.release.has(CHANGES.DSA_KV_BF16_ON_XPU):
            return {}
        return {"kv_cache_dtype": "bfloat16"} if kv == "auto" else {}
    sinks = bool(ctx.hf.text_config.get("learnable_sink")) and ctx.release.has(CHANGES.DSA_LEARNABLE_SINK)
    if sinks and kv not in ("auto", "bf16", "bfloat16"):
        raise ConflictError(
            f"Learnable DSA attention sinks require a bfloat16 KV cache; got kv_cache_dtype={kv}.",
            fields=("kv_cache_dtype",),
            fix=Fix.any_of(
                Fix(set={"kv_cache_dtype": "bfloat16"}),
                Fix(set={"kv_cache_dtype": "auto"}),
                text="pass --kv-cache-dtype bfloat16 (or leave it auto)",
            ),
        )
    if kv == "auto":
        return {
            "kv_cache_dtype": "fp8_e4m3" if capability_major(platform) >= 10 and not sinks else "bfloat16"
        }
    return _dsa_kv_check(kv)


def _fill_dsa(args, prefill: str, decode: str) -> dict:
    """Fill the DSA kernels the user left unset."""
    out = {}
    if args.dsa_prefill_backend is None:
        out["dsa_prefill_backend"] = prefill
    if args.dsa_decode_backend is None:
        out["dsa_decode_backend"] = decode
    return out


def _chosen(args, out: dict) -> tuple[str | None, str | None]:
    return out.get("dsa_prefill_backend", args.dsa_prefill_backend), out.get(
        "dsa_decode_backend", args.dsa_decode_backend
    )


def _check_tilelang_fp8_refused(ctx, out: dict, wording: str) -> None:
    """``overrides._check_tilelang_dsa_fp8_kv`` (``DSA_TILELANG_FP8_REFUSED``, 0.5.17-0.5.21): on
    CUDA the tilelang DSA kernels need a bf16 KV cache. ``wording`` is the release's phrase
    after "--kv-cache-dtype bfloat16"."""
    args, platform = ctx.args, ctx.platform
    if platform.is_hip or args.kv_cache_dtype != "fp8_e4m3" or "tilelang" not in _chosen(args, out):
        return
    raise ConflictError(
        "The tilelang DSA prefill/decode kernels only support an fp8_e4m3 KV cache on ROCm/HIP; "
        f"on CUDA they require a bfloat16 KV cache. Use --kv-cache-dtype bfloat16{wording}, or keep "
        "--kv-cache-dtype fp8_e4m3 and pick an fp8-capable DSA backend "
        "(flashmla_kv on Hopper, trtllm on Blackwell).",
        fields=("dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype"),
        fix="pass --kv-cache-dtype bfloat16, or another --dsa-prefill/decode-backend",
    )


def _check_tilelang_fp8_scaled(ctx, out: dict) -> None:
    """``_check_dsa_backend_constraints`` (``DSA_TILELANG_FP8_SCALED``, 0.5.22) for CUDA tilelang
    with an FP8 KV cache: both sides tilelang, no DCP, SM89 or newer."""
    args, platform = ctx.args, ctx.platform
    prefill, decode = _chosen(args, out)
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
            fix=Fix(set={"dcp_size": 1}, text="pass --dcp-size 1, or another DSA backend"),
        )
    if (platform.capability or (0, 0)) < (8, 9):
        raise ConflictError(
            "CUDA TileLang FP8 KV requires SM89 or newer.",
            fields=fields,
            fix=Fix(
                set={"kv_cache_dtype": "bfloat16"},
                text="pass --kv-cache-dtype bfloat16, or run on SM89 or newer",
            ),
        )


def _learnable_sink_kernels(ctx) -> dict:
    """``DSA_LEARNABLE_SINK``: both sides run flashmla_sparse; another explicit kernel is refused."""
    args = ctx.args
    for field in ("dsa_prefill_backend", "dsa_decode_backend"):
        value = args[field]
        if value is not None and value != "flashmla_sparse":
            flag = "--" + field.replace("_", "-")
            raise ConflictError(
                f"{ctx.hf.architecture} uses learnable attention sinks and requires {flag} "
                f"'flashmla_sparse'; got {value!r}",
                fields=(field,),
                fix=Fix(set={field: "flashmla_sparse"}, note="(or leave it unset)"),
            )
    return _fill_dsa(args, "flashmla_sparse", "flashmla_sparse")


@registry.rule("model_checks", archs=DSA_ARCHS)
def dsa_split_backends(ctx):
    """§3.1 DSA split backends (``overrides._dsa_split_backend_resolution``): fill the
    prefill/decode DSA kernels the user did not set, then check them.

    Asks: ``DSA_DEFAULT_KERNELS`` (0.5.9), ``DSA_FP8_KERNELS_USER_KEPT`` (0.5.11), ``DSA_INTEL_XPU_KERNELS``, ``DSA_LEARNABLE_SINK``, ``DSA_TRITON_ON_ROCM``,
    ``DSA_BACKEND_CONSTRAINTS`` (0.5.20); ``DSA_GLM5_SM120_FP8`` (0.5.17);
    ``DSA_TILELANG_FP8_REFUSED`` (0.5.17-0.5.21) and ``DSA_TILELANG_FP8_SCALED`` (0.5.22)."""
    args, platform, has = ctx.args, ctx.platform, ctx.release.has
    if not is_deepseek_dsa(ctx.hf, ctx.release) or not _in_deepseek_branch(ctx) or platform.is_npu:
        return {}
    if not _dsa_gpu_arm(ctx):
        return _fill_dsa(args, "intel_xpu", "intel_xpu") if has(CHANGES.DSA_INTEL_XPU_KERNELS) else {}
    kv, major = args.kv_cache_dtype, capability_major(platform)
    if ctx.hf.text_config.get("learnable_sink") and has(CHANGES.DSA_LEARNABLE_SINK):
        return _learnable_sink_kernels(ctx)
    if (
        ctx.arch == "GlmMoeDsaForCausalLM"
        and major == 12
        and kv == "fp8_e4m3"
        and not platform.is_hip
        and has(CHANGES.DSA_GLM5_SM120_FP8)
    ):
        return _fill_dsa(args, "flashinfer_sparse_mla", "flashinfer_sparse_mla")
    constraints = has(CHANGES.DSA_BACKEND_CONSTRAINTS)
    if args.enable_hisparse:
        value = "tilelang" if platform.is_hip else "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse"
        if not has(CHANGES.HISPARSE_DSA_KV_AWARE):  # 0.5.11: flashmla_sparse on both sides, always
            value = "flashmla_sparse"
        out = _fill_dsa(args, value, value)
        if (
            not platform.is_hip
            and kv == "fp8_e4m3"
            and "tilelang" in _chosen(args, out)
            and has(CHANGES.DSA_TILELANG_FP8_SCALED)
        ):
            raise ConflictError(
                "CUDA TileLang FP8 KV does not support HiSparse.",
                fields=("enable_hisparse", "dsa_prefill_backend", "dsa_decode_backend", "kv_cache_dtype"),
                fix=Fix(
                    drop=("enable_hisparse",), text="drop --enable-hisparse, or pick another DSA backend"
                ),
            )
        if not constraints:  # before 0.5.20 the HiSparse branch skipped the kernel checks
            return out
    elif not has(CHANGES.DSA_DEFAULT_KERNELS):
        # 0.5.8 (inline in the DeepSeek branch): FP8 forces flashmla_auto/flashmla_kv on every GPU,
        # bf16 on SM100+ forces flashmla_sparse on both sides; bf16 elsewhere keeps the fields'
        # defaults (flashmla_sparse, fa3) unless the user named a kernel
        why = "sglang < 0.5.9 sets the DSA kernels from the KV cache dtype, over the user's"
        if kv == "fp8_e4m3":
            out = {
                "dsa_prefill_backend": Force("flashmla_auto", why),
                "dsa_decode_backend": Force("flashmla_kv", why),
            }
        elif major >= 10:
            out = {k: Force("flashmla_sparse", why) for k in ("dsa_prefill_backend", "dsa_decode_backend")}
        else:
            out = _fill_dsa(args, "flashmla_sparse", "fa3")
    elif platform.is_hip and has(CHANGES.DSA_TRITON_ON_ROCM):
        out = _fill_dsa(args, "triton", "triton")
    elif platform.is_hip and args.dsa_prefill_backend is None and args.dsa_decode_backend is None:
        out = _fill_dsa(args, "tilelang", "tilelang")
    elif kv == "fp8_e4m3" and not has(CHANGES.DSA_FP8_KERNELS_USER_KEPT):
        # before 0.5.11: trtllm on both sides on SM100+, the user's kernels too; on Hopper prefill
        # flashmla_auto (0.5.11: flashmla_kv)
        if major >= 10:
            why = "sglang < 0.5.11 runs an FP8 DSA KV cache with trtllm kernels on SM100+"
            out = {k: Force("trtllm", why) for k in ("dsa_prefill_backend", "dsa_decode_backend")}
        else:
            out = _fill_dsa(args, "flashmla_auto", "flashmla_kv")
    elif kv == "fp8_e4m3":
        value = "trtllm" if major >= 10 else "flashmla_kv"
        out = _fill_dsa(args, value, value)
    else:
        out = _fill_dsa(args, "flashmla_sparse", "trtllm" if major >= 10 else "fa3")
    if constraints and not platform.is_hip and "triton" in _chosen(args, out):
        raise ConflictError(
            "The triton DSA backend is only supported on ROCm/HIP. Pick an alternative DSA backend "
            "for CUDA (flashmla_kv on Hopper, trtllm on Blackwell).",
            fields=("dsa_prefill_backend", "dsa_decode_backend"),
            fix=Fix.any_of(
                Fix(another=("dsa_prefill_backend",)),
                Fix(set={"dsa_decode_backend": "flashmla_kv"}),
                Fix(set={"dsa_decode_backend": "trtllm"}),
                text="pass --dsa-prefill-backend/--dsa-decode-backend flashmla_kv (Hopper) or trtllm (Blackwell)",
            ),
        )
    if has(CHANGES.DSA_TILELANG_FP8_SCALED):
        _check_tilelang_fp8_scaled(ctx, out)
    elif has(CHANGES.DSA_TILELANG_FP8_REFUSED):
        _check_tilelang_fp8_refused(ctx, out, "" if constraints else " with the tilelang backend")
    return out


_INT4_THINKING = {"num_bits": 4, "group_size": 32, "strategy": "group", "type": "int"}


def _is_int4_thinking(hf) -> bool:
    qc = quantization_config(hf)
    if qc is None or qc.get("quant_method") != "compressed-tensors":
        return False
    groups = qc.get("config_groups") or {}
    weights = (groups.get("group_0") or {}).get("weights") if hasattr(groups, "get") else None
    return bool(weights) and all(weights.get(k) == v for k, v in _INT4_THINKING.items())


@registry.rule("model_checks", archs=DEEPSEEK_MOE_FAMILY)
def deepseek_moe_quant(ctx):
    """§3.1 (c), SM100 (``overrides._deepseek_moe_quant_resolution``): take the checkpoint's
    quantization; flashinfer_trtllm MoE when it fits (a bf16 checkpoint too since 0.5.12,
    ``DEEPSEEK_BF16_TRTLLM_MOE``) — not for LongCat-Flash since 0.5.17 (``LONGCAT_NO_TRTLLM_MOE``). LongCat's FP8 GEMM backend default (``fp8_gemm_runner_backend``)
    is not a field of this pack. Before 0.5.11 (``DEEPSEEK_SM100_FP8_BY_WEIGHTS``) a
    DeepseekV3ForCausalLM checkpoint without a quantization config was taken as FP8.

    Checkpoint weights are not inspected, so the "FP8 experts in an unquantized DeepSeek-V3"
    case of sglang is treated as "no FP8 found" (see docs/fidelity.md)."""
    args, hf = ctx.args, ctx.hf
    if not ctx.platform.is_sm100:
        return {}
    out = {}
    quantization, adopted = adopted_quantization(ctx)
    if (
        quantization is None
        and not quantization_explicitly_unset(ctx)
        and ctx.arch == "DeepseekV3ForCausalLM"
        and not ctx.release.has(CHANGES.DEEPSEEK_SM100_FP8_BY_WEIGHTS)
    ):
        # before 0.5.11 a DeepSeek-V3 checkpoint without a quantization config was taken as FP8
        quantization, adopted = "fp8", True
    if adopted:
        out["quantization"] = quantization
    fits = quantization in (
        "fp8",
        "modelopt_fp8",
        "modelopt_fp4",
        "modelopt_mixed",
    ) or _is_int4_thinking(hf)
    if quantization is None and ctx.release.has(CHANGES.DEEPSEEK_BF16_TRTLLM_MOE):
        fits = True
    if (
        args.moe_a2a_backend == "none"
        and args.moe_runner_backend == "auto"
        and fits
        # LongCat's top-k spans the zero-expert logits, which trtllm-gen's fused routing cannot see.
        and not (ctx.arch.startswith("LongcatFlash") and ctx.release.has(CHANGES.LONGCAT_NO_TRTLLM_MOE))
    ):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out


@registry.rule("model_checks", archs=DEEPSEEK_MOE_FAMILY)
def deepseek_spec_moe(ctx):
    """§3.1 (c), ROCm (``overrides._deepseek_spec_moe_resolution``): NVFP4 checkpoints with
    EAGLE pick the draft MoE runner and A2A backend."""
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
                fix=Fix(set={"ep_size": 2}, text="pass --ep-size > 1"),
            )
        return {"speculative_moe_runner_backend": "deep_gemm", "speculative_moe_a2a_backend": "deepep"}
    return {"speculative_moe_runner_backend": "triton", "speculative_moe_a2a_backend": "none"}


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
