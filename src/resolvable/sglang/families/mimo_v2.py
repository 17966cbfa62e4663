"""MiMo-V2 (spec §3.16).

Invariants: fused-QKV MiMo-V2 needs an effective attention TP equal to its KV-head count;
EAGLE turns on multi-layer EAGLE; up to 0.5.18 the hierarchical cache needs the unified radix
tree. No
attention fill: attention sinks keep flashinfer out of the generic default.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..facts import env_flag

ARCHS = ("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM")


@registry.rule("model", archs=ARCHS, until="0.5.19", series="mimo_v2_defaults")
def mimo_v2_defaults(ctx):
    """§3.16 (up to 0.5.18): fused-QKV TP check; HiCache needs the unified radix tree
    (``SGLANG_ENABLE_UNIFIED_RADIX_TREE``); EAGLE is multi-layer."""
    return _mimo_v2(ctx, hicache_needs_unified_tree=True)


@registry.rule("model", archs=ARCHS, since="0.5.19", series="mimo_v2_defaults")
def mimo_v2_defaults_0_5_19(ctx):
    """§3.16 (since 0.5.19, ``arg_groups/model_hook.py:handle_model_specific_adjustments``): as
    before, without the HiCache refusal (the MiMoV2 branch no longer checks the radix tree)."""
    return _mimo_v2(ctx, hicache_needs_unified_tree=False)


def _mimo_v2(ctx, *, hicache_needs_unified_tree: bool) -> dict:
    args, hf = ctx.args, ctx.hf
    if ctx.arch == "MiMoV2ForCausalLM" and not hf.get("encoder_only"):
        layout = hf.get("attention_projection_layout")
        if layout == "fused_qkv":
            expected = hf.get_typed("num_key_value_heads", int)
            dp = args.dp_size if args.enable_dp_attention else 1
            effective = args.tp_size // dp // max(1, args.attn_cp_size)
            if expected is not None and effective != expected:
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
    if (
        hicache_needs_unified_tree
        and args.enable_hierarchical_cache
        and not env_flag(ctx, "SGLANG_ENABLE_UNIFIED_RADIX_TREE")
    ):
        raise ConflictError(
            f"{ctx.arch} with --enable-hierarchical-cache requires SGLANG_ENABLE_UNIFIED_RADIX_TREE=1",
            fields=("enable_hierarchical_cache",),
            fix="set SGLANG_ENABLE_UNIFIED_RADIX_TREE=1",
        )
    if args.speculative_algorithm == "EAGLE":
        return {"enable_multi_layer_eagle": True}
    return {}
