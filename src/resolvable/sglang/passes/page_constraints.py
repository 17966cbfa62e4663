"""Page sizes the chosen attention kernels require (spec §4.2 C4-C9, C16, C21).

Invariant: rules run in order on the running page size (each sees the previous one's
result) and override a user's ``--page-size`` when the kernel cannot use it — recorded as
forced, with the kernel's requirement as the reason.
"""

from __future__ import annotations

from ..._declaration import Force
from .._base import registry
from ..facts import effective_backends, is_mla


def _snap(page, allowed: tuple[int, ...], target: int, why: str) -> dict:
    if page in allowed:
        return {}
    return {"page_size": Force(target, why)}


def _mla_and_trtllm_pages(
    ctx, *, trtllm_mha_pages: tuple[int, ...], draft_trtllm_mha: bool, hpc_ops: bool
) -> dict:
    """``_mla_backend_page_constraints`` on a running page value: flashmla 64; cutlass_mla 128;
    trtllm_mla, tokenspeed_mla, cutedsl_mla {32, 64}; trtllm_mha ``trtllm_mha_pages`` (else 64);
    with ``hpc_ops`` an hpc_ops A/P/D needs 64."""
    args = ctx.args
    a, p, d = args.attention_backend, args.prefill_attention_backend, args.decode_attention_backend
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
    mha_users = (a, d, p, args.speculative_draft_attention_backend) if draft_trtllm_mha else (a, d, p)
    if "trtllm_mha" in mha_users and page not in trtllm_mha_pages:
        page = 64
        listed = ", ".join(f"{n}-" for n in trtllm_mha_pages[:-1]) + f" or {trtllm_mha_pages[-1]}"
        reasons.append(f"trtllm_mha supports {listed}-token pages")
    if hpc_ops and "hpc_ops" in (a, d, p) and page != 64:
        page = 64
        reasons.append("hpc_ops needs 64-token pages")
    if page != args.page_size:
        return {"page_size": Force(page, "; ".join(reasons))}
    return {}


@registry.rule("attention_pages", until="0.5.17", series="mla_and_trtllm_page_sizes")
def mla_and_trtllm_page_sizes(ctx):
    """C4-C9: flashmla 64; cutlass_mla 128; trtllm_mla, tokenspeed_mla, cutedsl_mla {32, 64};
    trtllm_mha {16, 32, 64} (default 64). Checks chain on a running page value."""
    return _mla_and_trtllm_pages(ctx, trtllm_mha_pages=(16, 32, 64), draft_trtllm_mha=False, hpc_ops=False)


@registry.rule("attention_pages", since="0.5.17", series="mla_and_trtllm_page_sizes")
def mla_and_trtllm_page_sizes_0_5_17(ctx):
    """C4-C9 (0.5.17 ``overrides._mla_backend_page_constraints``): as before, except trtllm_mha
    (also as the speculative draft backend) accepts {16, 32, 64, 128} (trtllm-gen's dynamic
    tokens-per-page kernels), and the new ``hpc_ops`` backend needs 64-token pages."""
    return _mla_and_trtllm_pages(ctx, trtllm_mha_pages=(16, 32, 64, 128), draft_trtllm_mha=True, hpc_ops=True)


@registry.rule("attention_pages", until="0.5.15", series="fa4_page_size")
def fa4_page_size_0_5_14(ctx):
    """C16 (0.5.14, spec §9 #1-#2): only an FA4 *prefill* backend on SM100 for MHA forces
    128-token pages (Step-3.5, whose rule sets ``attention_backend``, keeps page 1)."""
    args = ctx.args
    if (
        args.prefill_attention_backend == "fa4"
        and not is_mla(ctx.hf)
        and ctx.platform.is_sm100
        and args.page_size != 128
    ):
        return {"page_size": Force(128, "FA4 prefill on SM100 uses 128-token pages")}
    return {}


@registry.rule("attention_pages", since="0.5.15", series="fa4_page_size")
def fa4_page_size(ctx):
    """C16 (0.5.15, spec §9 #1): FA4 as A, D or P on SM100 for MHA uses 128-token pages, unless
    EAGLE topk > 1."""
    args = ctx.args
    uses_fa4 = "fa4" in (
        args.attention_backend,
        args.decode_attention_backend,
        args.prefill_attention_backend,
    )
    if (
        uses_fa4
        and not is_mla(ctx.hf)
        and ctx.platform.is_sm100
        and (args.speculative_eagle_topk or 0) <= 1
        and args.page_size != 128
    ):
        return {"page_size": Force(128, "FA4 on SM100 uses 128-token pages")}
    return {}


def _intel_xpu_pages(ctx, side: str) -> dict:
    allowed = (16, 32, 64, 128) if is_mla(ctx.hf) else (64, 128)
    return _snap(ctx.args.page_size, allowed, 128, f"intel_xpu {side}supports pages of {allowed} tokens")


@registry.rule("attention_pages", until="0.5.20", series="intel_xpu_page_size")
def intel_xpu_page_size(ctx):
    """C21 (until 0.5.20): intel_xpu decode needs pages of {64, 128} (MLA: {16, 32, 64, 128});
    default 128. Only the decode backend is looked at."""
    if effective_backends(ctx.args)[1] != "intel_xpu":
        return {}
    return _intel_xpu_pages(ctx, "decode ")


@registry.rule("attention_pages", since="0.5.20", series="intel_xpu_page_size")
def intel_xpu_page_size_0_5_20(ctx):
    """C21 (since 0.5.20, ``overrides._intel_xpu_page_constraint``): the same page lists apply when
    the prefill **or** the decode backend is intel_xpu."""
    if "intel_xpu" not in effective_backends(ctx.args):
        return {}
    return _intel_xpu_pages(ctx, "")
