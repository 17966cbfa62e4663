"""MiMo-V2 (spec §3.16).

Invariants: fused-QKV MiMo-V2 needs an effective attention TP equal to its KV-head count;
EAGLE turns on multi-layer EAGLE; up to 0.5.18 the hierarchical cache needs the unified radix
tree. No
attention fill: attention sinks keep flashinfer out of the generic default.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..changes import CHANGES
from ..facts import env_flag, quant_method

#: ``server_args.MIMO_V2_MODEL_ARCHS``: 0.5.11 brought MiMoV2ForCausalLM into the branch (0.5.10
#: matched the ``MiMoV2FlashForCausalLM`` name only).
ARCHS = ArchList(("MiMoV2ForCausalLM", "0.5.11"), "MiMoV2FlashForCausalLM", what="MIMO_V2_MODEL_ARCHS")


@registry.rule("model", archs=ARCHS)
def mimo_v2_defaults(ctx):
    """§3.16 (``overrides._mimo_v2_overrides``, the ``MiMoV2`` branch of the model hook): the
    fused-QKV TP check (``MIMO_V2_TP_DIVIDES``, 0.5.17: the effective attention TP only has to
    divide it), the unified radix tree check (``MIMO_V2_HICACHE_NEEDS_UNIFIED_TREE``, 0.5.14-0.5.18;
    before it the hierarchical cache reset the SWA ratio and hybrid SWA memory),
    multi-layer EAGLE and the SM100 FP8 MoE runner (``MIMO_V2_FP8_TRTLLM_MOE``, 0.5.17)."""
    args, hf, has = ctx.args, ctx.hf, ctx.release.has
    if ctx.arch == "MiMoV2ForCausalLM" and not hf.get("encoder_only"):
        layout = hf.get("attention_projection_layout")
        if layout == "fused_qkv":
            expected = hf.get_typed("num_key_value_heads", int)
            dp = args.dp_size if args.enable_dp_attention else 1
            effective = args.tp_size // dp // max(1, args.attn_cp_size)
            if expected is not None:
                if has(CHANGES.MIMO_V2_TP_DIVIDES):
                    if not (effective > 0 and expected % effective == 0):
                        raise ConflictError(
                            f"MiMoV2ForCausalLM requires effective attention TP size {expected} because its "
                            f"fused qkv_proj weights are TP={expected}-interleaved; got {effective} "
                            f"(tp_size={args.tp_size}, dp_size={args.dp_size}, "
                            f"enable_dp_attention={args.enable_dp_attention}, attn_cp_size={args.attn_cp_size})",
                            fields=("tp_size", "dp_size", "attn_cp_size"),
                            fix=f"choose --tp-size / --dp-size so that the attention TP divides {expected}",
                        )
                elif effective != expected:
                    raise ConflictError(
                        f"MiMoV2ForCausalLM requires effective attention TP size ({effective}) to equal "
                        f"num_key_value_heads ({expected}) with the fused_qkv projection layout",
                        fields=("tp_size", "dp_size", "attn_cp_size"),
                        fix=f"choose --tp-size / --dp-size so that the attention TP is {expected}",
                    )
        elif layout is not None:
            raise ConflictError(
                f"MiMoV2ForCausalLM: unsupported attention_projection_layout {layout!r}",
                fields=(),
                fix="use a config with attention_projection_layout null or 'fused_qkv'",
            )
    out = {}
    if (
        args.enable_hierarchical_cache
        and not has(CHANGES.MIMO_V2_HICACHE_ANY_TREE)
        and not has(CHANGES.MIMO_V2_HICACHE_NEEDS_UNIFIED_TREE)
    ):
        out["swa_full_tokens_ratio"] = 1.0
        out["disable_hybrid_swa_memory"] = True
    if (
        args.enable_hierarchical_cache
        and not env_flag(ctx, "SGLANG_ENABLE_UNIFIED_RADIX_TREE")
        and has(CHANGES.MIMO_V2_HICACHE_NEEDS_UNIFIED_TREE)
    ):
        raise ConflictError(
            f"{ctx.arch} with --enable-hierarchical-cache requires SGLANG_ENABLE_UNIFIED_RADIX_TREE=1",
            fields=("enable_hierarchical_cache",),
            fix=Fix(
                env={"SGLANG_ENABLE_UNIFIED_RADIX_TREE": "1"}, text="set SGLANG_ENABLE_UNIFIED_RADIX_TREE=1"
            ),
        )
    if args.speculative_algorithm == "EAGLE":
        out["enable_multi_layer_eagle"] = True
    if (
        ctx.platform.is_sm100
        and args.moe_runner_backend == "auto"
        and quant_method(hf) == "fp8"
        and has(CHANGES.MIMO_V2_FP8_TRTLLM_MOE)
    ):
        out["moe_runner_backend"] = "flashinfer_trtllm"
    return out


@registry.rule("model", archs=ARCHS, since="0.5.22")
def mimo_v2_fa4_on_sm100(ctx):
    """§3.16 (since 0.5.22, ``arg_groups/model_overrides/mimo_v2.py:_mimo_v2_overrides``): on SM100
    with no attention backend named (A, P and D unset, ``is_attention_backend_not_set``) the MiMo-V2
    override declares ``fa4``. It runs with the model overrides, before the deterministic pass,
    which then keeps fa4 (a deterministic backend that supports the radix cache) instead of filling
    flashinfer; the FA4 page rule then gives 128. Without deterministic inference the answer is
    the same as the 0.5.17 default fill (asymmetric K/V on SM100 → fa4)."""
    args = ctx.args
    if not ctx.platform.is_sm100:
        return {}
    if (args.attention_backend, args.prefill_attention_backend, args.decode_attention_backend) != (None,) * 3:
        return {}
    return {"attention_backend": "fa4"}
