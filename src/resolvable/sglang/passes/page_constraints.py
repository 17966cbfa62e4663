"""Page sizes the chosen attention kernels require (spec §4.2 C4-C9, C16, C21).

Invariant: rules run in order on the running page size (each sees the previous one's
result) and override a user's ``--page-size`` when the kernel cannot use it — recorded as
forced, with the kernel's requirement as the reason.
"""

from __future__ import annotations

from ...rules import Force
from .._base import registry
from ..changes import CHANGES
from ..facts import effective_backends, is_mla


def _snap(page, allowed: tuple[int, ...], target: int, why: str) -> dict:
    if page in allowed:
        return {}
    return {"page_size": Force(target, why)}


@registry.rule("attention_pages")
def mla_and_trtllm_page_sizes(ctx):
    """C4-C9 (``overrides._mla_backend_page_constraints``), on a running page value: flashmla 64;
    cutlass_mla 128; trtllm_mla, tokenspeed_mla, cutedsl_mla {32, 64}; trtllm_mha {16, 32, 64}
    (default 64). ``TRTLLM_MHA_PAGE_128`` (0.5.17): trtllm_mha (also as the speculative draft
    backend) accepts {16, 32, 64, 128} (trtllm-gen's dynamic tokens-per-page kernels), and the
    new ``hpc_ops`` backend needs 64-token pages."""
    args = ctx.args
    a, p, d = args.attention_backend, args.prefill_attention_backend, args.decode_attention_backend
    draft = args.speculative_draft_attention_backend
    since_0_5_17 = ("trtllm_mha" in (a, d, p, draft) or "hpc_ops" in (a, d, p)) and ctx.release.has(
        CHANGES.TRTLLM_MHA_PAGE_128
    )
    trtllm_mha_pages = (16, 32, 64, 128) if since_0_5_17 else (16, 32, 64)
    page = args.page_size
    reasons = []
    if "flashmla" in (a, d) and page != 64:
        page = 64
        reasons.append("flashmla needs 64-token pages")
    if "cutlass_mla" in (a, d) and page != 128:
        page = 128
        reasons.append("cutlass_mla needs 128-token pages")
    for name in ("trtllm_mla", "tokenspeed_mla"):
        if name in (a, d) and page not in (32, 64):
            page = 64
            reasons.append(f"{name} supports 32- or 64-token pages")
    if "cutedsl_mla" in (a, d, p) and page not in (32, 64):
        page = 64
        reasons.append("cutedsl_mla supports 32- or 64-token pages")
    mha_users = (a, d, p, args.speculative_draft_attention_backend) if since_0_5_17 else (a, d, p)
    if "trtllm_mha" in mha_users and page not in trtllm_mha_pages:
        page = 64
        listed = ", ".join(f"{n}-" for n in trtllm_mha_pages[:-1]) + f" or {trtllm_mha_pages[-1]}"
        reasons.append(f"trtllm_mha supports {listed}-token pages")
    if since_0_5_17 and "hpc_ops" in (a, d, p) and page != 64:
        page = 64
        reasons.append("hpc_ops needs 64-token pages")
    if page != args.page_size:
        return {"page_size": Force(page, "; ".join(reasons))}
    return {}


@registry.rule("attention_pages")
def ascend_page_size(ctx):
    """Before 0.5.6.post1 (``NPU_DEFAULT_SERVER_ARGS``; 0.5.6
    ``server_args._handle_attention_backend_compatibility``, NPU arm): on Ascend with the ascend
    backend, pages are 128 tokens, a user's ``--page-size`` overridden. Since then the device
    handler only fills an unset page size."""
    args = ctx.args
    if not ctx.platform.is_npu or args.attention_backend != "ascend" or args.page_size == 128:
        return {}
    if ctx.release.has(CHANGES.NPU_DEFAULT_SERVER_ARGS):
        return {}
    return {"page_size": Force(128, "the ascend backend supports only 128-token pages")}


@registry.rule("attention_pages")
def fa4_page_size(ctx):
    """C16 (spec §9 #1-#2): on SM100 for MHA, an FA4 *prefill* backend forces 128-token pages
    (Step-3.5, whose rule sets ``attention_backend``, keeps page 1); ``FA4_PAGES_ANY_SIDE``
    (0.5.15): FA4 as A, D or P does, unless EAGLE topk > 1. Before 0.5.10
    (``FA4_PREFILL_PAGES_SM100_ONLY``) an FA4 prefill backend forced them on every device, and
    before 0.5.5.post1 (``FA4_PREFILL_PAGES_MHA_ONLY``) for MLA models too."""
    args = ctx.args
    if args.page_size == 128:
        return {}
    if is_mla(ctx.hf, ctx.release) and ctx.release.has(CHANGES.FA4_PREFILL_PAGES_MHA_ONLY):
        return {}
    if not ctx.release.has(CHANGES.FA4_PREFILL_PAGES_SM100_ONLY):
        if args.prefill_attention_backend == "fa4":
            return {"page_size": Force(128, "FA4 prefill uses 128-token pages")}
        return {}
    if not ctx.platform.is_sm100:
        return {}
    if not ctx.release.has(CHANGES.FA4_PAGES_ANY_SIDE):
        if args.prefill_attention_backend == "fa4":
            return {"page_size": Force(128, "FA4 prefill on SM100 uses 128-token pages")}
        return {}
    uses_fa4 = "fa4" in (
        args.attention_backend,
        args.decode_attention_backend,
        args.prefill_attention_backend,
    )
    if uses_fa4 and (args.speculative_eagle_topk or 0) <= 1:
        return {"page_size": Force(128, "FA4 on SM100 uses 128-token pages")}
    return {}


@registry.rule("attention_pages")
def intel_xpu_page_size(ctx):
    """C21: intel_xpu decode needs pages of {64, 128} (MLA: {16, 32, 64, 128}); default 128.
    ``INTEL_XPU_PAGES_EITHER_SIDE`` (0.5.20, ``overrides._intel_xpu_page_constraint``): the same
    lists apply when the prefill **or** the decode backend is intel_xpu. Before 0.5.11
    (``INTEL_XPU_MLA_DECODE_ONLY``) only ``--attention-backend intel_xpu`` was checked, against
    {32, 64, 128} for every model."""
    if not ctx.release.has(CHANGES.INTEL_XPU_MLA_DECODE_ONLY):
        if ctx.args.attention_backend != "intel_xpu":
            return {}
        return _snap(
            ctx.args.page_size, (32, 64, 128), 128, "intel_xpu supports pages of (32, 64, 128) tokens"
        )
    prefill, decode = effective_backends(ctx.args)
    if "intel_xpu" not in (prefill, decode):
        return {}
    either = ctx.release.has(CHANGES.INTEL_XPU_PAGES_EITHER_SIDE)
    if decode != "intel_xpu" and not either:
        return {}
    allowed = (16, 32, 64, 128) if is_mla(ctx.hf, ctx.release) else (64, 128)
    side = "" if either else "decode "
    return _snap(ctx.args.page_size, allowed, 128, f"intel_xpu {side}supports pages of {allowed} tokens")
