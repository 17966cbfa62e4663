"""Downstream readers of the attention backend (spec §4.7, steps 19-23 and ``check_server_args``).

Invariant: these rules validate the resolved configuration and apply the few switches the
features imply (multi-item scoring, DP defaults); they never choose
the main attention backend.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import effective_backends, is_mla


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
            fix=Fix(set={"attention_backend": "flashinfer"}),
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
            fix=Fix.any_of(
                Fix(set={"prefill_attention_backend": "fa3"}),
                Fix(set={"prefill_attention_backend": "fa4"}),
                text="pass --prefill-attention-backend fa3 (or fa4)",
            ),
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


#: 0.5.17 ``_handle_page_major_kv_layout``: the paged MLA kernels that read the dense per-layer
#: views of the unified-memory MLA pool.
_UNIFIED_MLA_BACKENDS = frozenset(
    {"triton", "fa3", "trtllm_mla", "flashinfer", "cutedsl_mla", "tokenspeed_mla"}
)


@registry.rule("memory_layout")
def page_major_kv_layout(ctx):
    """Step 23 (``server_args._handle_page_major_kv_layout``): the unified memory pool's
    page-major KV layout runs only with triton. ``UNIFIED_MLA_PAGED_BACKENDS`` (0.5.17): an MLA
    model may also use fa3, trtllm_mla, flashinfer, cutedsl_mla or tokenspeed_mla (they read its
    dense per-layer views). The linear-attention / mamba kernel lists are not checked."""
    args = ctx.args
    if not args.enable_unified_memory:
        return {}
    used = {b for b in effective_backends(args) if b is not None}
    if not ctx.release.has(CHANGES.UNIFIED_MLA_PAGED_BACKENDS):
        if not used <= {"triton"}:
            raise ConflictError(
                "--enable-unified-memory (page-major KV layout) supports only the triton attention "
                f"backend, got {sorted(used)}.",
                fields=("enable_unified_memory", "attention_backend"),
                fix=Fix(set={"attention_backend": "triton"}),
            )
        return {}
    allowed = _UNIFIED_MLA_BACKENDS if is_mla(ctx.hf, ctx.release) else frozenset({"triton"})
    if not used <= allowed:
        raise ConflictError(
            "--enable-page-major-kv-layout requires the Triton attention backend for the full-attention "
            "layers (unified-memory MLA also allows the paged MLA backends); got "
            f"{sorted(used)}, allowed {sorted(allowed)}. Pass a compatible --attention-backend.",
            fields=("enable_unified_memory", "attention_backend"),
            fix=Fix(set={"attention_backend": "triton"}),
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
            fix=Fix(set={"chunked_prefill_size": chunk - chunk % page or page}),
            upstream="AssertionError",
        )
    return {}


@registry.rule("post_init", since="0.5.21")
def device_sampling_backend(ctx):
    """Since 0.5.21 (``arg_groups/validation_hook.validate_device_sampling_backend``, called by
    ``check_server_args``): the ``intel_xpu`` sampling backend needs ``--device xpu``."""
    args = ctx.args
    if args.sampling_backend == "intel_xpu" and args.device != "xpu":
        raise ConflictError(
            f"--sampling-backend intel_xpu requires --device xpu, got --device {args.device}",
            fields=("sampling_backend", "device"),
            fix=Fix.any_of(
                Fix(drop=("sampling_backend",)),
                Fix(set={"sampling_backend": "pytorch"}),
                text="drop --sampling-backend intel_xpu (or pass --sampling-backend pytorch)",
            ),
        )
    return {}
