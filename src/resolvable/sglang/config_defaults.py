"""Config-class defaults: what transformers' (and sglang's own) config classes fill in (spec §11.2).

sglang 0.5.15 loads ``config.json`` through the config class of its ``model_type``
(transformers 5.12.1, the version the wheel pins, or sglang's ``srt/configs/*.py`` where sglang
registers its own class), so a rule reading ``hf_config.KEY`` sees the class default when the
key is missing and the class's ``__post_init__`` transforms. ``TABLE`` lists those facts for
every key the pack's rules read; ``apply_config_defaults`` applies them to an ``HFConfig``.

Invariants:

* facts only, one row per (model types, key); no transformers import;
* a value that came from a row is recorded in ``hf.origins`` (``explain`` shows it) and
  ``hf.raw`` keeps config.json as read;
* applying twice changes nothing (rows fill missing keys or derive from other keys), so the
  pack may apply it to every config it is given;
* a config the class itself cannot load (Exaone4 with no ``layer_types`` to derive) is a
  ``ConfigError`` naming the file, as transformers refuses it.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..rules import record_tuple

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..rules import HFConfig

_TF = "transformers 5.12.1"
_SG = "sglang 0.5.15"

#: No plain default for a missing key (the row only derives).
NO_DEFAULT = object()


class Row(record_tuple("Row", "model_types key default derive source")):
    """``default`` fills a missing key; ``derive(cfg)`` then returns the value the class ends with
    (or ``KEEP``); ``source`` names the class, file and field."""


KEEP = object()


def _exaone_pattern(cfg: dict[str, Any]) -> Any:
    # Exaone4Config/ExaoneMoeConfig.__post_init__: a null sliding_window zeroes the pattern.
    return 0 if cfg.get("sliding_window") is None else KEEP


def _kv_heads_from_heads(cfg: dict[str, Any]) -> Any:
    # ``if self.num_key_value_heads is None: self.num_key_value_heads = self.num_attention_heads``
    return cfg.get("num_attention_heads") if cfg.get("num_key_value_heads") is None else KEEP


def _nemotron_chunk(cfg: dict[str, Any]) -> Any:
    # NemotronHConfig._resolve_mamba_chunk_size: mamba_chunk_size, else legacy chunk_size, else 256.
    if cfg.get("mamba_chunk_size") is not None:
        return KEEP
    return cfg.get("chunk_size") if cfg.get("chunk_size") is not None else 256


def _olmo3_architectures(cfg: dict[str, Any]) -> Any:
    # sglang's Olmo3Config.__init__: "This model uses Olmo3ForCausalLM in transformers but
    # Olmo2ForCausalLM in sglang" -- the architecture is renamed, so Olmo2's rules apply.
    archs = cfg.get("architectures")
    if archs is None:
        return ["Olmo2ForCausalLM"]
    if isinstance(archs, (list, tuple)) and "Olmo3ForCausalLM" in archs:
        return [a for a in archs if a != "Olmo3ForCausalLM"] + ["Olmo2ForCausalLM"]
    return KEEP


def _granite_layer_types(cfg: dict[str, Any]) -> Any:
    # GraniteMoeHybridConfig.__init__: no layer_types -> attention every 6th layer, mamba elsewhere.
    if cfg.get("layer_types") is not None:
        return KEEP
    layers = cfg.get("num_hidden_layers", 40)
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 0:
        return KEEP  # the class would fail on its own; the rules read nothing then
    return ["attention" if (i + 1) % 6 == 0 else "mamba" for i in range(layers)]


_EXAONE = ("exaone4", "exaone_moe")
_MAMBA_256 = ("granitemoehybrid", "falcon_h1")

TABLE: tuple[Row, ...] = (
    # -- Exaone 4 / EXAONE-MoE: sliding_window_pattern gates §3.7 ---------------------------
    Row(_EXAONE, "sliding_window", 4096, None, f"{_TF} Exaone4Config/ExaoneMoeConfig.sliding_window"),
    Row(
        _EXAONE,
        "sliding_window_pattern",
        4,
        _exaone_pattern,
        f"{_TF} Exaone4Config/ExaoneMoeConfig.sliding_window_pattern (0 when sliding_window is null)",
    ),
    Row(_EXAONE, "num_key_value_heads", 32, None, f"{_TF} Exaone4Config.num_key_value_heads"),
    Row(_EXAONE, "max_position_embeddings", 2048, None, f"{_TF} Exaone4Config.max_position_embeddings"),
    # -- hybrid mamba: layer_types, mlp_hidden_act, mamba_chunk_size (§3.11) -------------------
    Row(
        ("granitemoehybrid",),
        "layer_types",
        NO_DEFAULT,
        _granite_layer_types,
        f"{_SG} configs/granitemoehybrid.py GraniteMoeHybridConfig.layer_types",
    ),
    Row(
        _MAMBA_256,
        "mamba_chunk_size",
        256,
        None,
        f"{_SG} configs/granitemoehybrid.py, configs/falcon_h1.py mamba_chunk_size",
    ),
    Row(
        ("nemotron_h", "nemotron_h_puzzle"),
        "mamba_chunk_size",
        NO_DEFAULT,
        _nemotron_chunk,
        f"{_SG} configs/nemotron_h.py NemotronHConfig._resolve_mamba_chunk_size (chunk_size, else 256)",
    ),
    Row(
        ("nemotron_h", "nemotron_h_puzzle"),
        "mlp_hidden_act",
        "relu2",
        None,
        f"{_SG} configs/nemotron_h.py NemotronHConfig.mlp_hidden_act",
    ),
    # -- DeepSeek-shaped configs: MLA and DSA markers (§3.1, §3.21) ----------------------------
    Row(
        ("deepseek_v3", "deepseek_v32", "deepseek_v4", "kimi_k2", "glm_moe_dsa"),
        "kv_lora_rank",
        512,
        None,
        f"{_TF} DeepseekV3Config.kv_lora_rank (sglang aliases deepseek_v32/v4/kimi_k2 to it)",
    ),
    Row(("glm_moe_dsa",), "index_topk", 2048, None, f"{_TF} GlmMoeDsaConfig.index_topk"),
    Row(
        ("deepseek_v3", "deepseek_v32", "deepseek_v4", "kimi_k2"),
        "max_position_embeddings",
        4096,
        None,
        f"{_TF} DeepseekV3Config.max_position_embeddings",
    ),
    # -- HRM-Text: prefix_lm (§3.19) -------------------------------------------------------------
    Row(("hrm_text",), "prefix_lm", True, None, f"{_TF} HrmTextConfig.prefix_lm"),
    # -- KV heads and context of the common dense families (§4.1 ROCm default, C17) -----------
    Row(
        ("qwen2", "qwen3"),
        "num_key_value_heads",
        32,
        _kv_heads_from_heads,
        f"{_TF} Qwen2Config/Qwen3Config.num_key_value_heads (32; null -> num_attention_heads)",
    ),
    Row(
        ("qwen2", "qwen3"),
        "num_attention_heads",
        32,
        None,
        f"{_TF} Qwen2Config/Qwen3Config.num_attention_heads",
    ),
    Row(
        ("qwen2", "qwen3"),
        "max_position_embeddings",
        32768,
        None,
        f"{_TF} Qwen2Config/Qwen3Config.max_position_embeddings",
    ),
    Row(
        ("llama", "mistral"),
        "num_attention_heads",
        32,
        None,
        f"{_TF} LlamaConfig/MistralConfig.num_attention_heads",
    ),
    Row(
        ("llama",),
        "num_key_value_heads",
        NO_DEFAULT,
        _kv_heads_from_heads,
        f"{_TF} LlamaConfig.num_key_value_heads (null -> num_attention_heads)",
    ),
    Row(("mistral",), "num_key_value_heads", 8, None, f"{_TF} MistralConfig.num_key_value_heads"),
    Row(("llama",), "max_position_embeddings", 2048, None, f"{_TF} LlamaConfig.max_position_embeddings"),
    Row(
        ("mistral",), "max_position_embeddings", 131072, None, f"{_TF} MistralConfig.max_position_embeddings"
    ),
    Row(("olmo3",), "architectures", NO_DEFAULT, _olmo3_architectures, f"{_SG} configs/olmo3.py Olmo3Config"),
    # -- vision towers (a sub-config without a model_type is typed "<model_type>.vision_config");
    #    the default fraction's VLM scaling reads them (sglang/memory.default_mem_fraction_static)
    Row(
        ("kimi_k25.vision_config",),
        "num_hidden_layers",
        27,
        None,
        f"{_SG} configs/kimi_k25.py KimiK25VisionConfig",
    ),
    Row(
        ("kimi_k25.vision_config",),
        "hidden_size",
        1152,
        None,
        f"{_SG} configs/kimi_k25.py KimiK25VisionConfig",
    ),
)

_BY_TYPE: dict[str, list[Row]] = {}
for _row in TABLE:
    for _t in _row.model_types:
        _BY_TYPE.setdefault(_t, []).append(_row)


def _check_exaone_layer_types(cfg: dict[str, Any], source: str, model_type: str) -> None:
    """Exaone4Config derives ``layer_types`` from the pattern with ``(i + 1) % pattern``: with no
    ``layer_types`` a pattern of 0 (ZeroDivisionError) or a string (TypeError) fails to load."""
    if cfg.get("layer_types") is not None or not cfg.get("num_hidden_layers", 32):
        return
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, bool) or not isinstance(pattern, int) or pattern == 0:
        raise ConfigError(
            f"{source}: transformers' {model_type} config class cannot derive 'layer_types' from "
            f"sliding_window_pattern={pattern!r} (it computes (i + 1) % pattern); add 'layer_types' to the config"
        )


_CHECKS: dict[str, Callable[[dict[str, Any], str, str], None]] = {
    "exaone4": _check_exaone_layer_types,
    "exaone_moe": _check_exaone_layer_types,
}


def _section_changes(
    cfg: dict[str, Any], source: str, model_type: Any = None
) -> tuple[dict[str, Any], dict[str, str]]:
    model_type = model_type or cfg.get("model_type")
    rows = _BY_TYPE.get(model_type) if isinstance(model_type, str) else None
    if not rows:
        return {}, {}
    work = dict(cfg)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for r in rows:  # defaults first: derivations read the filled values, like __post_init__
        if r.default is not NO_DEFAULT and r.key not in work:
            work[r.key] = values[r.key] = r.default
            origins[r.key] = f"{r.source}: default, not in config.json"
    for r in rows:
        if r.derive is None:
            continue
        derived = r.derive(work)
        if derived is not KEEP and work.get(r.key, NO_DEFAULT) != derived:
            work[r.key] = values[r.key] = derived
            origins[r.key] = f"{r.source}: derived by the config class"
    check = _CHECKS.get(model_type)
    if check is not None:
        check(work, source, model_type)
    return values, origins


def apply_config_defaults(hf: HFConfig) -> HFConfig:
    """``hf`` with the config-class defaults of its ``model_type`` and of its sub-configs' (a
    sub-config without a ``model_type`` of its own is typed ``<model_type>.<section>``)."""
    from ..rules import HFConfig

    values, origins = _section_changes(dict(hf), hf.source)
    for section in ("text_config", "llm_config", "vision_config"):
        inner = hf.get(section)
        if isinstance(inner, HFConfig):
            kind = inner.get("model_type") or f"{hf.get('model_type')}.{section}"
            inner_values, inner_origins = _section_changes(dict(inner), hf.source, kind)
            values.update({f"{section}.{k}": v for k, v in inner_values.items()})
            origins.update({f"{section}.{k}": v for k, v in inner_origins.items()})
    return hf.overlay(values, origins) if values else hf
