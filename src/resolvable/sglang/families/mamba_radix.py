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
        # since 0.5.19 (mamba_radix_cache_0_5_19_archs)
        "Qwen3_5ForCausalLM",
        "Qwen3_5MoeForCausalLM",
        "BailingMoeV3ForCausalLM",
    }
)


def _refuse(message: str, *fields: str, fix: str) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="AssertionError")


@registry.for_arch(*MAMBA_ARCHS, stage="model_tail")
def mamba_radix_cache(ctx):
    """§3.11: resolve and validate ``mamba_radix_cache_strategy``."""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if ctx.arch == "GraniteMoeHybridForCausalLM" and not granite_has_mamba(hf):
        return {}  # attention-only Granite is a plain model
    if args.disable_radix_cache:
        return {}
    out: dict = {"uses_mamba_radix_cache": True}
    supported = ctx.arch in EXTRA_BUFFER_ARCHS and args.linear_attn_backend == "triton"
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
        if not (platform.is_cuda or platform.is_musa or platform.is_npu):
            raise _refuse(
                f"{strategy}: extra_buffer needs CUDA/MUSA/NPU (FLA).",
                "mamba_radix_cache_strategy",
                fix="pass --mamba-radix-cache-strategy no_buffer (or --disable-radix-cache)",
            )
        drafts = args.speculative_num_draft_tokens
        if drafts is not None:
            if strategy == "extra_buffer_lazy":
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


#: ``overrides._MAMBA_RADIX_CACHE_ARCHS`` / ``_MAMBA_EXTRA_BUFFER_ARCHS`` additions of 0.5.19.
MAMBA_ARCHS_0_5_19 = ("Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "BailingMoeV3ForCausalLM")


@registry.rule("model_tail", archs=MAMBA_ARCHS_0_5_19, since="0.5.19")
def mamba_radix_cache_0_5_19_archs(ctx):
    """§3.11 (since 0.5.19, ``overrides._MAMBA_RADIX_CACHE_ARCHS``): the text-only Qwen3.5
    architectures and Bailing-MoE-V3 get the mamba radix-cache resolution (extra_buffer
    supported), the same body as ``mamba_radix_cache``."""
    return mamba_radix_cache(ctx)
