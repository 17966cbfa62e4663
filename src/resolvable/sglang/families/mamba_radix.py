"""Mamba radix-cache strategy (spec §3.11 "Mamba radix-cache resolution", step 10h).

Invariant: for hybrid mamba/linear-attention models with the radix cache on, the strategy
"auto" resolves to extra_buffer where the model and the linear-attention kernel support it
(and overlap or paging needs it), else to no_buffer with the overlap scheduler off; the
chosen strategy is then validated against the page size and the attention backend.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from .hybrid_mamba import granite_has_mamba

MAMBA_ARCHS = (
    "MiniCPMV4_6ForConditionalGeneration",
    "FalconH1ForCausalLM",
    "JetNemotronForCausalLM",
    "JetVLMForConditionalGeneration",
    "GraniteMoeHybridForCausalLM",
    "Lfm2ForCausalLM",
    "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM",
    "KimiLinearForCausalLM",
    "BailingMoeV2_5ForCausalLM",
    "ZayaForCausalLM",
    # Qwen3.5 hybrid (spec §3.12)
    "Qwen3NextForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration",
)
EXTRA_BUFFER_ARCHS = frozenset(
    {
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen3NextForCausalLM",
        "InternS2PreviewForConditionalGeneration",
        "MiniCPMV4_6ForConditionalGeneration",
        "BailingMoeV2_5ForCausalLM",
        "FalconH1ForCausalLM",
        "GraniteMoeHybridForCausalLM",
        "NemotronHForCausalLM",
        "NemotronHPuzzleForCausalLM",
        # reached since 0.5.19 (MAMBA_ARCHS_0_5_19 join the mamba_radix_cache rules)
        "Qwen3_5ForCausalLM",
        "Qwen3_5MoeForCausalLM",
        "BailingMoeV3ForCausalLM",
    }
)
#: 0.5.17 (``overrides._MAMBA_RADIX_CACHE_ARCHS``): LFM2-MoE and Kimi-K3 join.
MAMBA_ARCHS_0_5_17 = (*MAMBA_ARCHS, "Lfm2MoeForCausalLM", "KimiK3ForConditionalGeneration")
#: 0.5.17 (``overrides._MAMBA_EXTRA_BUFFER_ARCHS``): Kimi-Linear (since 0.5.16) and Kimi-K3.
EXTRA_BUFFER_ARCHS_0_5_17 = EXTRA_BUFFER_ARCHS | {"KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"}


def _refuse(message: str, *fields: str, fix: str) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="AssertionError")


#: 0.5.16 adds Kimi-Linear (``overrides._MAMBA_EXTRA_BUFFER_ARCHS``; still so in 0.5.18's
#: ``_MAMBA_RADIX_CACHE_ARCHS`` / ``supports_mamba_cache_extra_buffer``).
EXTRA_BUFFER_ARCHS_0_5_16 = EXTRA_BUFFER_ARCHS | {"KimiLinearForCausalLM"}
_RELEASE_0_5_15 = {
    "extra_buffer_archs": EXTRA_BUFFER_ARCHS,
    "platforms": ("cuda", "musa", "npu"),
    "platform_text": "CUDA/MUSA/NPU",
    "lazy_with_spec": False,
    "lazy_with_pd": True,
    "lazy_with_dflash": True,
}
#: 0.5.16: Kimi-Linear, and ROCm runs the FLA kernels.
_RELEASE_0_5_16 = {
    **_RELEASE_0_5_15,
    "extra_buffer_archs": EXTRA_BUFFER_ARCHS_0_5_16,
    "platforms": ("cuda", "musa", "npu", "hip"),
    "platform_text": "CUDA/MUSA/NPU/ROCm",
}
#: 0.5.17 ``_validate_mamba_extra_buffer``: Kimi-K3 has extra_buffer; lazy slots work with
#: speculative verify except DFLASH, and not under PD disaggregation.
_RELEASE_0_5_17 = {
    **_RELEASE_0_5_16,
    "extra_buffer_archs": EXTRA_BUFFER_ARCHS_0_5_17,
    "lazy_with_spec": True,
    "lazy_with_pd": False,
    "lazy_with_dflash": False,
}
#: 0.5.18 ``_validate_mamba_extra_buffer``: XPU runs FLA too; the DFLASH refusal is gone.
_RELEASE_0_5_18 = {
    **_RELEASE_0_5_17,
    "platforms": ("cuda", "musa", "npu", "hip", "xpu"),
    "platform_text": "CUDA/MUSA/NPU/ROCm/XPU",
    "lazy_with_dflash": True,
}


@registry.rule("model_tail", archs=MAMBA_ARCHS, until="0.5.16", series="mamba_radix_cache")
def mamba_radix_cache(ctx):
    """§3.11 (0.5.15): resolve and validate ``mamba_radix_cache_strategy``."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_15)


@registry.rule("model_tail", archs=MAMBA_ARCHS, since="0.5.16", until="0.5.17", series="mamba_radix_cache")
def mamba_radix_cache_0_5_16(ctx):
    """§3.11 (0.5.16, ``server_args._handle_mamba_radix_cache``): Kimi-Linear gets extra_buffer,
    and extra_buffer runs on ROCm ("extra_buffer needs CUDA/MUSA/NPU/ROCm (FLA).")."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_16)


@registry.rule(
    "model_tail", archs=MAMBA_ARCHS_0_5_17, since="0.5.17", until="0.5.18", series="mamba_radix_cache"
)
def mamba_radix_cache_0_5_17(ctx):
    """§3.11 (0.5.17 ``overrides._mamba_radix_cache_resolution``, ``_MAMBA_RADIX_CACHE_ARCHS``,
    ``_MAMBA_EXTRA_BUFFER_ARCHS``, ``server_args._validate_mamba_extra_buffer``): LFM2-MoE and
    Kimi-K3 use the mamba radix cache (Kimi-K3 and Kimi-Linear with extra_buffer); extra_buffer
    runs on ROCm too (since 0.5.16); extra_buffer_lazy works with speculative decoding except
    DFLASH, and is refused under PD disaggregation."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_17)


#: ``overrides._MAMBA_RADIX_CACHE_ARCHS`` / ``_MAMBA_EXTRA_BUFFER_ARCHS`` additions of 0.5.19.
MAMBA_ARCHS_0_5_19 = ("Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "BailingMoeV3ForCausalLM")
#: 0.5.19: the text-only Qwen3.5 architectures and Bailing-MoE-V3 support extra_buffer.
_RELEASE_0_5_19 = _RELEASE_0_5_18  # the architectures are in EXTRA_BUFFER_ARCHS already
#: 0.5.20 ``overrides.supports_mamba_cache_extra_buffer``: never on XPU (an unset strategy is
#: no_buffer there; an explicit extra_buffer is refused as unsupported for the model).
_RELEASE_0_5_20 = {**_RELEASE_0_5_19, "extra_buffer_on_xpu": False}
#: 0.5.22 ``mamba_hook.validate_mamba_extra_buffer``: the same platforms (or an out-of-tree
#: platform's ``support_mamba_cache_extra_buffer``), a new message.
_RELEASE_0_5_22 = {
    **_RELEASE_0_5_20,
    "platform_message": "extra_buffer requires platform support for Mamba cache state snapshots.",
}


@registry.rule(
    "model_tail", archs=(*MAMBA_ARCHS_0_5_17, *MAMBA_ARCHS_0_5_19), since="0.5.22", series="mamba_radix_cache"
)
def mamba_radix_cache_0_5_22(ctx):
    """§3.11 (since 0.5.22, ``mamba_hook.validate_mamba_extra_buffer``): as 0.5.18, with the new
    platform message ("extra_buffer requires platform support for Mamba cache state snapshots.")."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_22)


@registry.rule(
    "model_tail", archs=MAMBA_ARCHS_0_5_17, since="0.5.18", until="0.5.19", series="mamba_radix_cache"
)
def mamba_radix_cache_0_5_18(ctx):
    """``server_args._handle_mamba_radix_cache`` / ``_validate_mamba_extra_buffer`` (0.5.18):
    extra_buffer also on ROCm and XPU ("extra_buffer needs CUDA/MUSA/NPU/ROCm/XPU (FLA)."), for
    Kimi-Linear too; extra_buffer_lazy works with speculative decoding but not under PD
    disaggregation."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_18)


@registry.rule(
    "model_tail",
    archs=(*MAMBA_ARCHS_0_5_17, *MAMBA_ARCHS_0_5_19),
    since="0.5.19",
    until="0.5.20",
    series="mamba_radix_cache",
)
def mamba_radix_cache_0_5_19(ctx):
    """0.5.19 (``overrides._MAMBA_RADIX_CACHE_ARCHS``, ``_MAMBA_EXTRA_BUFFER_ARCHS``): as 0.5.18,
    for the text-only Qwen3.5 architectures and Bailing-MoE-V3 too (extra_buffer supported)."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_19)


@registry.rule(
    "model_tail",
    archs=(*MAMBA_ARCHS_0_5_17, *MAMBA_ARCHS_0_5_19),
    since="0.5.20",
    until="0.5.22",
    series="mamba_radix_cache",
)
def mamba_radix_cache_0_5_20(ctx):
    """0.5.20 (``overrides.supports_mamba_cache_extra_buffer``): as 0.5.19, and extra_buffer is
    never supported on XPU (auto resolves to no_buffer there)."""
    return _mamba_radix_cache(ctx, _RELEASE_0_5_20)


def _mamba_radix_cache(ctx, release: dict):
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if ctx.arch == "GraniteMoeHybridForCausalLM" and not granite_has_mamba(hf):
        return {}  # attention-only Granite is a plain model
    if args.disable_radix_cache:
        return {}
    out: dict = {"uses_mamba_radix_cache": True}
    supported = (
        ctx.arch in release["extra_buffer_archs"]
        and args.linear_attn_backend == "triton"
        and (release.get("extra_buffer_on_xpu", True) or not platform.is_xpu)
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
                fix="pass --mamba-radix-cache-strategy no_buffer",
            )
        if not any(getattr(platform, "is_" + name) for name in release["platforms"]):
            raise _refuse(
                f"{strategy}: "
                + release.get("platform_message", f"extra_buffer needs {release['platform_text']} (FLA)."),
                "mamba_radix_cache_strategy",
                fix="pass --mamba-radix-cache-strategy no_buffer (or --disable-radix-cache)",
            )
        if (
            strategy == "extra_buffer_lazy"
            and not release["lazy_with_pd"]
            and args.disaggregation_mode != "null"
        ):
            raise _refuse(
                "extra_buffer_lazy unsupported under PD disaggregation; use --mamba-radix-cache-strategy "
                "extra_buffer.",
                "mamba_radix_cache_strategy",
                "disaggregation_mode",
                fix="pass --mamba-radix-cache-strategy extra_buffer",
            )
        if (
            strategy == "extra_buffer_lazy"
            and not release["lazy_with_dflash"]
            and (args.speculative_algorithm or "").upper() == "DFLASH"
        ):
            raise _refuse(
                f"extra_buffer_lazy unsupported with {args.speculative_algorithm}; use "
                "--mamba-radix-cache-strategy extra_buffer.",
                "mamba_radix_cache_strategy",
                "speculative_algorithm",
                fix="pass --mamba-radix-cache-strategy extra_buffer",
            )
        drafts = args.speculative_num_draft_tokens
        if drafts is not None:
            if strategy == "extra_buffer_lazy" and not release["lazy_with_spec"]:
                raise _refuse(
                    "extra_buffer_lazy unsupported with spec.",
                    "mamba_radix_cache_strategy",
                    fix="pass --mamba-radix-cache-strategy extra_buffer",
                )
            if args.mamba_track_interval < drafts:
                raise _refuse(
                    f"mamba_track_interval ({args.mamba_track_interval}) must be at least "
                    f"speculative_num_draft_tokens ({drafts})",
                    "mamba_track_interval",
                    fix=f"pass --mamba-track-interval {drafts} or more",
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
                fix="drop --page-size (or pass --page-size 1)",
            )
        if not overlap_off:
            raise _refuse(
                "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.",
                "disable_overlap_schedule",
                fix="pass --disable-overlap-schedule",
            )
        if args.attention_backend == "trtllm_mha":
            raise _refuse(
                "no_buffer do not support trtllm_mha attention backend.",
                "attention_backend",
                fix="pass another --attention-backend",
            )
    return out
