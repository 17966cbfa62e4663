"""Stage "model_overrides": the attention-related ``verify_and_update_config`` of model classes.

Spec §2 (model-specific overrides), from ``model_executor/models/config.py``. Invariant: a rule
only writes what vLLM writes, and only when vLLM would (a user's explicit value is kept unless
vLLM itself overrides it, then ``Force`` with vLLM's reason).
"""

from __future__ import annotations

from .. import fa_version as FA
from .._base import registry
from ..changes import CHANGES
from ..layers import layer_queries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@registry.for_arch(
    "GlmMoeDsaForCausalLM", "Glm5NextForCausalLM", "Glm5NextForConditionalGeneration", stage="model_overrides"
)
def glm_dsa_fp8_cache_on_sm10x(ctx: Any) -> dict[str, Any]:
    """Spec §2 (``GlmMoeDsaForCausalLM`` from 0.32 / ``Glm5NextModelConfig`` from 0.33): on CUDA
    SM10x an auto kv-cache becomes fp8 (config-3117-00458: glm-5 on B300 keeps auto on 0.30-0.31)."""
    p = ctx.platform
    if ctx.args.kv_cache_dtype != "auto" or p.vendor != "cuda" or not p.capability or p.capability[0] != 10:
        return {}
    since = (
        CHANGES.GLM_DSA_FP8_CACHE_SM10X
        if ctx.arch == "GlmMoeDsaForCausalLM"
        else CHANGES.GLM5_NEXT_FP8_CACHE_SM10X
    )
    if not ctx.release.has(since):
        return {}
    if ctx.arch == "GlmMoeDsaForCausalLM":
        return {"kv_cache_dtype": "fp8_e4m3"}
    return {"kv_cache_dtype": "fp8"} if ctx.hf.text_config.get("index_topk") is not None else {}


@registry.for_arch(
    "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration",
    "EmbeddingGemma2Model",
    stage="model_overrides",
)
def gemma4_heterogeneous_heads(ctx: Any) -> dict[str, Any]:
    """Spec §2 (``Gemma4Config.verify_and_update_config``): heterogeneous head dims use FA4 for every
    layer when FA4 is available (per-layer FA3/FA4 on SM90 with an fp8 cache), else TRITON_ATTN
    (not on XPU); EmbeddingGemma2 then defaults to TRITON_ATTN."""
    qs = layer_queries(
        ctx.hf,
        ctx.args,
        ctx.platform,
        ctx.env,
        user_block_size=None,
        kernels=frozenset(ctx.args.installed_kernels),
    )
    out: dict[str, Any] = {}
    heads = {q.head_size for q in qs}
    if len(heads) > 1:
        if qs and FA.fa_supported(qs[0], 4) and max(heads) <= 512:
            if ctx.args.flash_attn_version is None and ctx.args.attention_backend in (None, "FLASH_ATTN"):
                per_layer = qs[0].family(90) and str(ctx.args.kv_cache_dtype).startswith("fp8")
                if not per_layer:
                    out["flash_attn_version"] = 4
        elif ctx.platform.vendor != "xpu" and ctx.args.attention_backend is None:
            out["attention_backend"] = "TRITON_ATTN"
    if (
        ctx.arch == "EmbeddingGemma2Model"
        and ctx.args.attention_backend is None
        and "attention_backend" not in out
    ):
        out["attention_backend"] = "TRITON_ATTN"
    return out
