"""EmbeddingGemma2 (sglang 0.5.22, ``model_overrides/embedding_gemma2.py``).

Invariant: since 0.5.22 the radix cache is off and an unset ``--attention-backend`` is triton;
earlier releases have no rule for this architecture (generic defaults).
"""

from __future__ import annotations

from .._base import registry

ARCH = "EmbeddingGemma2Model"


@registry.rule("model", archs=(ARCH,), since="0.5.22")
def embedding_gemma2_defaults(ctx):
    """``_embedding_gemma2_overrides`` (since 0.5.22): radix cache off; ``A`` := triton when unset."""
    out: dict = {"disable_radix_cache": True}
    if ctx.args.attention_backend is None:
        out["attention_backend"] = "triton"
    return out
