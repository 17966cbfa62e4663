"""Facts the engine-configuration rules read from the model config, the platform and the env.

Invariants: pure functions of their arguments (an ``HFConfig``, a ``Platform``, an env mapping),
no rule state; each names the vLLM function it restates (paths relative to the ``vllm`` package).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...rules import HFConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GIB = 1 << 30

#: Architectures whose model class is ``IsHybrid`` (attention + Mamba/linear-attention/conv layers).
HYBRID_ARCHS = frozenset(
    {
        "BambaForCausalLM",
        "FalconH1ForCausalLM",
        "GraniteMoeHybridForCausalLM",
        "JambaForCausalLM",
        "JambaForSequenceClassification",
        "Lfm2ForCausalLM",
        "Lfm2MoeForCausalLM",
        "Lfm2VlForConditionalGeneration",
        "MiniMaxText01ForCausalLM",
        "MiniMaxM1ForCausalLM",
        "NemotronHForCausalLM",
        "NemotronH_Nano_VL_V2",
        "Plamo2ForCausalLM",
        "Qwen3NextForCausalLM",
        "Qwen3_5ForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForCausalLM",
        "Qwen3_5MoeForConditionalGeneration",
        "KimiLinearForCausalLM",
        "Zamba2ForCausalLM",
    }
)
#: Pure Mamba/SSM architectures (``attn_type == "attention_free"``).
ATTENTION_FREE_ARCHS = frozenset(
    {"MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM", "MambaLMHeadModel"}
)
#: Bidirectional encoder model types (pooling models with ``encoder_only`` attention).
_ENCODER_ONLY_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "nomic_bert", "modernbert", "gte", "new"})
_POOLING_SUFFIXES = (
    "ForSequenceClassification",
    "ForTokenClassification",
    "ForRewardModel",
    "ForEmbedding",
    "EmbeddingModel",
    "ForProcessRewardModel",
)
#: ``layer_types`` entries that are attention layers (``is_hybrid`` is False when all are).
_ATTENTION_LAYER_TYPES = frozenset({"attention", "full_attention", "sliding_attention", "sliding_window"})


def derived_fact(hf: Any, key: str, compute: Any) -> Any:
    """``compute(hf)``, kept with the config (``HFConfig.derived``: a config never changes); under
    tracing (``explain``) the config is a recording proxy and the value is computed afresh, so the
    keys it reads show in "because"."""
    if type(hf) is HFConfig:
        return hf.derived(key, compute)
    return compute(hf)


def architecture_kind(hf: HFConfig) -> str:
    """What the model registry says about the architecture, as far as the config shows it:
    ``pooling`` (classification, reward and embedding classes), ``encoder_only``, ``attention_free``,
    or ``generate``."""
    arch = hf.architecture or ""
    model_type = str(hf.text_config.get("model_type") or "")
    if arch in ATTENTION_FREE_ARCHS:
        return "attention_free"
    if model_type in _ENCODER_ONLY_TYPES:
        return "encoder_only"
    if arch.endswith(_POOLING_SUFFIXES) or (arch.endswith("Model") and not arch.endswith("ForCausalLM")):
        return "pooling"
    return "generate"


def is_hybrid(hf: HFConfig) -> bool:
    """``ModelConfig.is_hybrid``: an ``IsHybrid`` class, unless every HF ``layer_types`` entry is an
    attention layer (e.g. Granite-4.0-micro, which reuses the hybrid class). The class is the
    registry's (``_normalize_arch``): a pooling name of a hybrid model (``Lfm2ForSequenceClassification``)
    is the adapted hybrid class."""
    arch = hf.architecture or ""
    if arch not in HYBRID_ARCHS:
        from .model_info import normalized

        found = normalized(arch)
        if found is None or found[0] not in HYBRID_ARCHS:
            return False
    layer_types = hf.text_config.get("layer_types")
    return not (layer_types and all(str(x) in _ATTENTION_LAYER_TYPES for x in layer_types))


def is_moe(hf: HFConfig) -> bool:
    """Whether the model has routed experts (``ModelConfig.is_moe``-like: an expert count key)."""
    t = hf.text_config
    if str(t.get("model_type") or "") == "nemotron_h" and "n_routed_experts" not in t:
        # NemotronHConfig (transformers and vLLM's own) defaults n_routed_experts to 8, so vLLM
        # counts a dense Nemotron-H as MoE (config-3117-00955: --enable-expert-parallel accepted)
        return True
    for key in (
        "num_experts",
        "n_routed_experts",
        "num_local_experts",
        "moe_num_experts",
        "num_experts_per_tok",
    ):
        value = t.get(key)
        if isinstance(value, int) and value > 0 and key != "num_experts_per_tok":
            return True
    return False


def platform_supported_dtypes(platform: Any) -> tuple[str, ...]:
    """``Platform.supported_dtypes`` (spec §3.1 step 2): CUDA cc >= 8.0 bf16/fp16/fp32, 6.0-7.x
    fp16/fp32, older fp32 (``platforms/cuda.py``); ROCm, XPU and CPU bf16/fp16/fp32 (``cpu.py``
    117: x86/aarch64 Linux; macOS ARM without BF16 is not a preset)."""
    if platform.vendor == "cuda":
        cap = tuple(platform.capability or (0, 0))
        if cap >= (8, 0):
            return ("bfloat16", "float16", "float32")
        if cap >= (6, 0):
            return ("float16", "float32")
        return ("float32",)
    return ("bfloat16", "float16", "float32")


def rope_parameters(t: HFConfig) -> list[Mapping[str, Any]]:
    """``iter_rope_parameters``: the RoPE parameter sets of the text config (per layer type when
    keyed by layer type). A legacy ``rope_scaling`` wins over ``rope_parameters``: transformers'
    ``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict`` sets ``rope_parameters =
    rope_scaling or rope_parameters`` (config-3117-00996: Qwen3.5 with both keys, scaled ×4)."""
    raw = t.get("rope_scaling") or t.get("rope_parameters")
    if not isinstance(raw, HFConfig):
        return []
    if "rope_type" in raw or "type" in raw or "factor" in raw:
        return [raw]
    return [v for v in raw.values() if isinstance(v, HFConfig)]


def env_flag(env: Mapping[str, str] | None, name: str) -> bool:
    """``vllm/envs.py`` boolean: "1"/"true" (case-insensitive) is on."""
    value = env.get(name) if env is not None else None
    return value is not None and str(value).strip().lower() in ("1", "true", "yes", "on")


def device_memory_bytes(platform: Any) -> int:
    """``current_platform.get_device_total_memory()`` from the platform facts (0 if unknown, like
    vLLM's fallback when the query raises)."""
    if platform.memory_gib is None:
        return 0
    return int(platform.memory_gib * GIB)


def num_kv_heads(hf: HFConfig) -> int:
    """``ModelConfig.get_total_num_kv_heads`` (dense configs): ``num_key_value_heads`` and its aliases,
    else the attention head count."""
    t = hf.text_config
    for key in ("num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"):
        value = t.get(key)
        if isinstance(value, int) and value > 0:
            return value
    if t.get("multi_query") is True:
        return 1
    return num_heads(hf)


def num_heads(hf: HFConfig) -> int:
    t = hf.text_config
    for key in ("num_attention_heads", "n_head", "num_heads", "decoder_attention_heads"):
        value = t.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return 1
