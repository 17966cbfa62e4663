"""Which attention layer kinds a model has, and the selector query of each (spec §1.1-1.3).

vLLM calls the selector once per attention layer; layers of one kind with the same arguments
get the same backend (``_cached_get_attn_backend``). This module derives, from the HF config,
the resolved arguments and the platform, one ``LayerQuery`` per kind present:

* ``mla`` (DeepSeek-style MLA, ``ModelConfig.use_mla``) and, with ``index_topk``, ``indexer``;
* ``full`` and ``sliding_window`` (from ``layer_types``, ``hybrid_layer_pattern`` or the
  model code's fixed pattern; MLA layers never pass a sliding window);
* ``encoder`` (encoder-only models, ``is_causal: false``; and encoder-decoder encoders) and
  ``cross`` (encoder-decoder cross-attention).

Invariants: pure (reads only its arguments); layers that are not attention (mamba, linear
attention, short conv) are not listed; the head size follows
``transformers_utils/model_arch_config_convertor.py : get_head_size``.
"""

from __future__ import annotations

import contextlib

from ..errors import ConflictError
from ..rules import HFConfig
from .query import LayerQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``is_deepseek_mla`` model types (``model_arch_config_convertor.py``).
MLA_MODEL_TYPES = frozenset(
    {
        "axk1",
        "deepseek_v2",
        "deepseek_v3",
        "deepseek_v32",
        "deepseek_v4",
        "deepseek_v41",
        "dots3_note",
        "deepseek_mtp",
        "k3_dspark",
        "glm5_next",
        "glm5_next_text",
        "glm_moe_dsa",
        "glm4_moe_lite",
        "glm4_moe_lite_mtp",
        "kimi_k2",
        "kimi_linear",
        "longcat_flash",
        "pangu_ultra_moe",
        "pangu_ultra_moe_mtp",
        "bailing_hybrid",
        "bailing_hybrid_mtp",
        "bailing_hybrid_v3_mtp",
        "hy_v4",
        "hy_v4_mtp",
    }
)

#: ``is_mm_prefix_lm`` fallback list (HF ``model_type`` of the top-level config).
MM_PREFIX_MODEL_TYPES = frozenset({"bagel", "gemma3", "molmo2", "moondream3", "paligemma"})

#: Models whose code alternates sliding and full layers without ``layer_types`` in the config.
_ALTERNATING = frozenset({"gemma2", "gemma3", "gemma3_text", "cohere2"})

#: ``layer_types`` entries that are attention layers, by kind.
_FULL_TYPES = frozenset({"full_attention", "attention", "global", "full"})
_SLIDING_TYPES = frozenset({"sliding_attention", "sliding_window", "local", "chunked_attention"})


def _get(hf: Any, key: str, default: Any = None) -> Any:
    value = hf.get(key, default) if hf is not None else default
    return default if value is None else value


def use_mla(hf: HFConfig, env: Any) -> bool:
    """``ModelConfig.use_mla``: not VLLM_MLA_DISABLE, causal, a DeepSeek-MLA model type with kv_lora_rank."""
    if _flag(env, "VLLM_MLA_DISABLE"):
        return False
    t = hf.text_config
    if t.get("is_causal", True) is False:
        return False
    model_type = t.get("model_type")
    if model_type == "eagle":
        inner = t.get("model")
        model_type = inner.get("model_type") if isinstance(inner, HFConfig) else None
    if model_type not in MLA_MODEL_TYPES:
        return False
    if t.get("compress_ratios"):
        return t.get("head_dim") is not None
    return t.get("kv_lora_rank") is not None


def head_size(hf: HFConfig, mla: bool) -> int:
    """``get_head_size``: MLA kv_lora_rank + qk_rope_head_dim, else head_dim, else hidden/heads."""
    t = hf.text_config
    if mla:
        if t.get("compress_ratios"):
            return int(t["head_dim"])
        return int(t["kv_lora_rank"]) + int(_get(t, "qk_rope_head_dim", 0))
    head = t.get("head_dim")
    if isinstance(head, int) and head > 0:
        return head
    if t.get("hidden_size_per_head") is not None:
        return int(t["hidden_size_per_head"])
    # GPT-2 names them n_embd / n_head (transformers' GPT2Config.attribute_map: hidden_size and
    # num_attention_heads read those): 768 / 12 = 64, not 0
    hidden = _get(t, "hidden_size", _get(t, "d_model", _get(t, "n_embd", 0)))
    heads = _get(t, "num_attention_heads", _get(t, "decoder_attention_heads", _get(t, "n_head", 1)))
    return int(hidden) // max(1, int(heads))


def _flag(env: Any, name: str) -> bool:
    value = env.get(name) if env is not None else None
    return value is not None and str(value).strip().lower() in ("1", "true", "yes", "on")


def env_flags(env: Any) -> frozenset[str]:
    """The boolean vLLM switches that are on (vLLM's defaults applied: AITER_MLA/MHA default on)."""
    on = set()
    for name in (
        "VLLM_BATCH_INVARIANT",
        "VLLM_MLA_DISABLE",
        "VLLM_ROCM_USE_AITER",
        "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION",
    ):
        if _flag(env, name):
            on.add(name)
    for name in ("VLLM_ROCM_USE_AITER_MLA", "VLLM_ROCM_USE_AITER_MHA"):
        raw = env.get(name) if env is not None else None
        if raw is None or _flag(env, name):
            on.add(name)
    return frozenset(on)


def kinds_of(hf: HFConfig, mla: bool) -> list[str]:
    """The layer kinds the model has, in a fixed order (see the module docstring)."""
    t = hf.text_config
    if t.get("compress_ratios"):
        raise ConflictError(
            "DeepSeek-V4-style compressed sparse attention (FLASHMLA_SPARSE_DSV4 and its indexer) is not "
            "modelled by the vLLM pack",
            fix="resolve this model with the real vLLM, or use the SGLang pack (--engine sglang)",
            upstream="NotImplementedError",
        )
    if hf.get("is_encoder_decoder") or t.get("is_encoder_decoder"):
        return ["full", "encoder", "cross"]
    if t.get("is_causal", True) is False:
        return ["encoder"]
    if mla:
        return ["mla", "indexer"] if t.get("index_topk") is not None else ["mla"]
    layer_types = t.get("layer_types")
    kinds: list[str] = []
    if layer_types:
        names = set(layer_types)
        if names & _FULL_TYPES:
            kinds.append("full")
        if names & _SLIDING_TYPES:
            kinds.append("sliding_window")
        return kinds or ["full"]
    pattern = t.get("hybrid_layer_pattern")
    window = t.get("sliding_window")
    if pattern and window:
        values = set(pattern)
        return [k for k, on in (("full", 0 in values), ("sliding_window", 1 in values)) if on]
    if window and t.get("use_sliding_window", True) is not False:
        if t.get("model_type") in _ALTERNATING:
            return ["full", "sliding_window"]
        return ["sliding_window"]
    return ["full"]


def has_sinks(hf: HFConfig, kind: str) -> bool:
    """Attention sinks (model code, not the config): gpt-oss on every layer; MiMo-V2 where its config adds the bias."""
    t = hf.text_config
    model_type = t.get("model_type")
    if model_type == "gpt_oss":
        return kind in ("full", "sliding_window")
    if kind == "sliding_window" and t.get("add_swa_attention_sink_bias"):
        return True
    return kind == "full" and bool(t.get("add_full_attention_sink_bias"))


def mm_prefix(hf: HFConfig, disabled: bool) -> bool:
    """``is_mm_prefix_lm``: HF flag, else the model-type list; off for text-only serving."""
    if disabled:
        return False
    if "is_mm_prefix_lm" in hf:
        return bool(hf["is_mm_prefix_lm"])
    return hf.get("model_type") in MM_PREFIX_MODEL_TYPES


def _per_head_scales(hf: HFConfig) -> bool:
    quant = hf.get("quantization_config") or hf.text_config.get("quantization_config")
    scheme = quant.get("kv_cache_scheme") if isinstance(quant, HFConfig) else None
    return isinstance(scheme, HFConfig) and scheme.get("strategy") == "attn_head"


#: The argument fields a query reads (the memo key, with the config, platform, env and kernels).
_ARG_KEYS = (
    "use_mla",
    "tensor_parallel_size",
    "dtype",
    "kv_cache_dtype",
    "disable_multimodal",
    "use_non_causal",
    "kv_connector",
    "prefill_context_parallel_size",
    "decode_context_parallel_size",
    "flash_attn_version",
    "use_trtllm_attention",
)
#: Entries kept per config (``HFConfig.derived``: the memo lives and dies with its config object,
#: so a grid of many models never evicts one model's queries to make room for another's); a
#: memo keyed on user input stays bounded: past this many entries it starts afresh.
_MEMO_PER_CONFIG = 1024
#: id(config) -> (the config, {inputs: queries}) for configs that are not plain ``HFConfig``
#: objects (a tracing proxy under ``explain``): the last few only.
_MEMO: dict[int, tuple[Any, dict[tuple, tuple[LayerQuery, ...]]]] = {}
_MEMO_CONFIGS = 4


def changes_of(query: LayerQuery, has: Any, present: frozenset[Any] = frozenset()) -> frozenset[str]:
    """The ``LayerQuery.changes`` of ``query``: each change of its vendor's ``SELECTION`` list —
    asked of ``has`` (``ctx.release.has``: the read is traced) where it can matter for this layer,
    else looked up in ``present`` (the release's changes, untraced)."""
    from .changes import SELECTION

    out = []
    for vendor, changes in SELECTION.items():
        for change, matters in changes:
            traced = vendor == query.vendor and matters(query)
            found = has(change) if traced else change.name in present
            out.append(change.name if found else "!" + change.name)
    return frozenset(out)


def newest_changes() -> frozenset[str]:
    """Every vendor's selection changes as the newest release has them (queries built outside a
    resolution: the capability table)."""
    from ._base import VLLM_VERSION
    from .changes import CHANGES, SELECTION

    present = CHANGES.present(VLLM_VERSION)
    return frozenset(
        c.name if c.name in present else "!" + c.name for changes in SELECTION.values() for c, _ in changes
    )


def layer_queries(
    hf: HFConfig,
    args: Any,
    platform: Any,
    env: Any,
    *,
    user_block_size: int | None,
    kernels: frozenset[str],
) -> list[LayerQuery]:
    """One query per layer kind of the model (see the module docstring).

    Memoised: several rules of one resolution (and repeated resolutions) ask for the same
    queries; the key holds every input read, and the config object itself is checked by
    identity (configs are immutable), so a hit is exactly the value a fresh build gives.
    """
    key = (
        tuple(args[k] for k in _ARG_KEYS),
        platform,
        frozenset(env.items()) if env else frozenset(),
        user_block_size,
        kernels,
    )
    memo = _memo_for(hf)
    hit = memo.get(key)
    if hit is not None:
        return list(hit)
    out = _build(hf, args, platform, env, user_block_size=user_block_size, kernels=kernels)
    if len(memo) >= _MEMO_PER_CONFIG:
        memo.clear()
    memo[key] = tuple(out)
    return out


def _memo_for(hf: Any) -> dict[tuple, tuple[LayerQuery, ...]]:
    """The query memo of ``hf``: kept with a plain config (``HFConfig.derived``), else in the
    small module memo checked by identity."""
    if type(hf) is HFConfig:
        return hf.derived("vllm.layer_queries", _new_memo)
    kept = _MEMO.get(id(hf))
    if kept is None or kept[0] is not hf:
        if len(_MEMO) >= _MEMO_CONFIGS:
            # the oldest config (another thread may have dropped it, or be changing the dict)
            with contextlib.suppress(RuntimeError, StopIteration):
                _MEMO.pop(next(iter(_MEMO)), None)
        kept = _MEMO[id(hf)] = (hf, {})
    return kept[1]


def _new_memo(_hf: HFConfig) -> dict[tuple, tuple[LayerQuery, ...]]:
    return {}


def _build(
    hf: HFConfig,
    args: Any,
    platform: Any,
    env: Any,
    *,
    user_block_size: int | None,
    kernels: frozenset[str],
) -> list[LayerQuery]:
    t = hf.text_config
    mla = bool(args.use_mla)
    tp = max(1, int(args.tensor_parallel_size))
    heads = int(_get(t, "num_attention_heads", _get(t, "decoder_attention_heads", _get(t, "n_head", 1))))
    kv_heads = int(_get(t, "num_key_value_heads", heads))
    base_head = head_size(hf, mla)
    flags = env_flags(env)
    cap = (
        tuple(platform.capability)
        if platform.capability is not None and platform.vendor in ("cuda", "hip")
        else None
    )
    common = dict(
        dtype=args.dtype,
        kv_cache_dtype=args.kv_cache_dtype,
        block_size=user_block_size,
        use_mla=False,
        has_sink=False,
        use_sparse=False,
        use_mm_prefix=mm_prefix(hf, args.disable_multimodal),
        use_per_head_quant_scales=_per_head_scales(hf),
        attn_type="decoder",
        has_sliding_window=False,
        use_non_causal=bool(args.use_non_causal),
        use_batch_invariant="VLLM_BATCH_INVARIANT" in flags,
        use_kv_connector=bool(args.kv_connector),
        use_pcp=args.prefill_context_parallel_size > 1,
        use_adaptive_verification=False,
        use_dcp=args.decode_context_parallel_size > 1,
        use_rswa=hf.get("rswa_window") is not None,
        vendor=platform.vendor,
        cc=cap,
        gcn_arch=platform.gcn_arch,
        kernels=kernels,
        num_heads=heads // tp,
        num_kv_heads=1 if mla else max(1, kv_heads // tp),
        dcp_size=args.decode_context_parallel_size,
        pcp_size=args.prefill_context_parallel_size,
        head_size_v=None,
        qk_nope_head_dim=_get(t, "qk_nope_head_dim", 0),
        qk_rope_head_dim=_get(t, "qk_rope_head_dim", 0),
        v_head_dim=_get(t, "v_head_dim", 0),
        kv_lora_rank=t.get("kv_lora_rank"),
        index_topk=t.get("index_topk"),
        softcap=bool(t.get("attn_logit_softcapping")),
        is_diffusion=False,
        # config/model.py : ModelConfig.attn_type, read by the ROCm list of 0.26+ for every layer
        is_encoder_decoder=bool(hf.get("is_encoder_decoder") or t.get("is_encoder_decoder")),
        flash_attn_version_cfg=args.flash_attn_version,
        use_trtllm=args.use_trtllm_attention,
        cache_dtype=args.kv_cache_dtype,
        env=flags,
        model_type=t.get("model_type"),
        changes=newest_changes(),
    )
    out = []
    for kind in kinds_of(hf, mla):
        q = dict(common, kind=kind, head_size=base_head)
        if kind == "mla":
            q.update(use_mla=True, use_sparse=t.get("index_topk") is not None)
        elif kind == "indexer":
            q.update(head_size=int(_get(t, "index_head_dim", 128)))
        elif kind in ("full", "sliding_window"):
            if kind == "full" and t.get("global_head_dim"):
                q["head_size"] = int(t["global_head_dim"])
            if kind == "sliding_window":
                q["has_sliding_window"] = True
                if t.get("swa_head_dim"):
                    q["head_size"] = int(t["swa_head_dim"])
                if t.get("swa_num_key_value_heads"):
                    q["num_kv_heads"] = max(1, int(t["swa_num_key_value_heads"]) // tp)
            if t.get("v_head_dim") and not mla:
                q["head_size_v"] = int(t.get("swa_v_head_dim") or t["v_head_dim"])
            q["has_sink"] = has_sinks(hf, kind)
        elif kind == "encoder":
            q.update(
                attn_type="encoder" if hf.get("is_encoder_decoder") else "encoder_only", use_mm_prefix=False
            )
        elif kind == "cross":
            q.update(attn_type="encoder_decoder", use_mm_prefix=False)
        out.append(LayerQuery(**q))
    return out
