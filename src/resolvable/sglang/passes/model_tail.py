"""Step 10i (spec §2.2): the sparse embeddings head runs without the overlap scheduler.

Invariant: reads only the environment mapping given to the resolution.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry


@registry.rule("model_tail")
def sparse_head_overlap_disable(ctx):
    """``SGLANG_EMBEDDINGS_SPARSE_HEAD`` set → ``disable_overlap_schedule`` := True."""
    if ctx.env.get("SGLANG_EMBEDDINGS_SPARSE_HEAD") is not None and not ctx.args.disable_overlap_schedule:
        return {"disable_overlap_schedule": True}
    return {}


@registry.rule("model_tail", since="0.5.21", only_if_set=("mamba_radix_cache_strategy",))
def extra_buffer_needs_mamba_state(ctx):
    """Since 0.5.21 (``arg_groups/model_hook.handle_mamba_radix_cache``, called for every model
    at the end of the model adjustments): an explicit ``extra_buffer`` / ``extra_buffer_lazy``
    strategy with the radix cache on, on a model that does not use the mamba radix cache, is
    refused (before, it was ignored)."""
    args = ctx.args
    if args.uses_mamba_radix_cache or args.disable_radix_cache:
        return {}
    strategy = args.mamba_radix_cache_strategy
    if strategy not in ("extra_buffer", "extra_buffer_lazy"):
        return {}
    arch = ctx.hf.architectures[0] if ctx.hf.architectures else None
    raise ConflictError(
        f"--mamba-radix-cache-strategy {strategy} needs mamba state, got {arch}.",
        fields=("mamba_radix_cache_strategy",),
        fix=Fix(
            drop=("mamba_radix_cache_strategy",),
            text="drop --mamba-radix-cache-strategy (it applies to hybrid mamba models only)",
        ),
    )
