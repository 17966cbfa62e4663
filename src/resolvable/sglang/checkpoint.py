"""What sglang 0.5.15 reads besides ``config.json``, and how it folds it into the model config.

* ``hf_quant_config.json`` (ModelOpt checkpoints): read by ``ModelConfig._parse_quant_hf_config``
  (``srt/configs/model_config.py:1036``) only when ``config.json`` has neither
  ``quantization_config`` nor ``compression_config``; its ``quantization`` object is reduced to
  ``{"quant_method": modelopt_fp8 | modelopt_fp4 | modelopt_mixed | w4afp8, "quant_algo": ...}``
  (``_parse_modelopt_quant_config``, :1148). That result feeds ``model_config.quantization``
  (``_verify_quantization``), never ``hf_config.quantization_config``. Later readings, used by
  the release's ``verify_quantization`` rule only (``checkpoint_quant_config`` keywords): 0.5.18
  names only ``FP8`` itself modelopt_fp8 and ``MXFP8`` mxfp8; 0.5.20 accepts a flat or nested
  ModelOpt object (``unwrap_modelopt``).
* a ``quantization_config`` of config.json with no ``quant_method`` or ``quant_method ==
  "modelopt"`` is refined in place by the same parser (``quant_cfg.update(parsed_cfg)``), so
  every later reader of ``hf_config.quantization_config`` sees e.g. ``modelopt_fp8``.
* ``params.json`` (Mistral-native checkpoints): ``get_config`` routes a model whose *name*
  matches ``is_mistral_model`` (``srt/utils/hf_transformers/mistral_utils.py``: contains
  ``mistral-large-3``, ``mistral-small-4`` or ``leanstral``, or both ``eagle`` and ``mistral``)
  to the Mistral parser, which builds the whole config from ``params.json`` and ignores
  ``config.json`` (``adapt_config_dict``, ``MistralConfigParser.parse``); ``--model-config-parser hf``
  turns the routing off. Before 0.5.10 (``MISTRAL_NATIVE_SMALL4_LEANSTRAL``; 0.5.9
  ``utils/hf_transformers_utils.get_config``) only ``mistral-large-3`` routed, and before
  0.5.6.post1 (``MISTRAL_LARGE_3_PARAMS_JSON``; 0.5.6) no name did: ``AutoConfig`` read
  config.json. The release, when the caller names one, is asked through the change table.

Invariants: functions here are pure over the ``HFConfig`` they get; ``prepare`` is idempotent;
a malformed ``hf_quant_config.json`` or ``params.json`` is a ``ConfigError`` naming that file.
"""

from __future__ import annotations

from ..errors import ConfigError
from .config_defaults import apply_config_defaults
from .facts import quantization_config

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..rules import HFConfig

HF_QUANT_CONFIG = "hf_quant_config.json"
PARAMS_JSON = "params.json"
#: Files read beside config.json and attached to the HFConfig (``hf.sidecars``).
SIDECARS = (HF_QUANT_CONFIG,)

_PARSE_QUANT = "sglang ModelConfig._parse_quant_hf_config (configs/model_config.py:1036)"
_ADAPTER = "sglang's Mistral params.json adapter (utils/hf_transformers/mistral_utils.py)"


# -- ModelOpt quantization -------------------------------------------------------------------


def _plain(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def parse_modelopt(quantization: Any, where: str, *, exact_fp8: bool = False) -> dict[str, Any] | None:
    """``_parse_modelopt_quant_config``: the quant method a ModelOpt ``quantization`` object names.
    ``exact_fp8`` is the 0.5.18 parser: only a ``quant_algo`` of exactly ``FP8`` is
    ``modelopt_fp8``, ``MXFP8`` is ``mxfp8``, any other FP8 spelling names no method (before
    0.5.18 every ``quant_algo`` containing ``FP8`` was ``modelopt_fp8``)."""
    if not hasattr(quantization, "get"):
        raise ConfigError(f"{where}: the ModelOpt 'quantization' must be an object, got {quantization!r}")
    algo = quantization.get("quant_algo")
    if algo is not None and not isinstance(algo, str):
        raise ConfigError(f'{where}: \'quant_algo\' must be a string such as "FP8" or "NVFP4", got {algo!r}')
    if algo == "MIXED_PRECISION":
        layers = quantization.get("quantized_layers") or {}
        values = layers.values() if hasattr(layers, "values") else ()
        nvfp4 = any(
            str(layer.get("quant_algo", "")).upper() in ("NVFP4", "W4A16_NVFP4")
            for layer in values
            if hasattr(layer, "get")
        )
        return {"quant_method": "modelopt_mixed" if nvfp4 else "w4afp8", "quant_algo": algo}
    if algo and ("FP4" in algo or "NVFP4" in algo):
        return {"quant_method": "modelopt_fp4", "quant_algo": algo}
    if exact_fp8:
        # (sglang also fills the MXFP8 block layout and ignored layers; only the method is read here)
        named = {"FP8": "modelopt_fp8", "MXFP8": "mxfp8"}.get(algo or "")
        return {"quant_method": named, "quant_algo": algo} if named else None
    if algo and "FP8" in algo:
        return {"quant_method": "modelopt_fp8", "quant_algo": algo}
    return None


def unwrap_modelopt(quantization: Any) -> Any:
    """``unwrap_modelopt_quantization_config`` (0.5.20): the ModelOpt object sglang parses out of
    ``{"quantization": X}``: X, or X's own ``quantization`` object when it nests one; a
    non-object X gives ``{}`` (no method)."""
    inner = quantization.get("quantization", quantization)
    if not hasattr(inner, "get") or isinstance(inner, str):
        return {}
    nested = inner.get("quantization")
    return nested if hasattr(nested, "get") and not isinstance(nested, str) else inner


def hf_quantization_config(hf: HFConfig) -> Any:
    """config.json's ``quantization_config`` as sglang's ``hf_config`` holds it (None if absent).
    ``KimiK25Config`` (configs/kimi_k25.py ``__init__``) hoists ``text_config.quantization_config``
    to the top level when the top level has none, so Kimi-K2.5 checkpoints are read there."""
    qc = quantization_config(hf)  # checks the shape, naming the file
    if qc is None and hf.get("model_type") == "kimi_k25" and hf.text_config is not hf:
        qc = quantization_config(hf.text_config)
    return qc


def _refined_quantization_config(hf: HFConfig) -> dict[str, Any] | None:
    """config.json's quantization_config after sglang's in-place ModelOpt refinement (or None)."""
    qc = hf.get("quantization_config")
    if not hasattr(qc, "get") or isinstance(qc, str):
        return None  # absent, or malformed (facts.quantization_config reports it)
    method = qc.get("quant_method")
    if method is not None and method != "modelopt":
        return None
    parsed = parse_modelopt(qc, f"{hf.source}: quantization_config")
    if not parsed:
        return None
    merged = {**_plain(qc), **parsed}
    return None if merged == _plain(qc) else merged


def checkpoint_quant_config(
    hf: HFConfig, *, exact_fp8: bool = False, unwrap: bool = False, modelopt_named_kept: bool = False
) -> Any:
    """The checkpoint quantization config sglang's ``_verify_quantization`` starts from
    (``_parse_quant_hf_config``): config.json's ``quantization_config`` (refined in place when it
    is a ModelOpt one), else its ``compression_config``, else the parsed ``hf_quant_config.json``
    (None when none says). The defaults are the 0.5.15 parser; ``exact_fp8`` is 0.5.18's
    ``quant_algo`` reading (``parse_modelopt``), ``unwrap`` 0.5.20's flat or nested ModelOpt
    objects (``unwrap_modelopt``); ``modelopt_named_kept`` the parser before 0.5.10, which refines
    only a ``quantization_config`` without a ``quant_method`` (``quant_method: "modelopt"`` stays)."""
    qc = hf_quantization_config(hf)
    if (exact_fp8 or unwrap or modelopt_named_kept) and hf.origin("quantization_config") == _PARSE_QUANT:
        # ``prepare`` refined it with the 0.5.15 parser: this release parses the file's own object
        from .facts import quantization_config

        qc = quantization_config(hf.raw)
    if qc is not None:
        method = qc.get("quant_method")
        if method is not None and not isinstance(method, str):
            raise ConfigError(
                f"{hf.source}: quantization_config.quant_method must be a string, got {method!r}"
            )
        if method is None or (method == "modelopt" and not modelopt_named_kept):
            where = f"{hf.source}: quantization_config"
            body = unwrap_modelopt({"quantization": qc}) if unwrap else qc
            parsed = parse_modelopt(body, where, exact_fp8=exact_fp8) if body else None
            return {**_plain(qc), **parsed} if parsed else qc
        return qc
    cc = hf.get("compression_config")
    if cc is not None:
        return cc
    side = hf.sidecar(HF_QUANT_CONFIG)
    if side is None:
        return None
    if unwrap:  # 0.5.20: a flat hf_quant_config.json is read as the ModelOpt object itself
        body = unwrap_modelopt(side)
        return parse_modelopt(body, f"{side.source}", exact_fp8=exact_fp8) if body else None
    if "quantization" not in side:
        raise ConfigError(
            f"{side.source}: a ModelOpt hf_quant_config.json needs a 'quantization' object "
            '(e.g. {"quantization": {"quant_algo": "FP8"}}); sglang reads quantization.quant_algo'
        )
    return parse_modelopt(side["quantization"], f"{side.source}: quantization", exact_fp8=exact_fp8)


def checkpoint_quant_method(hf: HFConfig) -> str | None:
    """``quant_method`` of ``checkpoint_quant_config`` (what ``model_config.quantization`` takes
    from the checkpoint when ``--quantization`` is not given)."""
    cfg = checkpoint_quant_config(hf)
    if cfg is None or not hasattr(cfg, "get"):
        return None
    method = cfg.get("quant_method")
    if method is not None and not isinstance(method, str):
        raise ConfigError(f"{hf.source}: quant_method must be a string, got {method!r}")
    return method.lower() if method else None


# -- Mistral-native checkpoints (params.json) -------------------------------------------------


def is_mistral_model(name: str, release: str | None = None) -> bool:
    """``is_mistral_model``: the name routes sglang to the params.json parser. ``release`` (None:
    the newest behaviour) is a release of the pack: ``mistral-large-3`` routes since
    ``MISTRAL_LARGE_3_PARAMS_JSON`` (0.5.6.post1's ``_load_mistral_large_3_for_causal_LM``), the
    other names since ``MISTRAL_NATIVE_SMALL4_LEANSTRAL`` (0.5.10; 0.5.9 ``get_config``)."""
    lower = str(name).lower()
    view = None
    if release is not None:
        from ._base import registry

        if release in registry.releases:  # another release (parse-only) is not resolved
            view = registry.release_view(release)
    if view is not None:
        from .changes import CHANGES

        if "mistral-large-3" in lower:
            return view.has(CHANGES.MISTRAL_LARGE_3_PARAMS_JSON)
        if not view.has(CHANGES.MISTRAL_NATIVE_SMALL4_LEANSTRAL):
            return False
    if "mistral-large-3" in lower or "mistral-small-4" in lower or "leanstral" in lower:
        return True
    return "eagle" in lower and "mistral" in lower


_GENERAL = {
    "dim": "hidden_size",
    "norm_eps": "rms_norm_eps",
    "n_kv_heads": "num_key_value_heads",
    "n_layers": "num_hidden_layers",
    "n_heads": "num_attention_heads",
    "hidden_dim": "intermediate_size",
}
_WITH_DEFAULT = {  # HF key: (params.json key, default)
    "model_type": ("model_type", "transformer"),
    "hidden_act": ("activation", "silu"),
    "tie_word_embeddings": ("tied_embeddings", False),
    "max_seq_len": ("max_seq_len", 128_000),
    "max_position_embeddings": ("max_position_embeddings", 128_000),
}
_MOE = {
    "route_every_n": "moe_layer_freq",
    "first_k_dense_replace": "first_k_dense_replace",
    "num_experts_per_tok": "num_experts_per_tok",
    "num_experts": "n_routed_experts",
    "expert_hidden_dim": "moe_intermediate_size",
    "routed_scale": "routed_scaling_factor",
    "num_shared_experts": "n_shared_experts",
    "num_expert_groups": "n_group",
    "num_expert_groups_per_tok": "topk_group",
}
_MLA_KEYS = ("q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "kv_lora_rank", "v_head_dim")


def adapt_params(params: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    """``MistralConfigParser.parse`` + ``adapt_config_dict``: params.json → an HF config dict."""
    cfg = dict(params)
    if cfg.get("max_position_embeddings") is None:
        cfg["max_position_embeddings"] = 128_000
    for key, new in _GENERAL.items():
        if key in cfg:
            cfg[new] = cfg.pop(key)
    for new, (key, default) in _WITH_DEFAULT.items():
        cfg[new] = cfg.pop(key, default)
    quant = cfg.pop("quantization", None)
    if quant:
        if not hasattr(quant, "get") or quant.get("qformat_weight") != "fp8_e4m3":
            raise ConfigError(f"{where}: Found unknown quantization='{quant}' in config")
        act = quant.get("qscheme_act")
        if act not in ("NO_SCALES", "TENSOR", None):
            raise ConfigError(f"{where}: Only NO_SCALES and TENSOR (default) are supported for qscheme_act")
        scheme = "dynamic" if act == "NO_SCALES" else "static"
        cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": scheme}
    moe = cfg.get("moe")
    is_moe = bool(moe)
    if is_moe and not hasattr(moe, "get"):
        raise ConfigError(f"{where}: 'moe' must be an object, got {moe!r}")
    large3 = is_moe and (moe.get("num_shared_experts") or 0) > 0
    eagle = "eagle" in name.lower()
    mla_eagle = eagle and any(cfg.get(k) is not None for k in ("kv_lora_rank", "q_lora_rank", "v_head_dim"))
    if eagle and not is_moe and mla_eagle:
        layers = cfg.get("num_hidden_layers", 0)
        cfg.update(
            model_type="deepseek_v3",
            architectures=["MistralLarge3ForCausalLMEagle"],
            n_routed_experts=1,
            first_k_dense_replace=layers,
            moe_layer_freq=1,
            n_shared_experts=0,
            n_group=1,
            topk_group=1,
            num_experts_per_tok=1,
            moe_intermediate_size=1,
            routed_scaling_factor=1.0,
            topk_method=None,
            scoring_func="softmax",
            routing_method_type=1,
        )
    elif not is_moe:
        arch = "MistralForCausalLMEagle" if eagle else "MistralForCausalLM"
        cfg.update(architectures=[arch], model_type="mistral", rope_is_neox_style=False)
        for key in _MLA_KEYS:
            if cfg.get(key) is None:
                cfg.pop(key, None)
    elif large3:
        moe = dict(moe)
        for key, new in _MOE.items():
            if key in moe:
                cfg[new] = moe.pop(key)
        cfg["moe"] = moe
        cfg.update(topk_method=None, scoring_func="softmax", routing_method_type=1, model_type="deepseek_v3")
        cfg["architectures"] = ["MistralLarge3ForCausalLMEagle" if eagle else "MistralLarge3ForCausalLM"]
        scaling = cfg.get("llama_4_scaling")
        if not hasattr(scaling, "get"):
            raise ConfigError(f"{where}: MistralLarge3 expect llama4 scaling config.")
        missing = [k for k in ("original_max_position_embeddings", "beta") if k not in scaling]
        if missing:
            raise ConfigError(
                f"{where}: llama_4_scaling config should define the keys: original_max_position_embeddings,beta"
            )
    else:
        cfg["architectures"] = ["MixtralForCausalLM"]
    mm = cfg.get("multimodal") or {}
    if not hasattr(mm, "get"):
        raise ConfigError(f"{where}: 'multimodal' must be an object, got {mm!r}")
    vision = bool(mm.get("vision_encoder_args") or cfg.get("vision_encoder"))
    whisper = mm.get("whisper_model_args") or {}
    audio = bool(whisper.get("encoder_args")) if hasattr(whisper, "get") else False
    if vision and audio:
        raise ConfigError(f"{where}: Vision and audio are mutually exclusive")
    if vision:
        vision_config = cfg.pop("multimodal") if cfg.get("multimodal") else cfg.pop("vision_encoder")
        wrapped = {
            "model_type": "pixtral",
            "architectures": ["PixtralForConditionalGeneration"],
            "text_config": cfg,
            "vision_config": {"model_type": "pixtral", **_plain(vision_config)},
        }
        if cfg.get("quantization_config"):
            wrapped["quantization_config"] = cfg["quantization_config"]
        cfg = wrapped
    elif audio:
        text = dict(cfg)
        text.pop("multimodal", None)
        wrapped = {
            "model_type": "whixtral",
            "architectures": ["VoxtralForConditionalGeneration"],
            "text_config": text,
        }
        if cfg.get("quantization_config"):
            wrapped["quantization_config"] = cfg["quantization_config"]
        cfg = wrapped
    _list_sliding_window(cfg)
    return cfg


def _list_sliding_window(cfg: dict[str, Any]) -> None:
    """A list ``sliding_window`` becomes ``layer_types`` plus its first non-null window."""
    window = cfg.get("sliding_window")
    if window and isinstance(window, (list, tuple)):
        layers = cfg.get("num_hidden_layers")
        if isinstance(layers, int) and not isinstance(layers, bool):
            pattern = list(window) * (layers // len(window))
            cfg["layer_types"] = ["full_attention" if w is None else "sliding_attention" for w in pattern]
        cfg["sliding_window"] = next((w for w in window if w), None)


def _thaw(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def make_parser(
    model_config_parser: str = "auto", release: str | None = None
) -> Callable[[str, Any], HFConfig | None]:
    """The ``load_hf_config`` parser hook of ``--model-config-parser`` (auto, hf or mistral), as
    ``release`` routes names (``is_mistral_model``; None: the newest behaviour)."""

    def parse(name: str, read: Any) -> HFConfig | None:
        from ..rules import HFConfig

        if model_config_parser == "hf" or (
            model_config_parser == "auto" and not is_mistral_model(name, release)
        ):
            return None
        params = read(PARAMS_JSON)
        if params is None:
            raise ConfigError(
                f"{name}: sglang reads this model's config from params.json (the name matches its Mistral-native "
                "routing, is_mistral_model), but there is none; add params.json or pass --model-config-parser hf"
            )
        raw = _thaw(params)
        data = adapt_params(raw, name, params.source)
        origins = {
            k: f"{_ADAPTER}: built from params.json" for k, v in data.items() if raw.get(k, v is None) != v
        }
        return HFConfig(data, source=params.source, origins=origins)

    return parse


# -- the config the rules read -----------------------------------------------------------------


def prepare(hf: HFConfig) -> HFConfig:
    """The config as sglang's rules see it: config-class defaults of its ``model_type``, then the
    in-place ModelOpt refinement of ``quantization_config``. Idempotent, and derived once per
    config object (every resolution prepares its config)."""
    prepared = hf.derived(_PREPARED, _prepare)
    return hf if prepared is _ITSELF else prepared


_PREPARED = "sglang.prepare"
_ITSELF = object()  # kept instead of the config itself (no reference cycle)


def _prepare(hf: HFConfig) -> Any:
    prepared = apply_config_defaults(hf)
    refined = _refined_quantization_config(prepared)
    if refined is not None:
        prepared = prepared.overlay({"quantization_config": refined}, {"quantization_config": _PARSE_QUANT})
    if prepared is hf:
        return _ITSELF
    prepared.derived(_PREPARED, lambda same: _ITSELF)  # preparing it again gives itself (idempotent)
    return prepared
