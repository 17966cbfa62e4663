"""GPT-OSS (spec §3.3).

Invariants: with no backend chosen, GPT-OSS picks one per platform (trtllm_mha on SM100,
fa3 on SM90, intel_amx on AMX CPUs, intel_xpu, aiter on ROCm, else triton); both effective
backends must be sink-capable; mxfp4 checkpoints run in bfloat16; Intel XPU accepts only
bfloat16; the MoE runner follows the platform and the checkpoint.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import backends_not_set, effective_backends, env_flag, quant_method

ARCH = "GptOssForCausalLM"
SUPPORTED = ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx", "intel_xpu", "aiter")
#: The list before 0.5.13 (``GPT_OSS_CPU_AMX`` added intel_amx).
_SUPPORTED_BEFORE_AMX = tuple(b for b in SUPPORTED if b != "intel_amx")


def _is_mxfp4(ctx) -> bool:
    return quant_method(ctx.hf) == "mxfp4" or ctx.args.quantization == "mxfp4"


@registry.for_arch(ARCH)
def gpt_oss_defaults(ctx):
    """§3.3: platform backend fill (only when A, P, D are all unset; intel_amx on AMX CPUs since
    0.5.13, ``GPT_OSS_CPU_AMX``; aiter on ROCm since 0.5.10, ``GPT_OSS_AITER``), XPU dtype, mxfp4
    dtype. The XPU arm (intel_xpu, bfloat16 only) since 0.5.11 (``GPT_OSS_INTEL_XPU``). Before 0.5.8
    (``GPT_OSS_ASCEND_HYBRID_SWA``) the branch ended by turning the hybrid SWA memory pool off; before
    0.5.9 (``GPT_OSS_SPEC_KEEPS_HYBRID_SWA``) speculative decoding turned it off."""
    args, platform = ctx.args, ctx.platform
    out = {}
    if backends_not_set(args):
        if platform.is_sm100:
            backend = "trtllm_mha"
        elif platform.is_sm90:
            backend = "fa3"
        elif platform.is_cpu and platform.has_amx and ctx.release.has(CHANGES.GPT_OSS_CPU_AMX):
            backend = "intel_amx"
        elif platform.is_xpu and ctx.release.has(CHANGES.GPT_OSS_INTEL_XPU):
            backend = "intel_xpu"
        elif platform.is_hip and ctx.release.has(CHANGES.GPT_OSS_AITER):
            backend = "aiter"
        else:
            backend = "triton"
        out["attention_backend"] = backend
    if (
        platform.is_xpu
        and args.dtype not in ("auto", "bfloat16")
        and ctx.release.has(CHANGES.GPT_OSS_INTEL_XPU)
    ):
        raise ConflictError(
            f"GptOssForCausalLM on Intel XPU only supports bfloat16 dtype, but got '{args.dtype}'.",
            fields=("dtype",),
            fix=Fix.any_of(
                Fix(set={"dtype": "bfloat16"}),
                Fix(set={"dtype": "auto"}),
                text="pass --dtype bfloat16 (or leave it auto)",
            ),
            upstream="NotImplementedError",
        )
    if quant_method(ctx.hf) == "mxfp4":
        out["dtype"] = Force("bfloat16", "mxfp4 GPT-OSS kernels (triton) run in bfloat16")
    if not ctx.release.has(CHANGES.GPT_OSS_ASCEND_HYBRID_SWA) and not args.disable_hybrid_swa_memory:
        out["disable_hybrid_swa_memory"] = True  # 0.5.7: the last line of the GPT-OSS branch
    elif args.speculative_algorithm is not None and not ctx.release.has(
        CHANGES.GPT_OSS_SPEC_KEEPS_HYBRID_SWA
    ):
        out["disable_hybrid_swa_memory"] = True  # 0.5.8: speculation and the SWA pool did not mix
    return out


@registry.for_arch(ARCH, stage="model_checks")
def gpt_oss_backend_check(ctx):
    """§3.3: both effective backends must support attention sinks (intel_amx since 0.5.13:
    ``GPT_OSS_CPU_AMX``; intel_xpu since 0.5.11: ``GPT_OSS_INTEL_XPU``; aiter since 0.5.10:
    ``GPT_OSS_AITER``; ascend since 0.5.8: ``GPT_OSS_ASCEND_HYBRID_SWA``). Before 0.5.10
    (``GPT_OSS_TRTLLM_SWA_KEPT``) a trtllm_mha side turned hybrid SWA memory off."""
    prefill, decode = effective_backends(ctx.args)
    supported = SUPPORTED if ctx.release.has(CHANGES.GPT_OSS_CPU_AMX) else _SUPPORTED_BEFORE_AMX
    if not ctx.release.has(CHANGES.GPT_OSS_INTEL_XPU):  # before 0.5.11 intel_xpu was not listed
        supported = tuple(b for b in supported if b != "intel_xpu")
    if not ctx.release.has(CHANGES.GPT_OSS_AITER):  # before 0.5.10 aiter was not listed
        supported = tuple(b for b in supported if b != "aiter")
    if not ctx.release.has(CHANGES.GPT_OSS_ASCEND_HYBRID_SWA):  # before 0.5.8 ascend was not listed
        supported = tuple(b for b in supported if b != "ascend")
    if prefill not in supported or decode not in supported:
        raise ConflictError(
            f"GptOssForCausalLM requires one of {list(supported)} attention backend, but got the following "
            f"backends\n- Prefill: {prefill}\n- Decode: {decode}",
            fields=("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
            fix=Fix.any_of(
                *(Fix(set={"attention_backend": b}) for b in supported),
                text=f"set --attention-backend (or both split flags) to one of {list(supported)}",
            ),
            upstream="AssertionError",
        )
    if "trtllm_mha" in (prefill, decode) and not ctx.release.has(CHANGES.GPT_OSS_TRTLLM_SWA_KEPT):
        return {"disable_hybrid_swa_memory": True}
    return {}


@registry.rule("model_checks", archs=(ARCH,))
def gpt_oss_moe_runner(ctx):
    """§3.3 MoE runner (``overrides._gpt_oss_overrides``): flashinfer_mxfp4 (SM100; before 0.5.10,
    ``GPT_OSS_SM120_TRITON_KERNEL``, on any Blackwell, and no driver-595 triton arm), marlin on
    SM120 (flashinfer_mxfp4 since 0.5.17: ``GPT_OSS_SM120_MXFP4``; triton_kernel before 0.5.14:
    ``GPT_OSS_SM120_MARLIN``), triton on ROCm+AITER,
    deep_gemm on MUSA (since 0.5.12, ``GPT_OSS_MUSA_DEEP_GEMM``), else triton / triton_kernel when triton_kernels is installed (not on AMX
    CPUs since 0.5.13, ``GPT_OSS_CPU_AMX``); and the
    triton_kernel ``ep_size`` assert. Before 0.5.9 (``GPT_OSS_MOE_RUNNER_AITER_ARMS``) there was
    no ROCm AITER arm and triton_kernel did not need ``--quantization`` unset. (0.5.8's first
    arm, ``--enable-piecewise-cuda-graph`` keeping auto, is not modelled: the pack folds that flag
    into the prefill CUDA-graph backend.)"""
    args, platform = ctx.args, ctx.platform
    runner = args.moe_runner_backend
    out = {}
    aiter_arms = ctx.release.has(CHANGES.GPT_OSS_MOE_RUNNER_AITER_ARMS)
    if runner == "auto":
        mxfp4 = _is_mxfp4(ctx)
        choice = None
        sm120_own_arm = ctx.release.has(CHANGES.GPT_OSS_SM120_TRITON_KERNEL)
        if mxfp4 and (platform.is_sm100 or (platform.is_blackwell and not sm120_own_arm)):
            choice = "flashinfer_mxfp4"
        elif platform.is_sm120 and mxfp4:
            if ctx.release.has(CHANGES.GPT_OSS_SM120_MXFP4):
                choice = "flashinfer_mxfp4"
            else:
                choice = "marlin" if ctx.release.has(CHANGES.GPT_OSS_SM120_MARLIN) else "triton_kernel"
        elif platform.is_hip and env_flag(ctx, "SGLANG_USE_AITER") and aiter_arms:
            choice = None if mxfp4 else "triton"
        elif (
            platform.is_musa
            and env_flag(ctx, "SGLANG_DEEPEP_BF16_DISPATCH")
            and ctx.release.has(CHANGES.GPT_OSS_MUSA_DEEP_GEMM)
        ):
            choice = "deep_gemm"
        elif (
            args.ep_size == 1
            and platform.has_kernel("triton_kernels")
            and (args.quantization is None or not aiter_arms)
            and not (platform.is_cpu and platform.has_amx and ctx.release.has(CHANGES.GPT_OSS_CPU_AMX))
        ):
            new_driver = platform.driver_version is not None and platform.driver_version[0] >= 595
            triton = platform.is_blackwell and new_driver and sm120_own_arm
            choice = "triton" if triton else "triton_kernel"
        if choice is not None:
            out["moe_runner_backend"] = runner = choice
    if runner == "triton_kernel" and args.ep_size != 1:
        raise ConflictError(
            "the triton_kernel MoE runner requires --ep-size 1",
            fields=("moe_runner_backend", "ep_size"),
            fix=Fix.any_of(
                Fix(set={"ep_size": 1}),
                Fix(another=("moe_runner_backend",)),
                text="pass --ep-size 1 or another --moe-runner-backend",
            ),
            upstream="AssertionError",
        )
    return out
