"""Decode context parallelism (``--dcp-size > 1``) checks added in sglang 0.5.22.

Invariant: every rule here only refuses, and only since 0.5.22 (no earlier release has these
checks); the DSA-specific DCP rules live with the DeepSeek family (``families/deepseek.py``).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..facts import effective_backends, is_deepseek_dsa, is_mla


def _dsa(ctx) -> bool:
    return is_deepseek_dsa(ctx.hf, ctx.release)


@registry.rule("model", since="0.5.22", only_if_set=("dcp_size",))
def npu_dcp_dsa_only(ctx):
    """``model_hook.handle_model_specific_adjustments`` (since 0.5.22): DCP on Ascend NPUs is
    implemented for DeepSeek DSA models only."""
    if not (ctx.platform.is_npu and ctx.args.dcp_size > 1) or _dsa(ctx):
        return {}
    raise ConflictError(
        "NPU decode context parallelism is currently implemented only for DeepSeek DSA models; got "
        f"{ctx.arch}. Set --decode-context-parallel-size=1 or use a DSA model.",
        fields=("dcp_size",),
        fix=Fix(set={"dcp_size": 1}),
    )


@registry.rule("parallelism", since="0.5.22", only_if_set=("dcp_size",))
def dcp_without_prefill_cp(ctx):
    """``parallel_hook`` DCP validation (since 0.5.22): DCP and prefill CP exclude each other."""
    if ctx.args.dcp_size > 1 and ctx.args.enable_prefill_cp:
        raise ConflictError(
            "--dcp-size > 1 does not support --enable-prefill-cp.",
            fields=("dcp_size", "enable_prefill_cp"),
            fix=Fix.any_of(
                Fix(set={"dcp_size": 1}),
                Fix(drop=("enable_prefill_cp",)),
                text="pass --dcp-size 1 or drop --enable-prefill-cp",
            ),
        )
    return {}


@registry.rule("attention_checks", since="0.5.22", only_if_set=("dcp_size",))
def xpu_dcp_checks(ctx):
    """``attention_hook._check_xpu_dcp`` (since 0.5.22), the parts this pack's inputs express: both
    phases on intel_xpu, no MLA, ``dcp_size`` divides ``tp_size``, no speculative decoding. (The
    KV-head layout and GQA-group limits of the same function are not modelled.)"""
    args = ctx.args
    if not (ctx.platform.is_xpu and args.dcp_size > 1):
        return {}
    dcp, tp = args.dcp_size, args.tp_size
    if set(effective_backends(args)) != {"intel_xpu"}:
        raise _xpu("--dcp-size > 1 on Intel XPU needs --attention-backend intel_xpu.", "attention_backend")
    if is_mla(ctx.hf, ctx.release):
        raise _xpu("--dcp-size > 1 is not supported for MLA models on Intel XPU.", "dcp_size")
    if tp % dcp:
        raise _xpu(f"--dcp-size {dcp} must divide --tp-size {tp}.", "tp_size")
    if args.speculative_algorithm is not None:
        raise _xpu(
            "--dcp-size > 1 with speculative decoding is not supported on Intel XPU.", "speculative_algorithm"
        )
    return {}


def _xpu(message: str, field: str) -> ConflictError:
    fields = ("dcp_size",) if field == "dcp_size" else ("dcp_size", field)
    return ConflictError(
        message,
        fields=fields,
        fix=Fix(set={"dcp_size": 1}, text="pass --dcp-size 1, or change the named flag"),
    )
