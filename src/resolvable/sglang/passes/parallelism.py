"""Data and pipeline parallelism checks of ``ServerArgs`` (sglang 0.5.15 step 21, spec §2.2).

Sources: server_args.py ``_handle_data_parallelism`` (with overrides.py ``_dp_lm_head_validation``),
``_handle_pipeline_parallelism`` (overrides.py ``_pipeline_parallel_overlap_disable``) and, before
0.5.8, the data-parallel check of ``_handle_disaggregation``.
Invariant: these rules run after ``data_parallelism_defaults`` (``dp_size == 1`` switches DP
attention off), so "DP attention" here always means ``dp_size > 1``.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import env_flag


@registry.rule("parallelism", only_if_set=("enable_dp_attention",))
def dp_attention_chunked_prefill(ctx):
    """``_handle_data_parallelism`` (since 0.5.22 ``parallel_hook.handle_data_parallelism``): DP
    attention needs ``tp_size % dp_size == 0`` and divides the chunked prefill size by
    ``dp_size`` ("to avoid MoE kernel issues"). ``ATTN_DP_SIZE_WORDING`` (0.5.22): stated over
    the attention-DP size."""
    args = ctx.args
    if not args.enable_dp_attention:
        return {}
    tp, dp = args.tp_size, args.dp_size
    dp_name = "attn_dp_size" if ctx.release.has(CHANGES.ATTN_DP_SIZE_WORDING) else "dp_size"
    if tp % dp:
        raise ConflictError(  # sglang: a bare ``assert ... tp_size % ...dp_size == 0``
            f"tp_size ({tp}) must be divisible by {dp_name} ({dp}) when DP attention is enabled.",
            fields=("tp_size", "dp_size", "enable_dp_attention"),
            # the divisors of tp, largest first: the value is what the checker tries, the text
            # stays the author's (read back as prose it would set --tp-size instead)
            fix=Fix.any_of(
                *(Fix(set={"dp_size": d}) for d in range(tp, 0, -1) if tp % d == 0),
                text=f"pass a --dp-size that divides --tp-size {tp}",
            ),
            upstream="AssertionError",
        )
    chunk = args.chunked_prefill_size
    if chunk is None or dp == 1:
        return {}  # the memory-profiled default is not modelled (docs/fidelity.md)
    return {
        "chunked_prefill_size": Force(
            chunk // dp, f"DP attention divides the chunked prefill size by {dp_name} ({dp})"
        )
    }


@registry.rule("parallelism", until="0.5.8")
def pd_decode_dp_round_robin(ctx):
    """``_handle_disaggregation`` before 0.5.8: a PD decode server with ``dp_size > 1`` asserts
    ``--prefill-round-robin-balance`` (skipped in sglang's CI, ``SGLANG_IS_IN_CI``); 0.5.8
    deprecated the flag (ignored since) and dropped the check."""
    args = ctx.args
    if args.disaggregation_mode != "decode" or args.dp_size <= 1 or args.prefill_round_robin_balance:
        return {}
    if env_flag(ctx, "SGLANG_IS_IN_CI"):
        return {}
    raise ConflictError(
        "Prefill round robin balance is required when dp size > 1. Launch the prefill instance with "
        "--load-balance-method round_robin and set --prefill-round-robin-balance on the decode server.",
        fields=("dp_size", "disaggregation_mode"),
        fix=Fix(set={"prefill_round_robin_balance": True}, text="add --prefill-round-robin-balance"),
        upstream="AssertionError",
    )


@registry.rule("parallelism", only_if_set=("enable_dp_lm_head",))
def dp_lm_head_validation(ctx):
    """``_dp_lm_head_validation``: the DP LM head needs DP attention."""
    args = ctx.args
    if args.enable_dp_lm_head and not args.enable_dp_attention:
        raise ConflictError(
            "Please enable dp attention when setting enable_dp_lm_head. ",
            fields=("enable_dp_lm_head", "enable_dp_attention"),
            fix=Fix.any_of(
                Fix(set={"enable_dp_attention": True, "dp_size": 2}),
                Fix(drop=("enable_dp_lm_head",)),
                text="pass --enable-dp-attention (with --dp-size > 1) or drop --enable-dp-lm-head",
            ),
            upstream="AssertionError",
        )
    return {}


@registry.rule("parallelism", only_if_set=("pp_size",))
def pipeline_parallel_overlap_disable(ctx):
    """``_pipeline_parallel_overlap_disable``: pipeline parallelism runs without the overlap scheduler."""
    args = ctx.args
    if args.pp_size > 1 and not args.disable_overlap_schedule:
        return {"disable_overlap_schedule": True}
    return {}


@registry.rule("parallelism", since="0.5.21", only_if_set=("attn_cp_size",))
def boundary_parallelism_cp_checks(ctx):
    """Since 0.5.21 (``arg_groups/parallel_hook._boundary_parallelism_overrides``, at the head of
    ``handle_context_parallelism``): Nemotron-H (model_type ``nemotron_h``/``nemotron_h_puzzle``)
    refuses ``--attn-cp-size > 1``; LongCat-Flash refuses ``--enable-prefill-cp`` with it."""
    args = ctx.args
    if args.attn_cp_size <= 1:
        return {}
    model_type = ctx.hf.get("model_type")
    if model_type in ("nemotron_h", "nemotron_h_puzzle"):
        raise ConflictError(
            "Nemotron-H does not support --attn-cp-size > 1",
            fields=("attn_cp_size",),
            fix=Fix(set={"attn_cp_size": 1}),
        )
    if model_type == "longcat_flash" and args.enable_prefill_cp:
        raise ConflictError(
            "LongCat-Flash does not support --enable-prefill-cp with --attn-cp-size > 1",
            fields=("enable_prefill_cp", "attn_cp_size"),
            fix=Fix.any_of(
                Fix(drop=("enable_prefill_cp",)),
                Fix(set={"attn_cp_size": 1}),
                text="drop --enable-prefill-cp or pass --attn-cp-size 1",
            ),
        )
    return {}


@registry.rule("device", since="0.5.21", only_if_set=("moe_a2a_backend",))
def mega_moe_compat(ctx):
    """Since 0.5.21 (``arg_groups/mega_moe_hook.check_mega_moe_compat``, the first pipeline step):
    ``--moe-a2a-backend megamoe`` has no two-batch-overlap split and needs CUDA SM90 or SM100
    (ROCm runs aiter MegaMoEv2)."""
    args, platform = ctx.args, ctx.platform
    if args.moe_a2a_backend != "megamoe":
        return {}
    if args.enable_two_batch_overlap:
        raise ConflictError(
            "--moe-a2a-backend megamoe has no two-batch / single-batch overlap decomposition; disable "
            "--enable-two-batch-overlap and --enable-single-batch-overlap.",
            fields=("moe_a2a_backend", "enable_two_batch_overlap"),
            fix=Fix(drop=("enable_two_batch_overlap",)),
        )
    if not ((platform.is_cuda and (platform.is_sm90 or platform.is_sm100)) or platform.is_hip):
        raise ConflictError(
            "--moe-a2a-backend megamoe needs a CUDA SM90 GPU (block-FP8 experts) or an SM100-class GPU "
            "(MXFP4 / NVFP4 experts); it runs DeepGEMM kernels over CUDA symmetric memory. On ROCm, set "
            "SGLANG_AMD_USE_FLYDSL_MEGA_MOE=1 to select aiter MegaMoEv2 instead.",
            fields=("moe_a2a_backend",),
            fix=Fix(another=("moe_a2a_backend",), text="use another --moe-a2a-backend on this GPU"),
        )
    return {}
