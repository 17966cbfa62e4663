"""MoE runner and all-to-all checks of ``ServerArgs`` (sglang 0.5.15 step 21, spec §2.2, §6.5).

Sources: server_args.py ``_handle_moe_kernel_config`` and ``_handle_a2a_moe``, with the passes
they call from arg_groups/overrides.py (``_moe_runner_backend_quant_constraints``,
``_moe_runner_fusion_disable``, ``_cutlass_moe_env_override``, ``_a2a_backend_overrides``,
``_a2a_ep_size``, ``_a2a_fusion_adjustments``). Invariant: the rules run in sglang's call order
(runner resolution, runner asserts, fusion, SGLANG_CUTLASS_MOE, then A2A), so the first refusal
is sglang's; ``quantization`` here is the ServerArgs field (as resolved so far), not the
model config's.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry
from ..facts import checkpoint_quant_config, env_flag

_CUTLASS_QUANT = ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None)
_TRTLLM_QUANT = (
    "modelopt_fp4",
    "nvfp4_online",
    "fp8",
    "mxfp8",
    "modelopt_fp8",
    "modelopt_mixed",
    "compressed-tensors",
    None,
)
_TRTLLM_ROUTED_QUANT = ("fp8", "mxfp8", "modelopt_fp4", "nvfp4_online", None)
#: overrides.py ``_A2A_EP_SPANNING_BACKENDS``: expert parallelism spans the TP group.
#: ``pplx`` is a choice since 0.5.17 (refused before by ``release_choices``).
_EP_SPANNING = ("megamoe", "deepep", "mooncake", "nixl", "ascend_fuseep", "flashinfer", "mori", "pplx")


def _assert(message: str, fields: tuple[str, ...], fix: str) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="AssertionError")


def has_nvfp4_moe_meta(hf) -> bool:
    """``ModelConfig.nvfp4_moe_meta`` is set: a MIXED_PRECISION checkpoint with NVFP4 MoE and a group size."""
    qc = checkpoint_quant_config(hf) or {}
    return (
        str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"
        and str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
        and qc.get("group_size") is not None
    )


@registry.rule("parallelism")
def moe_runner_backend_quant_constraints(ctx):
    """``_moe_runner_backend_quant_constraints``: nvfp4_online needs SM100 and a TRT-LLM runner
    (auto → flashinfer_trtllm); mxfp8 runs on cutlass or TRT-LLM (others overridden); modelopt_fp4
    on SM120 uses flashinfer_cutlass."""
    args, platform = ctx.args, ctx.platform
    runner, quant = args.moe_runner_backend, args.quantization
    chosen = runner
    if quant == "nvfp4_online":
        if not platform.is_sm100:
            raise ConflictError(
                "--quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs.",
                fields=("quantization",),
                fix="use another --quantization on this GPU",
            )
        if runner == "auto":
            chosen = "flashinfer_trtllm"
        elif runner not in ("flashinfer_trtllm", "flashinfer_trtllm_routed"):
            raise ConflictError(
                "--quantization nvfp4_online supports only --moe-runner-backend flashinfer_trtllm or "
                "flashinfer_trtllm_routed.",
                fields=("quantization", "moe_runner_backend"),
                fix="pass --moe-runner-backend flashinfer_trtllm",
            )
    if quant == "mxfp8":
        if runner == "auto":
            chosen = "flashinfer_trtllm"
        elif runner not in ("cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed"):
            chosen = Force(
                "flashinfer_trtllm", "mxfp8 supports only cutlass or flashinfer TRT-LLM MoE runners"
            )
    if chosen == "auto" and quant == "modelopt_fp4" and platform.is_sm120:
        chosen = "flashinfer_cutlass"
    return {} if chosen == runner else {"moe_runner_backend": chosen}


@registry.rule("parallelism")
def moe_runner_backend_checks(ctx):
    """``_handle_moe_kernel_config`` asserts: each FlashInfer MoE runner's quantizations, and
    ``ep_size`` 1 or ``tp_size`` for the cutlass/cutedsl runners."""
    args = ctx.args
    runner, quant, ep, tp = args.moe_runner_backend, args.quantization, args.ep_size, args.tp_size
    fields = ("moe_runner_backend", "quantization")
    ep_message = "The expert parallel size must be 1 or the same as the tensor parallel size"
    if runner == "flashinfer_cutlass":
        if quant not in _CUTLASS_QUANT:
            raise _assert(
                f"Invalid quantization '{quant}'. \nFlashInfer Cutlass MOE supports only: 'modelopt_fp4', "
                "'modelopt_fp8', 'modelopt_mixed', or bfloat16 (None).",
                fields,
                "choose another --moe-runner-backend for this quantization",
            )
        if ep not in (1, tp):
            raise _assert(ep_message, ("ep_size", "tp_size"), f"pass --ep-size 1 or {tp}")
    if runner == "flashinfer_cutedsl":
        if quant != "modelopt_fp4" and not has_nvfp4_moe_meta(ctx.hf):
            raise _assert(
                f"Invalid quantization '{quant}'. \nFlashInfer CuteDSL MOE currently supports only: "
                "'modelopt_fp4' or hybrid NVFP4 models.",
                fields,
                "use flashinfer_cutedsl with an NVFP4 (modelopt_fp4) checkpoint only",
            )
        if ep not in (1, tp):
            raise _assert(ep_message, ("ep_size", "tp_size"), f"pass --ep-size 1 or {tp}")
        if args.moe_a2a_backend not in ("none", "deepep", "flashinfer"):
            raise _assert(
                "flashinfer_cutedsl supports moe_a2a_backend='none', 'deepep', or 'flashinfer', "
                f"got '{args.moe_a2a_backend}'.",
                ("moe_a2a_backend", "moe_runner_backend"),
                "pass --moe-a2a-backend none, deepep or flashinfer",
            )
    if runner in ("flashinfer_trtllm", "experimental_sgl_trtllm") and quant not in _TRTLLM_QUANT:
        raise _assert(
            f"Invalid quantization '{quant}'. \nFlashInfer TRTLLM MOE supports only: 'modelopt_fp4', "
            "'nvfp4_online', 'fp8', 'modelopt_fp8', 'modelopt_mixed', 'compressed-tensors', or bfloat16 (None).",
            fields,
            "choose another --moe-runner-backend for this quantization",
        )
    if runner == "flashinfer_trtllm_routed" and quant not in _TRTLLM_ROUTED_QUANT:
        raise _assert(
            f"Invalid quantization '{quant}'. \nFlashInfer TRTLLM routed MOE supports only: 'fp8', 'mxfp8', "
            "'modelopt_fp4', 'nvfp4_online', or bfloat16 (None).",
            fields,
            "choose another --moe-runner-backend for this quantization",
        )
    return {}


@registry.rule("parallelism")
def moe_runner_fusion_disable(ctx):
    """``_moe_runner_fusion_disable``: the CuteDSL and TRT-LLM MoE runners disable the
    shared-experts fusion (read before SGLANG_CUTLASS_MOE, as in sglang)."""
    runner = ctx.args.moe_runner_backend
    fused = ("flashinfer_cutedsl", "flashinfer_trtllm", "experimental_sgl_trtllm", "flashinfer_trtllm_routed")
    if runner in fused and not ctx.args.disable_shared_experts_fusion:
        return {"disable_shared_experts_fusion": True}
    return {}


@registry.rule("parallelism")
def cutlass_moe_env_override(ctx):
    """``_cutlass_moe_env_override`` (deprecated ``SGLANG_CUTLASS_MOE``): cutlass MoE, only for
    fp8/mxfp8; then FP8/MXFP8 cutlass MoE needs ``ep_size == 1``."""
    args = ctx.args
    out = {}
    runner = args.moe_runner_backend
    if env_flag(ctx, "SGLANG_CUTLASS_MOE"):
        if args.quantization not in ("fp8", "mxfp8"):
            raise _assert(
                "cutlass MoE is only supported with fp8/mxfp8 quantization",
                ("quantization",),
                "unset SGLANG_CUTLASS_MOE or pass --quantization fp8",
            )
        if runner != "cutlass":
            out["moe_runner_backend"] = Force("cutlass", "SGLANG_CUTLASS_MOE selects the cutlass MoE runner")
        runner = "cutlass"
    if runner == "cutlass" and args.quantization in ("fp8", "mxfp8") and args.ep_size != 1:
        raise _assert(
            "FP8/MXFP8 Cutlass MoE is only supported with ep_size == 1",
            ("ep_size", "moe_runner_backend"),
            "pass --ep-size 1 or another --moe-runner-backend",
        )
    return out


@registry.rule("parallelism")
def a2a_backend_overrides(ctx):
    """``_a2a_backend_overrides``: DeepEP Waterfill needs deepep; SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE
    selects megamoe."""
    args = ctx.args
    backend = args.moe_a2a_backend
    if args.enable_deepep_waterfill and backend != "deepep":
        backend = "deepep"
    if env_flag(ctx, "SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE") and backend != "megamoe":
        backend = "megamoe"
    if backend == args.moe_a2a_backend:
        return {}
    return {"moe_a2a_backend": Force(backend, "DeepEP Waterfill / SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE")}


@registry.rule("parallelism")
def a2a_ep_size(ctx):
    """``_a2a_ep_size``: an A2A backend makes expert parallelism span the TP group."""
    args = ctx.args
    if args.moe_a2a_backend in _EP_SPANNING and args.ep_size != args.tp_size:
        return {
            "ep_size": Force(args.tp_size, f"--moe-a2a-backend {args.moe_a2a_backend} sets ep_size = tp_size")
        }
    return {}


def _a2a_moe_checks(ctx, *, since_0_5_17: bool) -> dict:
    """``_handle_a2a_moe`` shared by every release; ``since_0_5_17`` adds DeepEP with the CuteDSL
    FP4 runner (no ``normal`` mode) and the ``pplx`` backend's checks."""
    args = ctx.args
    backend = args.moe_a2a_backend
    out = {}
    if (
        since_0_5_17
        and backend == "deepep"
        and args.moe_runner_backend == "flashinfer_cutedsl"
        and args.deepep_mode == "normal"
    ):
        raise ConflictError(
            "flashinfer_cutedsl FP4 MoE only supports DeepEP low_latency dispatch (masked layout). "
            "DeepEP normal (prefill) dispatch has no CuteDSL FP4 handler. Pass --deepep-mode "
            "low_latency or auto.",
            fields=("deepep_mode", "moe_runner_backend", "moe_a2a_backend"),
            fix="pass --deepep-mode low_latency (or auto)",
        )
    if backend == "deepep" and args.enable_deepep_waterfill and args.disable_shared_experts_fusion:
        out["disable_shared_experts_fusion"] = Force(
            False, "DeepEP Waterfill requires the shared-experts fusion"
        )
    if backend == "deepep" and args.deepep_mode == "normal":
        for phase in ("prefill", "decode"):
            if args[f"cuda_graph_backend_{phase}"] != "disabled":
                out[f"cuda_graph_backend_{phase}"] = Force(
                    "disabled", "DeepEP normal mode runs without CUDA graphs"
                )
    if backend == "flashinfer":
        if not args.disable_shared_experts_fusion:
            out["disable_shared_experts_fusion"] = True
        if not (args.enable_dp_attention and args.dp_size == args.tp_size):
            raise _assert(
                "Flashinfer MoE A2A is only supported with dp_size == tp_size and --enable-dp-attention",
                ("moe_a2a_backend", "dp_size", "enable_dp_attention"),
                f"pass --enable-dp-attention --dp-size {args.tp_size}",
            )
        if args.moe_runner_backend not in (
            "flashinfer_cutlass",
            "flashinfer_cutedsl",
            "flashinfer_trtllm_routed",
        ):
            raise _assert(
                "Flashinfer MoE A2A is only supported with flashinfer_cutlass, flashinfer_cutedsl or "
                "flashinfer_trtllm_routed moe runner backend",
                ("moe_a2a_backend", "moe_runner_backend"),
                "pass --moe-runner-backend flashinfer_cutlass",
            )
    if backend == "mori":
        chunk = args.chunked_prefill_size
        budget = int(ctx.env.get("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", 4096))
        if chunk is not None and chunk > 0 and args.disaggregation_mode != "decode" and chunk > budget:
            raise _assert(
                "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be >= the per-rank MoRI "
                "dispatch tokens (chunked_prefill_size by default)",
                ("chunked_prefill_size", "moe_a2a_backend"),
                f"pass --chunked-prefill-size {budget} or raise SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
            )

    if since_0_5_17 and backend == "pplx":
        out.update(_pplx_checks(ctx))
    return out


def _pplx_checks(ctx) -> dict:
    """0.5.17 ``_handle_a2a_moe`` for ``pplx``: low-latency mode only, DP attention with at least
    two DP groups, the deep_gemm runner (``auto`` → ``deep_gemm``), and a per-rank dispatch budget
    (``SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK``, default 128) that covers the chunked
    prefill. ``deepep_mode`` ``auto`` → ``low_latency`` is not a resolvable field here."""
    args = ctx.args
    if args.deepep_mode == "normal":
        raise ConflictError(
            "moe_a2a_backend='pplx' only supports low-latency mode; set --deepep-mode to "
            "'low_latency' or 'auto'.",
            fields=("deepep_mode", "moe_a2a_backend"),
            fix="pass --deepep-mode low_latency (or auto)",
        )
    if not (args.enable_dp_attention and args.dp_size >= 2):
        raise _assert(
            "moe_a2a_backend='pplx' requires --enable-dp-attention with at least 2 DP groups (--dp-size >= 2).",
            ("moe_a2a_backend", "enable_dp_attention", "dp_size"),
            "pass --enable-dp-attention --dp-size 2 (or more)",
        )
    if args.moe_runner_backend not in ("deep_gemm", "auto"):
        raise _assert(
            "moe_a2a_backend='pplx' is only supported with --moe-runner-backend deep_gemm (or auto).",
            ("moe_a2a_backend", "moe_runner_backend"),
            "pass --moe-runner-backend deep_gemm (or auto)",
        )
    out = {}
    if args.moe_runner_backend == "auto":
        out["moe_runner_backend"] = "deep_gemm"
    chunk = args.chunked_prefill_size
    if chunk is None:
        # sglang's memory-dependent default is at least 2048, divided by dp_size under DP
        # attention: refuse only when even that lower bound exceeds the budget.
        chunk = 2048 // max(1, args.dp_size)
    budget = int(ctx.env.get("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK", 128))
    if chunk > 0 and args.disaggregation_mode != "decode" and chunk > budget:
        raise _assert(
            "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 128) must be >= the per-rank pplx "
            "dispatch tokens (chunked_prefill_size, or the decode cuda-graph batch size)",
            ("chunked_prefill_size", "moe_a2a_backend"),
            f"pass --chunked-prefill-size {budget * max(1, args.dp_size)} (split over the DP groups) "
            "or raise SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
        )
    return out


@registry.rule("parallelism", until="0.5.17", series="a2a_moe_checks")
def a2a_moe_checks(ctx):
    """``_handle_a2a_moe``: Waterfill re-enables and FlashInfer A2A disables the shared-experts
    fusion; DeepEP ``normal`` mode runs without CUDA graphs; FlashInfer A2A needs DP attention
    with ``dp_size == tp_size`` and a FlashInfer MoE runner; MoRI caps the chunked prefill."""
    return _a2a_moe_checks(ctx, since_0_5_17=False)


@registry.rule("parallelism", since="0.5.17", series="a2a_moe_checks")
def a2a_moe_checks_0_5_17(ctx):
    """``_handle_a2a_moe`` (0.5.17): as before, plus DeepEP with the ``flashinfer_cutedsl`` FP4
    runner refuses ``--deepep-mode normal`` (before the CUDA-graph write), and the new ``pplx``
    backend's checks (low latency only, DP attention with two or more DP groups, deep_gemm
    runner, dispatch-token budget)."""
    return _a2a_moe_checks(ctx, since_0_5_17=True)
