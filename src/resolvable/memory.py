"""What a model needs in device memory: weights per rank and KV cache bytes per token, from config.json.

This module is the engine-agnostic half of "will it fit?" (issue 18). It knows model shapes, never
an engine's policy: how much memory an engine gives the KV cache, its page rounding and its
refusals live in the packs (``resolvable.sglang.memory``, ``resolvable.vllm.memory``), which call
the functions here with their *resolved* values (KV dtype, TP size, which layers get a KV pool).

Invariants:

* pure functions of their inputs (a config mapping, numbers); standard library only; nothing is
  imported by ``import resolvable`` (the packs import this module where they need it);
* every figure is in bytes (``GiB`` = 2**30 bytes, what both engines print as "GB"/"GiB");
* a weight figure computed from config.json is marked ``estimated=True`` with the method; a
  figure from a checkpoint's ``model.safetensors.index.json`` (``metadata.total_size``) is
  marked ``estimated=False`` and only its split over ranks comes from the config;
* a quantity the config does not determine is never invented: an unknown attention layout
  raises ``MemoryModelError`` naming the missing key.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

__all__ = [
    "GIB",
    "Allocation",
    "AttentionShape",
    "FitReport",
    "MemoryModelError",
    "WeightEstimate",
    "attention_shape",
    "checkpoint_total_size",
    "dtype_bytes",
    "kv_bytes_per_token",
    "linear_state_bytes",
    "after_pool_verdict",
    "parameter_breakdown",
    "text_config",
    "weight_estimate",
]

GIB = 1 << 30


class MemoryModelError(ConfigError):
    """The config lacks what the memory model needs (names the key and the fix)."""


#: Bytes per element of the dtypes both engines name (torch names, CLI names, checkpoint names).
_DTYPE_BYTES: dict[str, float] = {
    "float32": 4,
    "fp32": 4,
    "float": 4,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    "bfloat16": 2,
    "bf16": 2,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "fp8_inc": 1,
    "int8": 1,
    "mxfp8": 1,  # plus one e8m0 scale per 32 elements (added by the caller: ``scale_block``)
    "fp4_e2m1": 0.5,
    "nvfp4": 0.5,
    "mxfp4": 0.5,
}


def weights_oom_message(weights: float, free: float) -> str:
    """The weights alone exceed the free device memory: torch fails while loading them (either
    engine: the message is torch's, not the engine's)."""
    return (
        f"CUDA out of memory while loading the weights: {weights / GIB:.2f} GiB per rank do not fit in the "
        f"{free / GIB:.2f} GiB free (torch.OutOfMemoryError)"
    )


def dtype_bytes(name: str | None, *, model_dtype: str = "bfloat16") -> float:
    """Bytes per element of a dtype name; ``auto``/None is the model's dtype. Unknown → error."""
    key = (name or "auto").lower().replace("torch.", "")
    if key == "auto":
        key = model_dtype.lower().replace("torch.", "")
    if key.startswith("fp8") or key.startswith("float8"):
        return 1.0
    try:
        return float(_DTYPE_BYTES[key])
    except KeyError:
        raise MemoryModelError(
            f"unknown dtype {name!r} for the memory model; use one of {sorted(_DTYPE_BYTES)}"
        ) from None


def text_config(hf: Mapping[str, Any]) -> dict[str, Any]:
    """The language model's config: ``text_config``/``llm_config``/``language_config`` merged
    over the top level (multimodal wrappers keep the decoder there)."""
    out = {k: v for k, v in hf.items()}
    for key in ("text_config", "llm_config", "language_config", "thinker_config"):
        sub = hf.get(key)
        if isinstance(sub, Mapping):
            inner = sub.get("text_config") if isinstance(sub.get("text_config"), Mapping) else sub
            out.update({k: v for k, v in inner.items()})
            break
    return out


def _int(cfg: Mapping[str, Any], *keys: str, default: int | None = None) -> int:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) and value is not None:
            return int(value)
    if default is not None:
        return default
    raise MemoryModelError(
        f"config.json has no {keys[0]!r}: the memory model needs it (pass the model's full config.json)"
    )


# ---------------------------------------------------------------------------------------------
# Attention layout
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionShape:
    """The KV-relevant shape of a decoder, read from config.json.

    ``kind`` is one of ``mha``, ``gqa``, ``mla``, ``dsa`` (MLA plus the DeepSeek sparse-attention
    indexer), and the hybrid flags say which layers need a full KV pool: ``full_layers`` layers
    keep every token, ``swa_layers`` keep ``sliding_window`` tokens, ``linear_layers`` keep a
    fixed state per request (Mamba2 / gated delta net / short convolution).
    """

    kind: str
    num_layers: int
    full_layers: int
    swa_layers: int = 0
    linear_layers: int = 0
    sliding_window: int | None = None
    num_kv_heads: int = 0
    head_dim: int = 0
    v_head_dim: int = 0
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    index_head_dim: int = 0
    #: per request per linear layer, unsharded, in state elements: (conv, ssm/recurrent); both
    #: engines split the state over TP by heads (``linear_state_bytes``)
    linear_state: tuple[int, int] = (0, 0)

    @property
    def is_mla(self) -> bool:
        return self.kind in ("mla", "dsa")

    @property
    def is_hybrid_swa(self) -> bool:
        return self.swa_layers > 0

    @property
    def is_hybrid_linear(self) -> bool:
        return self.linear_layers > 0


_SLIDING_TYPES = ("sliding_attention", "sliding", "local", "swa", "chunked_attention")
_FULL_TYPES = ("full_attention", "attention", "global", "full")
_LINEAR_TYPES = ("linear_attention", "mamba", "mamba2", "conv", "short_conv", "linear", "gdn")


def _layer_kinds(cfg: Mapping[str, Any], num_layers: int) -> list[str]:
    """Per layer 'full' | 'swa' | 'linear' | 'none' (no attention/state, e.g. Nemotron-H MLP rows)."""
    pattern = cfg.get("hybrid_override_pattern")  # Nemotron-H: M mamba, * attention, - MLP, E MoE
    if isinstance(pattern, str) and pattern:
        return [{"M": "linear", "*": "full"}.get(ch, "none") for ch in pattern[:num_layers]]
    mimo = cfg.get("hybrid_layer_pattern")  # MiMo-V2: 1 = sliding window, 0 = full
    if isinstance(mimo, (list, tuple)) and mimo:
        return ["swa" if x else "full" for x in list(mimo)[:num_layers]] + ["full"] * (num_layers - len(mimo))
    types = cfg.get("layer_types")
    if isinstance(types, (list, tuple)) and types:
        kinds = []
        for t in list(types)[:num_layers]:
            t = str(t).lower()
            if t in _SLIDING_TYPES:
                kinds.append("swa")
            elif t in _LINEAR_TYPES:
                kinds.append("linear")
            else:
                kinds.append("full")
        return kinds + ["full"] * (num_layers - len(kinds))
    interval = cfg.get("full_attention_interval")  # Qwen3-Next / Qwen3.5: every Nth layer is full
    if isinstance(interval, int) and interval > 0 and cfg.get("linear_num_value_heads"):
        return ["full" if (i + 1) % interval == 0 else "linear" for i in range(num_layers)]
    model_type = str(cfg.get("model_type") or "")
    if cfg.get("sliding_window") and model_type.startswith("gemma2"):  # Gemma-2: even layers slide
        return ["swa" if i % 2 == 0 else "full" for i in range(num_layers)]
    pattern_n = cfg.get("sliding_window_pattern")
    if (
        cfg.get("sliding_window") and isinstance(pattern_n, int) and pattern_n > 1
    ):  # Gemma-3: 5 local : 1 global
        return ["full" if (i + 1) % pattern_n == 0 else "swa" for i in range(num_layers)]
    return ["full"] * num_layers


def _mamba_state(cfg: Mapping[str, Any]) -> tuple[int, int]:
    """(conv elements, ssm elements) of one linear layer for one request, unsharded."""
    if cfg.get("linear_num_value_heads"):  # gated delta net (Qwen3-Next, Qwen3.5)
        nk = _int(cfg, "linear_num_key_heads")
        dk = _int(cfg, "linear_key_head_dim")
        nv = _int(cfg, "linear_num_value_heads")
        dv = _int(cfg, "linear_value_head_dim")
        kernel = _int(cfg, "linear_conv_kernel_dim", default=4)
        conv_dim = 2 * nk * dk + nv * dv
        return conv_dim * (kernel - 1), nv * dk * dv
    heads = cfg.get("mamba_num_heads") or cfg.get("mamba_n_heads")
    if heads:  # Mamba2 (Nemotron-H, Granite-4.0-H, Falcon-H1)
        head_dim = _int(cfg, "mamba_head_dim", "mamba_d_head")
        d_state = _int(cfg, "ssm_state_size", "mamba_d_state")
        groups = _int(cfg, "n_groups", "mamba_n_groups", default=1)
        kernel = _int(cfg, "conv_kernel", "mamba_d_conv", default=4)
        d_inner = int(heads) * head_dim
        conv_dim = d_inner + 2 * groups * d_state
        return conv_dim * (kernel - 1), int(heads) * head_dim * d_state
    if cfg.get("conv_L_cache"):  # LFM2 short convolution
        hidden = _int(cfg, "hidden_size")
        return hidden * (_int(cfg, "conv_L_cache") - 1), 0
    return (0, 0)


def _refuse_unmodelled(cfg: Mapping[str, Any]) -> None:
    if cfg.get("encoder_layers") and cfg.get("decoder_layers"):
        raise MemoryModelError(
            f"{cfg.get('model_type') or 'this'} is an encoder-decoder model: the memory model covers decoder-only "
            "language models (and their vision towers)"
        )


def attention_shape(hf: Mapping[str, Any]) -> AttentionShape:
    """The attention layout of a decoder config (multimodal wrappers: their text config)."""
    cfg = text_config(hf)
    _refuse_unmodelled(cfg)
    layers = _int(cfg, "num_hidden_layers", "num_layers", "n_layer")
    kinds = _layer_kinds(cfg, layers)
    full = kinds.count("full")
    swa = kinds.count("swa")
    linear = kinds.count("linear")
    window = cfg.get("sliding_window") if swa else None
    if cfg.get("kv_lora_rank"):
        kind = "dsa" if cfg.get("index_head_dim") or cfg.get("index_topk") else "mla"
        return AttentionShape(
            kind=kind,
            num_layers=layers,
            full_layers=full,
            swa_layers=swa,
            linear_layers=linear,
            sliding_window=window,
            kv_lora_rank=_int(cfg, "kv_lora_rank"),
            qk_rope_head_dim=_int(cfg, "qk_rope_head_dim", default=64),
            index_head_dim=_int(cfg, "index_head_dim", default=128) if kind == "dsa" else 0,
            linear_state=_mamba_state(cfg) if linear else (0, 0),
        )
    heads = _int(cfg, "num_attention_heads", "n_head", "num_heads")
    kv_heads = _int(cfg, "num_key_value_heads", "num_kv_heads", "multi_query_group_num", default=heads)
    hidden = _int(cfg, "hidden_size", "d_model", "n_embd")
    head_dim = cfg.get("head_dim") or hidden // heads
    v_head_dim = cfg.get("v_head_dim") or head_dim
    return AttentionShape(
        kind="mha" if kv_heads == heads else "gqa",
        num_layers=layers,
        full_layers=full,
        swa_layers=swa,
        linear_layers=linear,
        sliding_window=int(window) if isinstance(window, int) else None,
        num_kv_heads=kv_heads,
        head_dim=int(head_dim),
        v_head_dim=int(v_head_dim),
        linear_state=_mamba_state(cfg) if linear else (0, 0),
    )


def kv_heads_per_rank(total: int, attn_tp: int) -> int:
    """KV heads one rank stores: heads split over the attention TP group, replicated when there
    are fewer heads than ranks (sglang ``ModelConfig.get_num_kv_heads``, vLLM
    ``ModelConfig.get_num_kv_heads``: ``max(1, total // tp)``)."""
    return max(1, total // max(1, attn_tp))


def kv_bytes_per_token(
    shape: AttentionShape,
    *,
    attn_tp: int = 1,
    kv_dtype_bytes: float = 2.0,
    layers: int | None = None,
    scale_block: int = 0,
) -> float:
    """Bytes one token of KV takes on one rank in ``layers`` layers (default: the full-attention
    layers) for MHA/GQA/MLA, without the DSA indexer and without paging.

    * MHA/GQA: K and V of the rank's KV heads: ``heads_per_rank × (head_dim + v_head_dim)``;
    * MLA/DSA: the compressed latent and the rope key, not split by TP:
      ``kv_lora_rank + qk_rope_head_dim``;
    * ``scale_block``: one 1-byte scale per that many elements (mxfp8 32; 0: none).
    """
    n = shape.full_layers if layers is None else layers
    if shape.is_mla:
        elems = shape.kv_lora_rank + shape.qk_rope_head_dim
    else:
        elems = kv_heads_per_rank(shape.num_kv_heads, attn_tp) * (shape.head_dim + shape.v_head_dim)
    per_layer = elems * kv_dtype_bytes
    if scale_block:
        per_layer += elems // scale_block
    return per_layer * n


def linear_state_bytes(
    shape: AttentionShape,
    *,
    tp: int = 1,
    state_dtype_bytes: float = 2.0,
    ssm_dtype_bytes: float | None = None,
) -> float:
    """Bytes of recurrent state one request holds on one rank over all linear layers (conv state
    in the model dtype, SSM/recurrent state in ``ssm_dtype_bytes``; both split over TP)."""
    conv, ssm = shape.linear_state
    ssm_b = state_dtype_bytes if ssm_dtype_bytes is None else ssm_dtype_bytes
    per_layer = (conv * state_dtype_bytes + ssm * ssm_b) / max(1, tp)
    return per_layer * shape.linear_layers


# ---------------------------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------------------------

#: component → parameters; components are sharded differently (see ``WeightEstimate.per_rank``)
COMPONENTS = (
    "embed",
    "lm_head",
    "attention",
    "dense_mlp",
    "experts",
    "shared",
    "linear_attn",
    "vision",
    "norms",
)


def _per_layer_attention(cfg: Mapping[str, Any]) -> int:
    hidden = _int(cfg, "hidden_size", "d_model")
    heads = _int(cfg, "num_attention_heads", "n_head")
    if cfg.get("kv_lora_rank"):
        q_lora = cfg.get("q_lora_rank") or 0
        nope = _int(cfg, "qk_nope_head_dim", default=128)
        rope = _int(cfg, "qk_rope_head_dim", default=64)
        v = _int(cfg, "v_head_dim", default=128)
        kv_lora = _int(cfg, "kv_lora_rank")
        q = (hidden * q_lora + q_lora * heads * (nope + rope)) if q_lora else hidden * heads * (nope + rope)
        kv = hidden * (kv_lora + rope) + kv_lora * heads * (nope + v)
        out = heads * v * hidden
        indexer = 0
        if cfg.get("index_head_dim") or cfg.get("index_topk"):
            idx_heads = _int(cfg, "index_n_heads", default=64)
            idx_dim = _int(cfg, "index_head_dim", default=128)
            indexer = (q_lora or hidden) * idx_heads * idx_dim + hidden * idx_dim + hidden * idx_heads
        return q + kv + out + indexer
    kv_heads = _int(cfg, "num_key_value_heads", default=heads)
    head_dim = cfg.get("head_dim") or hidden // heads
    return hidden * head_dim * (2 * heads + 2 * kv_heads)


def _moe_layers(cfg: Mapping[str, Any], layers: int) -> list[bool]:
    """Which decoder layers carry routed experts."""
    n_experts = (
        cfg.get("n_routed_experts")
        or cfg.get("num_experts")
        or cfg.get("num_local_experts")
        or cfg.get("moe_num_experts")
    )
    if not n_experts or int(n_experts) <= 1:
        return [False] * layers
    if isinstance(cfg.get("moe_layers_enum"), str):  # Step-3.5
        ids = {int(x) for x in cfg["moe_layers_enum"].split(",") if x.strip()}
        return [i in ids for i in range(layers)]
    if isinstance(cfg.get("moe_layer_freq"), (list, tuple)):  # MiMo-V2: a flag per layer
        flags = list(cfg["moe_layer_freq"])
        return [bool(flags[i]) if i < len(flags) else False for i in range(layers)]
    first_dense = int(cfg.get("first_k_dense_replace") or 0)
    freq = int(
        cfg.get("moe_layer_freq")
        or cfg.get("decoder_sparse_step")
        or cfg.get("interleave_moe_layer_step")
        or 1
    )
    only_mlp = set(cfg.get("mlp_only_layers") or ())
    out = []
    for i in range(layers):
        if i < first_dense or i in only_mlp:
            out.append(False)
        elif cfg.get("interleave_moe_layer_step") or cfg.get("decoder_sparse_step"):
            out.append((i + 1) % freq == 0)
        else:
            out.append(i % freq == 0)
    return out


def _vision_params(hf: Mapping[str, Any]) -> int:
    vc = hf.get("vision_config")
    if not isinstance(vc, Mapping):
        return 0
    hidden = vc.get("hidden_size") or vc.get("embed_dim") or vc.get("width") or 0
    depth = vc.get("num_hidden_layers") or vc.get("depth") or vc.get("layers") or 0
    inter = vc.get("intermediate_size") or (vc.get("mlp_ratio") or 4) * hidden
    if not hidden or not depth:
        return 0
    glu = 3 if str(vc.get("hidden_act", "")).lower() in ("silu", "swiglu") else 2
    per_layer = 4 * hidden * hidden + glu * hidden * int(inter)
    out_hidden = vc.get("out_hidden_size") or _int(text_config(hf), "hidden_size", default=hidden)
    projector = hidden * 4 * hidden + 4 * hidden * int(out_hidden)  # patch merger / projector
    return int(depth) * int(per_layer) + int(projector)


def parameter_breakdown(hf: Mapping[str, Any]) -> dict[str, int]:
    """Parameters per component (``COMPONENTS``) computed from config.json.

    Decoder layers: attention (MHA/GQA projections, or MLA's q/kv down/up projections and the DSA
    indexer), dense MLP (gated, 3 matrices), routed experts and shared experts (+ router), linear
    attention blocks (Mamba2 / gated delta net in/out projections). Embeddings and the LM head
    (one matrix when ``tie_word_embeddings``), a vision tower when ``vision_config`` is present.
    MTP/NextN layers (``num_nextn_predict_layers``) are not counted: neither engine loads them
    without speculative decoding.
    """
    cfg = text_config(hf)
    _refuse_unmodelled(cfg)
    layers = _int(cfg, "num_hidden_layers", "num_layers")
    hidden = _int(cfg, "hidden_size", "d_model")
    vocab = _int(cfg, "vocab_size", "padded_vocab_size")
    inter = _int(cfg, "intermediate_size", "ffn_hidden_size", "block_ff_dim", default=4 * hidden)
    if cfg.get("block_auto_adjust_ff_dim"):  # LFM2: 2/3 of the nominal width, rounded up
        inter = int(2 * inter / 3 * float(cfg.get("block_ffn_dim_multiplier") or 1.0))
        step = int(cfg.get("block_multiple_of") or 256)
        inter = step * math.ceil(inter / step)
    kinds = _layer_kinds(cfg, layers)
    moe = _moe_layers(cfg, layers)
    n_experts = int(
        cfg.get("n_routed_experts")
        or cfg.get("num_experts")
        or cfg.get("num_local_experts")
        or cfg.get("moe_num_experts")
        or 0
    )
    # Mixtral/gpt-oss/Llama-4 keep the expert width in intermediate_size; others in moe_intermediate_size.
    moe_inter = int(cfg.get("moe_intermediate_size") or cfg.get("expert_intermediate_size") or inter)
    dense_inter = int(cfg.get("intermediate_size_mlp") or inter)
    n_shared = int(cfg.get("n_shared_experts") or cfg.get("num_shared_experts") or 0)
    shared_inter = int(cfg.get("shared_expert_intermediate_size") or cfg.get("share_expert_dim") or 0)
    if "Llama4" in str(hf.get("architectures")) and not n_shared:
        n_shared = 1
    attn_per_layer = _per_layer_attention(cfg)
    parts = dict.fromkeys(COMPONENTS, 0)
    for i in range(layers):
        kind = kinds[i]
        if kind in ("full", "swa"):
            parts["attention"] += attn_per_layer
        elif kind == "linear":
            parts["linear_attn"] += _linear_block_params(cfg, hidden)
        if "FalconH1" in str(hf.get("architectures")):
            parts["linear_attn"] += _linear_block_params(cfg, hidden)
        if kind == "none" and cfg.get("hybrid_override_pattern"):
            ch = cfg["hybrid_override_pattern"][i]
            if ch == "-":
                parts["dense_mlp"] += 2 * hidden * inter  # Nemotron-H MLP: up + down (relu²)
            elif ch == "E":
                parts["experts"] += n_experts * 3 * hidden * moe_inter
            continue
        if cfg.get("hybrid_override_pattern"):
            continue  # Nemotron-H: attention and mamba rows carry no MLP
        if moe[i]:
            parts["experts"] += n_experts * 3 * hidden * moe_inter
            if shared_inter:  # Qwen2-MoE/Qwen3-Next/Step: one shared expert of its own width
                parts["shared"] += 3 * hidden * shared_inter
            elif n_shared:  # DeepSeek/GLM/Kimi/Llama-4: n shared experts of the routed width
                parts["shared"] += n_shared * 3 * hidden * moe_inter
            parts["shared"] += hidden * n_experts  # router
        else:
            parts["dense_mlp"] += 3 * hidden * dense_inter
        parts["norms"] += 2 * hidden
    parts["embed"] = vocab * hidden
    # transformers' default differs per config class: Gemma and LFM2 tie, Llama/Qwen/DeepSeek do not.
    model_type = str(cfg.get("model_type") or hf.get("model_type") or "")
    tied_default = model_type.startswith(("gemma", "lfm2")) or bool(cfg.get("tie_embedding"))
    tied = bool(cfg.get("tie_word_embeddings", hf.get("tie_word_embeddings", tied_default)))
    parts["lm_head"] = 0 if tied else vocab * hidden
    parts["vision"] = _vision_params(hf)
    return parts


def _linear_block_params(cfg: Mapping[str, Any], hidden: int) -> int:
    if cfg.get("linear_num_value_heads"):  # gated delta net
        nk, dk = _int(cfg, "linear_num_key_heads"), _int(cfg, "linear_key_head_dim")
        nv, dv = _int(cfg, "linear_num_value_heads"), _int(cfg, "linear_value_head_dim")
        return hidden * (2 * nk * dk + 2 * nv * dv) + hidden * 2 * nv + nv * dv * hidden
    heads = cfg.get("mamba_num_heads") or cfg.get("mamba_n_heads")
    if heads:
        head_dim = _int(cfg, "mamba_head_dim", "mamba_d_head")
        d_state = _int(cfg, "ssm_state_size", "mamba_d_state")
        groups = _int(cfg, "n_groups", "mamba_n_groups", default=1)
        d_inner = int(heads) * head_dim
        return hidden * (2 * d_inner + 2 * groups * d_state + int(heads)) + d_inner * hidden
    if cfg.get("conv_L_cache"):  # LFM2 short conv: in (3h) + out (h)
        return 4 * hidden * hidden
    return 0


@dataclass(frozen=True)
class WeightEstimate:
    """Weight bytes, whole model and per component, with how they were obtained."""

    total_bytes: float
    components: Mapping[str, float]  # bytes per component (sums to total_bytes)
    params: int
    estimated: bool
    method: str  # "config.json parameter count × <dtype>" or "model.safetensors.index.json total_size"

    def per_rank(
        self,
        *,
        tp: int = 1,
        pp: int = 1,
        attn_tp: int | None = None,
        expert_shards: int | None = None,
    ) -> float:
        """Bytes the largest rank holds: attention over the attention-TP group (replicated under
        DP attention), dense MLP over TP, routed experts over ``expert_shards`` (sglang: EP × MoE-TP
        = TP; vLLM with EP: TP × DP), embeddings/LM head vocab-parallel over TP; layers split over
        PP (the first stage also holds the embedding, the last the LM head)."""
        c = self.components
        attn_tp = tp if attn_tp is None else attn_tp
        expert_shards = tp if expert_shards is None else expert_shards
        layer_bytes = (
            c["attention"] / max(1, attn_tp)
            + (c["dense_mlp"] + c["shared"] + c["linear_attn"] + c["norms"]) / max(1, tp)
            + c["experts"] / max(1, expert_shards)
        )
        vocab = (c["embed"] + c["lm_head"]) / max(1, tp)
        if pp > 1:
            vocab = max(c["embed"], c["lm_head"]) / max(1, tp)
        return layer_bytes / max(1, pp) + vocab + c["vision"] / max(1, tp)


def _quant(hf: Mapping[str, Any]) -> Mapping[str, Any]:
    q = hf.get("quantization_config") or text_config(hf).get("quantization_config") or {}
    return q if isinstance(q, Mapping) else {}


_QUANTIZABLE = ("attention", "dense_mlp", "experts", "shared", "linear_attn")


def _not_converted(q: Mapping[str, Any]) -> frozenset[str]:
    """Components a checkpoint leaves unquantized (``ignore``/``modules_to_not_convert``/
    ``exclude_modules`` patterns naming attention, shared experts or dense MLPs)."""
    names = []
    for key in ("ignore", "modules_to_not_convert", "exclude_modules", "ignored_layers"):
        value = q.get(key)
        if isinstance(value, (list, tuple)):
            names.extend(str(v) for v in value)
    text = " ".join(names)
    out = set()
    if "self_attn" in text or "attn" in text.replace("self_attn", ""):
        out.add("attention")
    if "shared_expert" in text:
        out.add("shared")
    if "mlp.(gate" in text or "mlp.gate_proj" in text or "mlp.down_proj" in text:
        out.add("dense_mlp")
    return frozenset(out)


def quantized_bytes_per_param(
    hf: Mapping[str, Any], *, quantization: str | None = None
) -> tuple[float | None, str, bool]:
    """(bytes per weight of a quantized linear layer incl. its scales, method name, experts only?)
    — None when the checkpoint is not quantized.

    fp8 (per-tensor, per-channel or 128×128 blocks: scales ≤ 0.03 %) 1 byte; MXFP4 4 bits + one
    e8m0 scale per 32 (4.25 bits; gpt-oss quantizes only the experts); NVFP4 4 bits + one fp8
    scale per 16 (4.5 bits); AWQ/GPTQ ``bits`` + an fp16 scale and a packed zero per group.
    """
    q = _quant(hf)
    method = str(quantization or q.get("quant_method") or "").lower()
    if not method:
        return None, "", False
    algo = str(q.get("quant_algo") or "").lower()
    if method in ("mxfp4", "quark_mxfp4"):
        return 0.5 + 1 / 32, "mxfp4", method == "mxfp4"
    if "fp4" in method or "fp4" in algo or "nvfp4" in method:
        return 0.5 + 1 / 16, "nvfp4", False
    if method in ("modelopt",) and "fp8" in algo:
        return 1.0, "modelopt fp8", False
    if method in ("awq", "awq_marlin", "gptq", "gptq_marlin", "auto-round", "moe_wna16"):
        bits = int(q.get("bits") or q.get("w_bit") or 4)
        group = int(q.get("group_size") or q.get("q_group_size") or 128)
        group = group if group > 0 else 4096
        return bits / 8 + (2 + bits / 8) / group, f"{method} int{bits}", False
    if method == "bitsandbytes":
        return (0.5 + 4 / 64) if q.get("load_in_4bit") else 1.0, "bitsandbytes", False
    if method == "compressed-tensors":
        bits = 8
        for group in (q.get("config_groups") or {}).values():
            w = group.get("weights") if isinstance(group, Mapping) else None
            if isinstance(w, Mapping) and w.get("num_bits"):
                bits = int(w["num_bits"])
                break
        fmt = str(q.get("format") or "")
        if bits == 4 and "nvfp4" in fmt:
            return 0.5625, "compressed-tensors nvfp4", False
        return bits / 8 + (2 / 128 if bits < 8 else 0), f"compressed-tensors int{bits}", False
    if "fp8" in method or method in ("w8a8_fp8", "modelopt_fp8", "fbgemm_fp8", "w8a8_int8", "mxfp8", "quark"):
        return 1.0, method, False
    return None, method, False


def weight_estimate(
    hf: Mapping[str, Any],
    *,
    dtype: str | None = None,
    quantization: str | None = None,
    index_total_size: int | None = None,
    moe_padding: tuple[int, int, int] | None = None,
) -> WeightEstimate:
    """Weight bytes of a checkpoint as an engine loads them.

    Without ``index_total_size``: the parameter count of ``parameter_breakdown`` times the bytes
    of the loaded dtype (``dtype``, else the config's ``torch_dtype``/``dtype``; float32
    checkpoints load as bf16 in both engines with ``--dtype auto``), with the quantized layers at
    the quantization's bytes (embeddings, LM head, norms, routers and vision towers stay in the
    model dtype). With ``index_total_size`` (the checkpoint's own byte count): that total, split
    over the components in the proportions the estimate gives.

    ``moe_padding`` = (hidden multiple, intermediate multiple, TP): MXFP4 MoE kernels pad the
    expert matrices to their tile (vLLM's ``mxfp4_round_up_hidden_size_and_intermediate_size``,
    sglang's ``Mxfp4MoEMethod``); the routed experts are scaled by the padded/real areas, the
    intermediate size per TP partition.
    """
    parts = parameter_breakdown(hf)
    cfg = text_config(hf)
    raw = str(dtype or "auto").lower()
    if raw == "auto":
        raw = str(cfg.get("torch_dtype") or cfg.get("dtype") or hf.get("torch_dtype") or "bfloat16").lower()
        if raw in ("float32", "fp32", "float"):
            raw = "bfloat16"
    base = dtype_bytes(raw)
    qbytes, qname, experts_only = quantized_bytes_per_param(hf, quantization=quantization)
    skipped = _not_converted(_quant(hf))
    # DeepSeek-V4 keeps its routed experts in FP4 (config ``expert_dtype: "fp4"``: e2m1 values and
    # one ue8m0 scale per 32, 4.25 bits) while the rest of the checkpoint is fp8 (issue 27).
    expert_dtype = str(cfg.get("expert_dtype") or "").lower()
    expert_bytes = 0.5 + 1 / 32 if expert_dtype in ("fp4", "mxfp4", "fp4_e2m1") else None
    comp_bytes: dict[str, float] = {}
    for name, n in parts.items():
        b = base
        quantized = qbytes is not None and name in _QUANTIZABLE and name not in skipped
        if quantized and (not experts_only or name == "experts"):
            b = qbytes
        if name == "experts" and expert_bytes is not None:
            b = expert_bytes
        comp_bytes[name] = n * b
    if expert_bytes is not None:
        qname = (qname + ", " if qname else "") + f"experts {expert_dtype} (expert_dtype)"
    if moe_padding and qname == "mxfp4" and comp_bytes.get("experts"):
        h_mult, i_mult, tp = moe_padding
        hidden = _int(cfg, "hidden_size")
        inter = int(cfg.get("moe_intermediate_size") or cfg.get("intermediate_size") or hidden)
        part = max(1, inter // max(1, tp))
        factor = (math.ceil(hidden / h_mult) * h_mult / hidden) * (math.ceil(part / i_mult) * i_mult / part)
        comp_bytes["experts"] *= factor
        qname += f" (expert tiles padded to {h_mult}/{i_mult})"
    total = sum(comp_bytes.values())
    params = sum(parts.values())
    method = f"config.json parameter count ({params / 1e9:.2f}B) × {raw}" + (
        f", {qname} layers" if qname else ""
    )
    if index_total_size and total > 0:
        scale = index_total_size / total
        comp_bytes = {k: v * scale for k, v in comp_bytes.items()}
        return WeightEstimate(
            total_bytes=float(index_total_size),
            components=comp_bytes,
            params=params,
            estimated=False,
            method="model.safetensors.index.json metadata.total_size",
        )
    return WeightEstimate(
        total_bytes=total, components=comp_bytes, params=params, estimated=True, method=method
    )


def checkpoint_total_size(location: str | os.PathLike[str] | None) -> int | None:
    """``metadata.total_size`` of ``model.safetensors.index.json`` next to a model directory or
    config.json, or in the local Hugging Face cache for a hub id (None when absent or unreadable:
    the caller then estimates from the config). Only that small JSON file is read, never the
    weights, and nothing is downloaded."""
    if location is None:
        return None
    path = os.fspath(location)
    if os.path.exists(path):
        directory = path if os.path.isdir(path) else os.path.dirname(path)
        index = os.path.join(directory or ".", "model.safetensors.index.json")
    else:
        from ._hfconfig import _looks_like_repo_id, find_in_hub_cache

        if not _looks_like_repo_id(path):
            return None
        cached = find_in_hub_cache(path, filename="model.safetensors.index.json")
        if cached is None:
            return None
        index = str(cached)
    from ._files import read_bounded  # a regular file, bounded, never blocking (a FIFO, /dev/zero)

    try:
        data = json.loads(read_bounded(index, 64 << 20, what="model.safetensors.index.json"))
    except (OSError, ValueError, RecursionError):  # ConfigError is a ValueError: no index then
        return None
    meta = data.get("metadata") if isinstance(data, dict) else None
    size = meta.get("total_size") if isinstance(meta, dict) else None
    return int(size) if isinstance(size, (int, float)) and not isinstance(size, bool) and size > 0 else None


def ceil_div(a: float, b: float) -> int:
    return math.ceil(a / b)


#: The verdicts a ``FitReport`` gives (``FitReport.status``).
STATUSES = ("starts", "refused", "does-not-fit", "unknown")


@dataclass(frozen=True)
class Allocation:
    """One device allocation an engine makes at start-up, in the order it makes it.

    ``bytes`` is the size per rank, or None with ``unknown`` saying why it cannot be derived
    offline; ``low``/``high`` bound an estimated size (equal to ``bytes`` when the size is exact);
    ``phase`` is ``before-pool`` (counted in the KV budget), ``pool`` or ``after-pool`` (taken
    from what the budget leaves); ``source`` names the upstream file and function.
    """

    name: str
    bytes: float | None
    phase: str
    source: str
    unknown: str | None = None
    low: float | None = None
    high: float | None = None
    #: an unknown size the engine's own margin is assumed to cover (False: the answer is
    #: ``unknown`` whatever the margin, e.g. a workspace reported to exhaust it)
    covered_by_margin: bool = True

    @property
    def exact(self) -> bool:
        return self.bytes is not None and self.low is None and self.high is None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "phase": self.phase, "source": self.source}
        if self.bytes is None:
            out["size"] = f"unknown: {self.unknown}"
        else:
            out["gib"] = round(self.bytes / GIB, 3)
            if not self.exact:
                out["range_gib"] = [round((self.low or 0) / GIB, 3), round((self.high or 0) / GIB, 3)]
        return out

    def line(self) -> str:
        if self.bytes is None:
            size = f"unknown: {self.unknown}"
        elif self.exact:
            size = f"{self.bytes / GIB:.2f} GiB"
        else:
            size = f"{self.bytes / GIB:.2f} GiB (estimate, {(self.low or 0) / GIB:.2f}–{(self.high or 0) / GIB:.2f})"
        return f"{self.name}: {size} [{self.phase}; {self.source}]"


def after_pool_verdict(
    headroom: float, allocations: tuple[Allocation, ...], unknown_margin: float = 0.0
) -> tuple[str, Allocation | None, float, str | None]:
    """(status, failing allocation, bytes short, torch's message) for the allocations an engine
    makes after its KV pool, in order, against the ``headroom`` the pool leaves on the device.

    * ``does-not-fit``: the exact sizes plus the low ends of the estimates exceed the headroom
      at some allocation (torch's out-of-memory error there: the engine does not start);
    * ``unknown``: an allocation's size cannot be derived and what the sized ones leave is below
      ``unknown_margin`` (the engine's own design margin for run-time buffers: it may not start;
      never a silent "fits");
    * ``starts`` otherwise.
    """
    after = [a for a in allocations if a.phase == "after-pool"]
    low_sum = 0.0
    for a in after:
        if a.bytes is None:
            continue
        need = a.bytes if a.exact else (a.low if a.low is not None else a.bytes)
        low_sum += need
        if low_sum > headroom:
            short = low_sum - headroom
            free = max(0.0, headroom - (low_sum - need))
            message = (
                f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {need / GIB:.2f} GiB "
                f"({a.name}) with {free / GIB:.2f} GiB free after the KV pool"
            )
            return "does-not-fit", a, short, message
    unknown = [a for a in after if a.bytes is None]
    left = headroom - sum(a.bytes or 0.0 for a in after)
    uncovered = [a for a in unknown if not a.covered_by_margin]
    if uncovered:
        return "unknown", uncovered[0], 0.0, None
    if unknown and left < unknown_margin:
        return "unknown", unknown[0], 0.0, None
    return "starts", None, 0.0, None


@dataclass(frozen=True)
class FitReport:
    """One engine's answer to "will it fit?" for one launch on one device (per rank).

    ``refusal`` is the engine's own message when it would refuse at start-up (None: it starts);
    ``estimates`` names every quantity that only profiling knows, with its range; ``inputs`` are
    the resolved values the figures come from (KV dtype, page size, TP, the memory fraction …).
    """

    engine: str
    device_total_bytes: int
    weights_bytes: float
    weights_estimated: bool
    weights_method: str
    kv_bytes_per_token: float
    kv_tokens: int
    context_length: int
    max_running_requests: int | None
    concurrency_at_context: float
    refusal: str | None
    inputs: Mapping[str, Any]
    estimates: Mapping[str, Any]
    kv_tokens_range: tuple[int, int] = (0, 0)
    state_bytes_per_request: float = 0.0
    #: every allocation of the start-up, in order (``Allocation``); the after-pool ones are
    #: checked against ``headroom_bytes``, what the KV pool leaves on the device
    allocations: tuple[Allocation, ...] = ()
    headroom_bytes: float | None = None
    #: ``starts`` | ``refused`` (the engine's own check) | ``does-not-fit`` (out of memory) |
    #: ``unknown`` (an allocation that cannot be sized, or a margin inside the estimates)
    status: str = "starts"
    failing: str | None = None
    short_by_bytes: float = 0.0
    fix: str | None = None
    unknown_reason: str | None = None

    @property
    def fits(self) -> bool:
        """True only when the launch starts: never for ``unknown``."""
        return self.refusal is None and self.status == "starts"

    @property
    def message(self) -> str | None:
        """The refusal or out-of-memory message, or why the answer is unknown (None: it starts)."""
        if self.refusal is not None:
            return self.refusal
        if self.status == "unknown":
            return f"unknown: {self.unknown_reason}"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "fits": self.fits,
            "status": self.status,
            "refusal": self.refusal,
            "failing_allocation": self.failing,
            "short_by_gib": round(self.short_by_bytes / GIB, 3),
            "fix": self.fix,
            "unknown_reason": self.unknown_reason,
            "headroom_after_pool_gib": None
            if self.headroom_bytes is None
            else round(self.headroom_bytes / GIB, 3),
            "allocations": [a.to_dict() for a in self.allocations],
            "device_total_gib": round(self.device_total_bytes / GIB, 2),
            "weights_gib_per_rank": round(self.weights_bytes / GIB, 2),
            "weights_estimated": self.weights_estimated,
            "weights_method": self.weights_method,
            "kv_bytes_per_token_per_rank": round(self.kv_bytes_per_token, 1),
            "state_bytes_per_request_per_rank": round(self.state_bytes_per_request, 1),
            "kv_tokens": self.kv_tokens,
            "kv_tokens_range": list(self.kv_tokens_range),
            "context_length": self.context_length,
            "max_running_requests": self.max_running_requests,
            "concurrency_at_context": round(self.concurrency_at_context, 2),
            "inputs": dict(self.inputs),
            "estimates": {
                k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in self.estimates.items()
            },
        }

    def lines(self) -> list[str]:
        """The memory section of ``explain`` and ``fit``, one fact a line."""
        est = (
            " (estimate: " + self.weights_method + ")"
            if self.weights_estimated
            else f" ({self.weights_method})"
        )
        lo, hi = self.kv_tokens_range
        out = [
            f"device    {self.device_total_bytes / GIB:.2f} GiB per GPU as torch reports it",
            f"weights   {self.weights_bytes / GIB:.2f} GiB per rank{est}",
            f"KV/token  {self.kv_bytes_per_token:,.0f} bytes per rank ({self.inputs.get('kv_formula', '')})",
        ]
        if self.state_bytes_per_request:
            out.append(
                f"state     {self.state_bytes_per_request / (1 << 20):,.1f} MiB per request per rank (linear-attention layers)"
            )
        if self.refusal is None:
            out.append(
                f"KV cache  {self.kv_tokens:,} tokens (range {lo:,}–{hi:,}: activation, graph and context memory are estimates)"
            )
            running = (
                f", max running requests {self.max_running_requests:,}" if self.max_running_requests else ""
            )
            word = "fits     " if self.status == "starts" else "may fit  "
            out.append(
                f"{word} {self.concurrency_at_context:.2f}× requests of the full context ({self.context_length:,} tokens){running}"
            )
        else:
            word = "refused" if self.status == "refused" else "no fit "
            out.append(f"{word}   {self.refusal}")
        before = [a for a in self.allocations if a.phase == "before-pool" and a.name != "weights"]
        if before:  # sized before the KV pool: inside its budget, not taken from what it leaves
            out.append("before KV measured before the KV cache is sized (inside its budget):")
            out.extend(f"  alloc   {a.line()}" for a in before)
        after = [a for a in self.allocations if a.phase == "after-pool"]
        if self.headroom_bytes is not None:
            out.append(
                f"after KV  {self.headroom_bytes / GIB:.2f} GiB left on the device"
                + (" for:" if after else "")
            )
        out.extend(f"  alloc   {a.line()}" for a in after)
        if self.refusal is None and self.status == "unknown":
            out.append(f"unknown   {self.unknown_reason}")
        if self.fix:
            out.append(f"fix       {self.fix}")
        return out
