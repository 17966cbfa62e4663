"""Gemma 2 / Gemma 3 / Gemma 3n (spec §3.6).

Invariant: these models run without the hybrid SWA memory pool; attention is left to the
generic default.
"""

from __future__ import annotations

from .._base import registry

ARCHS = (
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "Gemma3nForCausalLM",
    "Gemma3nForConditionalGeneration",
)


@registry.for_arch(*ARCHS)
def gemma2_gemma3_swa_memory(ctx):
    """§3.6: ``disable_hybrid_swa_memory`` := True."""
    return {"disable_hybrid_swa_memory": True}
