"""Data and pipeline parallelism checks of ``ServerArgs`` (sglang 0.5.15 step 21, spec §2.2).

Sources: server_args.py ``_handle_data_parallelism`` (with overrides.py ``_dp_lm_head_validation``)
and ``_handle_pipeline_parallelism`` (overrides.py ``_pipeline_parallel_overlap_disable``).
Invariant: these rules run after ``data_parallelism_defaults`` (``dp_size == 1`` switches DP
attention off), so "DP attention" here always means ``dp_size > 1``.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry


@registry.rule("parallelism")
def dp_attention_chunked_prefill(ctx):
    """``_handle_data_parallelism``: DP attention needs ``tp_size % dp_size == 0`` and divides
    the chunked prefill size by ``dp_size`` ("to avoid MoE kernel issues")."""
    args = ctx.args
    if not args.enable_dp_attention:
        return {}
    tp, dp = args.tp_size, args.dp_size
    if tp % dp:
        raise ConflictError(  # sglang: a bare ``assert self.tp_size % self.dp_size == 0``
            f"tp_size ({tp}) must be divisible by dp_size ({dp}) when DP attention is enabled.",
            fields=("tp_size", "dp_size", "enable_dp_attention"),
            fix=f"pass a --dp-size that divides --tp-size {tp}",
            upstream="AssertionError",
        )
    chunk = args.chunked_prefill_size
    if chunk is None or dp == 1:
        return {}  # the memory-profiled default is not modelled (docs/fidelity.md)
    return {
        "chunked_prefill_size": Force(
            chunk // dp, f"DP attention divides the chunked prefill size by dp_size ({dp})"
        )
    }


@registry.rule("parallelism")
def dp_lm_head_validation(ctx):
    """``_dp_lm_head_validation``: the DP LM head needs DP attention."""
    args = ctx.args
    if args.enable_dp_lm_head and not args.enable_dp_attention:
        raise ConflictError(
            "Please enable dp attention when setting enable_dp_lm_head. ",
            fields=("enable_dp_lm_head", "enable_dp_attention"),
            fix="pass --enable-dp-attention (with --dp-size > 1) or drop --enable-dp-lm-head",
            upstream="AssertionError",
        )
    return {}


@registry.rule("parallelism")
def pipeline_parallel_overlap_disable(ctx):
    """``_pipeline_parallel_overlap_disable``: pipeline parallelism runs without the overlap scheduler."""
    args = ctx.args
    if args.pp_size > 1 and not args.disable_overlap_schedule:
        return {"disable_overlap_schedule": True}
    return {}
