"""Which resolved SGLang fields a launch makes irrelevant (``Pack.not_applicable``): ``explain``
and ``resolve`` leave them out unless ``--all`` (issue 26, "only what applies").

A field group applies only where the model (its config) or the launch has the feature the group
configures; each test reads the same facts sglang reads:

* DeepSeek sparse attention (``dsa_*``): ``model_config.is_deepseek_dsa`` needs ``index_topk`` in
  the config (``facts.is_deepseek_dsa``); MLA itself has no field of its own in ``ServerArgs``;
* speculative decoding (``speculative_*``, ``enable_multi_layer_eagle``): only with a
  ``--speculative-algorithm`` (``ServerArgs._handle_speculative_decoding``);
* hybrid linear attention / mamba (``mamba_*``, ``linear_attn_backend``, the mamba radix cache):
  only for a model with linear-attention layers (``configs/model_config.py``: the hybrid GDN /
  mamba architectures; ``resolvable.memory.attention_shape(...).is_hybrid_linear``);
* the hybrid SWA memory pool (``swa_full_tokens_ratio``, ``disable_hybrid_swa_memory``): only for
  ``is_hybrid_swa_model`` architectures with sliding-window layers (``sglang.memory.HYBRID_SWA_ARCHS``);
* diffusion LLM (``dllm_*``): only with a ``--dllm-algorithm``.

Invariants: standard library only; a field the resolution does not hold is never named; without
the model's config (``hf`` None) nothing is left out.
"""

from __future__ import annotations

from typing import Any

DSA_FIELDS = (
    "dsa_prefill_backend",
    "dsa_decode_backend",
    "enable_dsa_prefill_context_parallel",
    "dsa_prefill_cp_mode",
)
SPECULATIVE_FIELDS = (
    "speculative_draft_attention_backend",
    "speculative_eagle_topk",
    "speculative_moe_a2a_backend",
    "speculative_moe_runner_backend",
    "speculative_num_draft_tokens",
    "speculative_num_steps",
    "enable_multi_layer_eagle",
)
LINEAR_FIELDS = (
    "linear_attn_backend",
    "mamba_backend",
    "mamba_radix_cache_strategy",
    "uses_mamba_radix_cache",
    "mamba_track_interval",
)
HYBRID_SWA_FIELDS = ("swa_full_tokens_ratio", "disable_hybrid_swa_memory")
DLLM_FIELDS = ("dllm_algorithm",)


def _unset(res: Any, field: str) -> bool:
    return field in res and res[field] in (None, "", "none", "None")


def not_applicable(res: Any, hf: Any = None) -> frozenset[str]:
    """The fields of ``res`` that the model ``hf`` (its ``HFConfig``) or the launch makes irrelevant."""
    if hf is None:
        return frozenset()
    from ..memory import attention_shape
    from .memory import HYBRID_SWA_ARCHS

    out: list[str] = []
    if hf.text_config.get("index_topk") is None:
        out += DSA_FIELDS
    if _unset(res, "speculative_algorithm"):
        out += SPECULATIVE_FIELDS
    try:
        shape = attention_shape(hf)
    except (ValueError, TypeError, KeyError):  # a config not shaped here: those groups stay shown
        shape = None
    if shape is not None and not shape.is_hybrid_linear:
        out += LINEAR_FIELDS
    archs = set(hf.get("architectures") or ())
    if shape is not None and not (archs & HYBRID_SWA_ARCHS and shape.swa_layers > 0):
        out += HYBRID_SWA_FIELDS
    if _unset(res, "dllm_algorithm") or "dllm_algorithm" not in res:
        out += DLLM_FIELDS
    return frozenset(f for f in out if f in res)
