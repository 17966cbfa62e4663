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

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES, in_release
from ..checkpoint import hf_quantization_config
from ..facts import env_flag

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
#: overrides.py ``_A2A_EP_SPANNING_BACKENDS``: expert parallelism spans the TP group.
#: ``pplx`` (since 0.5.17) and ``deepep_v2`` (since 0.5.19) are refused by earlier releases
#: (passes/release_choices.py).
_EP_SPANNING = (
    "megamoe",
    "deepep",
    "deepep_v2",
    "mooncake",
    "nixl",
    "ascend_fuseep",
    "flashinfer",
    "mori",
    "pplx",
)


def _assert(message: str, fields: tuple[str, ...], fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="AssertionError")


def _value_error(message: str, fields: tuple[str, ...], fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix, upstream="ValueError")


def has_nvfp4_moe_meta(hf) -> bool:
    """``ModelConfig.nvfp4_moe_meta`` is set: a MIXED_PRECISION checkpoint with NVFP4 MoE and a group size."""
    qc = hf_quantization_config(hf) or {}
    return (
        str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"
        and str(qc.get("moe_quant_algo", "")).upper() == "NVFP4"
        and qc.get("group_size") is not None
    )


_NVFP4_RUNNERS = (
    ("flashinfer_trtllm", None),
    ("flashinfer_trtllm_routed", None),
    ("flashinfer_cutedsl", CHANGES.MOE_NVFP4_ONLINE_CUTEDSL),
)
_MXFP8_RUNNERS = (
    ("cutlass", None),
    ("deep_gemm", CHANGES.MOE_MXFP8_DEEP_GEMM),
    ("flashinfer_trtllm", CHANGES.MOE_MXFP8_TRTLLM),
    ("flashinfer_trtllm_routed", CHANGES.MOE_MXFP8_TRTLLM),
)


@registry.rule("parallelism")
def moe_runner_backend_quant_constraints(ctx):
    """``_moe_runner_backend_quant_constraints``: nvfp4_online needs SM100 and a TRT-LLM runner
    (auto → flashinfer_trtllm; ``flashinfer_cutedsl`` too since 0.5.18); mxfp8 runs on cutlass or
    TRT-LLM (others overridden; ``MOE_MXFP8_DEEP_GEMM``, 0.5.16: also deep_gemm, and triton on
    gfx95 ROCm, its default there; ``MOE_NVFP4_ONLINE_CUTEDSL``, 0.5.18: not checked on NPU;
    before ``MOE_MXFP8_TRTLLM``, 0.5.10, cutlass only, forced over any other runner);
    modelopt_fp4 on SM120 uses flashinfer_cutlass."""
    args, platform, has = ctx.args, ctx.platform, ctx.release.has
    runner, quant = args.moe_runner_backend, args.quantization
    chosen = runner
    if quant == "nvfp4_online":
        if not platform.is_sm100:
            raise ConflictError(
                "--quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs.",
                fields=("quantization",),
                fix=Fix(another=("quantization",), text="use another --quantization on this GPU"),
            )
        if runner == "auto":
            chosen = "flashinfer_trtllm"
        elif runner not in in_release(ctx.release, _NVFP4_RUNNERS):
            cutedsl = ", or flashinfer_cutedsl" if has(CHANGES.MOE_NVFP4_ONLINE_CUTEDSL) else ""
            raise ConflictError(
                "--quantization nvfp4_online supports only --moe-runner-backend flashinfer_trtllm or "
                f"flashinfer_trtllm_routed{cutedsl}.",
                fields=("quantization", "moe_runner_backend"),
                fix=Fix(set={"moe_runner_backend": "flashinfer_trtllm"}),
            )
    if quant == "mxfp8" and not (platform.is_npu and has(CHANGES.MOE_NVFP4_ONLINE_CUTEDSL)):
        gfx95 = platform.is_gfx95 and has(CHANGES.MOE_MXFP8_DEEP_GEMM)
        allowed = in_release(ctx.release, _MXFP8_RUNNERS) + (("triton",) if gfx95 else ())
        default = "triton" if gfx95 else "flashinfer_trtllm" if has(CHANGES.MOE_MXFP8_TRTLLM) else "cutlass"
        if runner == "auto":
            chosen = default
        elif runner not in allowed:
            chosen = Force(default, f"mxfp8 supports only {', '.join(allowed)} MoE runners")
    if chosen == "auto" and quant == "modelopt_fp4" and platform.is_sm120:
        chosen = "flashinfer_cutlass"
    return {} if chosen == runner else {"moe_runner_backend": chosen}


#: The quantizations the CuteDSL and the routed TRT-LLM MoE runners serve, in the message's
#: order, each with the change that added it.
_CUTEDSL_QUANT = (
    ("modelopt_fp4", None),
    ("modelopt_mixed", CHANGES.MOE_MIXED_CUTEDSL_ROUTED),
    ("nvfp4_online", CHANGES.MOE_CUTEDSL_NVFP4_ONLINE),
)
_ROUTED_QUANT = (
    ("fp8", None),
    ("mxfp8", None),
    ("modelopt_fp4", CHANGES.MOE_CUTEDSL_CHECKS_ROUTED_FP4),
    ("modelopt_mixed", CHANGES.MOE_MIXED_CUTEDSL_ROUTED),
    ("nvfp4_online", None),
    (None, None),
)


def _listed(quants: tuple) -> str:
    """sglang's wording of a quantization list: 'a', 'b', or bfloat16 (None)."""
    return ", ".join(f"'{q}'" for q in quants if q is not None) + ", or bfloat16 (None)."


@registry.rule("parallelism")
def moe_runner_backend_checks(ctx):
    """``_handle_moe_kernel_config`` asserts: each FlashInfer MoE runner's quantizations, and
    ``ep_size`` 1 or ``tp_size`` for the cutlass/cutedsl runners. ``MOE_MIXED_CUTEDSL_ROUTED``
    (0.5.16): ``modelopt_mixed`` (NVFP4 MoE layers) is accepted by the CuteDSL and the routed
    TRT-LLM runners; ``MOE_CUTEDSL_NVFP4_ONLINE`` (0.5.18): CuteDSL also serves ``nvfp4_online``
    and refuses ``deepep`` with it (per-token NVFP4 activation). ``MOE_CUTEDSL_CHECKS_ROUTED_FP4``
    (0.5.11): the CuteDSL runner is checked at all, and the routed TRT-LLM runner takes
    ``modelopt_fp4``. ``TRTLLM_MOE_BF16_COMPRESSED`` (0.5.7): the TRT-LLM runner takes
    compressed-tensors and unquantized models (before: modelopt_fp4, modelopt_fp8 or fp8 only). Before
    ``FLASHINFER_CUTLASS_MOE_FP8_BF16`` (0.5.6) the cutlass runner took ``modelopt_fp4`` only."""
    args, has = ctx.args, ctx.release.has
    runner, quant, ep, tp = args.moe_runner_backend, args.quantization, args.ep_size, args.tp_size
    fields = ("moe_runner_backend", "quantization")
    ep_message = "The expert parallel size must be 1 or the same as the tensor parallel size"
    if runner == "flashinfer_cutlass":
        if not has(CHANGES.FLASHINFER_CUTLASS_MOE_FP8_BF16) and quant != "modelopt_fp4":
            raise _assert(
                "modelopt_fp4 quantization is required for Flashinfer Cutlass MOE",
                fields,
                Fix(another=("moe_runner_backend",), note="for this quantization"),
            )
        if quant not in _CUTLASS_QUANT:
            raise _assert(
                f"Invalid quantization '{quant}'. \nFlashInfer Cutlass MOE supports only: 'modelopt_fp4', "
                "'modelopt_fp8', 'modelopt_mixed', or bfloat16 (None).",
                fields,
                Fix(another=("moe_runner_backend",), note="for this quantization"),
            )
        if ep not in (1, tp):
            raise _assert(
                ep_message,
                ("ep_size", "tp_size"),
                Fix.any_of(
                    Fix(set={"ep_size": 1}), Fix(set={"ep_size": tp}), text=f"pass --ep-size 1 or {tp}"
                ),
            )
    if runner == "flashinfer_cutedsl" and has(CHANGES.MOE_CUTEDSL_CHECKS_ROUTED_FP4):
        cutedsl = in_release(ctx.release, _CUTEDSL_QUANT)
        if quant not in cutedsl and not has_nvfp4_moe_meta(ctx.hf):
            named = [f"'{q}'" for q in cutedsl]
            if "modelopt_mixed" in cutedsl:
                named[1] += " (with NVFP4 MoE layers)"
            raise _assert(
                f"Invalid quantization '{quant}'. \nFlashInfer CuteDSL MOE currently supports only: "
                + ", ".join(named)
                + (", or hybrid NVFP4 models." if len(named) > 1 else " or hybrid NVFP4 models."),
                fields,
                "use flashinfer_cutedsl with an NVFP4 (modelopt_fp4) checkpoint only",
            )
        if ep not in (1, tp):
            raise _assert(
                ep_message,
                ("ep_size", "tp_size"),
                Fix.any_of(
                    Fix(set={"ep_size": 1}), Fix(set={"ep_size": tp}), text=f"pass --ep-size 1 or {tp}"
                ),
            )
        if args.moe_a2a_backend not in ("none", "deepep", "flashinfer"):
            raise _assert(
                "flashinfer_cutedsl supports moe_a2a_backend='none', 'deepep', or 'flashinfer', "
                f"got '{args.moe_a2a_backend}'.",
                ("moe_a2a_backend", "moe_runner_backend"),
                Fix.any_of(
                    Fix(set={"moe_a2a_backend": "none"}),
                    Fix(set={"moe_a2a_backend": "deepep"}),
                    Fix(set={"moe_a2a_backend": "flashinfer"}),
                    text="pass --moe-a2a-backend none, deepep or flashinfer",
                ),
            )
        if (
            args.moe_a2a_backend == "deepep"
            and quant == "nvfp4_online"
            and has(CHANGES.MOE_CUTEDSL_NVFP4_ONLINE)
        ):
            raise ConflictError(
                "flashinfer_cutedsl per-token NVFP4 activation requires moe_a2a_backend='none' or "
                "'flashinfer'.",
                fields=("moe_a2a_backend", "moe_runner_backend", "quantization"),
                fix=Fix.any_of(
                    Fix(set={"moe_a2a_backend": "none"}),
                    Fix(set={"moe_a2a_backend": "flashinfer"}),
                    text="pass --moe-a2a-backend none or flashinfer",
                ),
            )
    if runner == "flashinfer_trtllm" and not has(CHANGES.TRTLLM_MOE_BF16_COMPRESSED):
        if quant not in ("modelopt_fp4", "modelopt_fp8", "fp8"):
            raise _assert(
                "modelopt_fp4, modelopt_fp8 or fp8 quantization is required for Flashinfer TRTLLM MoE",
                fields,
                Fix(another=("moe_runner_backend",), note="for this quantization"),
            )
    elif runner in ("flashinfer_trtllm", "experimental_sgl_trtllm") and quant not in _TRTLLM_QUANT:
        raise _assert(
            f"Invalid quantization '{quant}'. \nFlashInfer TRTLLM MOE supports only: 'modelopt_fp4', "
            "'nvfp4_online', 'fp8', 'modelopt_fp8', 'modelopt_mixed', 'compressed-tensors', or bfloat16 (None).",
            fields,
            Fix(another=("moe_runner_backend",), note="for this quantization"),
        )
    routed = in_release(ctx.release, _ROUTED_QUANT)
    if runner == "flashinfer_trtllm_routed" and quant not in routed:
        raise _assert(
            f"Invalid quantization '{quant}'. \nFlashInfer TRTLLM routed MOE supports only: "
            + _listed(routed),
            fields,
            Fix(another=("moe_runner_backend",), note="for this quantization"),
        )
    return {}


@registry.rule("parallelism", only_if_set=("moe_runner_backend",))
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
    """``_cutlass_moe_env_override`` (deprecated ``SGLANG_CUTLASS_MOE``; gone with
    ``CUTLASS_MOE_ENV_GONE``, 0.5.18): cutlass MoE, only for fp8/mxfp8; then
    (``_handle_moe_kernel_config``) FP8/MXFP8 cutlass MoE needs ``ep_size == 1``."""
    args = ctx.args
    out = {}
    runner = args.moe_runner_backend
    if env_flag(ctx, "SGLANG_CUTLASS_MOE") and not ctx.release.has(CHANGES.CUTLASS_MOE_ENV_GONE):
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
            Fix.any_of(
                Fix(set={"ep_size": 1}),
                Fix(another=("moe_runner_backend",)),
                text="pass --ep-size 1 or another --moe-runner-backend",
            ),
        )
    return out


@registry.rule("parallelism")
def a2a_backend_overrides(ctx):
    """``overrides._a2a_backend_overrides``: DeepEP Waterfill needs deepep;
    SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE selects megamoe. ``WATERFILL_DEEPEP_OR_MEGAMOE`` (0.5.18):
    Waterfill (``--enable-waterfill``, 0.5.16's name) needs deepep or megamoe, else deepep; the
    env is no longer read (``--moe-a2a-backend megamoe`` or the runner alias instead). Both
    arrived in 0.5.12 (``MEGAMOE_A2A_WATERFILL``)."""
    args = ctx.args
    if not args.enable_deepep_waterfill and "SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE" not in ctx.env:
        return {}  # neither trigger (asked only when one is there)
    if not ctx.release.has(CHANGES.MEGAMOE_A2A_WATERFILL):
        return {}  # 0.5.11 has neither Waterfill nor MegaMoE
    if ctx.release.has(CHANGES.WATERFILL_DEEPEP_OR_MEGAMOE):
        if args.enable_deepep_waterfill and args.moe_a2a_backend not in ("deepep", "megamoe"):
            return {"moe_a2a_backend": Force("deepep", "Waterfill requires the DeepEP or MegaMOE backend")}
        return {}
    backend = args.moe_a2a_backend
    if args.enable_deepep_waterfill and backend != "deepep":
        backend = "deepep"
    if env_flag(ctx, "SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE") and backend != "megamoe":
        backend = "megamoe"
    if backend == args.moe_a2a_backend:
        return {}
    return {"moe_a2a_backend": Force(backend, "DeepEP Waterfill / SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE")}


@registry.rule("parallelism", only_if_set=("moe_a2a_backend",))
def a2a_ep_size(ctx):
    """``_a2a_ep_size``: an A2A backend makes expert parallelism span the TP group."""
    args = ctx.args
    if args.moe_a2a_backend in _EP_SPANNING and args.ep_size != args.tp_size:
        return {
            "ep_size": Force(args.tp_size, f"--moe-a2a-backend {args.moe_a2a_backend} sets ep_size = tp_size")
        }
    return {}


#: FlashInfer A2A: the MoE runners it accepts and sglang's message, before and since
#: ``FLASHINFER_A2A_MORE_RUNNERS`` (0.5.19).
_FI_A2A_RUNNERS_BEFORE = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm_routed")
_FI_A2A_MESSAGE_BEFORE = (
    "Flashinfer MoE A2A is only supported with flashinfer_cutlass, flashinfer_cutedsl or "
    "flashinfer_trtllm_routed moe runner backend"
)
_FI_A2A_RUNNERS = (
    "flashinfer_cutlass",
    "flashinfer_cutedsl",
    "flashinfer_trtllm",
    "flashinfer_trtllm_routed",
    "deep_gemm",
)
_FI_A2A_MESSAGE = (
    "FlashInfer MoE A2A is supported with flashinfer_cutlass, flashinfer_cutedsl, flashinfer_trtllm, "
    "flashinfer_trtllm_routed, or deep_gemm."
)


#: FlashInfer A2A's topology assert, in each release's words (the Muse Spark TP4/EP4 and TP8/EP8
#: layernorm-SP exceptions of 0.5.23 read flags the pack does not model).
_FI_A2A_DP_MESSAGE = "Flashinfer MoE A2A is only supported with dp_size == tp_size and --enable-dp-attention"
_FI_A2A_ATTN_DP_MESSAGE = "Flashinfer MoE A2A is only supported with --attn-dp-size equal to --tp-size"
_FI_A2A_DP_TOPOLOGY_MESSAGE = (
    "Flashinfer MoE A2A requires --attn-dp-size equal to --tp-size, except for Muse Spark "
    "TP4/EP4 or TP8/EP8 prefill sequence parallelism."
)


#: ``validate_deepep_v2_model_architecture``: the architectures DeepEP v2 is validated for.
_DEEPEP_V2_ARCHS = ("DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM")


def _deepep_v2(ctx, out: dict) -> None:
    """The ``deepep_v2`` block of 0.5.19's ``handle_a2a_moe`` (in its order)."""
    args = ctx.args
    if ctx.arch not in _DEEPEP_V2_ARCHS:
        raise ConflictError(
            f"DeepEP v2 MoE is not validated for {ctx.arch!r}; supported architectures are "
            f"{sorted(_DEEPEP_V2_ARCHS)}. Other model workflows may require an all-reduce after A2A "
            "combine. Use --moe-a2a-backend deepep.",
            fields=("moe_a2a_backend",),
            fix=Fix(set={"moe_a2a_backend": "deepep"}, text="use --moe-a2a-backend deepep"),
            upstream="ValueError",
        )
    if args.enable_deterministic_inference:
        raise _value_error(
            "DeepEP v2 does not forward deterministic=True to ElasticBuffer, so deterministic sorting "
            "remains disabled. Disable --enable-deterministic-inference or use --moe-a2a-backend deepep.",
            ("moe_a2a_backend", "enable_deterministic_inference"),
            "use --moe-a2a-backend deepep, or drop --enable-deterministic-inference",
        )
    if args.moe_runner_backend == "auto":
        out["moe_runner_backend"] = "deep_gemm"
    elif args.moe_runner_backend != "deep_gemm":
        raise _value_error(
            "DeepEP v2 MoE currently supports only --moe-runner-backend deep_gemm. Got "
            f"{args.moe_runner_backend!r}. Add a runner adapter before enabling DeepEP v2 with other "
            "MoE runners.",
            ("moe_a2a_backend", "moe_runner_backend"),
            Fix.any_of(
                Fix(set={"moe_runner_backend": "deep_gemm"}),
                Fix(set={"moe_runner_backend": "auto"}),
                text="pass --moe-runner-backend deep_gemm (or auto)",
            ),
        )
    if args.enable_two_batch_overlap:
        raise _value_error(
            "DeepEP v2 MoE has not implemented the TBO/SBO overlap hooks yet. Disable "
            "--enable-two-batch-overlap and --enable-single-batch-overlap when using --moe-a2a-backend "
            "deepep_v2.",
            ("moe_a2a_backend", "enable_two_batch_overlap"),
            Fix(drop=("enable_two_batch_overlap",)),
        )
    if args.cuda_graph_backend_prefill != "disabled":
        out["cuda_graph_backend_prefill"] = Force(
            "disabled", "DeepEP v2 MoE runs prefill without CUDA graphs"
        )
    if not args.disable_shared_experts_fusion:
        out["disable_shared_experts_fusion"] = True


@registry.rule("parallelism")
def a2a_moe_checks(ctx):
    """``_handle_a2a_moe`` (since 0.5.19 ``moe_hook.handle_a2a_moe``): Waterfill re-enables and
    FlashInfer A2A disables the shared-experts fusion; DeepEP ``normal`` mode runs without CUDA
    graphs; FlashInfer A2A needs DP attention with ``dp_size == tp_size`` and a FlashInfer MoE
    runner; MoRI caps the chunked prefill. ``DEEPEP_CUTEDSL_LOW_LATENCY`` and ``PPLX_A2A``
    (0.5.17): DeepEP with the ``flashinfer_cutedsl`` FP4 runner refuses ``--deepep-mode normal``
    (before the CUDA-graph write), and ``pplx``'s checks (low latency only, DP attention with two
    or more DP groups, deep_gemm runner, dispatch-token budget). ``DEEPEP_V2_A2A`` (0.5.19):
    ``deepep_v2`` (validated architectures only, deterministic inference refused, runner
    ``auto`` → ``deep_gemm`` and any other runner refused, two-batch overlap refused, prefill
    CUDA graph disabled, shared-experts fusion off: ``_a2a_fusion_adjustments``);
    ``FLASHINFER_A2A_MORE_RUNNERS`` (0.5.19)."""
    args, has = ctx.args, ctx.release.has
    backend = args.moe_a2a_backend
    out = {}
    if (
        backend == "deepep"
        and args.moe_runner_backend == "flashinfer_cutedsl"
        and args.deepep_mode == "normal"
        and has(CHANGES.DEEPEP_CUTEDSL_LOW_LATENCY)
    ):
        raise ConflictError(
            "flashinfer_cutedsl FP4 MoE only supports DeepEP low_latency dispatch (masked layout). "
            "DeepEP normal (prefill) dispatch has no CuteDSL FP4 handler. Pass --deepep-mode "
            "low_latency or auto.",
            fields=("deepep_mode", "moe_runner_backend", "moe_a2a_backend"),
            fix=Fix.any_of(
                Fix(set={"deepep_mode": "low_latency"}),
                Fix(set={"deepep_mode": "auto"}),
                text="pass --deepep-mode low_latency (or auto)",
            ),
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
    if backend == "deepep_v2" and has(CHANGES.DEEPEP_V2_A2A):
        _deepep_v2(ctx, out)
    if backend == "flashinfer":
        if not args.disable_shared_experts_fusion:
            out["disable_shared_experts_fusion"] = True
        if not (args.enable_dp_attention and args.dp_size == args.tp_size):
            raise _assert(
                _FI_A2A_DP_TOPOLOGY_MESSAGE
                if has(CHANGES.FLASHINFER_A2A_TOPOLOGY_WORDING)
                else _FI_A2A_ATTN_DP_MESSAGE
                if has(CHANGES.FLASHINFER_A2A_ATTN_DP_WORDING)
                else _FI_A2A_DP_MESSAGE,
                ("moe_a2a_backend", "dp_size", "enable_dp_attention"),
                Fix(set={"enable_dp_attention": True, "dp_size": args.tp_size}),
            )
        more = has(CHANGES.FLASHINFER_A2A_MORE_RUNNERS)
        if args.moe_runner_backend not in (_FI_A2A_RUNNERS if more else _FI_A2A_RUNNERS_BEFORE):
            raise _assert(
                _FI_A2A_MESSAGE if more else _FI_A2A_MESSAGE_BEFORE,
                ("moe_a2a_backend", "moe_runner_backend"),
                Fix(set={"moe_runner_backend": "flashinfer_cutlass"}),
            )
    if backend == "mori":
        chunk = args.chunked_prefill_size
        budget = int(ctx.env.get("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", 4096))
        if chunk is not None and chunk > 0 and args.disaggregation_mode != "decode" and chunk > budget:
            raise _assert(
                "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be >= the per-rank MoRI "
                "dispatch tokens (chunked_prefill_size by default)",
                ("chunked_prefill_size", "moe_a2a_backend"),
                Fix(
                    set={"chunked_prefill_size": budget},
                    note="or raise SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                ),
            )

    if backend == "pplx" and has(CHANGES.PPLX_A2A):
        out.update(_pplx_checks(ctx))
    return out


# -- 0.5.18: the megamoe runner alias ---------------------------------------------------------
#: Choices of ``--moe-runner-backend`` / ``--speculative-moe-runner-backend`` that arrive with
#: ``CHANGES.MEGAMOE_RUNNER_ALIAS`` (0.5.18).
MOE_RUNNER_CHOICES_OF_ALIAS = ("megamoe",)


@registry.rule("device", only_if_set=("moe_runner_backend", "speculative_moe_runner_backend"))
def moe_runner_backend_alias(ctx):
    """``server_args._handle_moe_runner_backend_alias`` (``MEGAMOE_RUNNER_ALIAS``, 0.5.18, the
    first step of ``__post_init__``): ``--moe-runner-backend megamoe`` means ``--moe-a2a-backend
    megamoe`` with the runner left to ``auto`` (another A2A backend is overridden, with a
    warning). Before 0.5.18 argparse refuses it: ``megamoe`` is not a ``--moe-runner-backend``
    choice (``server_args.MOE_RUNNER_BACKEND_CHOICES`` gains it in 0.5.18)."""
    args = ctx.args
    if args.moe_runner_backend != "megamoe" and args.speculative_moe_runner_backend != "megamoe":
        return {}
    if ctx.release.has(CHANGES.MEGAMOE_RUNNER_ALIAS):
        if args.moe_runner_backend != "megamoe":
            return {}
        reason = "--moe-runner-backend megamoe is an alias for --moe-a2a-backend megamoe"
        out = {"moe_runner_backend": Force("auto", reason)}
        if args.moe_a2a_backend != "megamoe":
            out["moe_a2a_backend"] = Force("megamoe", reason)
        return out
    from .. import choices as C

    for field in ("moe_runner_backend", "speculative_moe_runner_backend"):
        value = getattr(ctx.args, field)
        if value in MOE_RUNNER_CHOICES_OF_ALIAS:
            older = [c for c in C.MOE_RUNNER_BACKENDS if c not in MOE_RUNNER_CHOICES_OF_ALIAS]
            flag = "--" + field.replace("_", "-")
            raise ConflictError(
                f"argument {flag}: invalid choice: {value!r} (choose from {', '.join(map(repr, older))})",
                fields=(field,),
                fix=f"use --moe-a2a-backend megamoe, or --sglang-version 0.5.18 or later for {flag} {value}",
                upstream="argparse",
            )
    return {}


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
            fix=Fix.any_of(
                Fix(set={"deepep_mode": "low_latency"}),
                Fix(set={"deepep_mode": "auto"}),
                text="pass --deepep-mode low_latency (or auto)",
            ),
        )
    if not (args.enable_dp_attention and args.dp_size >= 2):
        raise _assert(
            "moe_a2a_backend='pplx' requires --enable-dp-attention with at least 2 DP groups (--dp-size >= 2).",
            ("moe_a2a_backend", "enable_dp_attention", "dp_size"),
            Fix(
                set={"enable_dp_attention": True, "dp_size": 2},
                text="pass --enable-dp-attention --dp-size 2 (or more)",
            ),
        )
    if args.moe_runner_backend not in ("deep_gemm", "auto"):
        raise _assert(
            "moe_a2a_backend='pplx' is only supported with --moe-runner-backend deep_gemm (or auto).",
            ("moe_a2a_backend", "moe_runner_backend"),
            Fix.any_of(
                Fix(set={"moe_runner_backend": "deep_gemm"}),
                Fix(set={"moe_runner_backend": "auto"}),
                text="pass --moe-runner-backend deep_gemm (or auto)",
            ),
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
            Fix(
                set={"chunked_prefill_size": budget * max(1, args.dp_size)},
                note="(split over the DP groups) or raise SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
            ),
        )
    return out
