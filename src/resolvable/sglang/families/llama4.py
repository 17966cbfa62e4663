"""Llama 4 (spec §3.4). Skipped entirely when ``device == "cpu"``.

Invariant: Llama 4 runs on fa3, aiter, triton, ascend, trtllm_mha or intel_xpu; an unset
``--attention-backend`` gets the platform's pick (split flags are not considered).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES

ARCHS = ("Llama4ForConditionalGeneration", "Llama4ForCausalLM")
SUPPORTED = ("fa3", "aiter", "triton", "ascend", "trtllm_mha", "intel_xpu")


def _supported(has) -> tuple[str, ...]:
    """The backends the release's Llama 4 assertion lists: ascend since ``LLAMA4_ASCEND`` (0.5.10),
    intel_xpu since ``LLAMA4_INTEL_XPU`` (0.5.5.post1)."""
    return tuple(
        b
        for b in SUPPORTED
        if (b != "ascend" or has(CHANGES.LLAMA4_ASCEND))
        and (b != "intel_xpu" or has(CHANGES.LLAMA4_INTEL_XPU))
    )


def _sm90_probe_fails(ctx) -> bool:
    """Before ``SM90_PROBE_CUDA_ONLY`` (0.5.6.post2), ``is_sm90_supported`` asked
    ``is_cuda_alike()``: on a ROCm GPU of capability 9 it reached ``torch.version.cuda >= "12.3"``
    with no CUDA version (a TypeError)."""
    platform = ctx.platform
    return (
        platform.is_hip
        and platform.capability is not None
        and platform.capability[0] == 9
        and not ctx.release.has(CHANGES.SM90_PROBE_CUDA_ONLY)
    )


@registry.for_arch(*ARCHS)
def llama4_defaults(ctx):
    """§3.4: fill ``A`` per platform; FP8 MoE on SM100 uses flashinfer_trtllm. Before
    ``LLAMA4_PLATFORM_DEFAULT`` (0.5.6) nothing was filled: the assertion of
    ``llama4_backend_check`` ran first and refused an unset backend. ``SM90_PROBE_CUDA_ONLY``
    (0.5.6.post2): before it, ROCm GPUs of capability 9 failed in the SM90 probe instead of getting
    aiter."""
    args, platform = ctx.args, ctx.platform
    if args.device == "cpu":
        return {}
    out = {}
    if args.attention_backend is None and ctx.release.has(CHANGES.LLAMA4_PLATFORM_DEFAULT):
        if platform.is_sm100:
            out["attention_backend"] = "trtllm_mha"
        elif platform.is_sm90:
            out["attention_backend"] = "fa3"
        elif _sm90_probe_fails(ctx):
            raise ConflictError(
                "Llama 4 without --attention-backend on ROCm: sglang's SM90 probe compares the unset "
                "torch.version.cuda with '12.3' and fails ('>=' not supported between instances of "
                "'NoneType' and 'str').",
                fields=("attention_backend",),
                fix=Fix(set={"attention_backend": "aiter"}),
                upstream="TypeError",
            )
        elif platform.is_hip:
            out["attention_backend"] = "aiter"
        elif args.device == "xpu":
            out["attention_backend"] = "intel_xpu"
        else:
            out["attention_backend"] = "triton"
    if (
        platform.is_sm100
        and args.moe_runner_backend == "auto"
        and args.quantization in ("fp8", "modelopt_fp8")
    ):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out


@registry.for_arch(*ARCHS, stage="model_checks")
def llama4_backend_check(ctx):
    """§3.4: the resolved ``A`` must be one Llama 4 supports (the release's list, ``_supported``)."""
    backend = ctx.args.attention_backend
    supported = _supported(ctx.release.has)
    if ctx.args.device != "cpu" and backend not in supported:
        raise ConflictError(
            f"{', '.join(supported[:-1])} or {supported[-1]} is required for Llama4 model but got {backend}",
            fields=("attention_backend",),
            fix=Fix.any_of(
                *(Fix(set={"attention_backend": b}) for b in supported),
                text=f"pass --attention-backend with one of {list(supported)}",
            ),
            upstream="AssertionError",
        )
    return {}
