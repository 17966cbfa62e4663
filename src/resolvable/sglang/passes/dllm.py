"""Diffusion LLMs (spec §4.4, step 24; 0.5.14 differences in §9 #5-#7).

Invariant: with ``--dllm-algorithm`` set, the platform decides the attention backend (HIP:
triton/aiter without CUDA graphs; NPU: ascend; decode CUDA graph on: flashinfer), pages are
aligned to and capped at the model's block size, and the features dLLM cannot use are off.
These are deliberate overrides of user input, recorded as forced.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Force
from .._base import registry
from ..changes import CHANGES

#: Block size per diffusion architecture (overridable in sglang by --dllm-algorithm-config).
BLOCK_SIZES = {"LLaDA2MoeModelLM": 32, "SDARForCausalLM": 4, "SDARMoeForCausalLM": 4}
_WHY = "diffusion LLM constraint"


@registry.rule("dllm")
def dllm_attention_backend(ctx):
    """Platform arms: HIP (no graphs, triton/aiter; since 0.5.8, ``DLLM_ROCM_TRITON``: before it
    ROCm took the CUDA arm), NPU (ascend; since 0.5.10, ``DLLM_ASCEND_ON_NPU``: before, Ascend took
    the CUDA-graph arm), decode graph on (flashinfer).
    Before ``DLLM_CUDA_GRAPH_KEPT`` (0.5.6.post1; 0.5.6 ``_handle_dllm_inference``) CUDA graphs
    were turned off instead and the attention backend was left as it was."""
    args, platform = ctx.args, ctx.platform
    if args.dllm_algorithm is None:
        return {}
    if not ctx.release.has(CHANGES.DLLM_CUDA_GRAPH_KEPT):
        why = "CUDA graphs are disabled for diffusion LLM inference"
        off = {"disable_cuda_graph": True} if not args.disable_cuda_graph else {}
        for phase in ("prefill", "decode"):
            if args[f"cuda_graph_backend_{phase}"] != "disabled":
                off[f"cuda_graph_backend_{phase}"] = Force("disabled", why)
        return off
    out = {}
    backend = args.attention_backend
    if platform.is_hip and ctx.release.has(CHANGES.DLLM_ROCM_TRITON):
        for phase in ("prefill", "decode"):
            if args[f"cuda_graph_backend_{phase}"] != "disabled":
                out[f"cuda_graph_backend_{phase}"] = Force(
                    "disabled", "diffusion LLMs on ROCm run without CUDA graphs"
                )
        if backend not in ("triton", "aiter"):
            out["attention_backend"] = Force("triton", "diffusion LLMs on ROCm use triton or aiter")
    elif platform.is_npu and ctx.release.has(CHANGES.DLLM_ASCEND_ON_NPU):
        if backend != "ascend":
            out["attention_backend"] = Force("ascend", "diffusion LLMs on Ascend use ascend")
    elif args.cuda_graph_backend_decode != "disabled" and backend != "flashinfer":
        out["attention_backend"] = Force(
            "flashinfer", "diffusion LLMs with decode CUDA graphs need flashinfer"
        )
    return out


@registry.rule("dllm")
def dllm_overlap_disable(ctx):
    """Always: no overlap scheduler for diffusion LLMs."""
    if ctx.args.dllm_algorithm is not None and not ctx.args.disable_overlap_schedule:
        return {"disable_overlap_schedule": True}
    return {}


def _block_size(ctx) -> int:
    block = BLOCK_SIZES.get(ctx.arch or "")
    if block is None:
        raise ConflictError(
            f"Unknown diffusion LLM: {ctx.arch}",
            fields=("dllm_algorithm",),
            fix=f"--dllm-algorithm supports {sorted(BLOCK_SIZES)}",
            upstream="RuntimeError",
        )
    return block


@registry.rule("dllm")
def dllm_page_size(ctx):
    """§4.4 (spec §9 #6): pages align to the block size with the radix cache on.
    ``DLLM_PAGE_CAP`` (0.5.15): pages never exceed the block size, and unknown dLLMs are refused
    even with the radix cache off (0.5.14 capped later, in the scheduler, without writing back,
    and looked the block size up only with the radix cache on). Before 0.5.10
    (``DLLM_RADIX_CACHE_KEPT``) nothing: the page size was left as it was."""
    args = ctx.args
    if args.dllm_algorithm is None or not ctx.release.has(CHANGES.DLLM_RADIX_CACHE_KEPT):
        return {}  # before 0.5.10 the radix cache went off and no block size was looked up
    cap = ctx.release.has(CHANGES.DLLM_PAGE_CAP)
    if not cap and args.disable_radix_cache:
        return {}
    block = _block_size(ctx)
    page = args.page_size
    if page is None:
        return {}
    if not args.disable_radix_cache and page % block:
        return {"page_size": Force(block, f"pages align to the diffusion block size ({block})")}
    if cap and page > block:
        return {"page_size": Force(block, f"pages are capped at the diffusion block size ({block})")}
    return {}


@registry.rule("dllm")
def dllm_feature_limits(ctx):
    """§4.4 (spec §9 #7): radix on: no hierarchical cache or LMCache; no LoRA, PD disaggregation
    or mixed chunks (since 0.5.9, ``DLLM_LORA_PD_MIXED_OFF``); no PP since 0.5.15 (``DLLM_NO_PP``;
    0.5.14's condition was inverted: PP was kept). Before 0.5.10 (``DLLM_RADIX_CACHE_KEPT``) the
    radix cache went off instead, and hierarchical cache and LMCache were left alone."""
    args = ctx.args
    if args.dllm_algorithm is None:
        return {}
    wanted = {}
    if ctx.release.has(CHANGES.DLLM_LORA_PD_MIXED_OFF):
        wanted.update(enable_lora=False, disaggregation_mode="null", enable_mixed_chunk=False)
    if not ctx.release.has(CHANGES.DLLM_RADIX_CACHE_KEPT):
        wanted["disable_radix_cache"] = True
    elif not args.disable_radix_cache:
        wanted.update(enable_hierarchical_cache=False, enable_lmcache=False)
    if args.pp_size > 1 and ctx.release.has(CHANGES.DLLM_NO_PP):
        wanted["pp_size"] = 1
    return {k: Force(v, _WHY) for k, v in wanted.items() if args[k] != v}
