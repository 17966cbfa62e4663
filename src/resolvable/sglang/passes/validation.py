"""Downstream readers of the attention backend (spec §4.7, steps 19-23 and ``check_server_args``).

Invariant: these rules validate the resolved configuration and apply the few switches the
features imply (multi-item scoring, DFLASH draft backend, DP defaults); they never choose
the main attention backend.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .. import choices as C
from .._base import registry
from ..facts import effective_backends


@registry.rule("features")
def multi_item_scoring(ctx):
    """Step 19: ``--enable-mis`` needs flashinfer on both phases; it disables CUDA graphs,
    the radix cache and chunked prefill."""
    args = ctx.args
    if not args.enable_mis:
        return {}
    if effective_backends(args) != ("flashinfer", "flashinfer"):
        raise ConflictError(
            "Multi-item scoring requires the flashinfer attention backend for prefill and decode.",
            fields=("enable_mis", "attention_backend"),
            fix="pass --attention-backend flashinfer",
            upstream="AssertionError",
        )
    reason = "multi-item scoring runs without CUDA graphs"
    return {
        "cuda_graph_backend_prefill": Force("disabled", reason),
        "cuda_graph_backend_decode": Force("disabled", reason),
        "disable_radix_cache": True,
        "chunked_prefill_size": Force(-1, "multi-item scoring runs without chunked prefill"),
    }


@registry.rule("features")
def prefill_only_backend(ctx):
    """Step 20: ``--prefill-only-disable-kv-cache`` needs an FA prefill backend (fa3/fa4)."""
    args = ctx.args
    if not args.prefill_only_disable_kv_cache:
        return {}
    prefill = effective_backends(args)[0]
    if prefill not in ("fa3", "fa4"):
        raise ConflictError(
            f"--prefill-only-disable-kv-cache currently requires the FA prefill backend (fa3 or fa4), got {prefill}.",
            fields=("prefill_only_disable_kv_cache", "attention_backend"),
            fix="pass --prefill-attention-backend fa3 (or fa4)",
        )
    return {}


@registry.rule("parallelism")
def data_parallelism_defaults(ctx):
    """Step 21: without data parallelism there is no DP attention or DP LM head."""
    args = ctx.args
    if args.dp_size != 1:
        return {}
    reason = "--dp-size 1 has no data-parallel attention"
    out = {}
    if args.enable_dp_attention:
        out["enable_dp_attention"] = Force(False, reason)
    if args.enable_dp_lm_head:
        out["enable_dp_lm_head"] = Force(False, reason)
    return out


def _trtllm_mha_topk_check(args, backends: tuple) -> dict:
    topk = args.speculative_eagle_topk
    if args.speculative_algorithm is not None and topk is not None and topk > 1 and "trtllm_mha" in backends:
        raise ConflictError(
            "trtllm_mha backend only supports topk = 1 for speculative decoding.",
            fields=("speculative_eagle_topk", "attention_backend"),
            fix="pass --speculative-eagle-topk 1 or another --attention-backend",
        )
    return {}


def _spec_refusal(message: str, *fields: str, fix: str) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix)


@registry.rule("speculative", since="0.5.16")
def dspark_checks(ctx):
    """Step 22 (since 0.5.16, ``speculative_hook._handle_dspark``): DSPARK runs on CUDA only,
    with ``pp_size`` 1; with DP attention it needs the DP LM head, the built-in TP MoE and no
    context parallelism. Not modelled: its linear draft chain (sglang sets
    ``speculative_eagle_topk``/``speculative_num_steps`` to 1; not resolvable fields here), the
    draft checkpoint, gamma and ``speculative_num_draft_tokens``."""
    args = ctx.args
    if args.speculative_algorithm != "DSPARK":
        return {}
    if not str(args.device).startswith("cuda"):
        raise _spec_refusal(
            "DSpark speculative decoding only supports CUDA device.",
            "speculative_algorithm",
            fix="run DSPARK on a CUDA or ROCm GPU, or pick another --speculative-algorithm",
        )
    if args.enable_dp_attention:
        if not args.enable_dp_lm_head:
            raise _spec_refusal(
                "DSpark with dp attention requires --enable-dp-lm-head.",
                "enable_dp_attention",
                "enable_dp_lm_head",
                fix="pass --enable-dp-lm-head",
            )
        if args.moe_a2a_backend != "none":
            raise _spec_refusal(
                "DSpark with dp attention only supports the built-in TP MoE "
                f"(moe_a2a_backend='none'), got {args.moe_a2a_backend!r}.",
                "moe_a2a_backend",
                fix="drop --moe-a2a-backend",
            )
        if args.attn_cp_size > 1:
            raise _spec_refusal(
                f"DSpark with dp attention does not support context parallel (attn_cp_size={args.attn_cp_size}).",
                "attn_cp_size",
                fix="drop context parallelism",
            )
    if args.pp_size != 1:
        raise _spec_refusal(
            "Currently DSpark speculative decoding only supports pp_size == 1.",
            "pp_size",
            fix="pass --pp-size 1",
        )
    return {}


@registry.rule("speculative", since="0.5.16")
def dflash_cuda_only(ctx):
    """Step 22 (since 0.5.16, ``speculative_hook._handle_dflash``): DFLASH needs a CUDA device
    (checked before its other constraints)."""
    args = ctx.args
    if args.speculative_algorithm == "DFLASH" and not str(args.device).startswith("cuda"):
        raise _spec_refusal(
            "DFLASH speculative decoding only supports CUDA device.",
            "speculative_algorithm",
            fix="run DFLASH on a CUDA or ROCm GPU, or pick another --speculative-algorithm",
        )
    return {}


@registry.rule("speculative", until="0.5.15", series="speculative_trtllm_mha_topk")
def speculative_trtllm_mha_topk_0_5_14(ctx):
    """Step 22 (0.5.14, spec §9 #13): trtllm_mha as A, D or P needs EAGLE topk 1."""
    args = ctx.args
    return _trtllm_mha_topk_check(
        args, (args.attention_backend, args.decode_attention_backend, args.prefill_attention_backend)
    )


@registry.rule("speculative", since="0.5.15", series="speculative_trtllm_mha_topk")
def speculative_trtllm_mha_topk(ctx):
    """Step 22 (0.5.15, spec §9 #13): trtllm_mha as the effective prefill or decode backend needs
    EAGLE topk 1."""
    return _trtllm_mha_topk_check(ctx.args, effective_backends(ctx.args))


@registry.rule("speculative")
def speculative_backend_checks(ctx):
    """Step 22: EAGLE topk > 1 with pages > 1 needs flashinfer/fa3/triton; NGRAM likewise needs
    flashinfer (the trtllm_mha topk check runs just before, in its own rule)."""
    args = ctx.args
    algo, topk, page = args.speculative_algorithm, args.speculative_eagle_topk, args.page_size
    if algo is None:
        return {}
    topk_many = topk is not None and topk > 1
    if topk_many and page is not None and page > 1:
        if algo in C.EAGLE_FAMILY and args.attention_backend not in ("flashinfer", "fa3", "triton"):
            raise ConflictError(
                f"speculative decoding with topk > 1 and page_size > 1 supports only the flashinfer, fa3 and "
                f"triton attention backends, got {args.attention_backend}.",
                fields=("speculative_eagle_topk", "page_size", "attention_backend"),
                fix="pass --speculative-eagle-topk 1, --page-size 1, or one of those backends",
            )
        if algo == "NGRAM" and args.attention_backend != "flashinfer":
            raise ConflictError(
                "NGRAM speculative decoding with topk > 1 and page_size > 1 supports only flashinfer, "
                f"got {args.attention_backend}.",
                fields=("speculative_algorithm", "page_size", "attention_backend"),
                fix="pass --attention-backend flashinfer or --page-size 1",
            )
    return {}


_DFLASH_DRAFT_OK = ("flashinfer", "fa3", "fa4", "triton", "ascend")


@registry.rule("speculative")
def dflash_draft_backend(ctx):
    """Step 22 (0.5.15): the DFLASH draft backend is the user's, else the effective prefill;
    unsupported ones fall back to flashinfer (triton on ROCm)."""
    args = ctx.args
    if args.speculative_algorithm != "DFLASH":
        return {}
    chosen = args.speculative_draft_attention_backend or effective_backends(args)[0]
    fallback = "triton" if ctx.platform.is_hip else "flashinfer"
    if chosen is None or chosen == "trtllm_mha" or chosen not in _DFLASH_DRAFT_OK:
        chosen = Force(fallback, f"DFLASH drafts support only {list(_DFLASH_DRAFT_OK)} (not trtllm_mha)")
    if chosen == args.speculative_draft_attention_backend:
        return {}
    return {"speculative_draft_attention_backend": chosen}


@registry.rule("memory_layout")
def page_major_kv_layout(ctx):
    """Step 23 (0.5.15): the unified memory pool's page-major KV layout runs only with triton."""
    args = ctx.args
    if not args.enable_unified_memory:
        return {}
    used = {b for b in effective_backends(args) if b is not None}
    if not used <= {"triton"}:
        raise ConflictError(
            f"--enable-unified-memory (page-major KV layout) supports only the triton attention backend, "
            f"got {sorted(used)}.",
            fields=("enable_unified_memory", "attention_backend"),
            fix="pass --attention-backend triton",
        )
    return {}


@registry.rule("post_init")
def chunked_prefill_page_alignment(ctx):
    """``check_server_args``: the chunked prefill size must be a multiple of the page size."""
    args = ctx.args
    chunk, page = args.chunked_prefill_size, args.page_size
    if chunk is not None and chunk > 0 and page and args.disaggregation_mode != "decode" and chunk % page:
        raise ConflictError(
            f"chunked_prefill_size ({chunk}) must be a multiple of page_size ({page}).",
            fields=("chunked_prefill_size", "page_size"),
            fix=f"pass --chunked-prefill-size {chunk - chunk % page or page}",
            upstream="AssertionError",
        )
    return {}
