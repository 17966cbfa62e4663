"""Granite SWA models have attention sinks (since sglang 0.5.19).

Invariant: the rule only replaces the generic default's flashinfer by triton (flashinfer has no
attention sinks), when the default would fill ``A``; every other default stands.
"""

from __future__ import annotations

from .._base import registry

ARCHS = ("GraniteSWAForCausalLM", "GraniteMoeSWAForCausalLM")


@registry.rule("attention", archs=ARCHS, since="0.5.19")
def granite_swa_sinks_default(ctx):
    """§4.1 (since 0.5.19, ``configs/model_config.py`` ``SWA_SINK_ARCHS``, ``_detect_attention_sinks``):
    Granite SWA models count as having attention sinks, so the MHA default skips flashinfer and
    falls to triton. Runs before ``attention_backend_default`` (an exact-architecture rule)."""
    args = ctx.args
    prefill = args.prefill_attention_backend
    if args.attention_backend is not None or (
        prefill is not None and prefill == args.decode_attention_backend
    ):
        return {}
    from ..passes.default_backend import default_attention_backend  # registration order: lazy

    if default_attention_backend(ctx) == "flashinfer":
        return {"attention_backend": "triton"}
    return {}
