"""Mamba radix-cache strategy (spec §3.11 "Mamba radix-cache resolution", step 10h).

Invariant: for hybrid mamba/linear-attention models with the radix cache on, the strategy
"auto" resolves to extra_buffer where the model and the linear-attention kernel support it
(and overlap or paging needs it), else to no_buffer with the overlap scheduler off; the
chosen strategy is then validated against the page size and the attention backend.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix, Force
from .._base import registry
from ..changes import CHANGES, in_release
from .hybrid_mamba import granite_has_mamba

#: ``overrides._MAMBA_RADIX_CACHE_ARCHS`` (before 0.5.17 the hybrid branches of
#: ``_handle_mamba_radix_cache``), per release: LFM2-MoE and Kimi-K3 since 0.5.17, the
#: text-only Qwen3.5 architectures and Bailing-MoE-V3 since 0.5.19.
MAMBA_ARCHS = ArchList(
    "FalconH1ForCausalLM",
    "JetNemotronForCausalLM",
    "JetVLMForConditionalGeneration",
    ("GraniteMoeHybridForCausalLM", "0.5.9"),  # 0.5.9 brought these branches with their models
    ("Lfm2ForCausalLM", "0.5.9"),
    "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM",
    "KimiLinearForCausalLM",
    ("BailingMoeV2_5ForCausalLM", "0.5.9"),
    # Qwen3.5 hybrid (spec §3.12)
    "Qwen3NextForCausalLM",
    ("Qwen3_5MoeForConditionalGeneration", "0.5.9"),
    "InternS2PreviewForConditionalGeneration",
    ("Qwen3_5ForConditionalGeneration", "0.5.9"),
    ("ZayaForCausalLM", "0.5.14"),
    ("Lfm2MoeForCausalLM", "0.5.17"),
    ("KimiK3ForConditionalGeneration", "0.5.17"),
    ("Qwen3_5ForCausalLM", "0.5.19"),
    ("Qwen3_5MoeForCausalLM", "0.5.19"),
    ("BailingMoeV3ForCausalLM", "0.5.19"),
    ("MiniCPMV4_6ForConditionalGeneration", "0.5.12"),  # 0.5.11: no MiniCPM-V 4.6 branch
    what="_MAMBA_RADIX_CACHE_ARCHS",
)
#: ``overrides._MAMBA_EXTRA_BUFFER_ARCHS``, per release: Kimi-Linear since 0.5.16, Kimi-K3 since
#: 0.5.17 (the 0.5.19 additions reach the rule only since 0.5.19, through ``MAMBA_ARCHS``).
EXTRA_BUFFER_ARCHS = ArchList(
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration",
    "Qwen3NextForCausalLM",
    "InternS2PreviewForConditionalGeneration",
    "BailingMoeV2_5ForCausalLM",
    "FalconH1ForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM",
    "Qwen3_5ForCausalLM",
    "Qwen3_5MoeForCausalLM",
    "BailingMoeV3ForCausalLM",
    ("KimiLinearForCausalLM", "0.5.16"),
    ("KimiK3ForConditionalGeneration", "0.5.17"),
    ("MiniCPMV4_6ForConditionalGeneration", "0.5.12"),  # 0.5.11: no MiniCPM-V 4.6 branch
    what="_MAMBA_EXTRA_BUFFER_ARCHS",
)


def _refuse(message: str, *fields: str, fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="AssertionError")


#: The platforms whose FLA kernels run extra_buffer (``_validate_mamba_extra_buffer``), in the
#: refusal's order, each with the change that added it.
_FLA_PLATFORMS = (
    ("cuda", None),
    ("musa", None),
    ("npu", None),
    ("hip", CHANGES.MAMBA_EXTRA_BUFFER_ON_ROCM),
    ("xpu", CHANGES.MAMBA_EXTRA_BUFFER_ON_XPU),
)
_PLATFORM_TEXT = {"cuda": "CUDA", "musa": "MUSA", "npu": "NPU", "hip": "ROCm", "xpu": "XPU"}


@registry.rule("model_tail", archs=MAMBA_ARCHS)
def mamba_radix_cache(ctx):
    """§3.11: resolve and validate ``mamba_radix_cache_strategy`` (``overrides.
    _mamba_radix_cache_resolution``; before 0.5.17 ``server_args._handle_mamba_radix_cache``;
    the checks: ``_validate_mamba_extra_buffer``, since 0.5.22 ``mamba_hook``). The architecture
    lists follow upstream's per release; the platforms, the lazy-slot limits and the refusal's
    wording are the ``MAMBA_*`` changes."""
    args, hf, platform, has = ctx.args, ctx.hf, ctx.platform, ctx.release.has
    if ctx.arch == "GraniteMoeHybridForCausalLM" and not granite_has_mamba(hf):
        return {}  # attention-only Granite is a plain model
    if not has(CHANGES.MAMBA_RADIX_HANDLER):
        return _before_radix_handler(ctx)
    if not has(CHANGES.MAMBA_AUTO_STRATEGY):
        return _before_auto_strategy(ctx)
    if args.disable_radix_cache:
        return {}
    out: dict = {"uses_mamba_radix_cache": True}
    supported = (
        ctx.release.holds(EXTRA_BUFFER_ARCHS, ctx.arch)
        and args.linear_attn_backend == "triton"
        and not (platform.is_xpu and has(CHANGES.MAMBA_NO_EXTRA_BUFFER_ON_XPU))
    )
    strategy, overlap_off, page = (
        args.mamba_radix_cache_strategy,
        args.disable_overlap_schedule,
        args.page_size,
    )
    if strategy == "auto":
        if (not overlap_off or (page is not None and page > 1)) and supported:
            strategy = out["mamba_radix_cache_strategy"] = "extra_buffer"
        else:
            strategy = out["mamba_radix_cache_strategy"] = "no_buffer"
            if not overlap_off:
                out["disable_overlap_schedule"] = overlap_off = True
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        if not supported:
            raise _refuse(
                f"extra_buffer is not supported for {ctx.arch}; use no_buffer. (linear attention "
                f"backend {args.linear_attn_backend})",
                "mamba_radix_cache_strategy",
                fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
            )
        platforms = in_release(ctx.release, _FLA_PLATFORMS)
        if not any(getattr(platform, "is_" + name) for name in platforms):
            if has(CHANGES.MAMBA_SNAPSHOT_MESSAGE):
                message = "extra_buffer requires platform support for Mamba cache state snapshots."
            else:
                message = f"extra_buffer needs {'/'.join(_PLATFORM_TEXT[p] for p in platforms)} (FLA)."
            raise _refuse(
                f"{strategy}: " + message,
                "mamba_radix_cache_strategy",
                fix=Fix.any_of(
                    Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
                    Fix(set={"disable_radix_cache": True}),
                    text="pass --mamba-radix-cache-strategy no_buffer (or --disable-radix-cache)",
                ),
            )
        if (
            strategy == "extra_buffer_lazy"
            and args.disaggregation_mode != "null"
            and has(CHANGES.MAMBA_LAZY_WITH_SPEC)
        ):
            raise _refuse(
                "extra_buffer_lazy unsupported under PD disaggregation; use --mamba-radix-cache-strategy "
                "extra_buffer.",
                "mamba_radix_cache_strategy",
                "disaggregation_mode",
                fix=Fix(set={"mamba_radix_cache_strategy": "extra_buffer"}),
            )
        if (
            strategy == "extra_buffer_lazy"
            and (args.speculative_algorithm or "").upper() == "DFLASH"
            and has(CHANGES.MAMBA_LAZY_DFLASH_REFUSED)
        ):
            raise _refuse(
                f"extra_buffer_lazy unsupported with {args.speculative_algorithm}; use "
                "--mamba-radix-cache-strategy extra_buffer.",
                "mamba_radix_cache_strategy",
                "speculative_algorithm",
                fix=Fix(set={"mamba_radix_cache_strategy": "extra_buffer"}),
            )
        drafts = args.speculative_num_draft_tokens
        if drafts is not None:
            if strategy == "extra_buffer_lazy" and not has(CHANGES.MAMBA_LAZY_WITH_SPEC):
                raise _refuse(
                    "extra_buffer_lazy unsupported with spec.",
                    "mamba_radix_cache_strategy",
                    fix=Fix(set={"mamba_radix_cache_strategy": "extra_buffer"}),
                )
            if args.mamba_track_interval < drafts:
                raise _refuse(
                    f"mamba_track_interval ({args.mamba_track_interval}) must be at least "
                    f"speculative_num_draft_tokens ({drafts})",
                    "mamba_track_interval",
                    fix=Fix(set={"mamba_track_interval": drafts}, note="or more"),
                )
        if page is not None and page > 0:
            chunk = hf.text_config.get("mamba_chunk_size") or 64
            if args.mamba_track_interval % page or max(chunk, page) % min(chunk, page):
                raise _refuse(
                    f"page_size {page} must divide mamba_track_interval ({args.mamba_track_interval}) and be "
                    f"commensurate with the mamba chunk size ({chunk})",
                    "page_size",
                    fix="pick a page size that divides both",
                )
    elif strategy == "no_buffer":
        if page not in (1, None):
            raise _refuse(
                "no_buffer only supports page_size=1.",
                "page_size",
                "mamba_radix_cache_strategy",
                fix=Fix.any_of(
                    Fix(drop=("page_size",)),
                    Fix(set={"page_size": 1}),
                    text="drop --page-size (or pass --page-size 1)",
                ),
            )
        if not overlap_off:
            raise _refuse(
                "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.",
                "disable_overlap_schedule",
                fix=Fix(set={"disable_overlap_schedule": True}),
            )
        if args.attention_backend == "trtllm_mha":
            raise _refuse(
                "no_buffer do not support trtllm_mha attention backend.",
                "attention_backend",
                fix=Fix(another=("attention_backend",), text="pass another --attention-backend"),
            )
    return out


#: Before 0.5.14, the hybrid model whose ``_handle_mamba_radix_cache`` call refused extra_buffer
#: (``support_mamba_cache_extra_buffer=False``), and the one that ran without the radix cache
#: (``support_mamba_cache=False``).
_NO_EXTRA_BUFFER_BEFORE_AUTO = ("Lfm2ForCausalLM",)
_NO_MAMBA_CACHE_BEFORE_AUTO = ("KimiLinearForCausalLM",)
#: Before 0.5.13 (``MAMBA_EXTRA_BUFFER_FALCON_GRANITE``) these calls passed
#: ``support_mamba_cache_extra_buffer=False`` too; before 0.5.13 (``BAILING_V2_5_MAMBA_CACHE``)
#: Bailing-MoE-V2.5 shared Kimi-Linear's ``support_mamba_cache=False`` call.
_NO_EXTRA_BUFFER_UNTIL_FALCON_GRANITE = (
    "FalconH1ForCausalLM",
    "JetNemotronForCausalLM",
    "JetVLMForConditionalGeneration",
    "GraniteMoeHybridForCausalLM",
)
_NO_MAMBA_CACHE_UNTIL_BAILING_V2_5 = ("BailingMoeV2_5ForCausalLM",)


def _before_auto_opening(args, no_cache: bool) -> tuple[dict, str | None]:
    """How the handlers before ``MAMBA_AUTO_STRATEGY`` (0.5.13) began: a model without mamba-cache
    support ran without the radix cache (strategy None: nothing more to decide), and ``auto`` was
    ``no_buffer`` (``_handle_missing_default_values``). Returns the declarations so far and the
    strategy."""
    out: dict = {"uses_mamba_radix_cache": True}
    if no_cache:
        if not args.disable_radix_cache:
            out["disable_radix_cache"] = True
        return out, None
    strategy = args.mamba_radix_cache_strategy
    if strategy == "auto":
        strategy = out["mamba_radix_cache_strategy"] = "no_buffer"
    return out, strategy


def _before_auto_strategy(ctx) -> dict:
    """``_handle_mamba_radix_cache`` before ``MAMBA_AUTO_STRATEGY`` (0.5.13): ``auto`` was
    ``no_buffer`` (``_handle_missing_default_values``); no_buffer with the radix cache on adjusts
    instead of refusing (page size 1, overlap off; trtllm_mha or ROCm speculation turn the radix
    cache off; the page size and ROCm arms since 0.5.11, ``MAMBA_NO_BUFFER_ADJUSTS``); extra_buffer
    is checked against the radix cache (since 0.5.10, ``MAMBA_EXTRA_BUFFER_RADIX_OFF_REFUSED``),
    the platform (MUSA since 0.5.11, ``MAMBA_EXTRA_BUFFER_ON_MUSA``; NPU since 0.5.12,
    ``MAMBA_EXTRA_BUFFER_ON_NPU``) and speculation. Speculation with no_buffer and the radix
    cache on is refused since 0.5.10 (``MAMBA_SPEC_NO_BUFFER_REFUSED``; before, the radix cache
    went off)."""
    args, platform = ctx.args, ctx.platform
    no_cache = ctx.arch in _NO_MAMBA_CACHE_BEFORE_AUTO or (
        ctx.arch in _NO_MAMBA_CACHE_UNTIL_BAILING_V2_5
        and not ctx.release.has(CHANGES.BAILING_V2_5_MAMBA_CACHE)
    )
    out, strategy = _before_auto_opening(args, no_cache)
    if strategy is None:
        return out
    page, drafts = args.page_size, args.speculative_num_draft_tokens
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        no_extra = ctx.arch in _NO_EXTRA_BUFFER_BEFORE_AUTO or (
            ctx.arch in _NO_EXTRA_BUFFER_UNTIL_FALCON_GRANITE
            and not ctx.release.has(CHANGES.MAMBA_EXTRA_BUFFER_FALCON_GRANITE)
        )
        if no_extra:
            raise _refuse(
                f"mamba extra_buffer is not supported for {ctx.arch} model",
                "mamba_radix_cache_strategy",
                fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
            )
        if args.disable_radix_cache and ctx.release.has(CHANGES.MAMBA_EXTRA_BUFFER_RADIX_OFF_REFUSED):
            raise ConflictError(
                "mamba extra_buffer is not compatible with --disable-radix-cache; use "
                "--mamba-scheduler-strategy no_buffer (overlap scheduling already works with no_buffer "
                "and the radix cache off).",
                fields=("mamba_radix_cache_strategy", "disable_radix_cache"),
                fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
            )
        npu = ctx.release.has(CHANGES.MAMBA_EXTRA_BUFFER_ON_NPU)
        musa = ctx.release.has(CHANGES.MAMBA_EXTRA_BUFFER_ON_MUSA)
        if not (platform.is_cuda or (platform.is_musa and musa) or (platform.is_npu and npu)):
            raise _refuse(
                "Mamba extra_buffer is only supported on CUDA and MUSA and NPU devices with FLA backend"
                if npu
                else "Mamba extra_buffer is only supported on CUDA and MUSA devices with FLA backend"
                if musa
                else "Mamba extra_buffer is only supported on CUDA devices with FLA backend",
                "mamba_radix_cache_strategy",
                fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
            )
        if drafts is not None:
            if strategy == "extra_buffer_lazy":
                raise _refuse(
                    "extra_buffer_lazy is not yet supported with speculative decoding; use "
                    "--mamba-scheduler-strategy extra_buffer.",
                    "mamba_radix_cache_strategy",
                    fix=Fix(set={"mamba_radix_cache_strategy": "extra_buffer"}),
                )
            if args.mamba_track_interval < drafts:
                raise _refuse(
                    f"mamba_track_interval {args.mamba_track_interval} must be greater than or equal to "
                    f"speculative_num_draft_tokens {drafts}",
                    "mamba_track_interval",
                    fix=Fix(set={"mamba_track_interval": drafts}, note="or more"),
                )
        if page is not None and page > 0 and args.mamba_track_interval % page:
            raise _refuse(
                f"mamba_track_interval {args.mamba_track_interval} must be divisible by page_size {page}",
                "page_size",
                fix="pick a page size that divides --mamba-track-interval",
            )
        return out
    if args.disable_radix_cache:
        return out
    adjusts = ctx.release.has(CHANGES.MAMBA_NO_BUFFER_ADJUSTS)
    if page is not None and page != 1 and adjusts:
        out["page_size"] = Force(1, f"{ctx.arch} with radix cache and no_buffer needs page_size=1")
    if args.speculative_algorithm is None:
        out["disable_overlap_schedule"] = True
        if args.attention_backend == "trtllm_mha":
            out["disable_radix_cache"] = True
            out["disable_overlap_schedule"] = False
    elif (platform.is_hip and adjusts) or not ctx.release.has(CHANGES.MAMBA_SPEC_NO_BUFFER_REFUSED):
        out["disable_radix_cache"] = True
    else:
        raise ConflictError(
            f"Speculative decoding for {ctx.arch} is not compatible with radix cache when using "
            "--mamba-scheduler-strategy no_buffer; use --mamba-scheduler-strategy extra_buffer with "
            "SGLANG_ENABLE_SPEC_V2=1, or --disable-radix-cache.",
            fields=("speculative_algorithm", "mamba_radix_cache_strategy"),
            fix=Fix.any_of(
                Fix(set={"disable_radix_cache": True}),
                Fix(set={"mamba_radix_cache_strategy": "extra_buffer"}, env={"SGLANG_ENABLE_SPEC_V2": "1"}),
                text="pass --disable-radix-cache (or --mamba-radix-cache-strategy extra_buffer with "
                "SGLANG_ENABLE_SPEC_V2=1)",
            ),
        )
    return out


_NO_EXTRA_BUFFER_BEFORE_HANDLER = (
    "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM",
    "FalconH1ForCausalLM",
    "JetNemotronForCausalLM",
    "JetVLMForConditionalGeneration",
)


def _extra_buffer_checks_before_handler(ctx) -> None:
    """0.5.8's extra_buffer assertions (they ran in the GLM-4 MoE branch, ``glm4_moe_mamba_checks``;
    in 0.5.7 in the Qwen3-Next branch, whose FLA-chunk check read ``64 % page_size`` alone)."""
    args = ctx.args
    if not ctx.platform.is_cuda:
        raise _refuse(
            "Mamba extra_buffer is only supported on CUDA devices with FLA backend",
            "mamba_radix_cache_strategy",
            fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
        )
    drafts = args.speculative_num_draft_tokens
    if drafts is not None and args.mamba_track_interval < drafts:
        raise _refuse(
            f"mamba_track_interval {args.mamba_track_interval} must be greater than or equal to "
            f"speculative_num_draft_tokens {drafts}",
            "mamba_track_interval",
            fix=Fix(set={"mamba_track_interval": drafts}, note="or more"),
        )
    page = args.page_size
    if page is not None and page > 0:
        if args.mamba_track_interval % page:
            raise _refuse(
                f"mamba_track_interval {args.mamba_track_interval} must be divisible by page_size {page}",
                "page_size",
                fix="pick a page size that divides --mamba-track-interval",
            )
        chunk = 64  # layers/attention/fla/chunk_delta_h.CHUNK_SIZE
        if not ctx.release.has(CHANGES.MAMBA_BLOCK_IN_GLM4_MOE_BRANCH) and chunk % page:
            raise _refuse(
                f"Page size for hybrid GDN model must be divisible by {chunk}, got {page}",
                "page_size",
                fix="pick a page size that divides 64",
            )
        if max(chunk, page) % min(chunk, page):
            raise _refuse(
                f"For SSM models with extra buffer, either FLA_CHUNK_SIZE or page_size must be divisible by "
                f"the other, got FLA_CHUNK_SIZE={chunk}, self.page_size={page}",
                "page_size",
                fix="pick a page size that divides 64 or is a multiple of it",
            )


def _before_radix_handler(ctx) -> dict:
    """``_handle_model_specific_adjustments`` before ``MAMBA_RADIX_HANDLER`` (0.5.8): each hybrid
    branch had its own code. Kimi-Linear ran without the radix cache. Nemotron-H and Falcon-H1 /
    Jet-Nemotron refused extra_buffer; with the radix cache on Nemotron-H turned it off under
    speculation and the overlap schedule off otherwise, Falcon-H1 turned the overlap schedule off
    in both cases; on SM100 trtllm_mha turned the radix cache off (and the overlap schedule back
    on). Qwen3-Next: from ``QWEN3_NEXT_RADIX_OVERLAP_OFF`` (0.5.5.post2) until
    ``MAMBA_BLOCK_IN_GLM4_MOE_BRANCH`` (0.5.8) its branch held the mamba block: with the radix
    cache on the overlap schedule off (0.5.7: extra_buffer instead runs its checks); the SM100
    trtllm_mha arm came with its SM100 branch (``QWEN3_NEXT_SM100_TRITON``, 0.5.6). ``auto`` was
    no_buffer (``_handle_missing_default_values``)."""
    args, platform = ctx.args, ctx.platform
    out, strategy = _before_auto_opening(args, ctx.arch in _NO_MAMBA_CACHE_BEFORE_AUTO)
    if strategy is None:
        return out
    if strategy == "extra_buffer" and ctx.arch in _NO_EXTRA_BUFFER_BEFORE_HANDLER:
        raise _refuse(
            f"mamba extra_buffer is not supported for {ctx.arch} model",
            "mamba_radix_cache_strategy",
            fix=Fix(set={"mamba_radix_cache_strategy": "no_buffer"}),
        )
    qwen3_next_block = (
        ctx.arch == "Qwen3NextForCausalLM"
        and ctx.release.has(CHANGES.QWEN3_NEXT_RADIX_OVERLAP_OFF)
        and not ctx.release.has(CHANGES.MAMBA_BLOCK_IN_GLM4_MOE_BRANCH)
    )
    if qwen3_next_block and strategy == "extra_buffer":
        _extra_buffer_checks_before_handler(ctx)
    if args.disable_radix_cache:
        return out
    trtllm_off = platform.is_sm100 and args.attention_backend == "trtllm_mha"
    if ctx.arch == "Qwen3NextForCausalLM":
        if qwen3_next_block and strategy != "extra_buffer":
            out["disable_overlap_schedule"] = True
        trtllm_off = trtllm_off and ctx.release.has(CHANGES.QWEN3_NEXT_SM100_TRITON)
    if ctx.arch in _NO_EXTRA_BUFFER_BEFORE_HANDLER:
        if ctx.arch.startswith("NemotronH") and args.speculative_algorithm is not None:
            out["disable_radix_cache"] = True
            return out
        out["disable_overlap_schedule"] = True
    if trtllm_off:
        out["disable_radix_cache"] = True
        out["disable_overlap_schedule"] = False
    return out


@registry.rule("model_tail", archs=("Glm4MoeForCausalLM",))
def glm4_moe_mamba_checks(ctx):
    """0.5.8 ``_handle_model_specific_adjustments``: the mamba radix-cache block (extra_buffer
    checks; with no_buffer and the radix cache on, the overlap schedule off) sat in the
    ``Glm4MoeForCausalLM`` branch, so it ran for GLM-4 MoE models; ``MAMBA_RADIX_HANDLER`` (0.5.9)
    moved it into ``_handle_mamba_radix_cache``. ``auto`` is no_buffer by then."""
    args = ctx.args
    if ctx.release.has(CHANGES.MAMBA_RADIX_HANDLER) or not ctx.release.has(
        CHANGES.MAMBA_BLOCK_IN_GLM4_MOE_BRANCH
    ):
        return {}  # before 0.5.8 the block sat in the Qwen3-Next branch (``_before_radix_handler``)
    if args.mamba_radix_cache_strategy == "extra_buffer":
        _extra_buffer_checks_before_handler(ctx)
        return {}
    if args.disable_radix_cache or args.disable_overlap_schedule:
        return {}
    return {"disable_overlap_schedule": True}
