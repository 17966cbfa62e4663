"""Diffusion LLMs (spec §4.4, step 24; 0.5.14 differences in §9 #5-#7).

Invariant: with ``--dllm-algorithm`` set, the platform decides the attention backend (HIP:
triton/aiter without CUDA graphs; NPU: ascend; decode CUDA graph on: flashinfer), pages are
aligned to and capped at the model's block size, and the features dLLM cannot use are off.
These are deliberate overrides of user input, recorded as forced.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry

#: Block size per diffusion architecture (overridable in sglang by --dllm-algorithm-config).
BLOCK_SIZES = {"LLaDA2MoeModelLM": 32, "SDARForCausalLM": 4, "SDARMoeForCausalLM": 4}
_WHY = "diffusion LLM constraint"


@registry.rule("dllm")
def dllm_attention_backend(ctx):
    """Platform arms: HIP (no graphs, triton/aiter), NPU (ascend), decode graph on (flashinfer)."""
    args, platform = ctx.args, ctx.platform
    if args.dllm_algorithm is None:
        return {}
    out = {}
    backend = args.attention_backend
    if platform.is_hip:
        for phase in ("prefill", "decode"):
            if args[f"cuda_graph_backend_{phase}"] != "disabled":
                out[f"cuda_graph_backend_{phase}"] = Force(
                    "disabled", "diffusion LLMs on ROCm run without CUDA graphs"
                )
        if backend not in ("triton", "aiter"):
            out["attention_backend"] = Force("triton", "diffusion LLMs on ROCm use triton or aiter")
    elif platform.is_npu:
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


@registry.rule("dllm", until="0.5.15", series="dllm_page_size")
def dllm_page_size_0_5_14(ctx):
    """§4.4 (0.5.14, spec §9 #6): with the radix cache on, pages align to the block size; the cap at
    the block size happens later in the scheduler and is not written back; the block size is only
    looked up (unknown dLLMs refused) when the radix cache is on."""
    args = ctx.args
    if args.dllm_algorithm is None or args.disable_radix_cache:
        return {}
    block = _block_size(ctx)
    if args.page_size is not None and args.page_size % block:
        return {"page_size": Force(block, f"pages align to the diffusion block size ({block})")}
    return {}


@registry.rule("dllm", since="0.5.15", series="dllm_page_size")
def dllm_page_size(ctx):
    """§4.4 (0.5.15, spec §9 #6): pages align to the block size with the radix cache on, and never
    exceed it; unknown dLLMs are refused even with the radix cache off."""
    args = ctx.args
    if args.dllm_algorithm is None:
        return {}
    block = _block_size(ctx)
    page = args.page_size
    if page is None:
        return {}
    if not args.disable_radix_cache and page % block:
        return {"page_size": Force(block, f"pages align to the diffusion block size ({block})")}
    if page > block:
        return {"page_size": Force(block, f"pages are capped at the diffusion block size ({block})")}
    return {}


def _dllm_feature_limits(args, *, pp_size_one: bool) -> dict:
    if args.dllm_algorithm is None:
        return {}
    wanted = {"enable_lora": False, "disaggregation_mode": "null", "enable_mixed_chunk": False}
    if not args.disable_radix_cache:
        wanted.update(enable_hierarchical_cache=False, enable_lmcache=False)
    if pp_size_one and args.pp_size > 1:
        wanted["pp_size"] = 1
    return {k: Force(v, _WHY) for k, v in wanted.items() if args[k] != v}


@registry.rule("dllm", until="0.5.15", series="dllm_feature_limits")
def dllm_feature_limits_0_5_14(ctx):
    """§4.4 (0.5.14, spec §9 #7): radix on: no hierarchical cache or LMCache; no LoRA, PD
    disaggregation or mixed chunks (the pipeline-parallel condition is inverted: PP is kept)."""
    return _dllm_feature_limits(ctx.args, pp_size_one=False)


@registry.rule("dllm", since="0.5.15", series="dllm_feature_limits")
def dllm_feature_limits(ctx):
    """§4.4 (0.5.15, spec §9 #7): radix on: no hierarchical cache or LMCache; no PP, LoRA, PD
    disaggregation or mixed chunks."""
    return _dllm_feature_limits(ctx.args, pp_size_one=True)
