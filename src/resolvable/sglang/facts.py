"""Derived facts the rules share: model shape (MLA, sinks, DSA), effective backends, env flags.

Invariant: every function here is pure — it reads only the rule context it is given
(``ctx.args``, ``ctx.hf``, ``ctx.platform``, ``ctx.env``) and never the process environment.
"""

from __future__ import annotations

from ..errors import ConfigError, InvalidArgumentError
from ..rules import ArchList, record
from .changes import CHANGES

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

# -- arguments -----------------------------------------------------------------------------


def backends_not_set(args: Any) -> bool:
    """SGLang's ``is_attention_backend_not_set``: A, P and D are all unset (spec §5)."""
    return (
        args.attention_backend is None
        and args.prefill_attention_backend is None
        and (args.decode_attention_backend is None)
    )


def effective_backends(args: Any) -> tuple[Any, Any]:
    """(prefill, decode) actually used: ``P or A``, ``D or A`` (truthiness, spec §5)."""
    a = args.attention_backend
    return (args.prefill_attention_backend or a, args.decode_attention_backend or a)


def quantization_explicitly_unset(ctx: Any) -> bool:
    """The user passed ``--quantization unquant`` (rewritten to None by the device stage)."""
    return ctx.user_set("quantization") and ctx.args.quantization is None


def adopted_quantization(ctx: Any) -> tuple[str | None, bool]:
    """(``ServerArgs.quantization`` once a model branch adopts the checkpoint's method, whether it
    was adopted): the user's ``--quantization``, else (unless explicitly unset) the method of
    ``hf_config.quantization_config`` (``self.quantization = quant_method`` in the DeepSeek,
    Qwen3-MoE and GLM-4-MoE SM100 arms). Before ``QUANT_MODELOPT_IN_CONFIG_JSON`` (0.5.10) nothing
    has refined a config.json ``quant_method: "modelopt"`` when the branch reads it, so the
    adopted method is ``modelopt`` itself (``checkpoint.checkpoint_quant_config``)."""
    if ctx.args.quantization is not None or quantization_explicitly_unset(ctx):
        return ctx.args.quantization, False
    method = quant_method(ctx.hf)
    kept = not ctx.release.has(CHANGES.QUANT_MODELOPT_IN_CONFIG_JSON)
    if method is not None and kept and quant_method(ctx.hf.raw) == "modelopt":
        method = "modelopt"
    return method, method is not None


# -- environment ----------------------------------------------------------------------------

_TRUE = ("true", "1", "yes", "y")
_FALSE = ("false", "0", "no", "n")


def env_flag(ctx: Any, name: str, default: bool = False) -> bool:
    """An SGLang boolean environment variable (EnvBool: true/1/yes/y, false/0/no/n)."""
    raw = ctx.env.get(name)
    if raw is None:
        return default
    value = str(raw).strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise InvalidArgumentError(f"environment variable {name}={raw!r} is not a boolean; use 1/0 or true/false")


def flashinfer_available(ctx: Any) -> bool:
    """``is_flashinfer_available``: installed, on CUDA, not disabled by SGLANG_IS_FLASHINFER_AVAILABLE."""
    raw = str(ctx.env.get("SGLANG_IS_FLASHINFER_AVAILABLE", "true")).strip().lower()
    enabled = raw in ("true", "1")  # get_bool_env_var: anything else counts as False
    return enabled and ctx.platform.is_cuda and ctx.platform.has_kernel("flashinfer")


# -- model config ----------------------------------------------------------------------------


def quantization_config(hf: Any) -> Any:
    qc = hf.get("quantization_config")
    if qc is None:
        return None
    if not hasattr(qc, "get") or isinstance(qc, str):
        raise ConfigError(
            f"{hf.source}: 'quantization_config' must be an object like "
            f'{{"quant_method": "fp8"}}, got {type(qc).__name__}'
        )
    return qc


def quant_method(hf: Any) -> str | None:
    """The checkpoint's ``quantization_config.quant_method`` (None if absent)."""
    qc = quantization_config(hf)
    if qc is None:
        return None
    method = qc.get("quant_method")
    if method is not None and not isinstance(method, str):
        raise ConfigError(f"{hf.source}: quantization_config.quant_method must be a string, got {method!r}")
    return method


_MLA_ARCHS = frozenset(
    {
        "DeepseekV2ForCausalLM",
        "DeepseekV32ForCausalLM",
        "DeepseekV3ForCausalLM",
        "DeepseekV3ForCausalLMNextN",
        "Glm4MoeLiteForCausalLM",
        "Glm4MoeLiteForCausalLMNextN",
        "GlmMoeDsaForCausalLM",
        "LongcatFlashForCausalLM",
        "LongcatFlashForCausalLMNextN",
        "DotsVLMForCausalLM",
        "MistralLarge3ForCausalLMEagle",
        "KimiK25ForConditionalGeneration",
        "Eagle3DeepseekV2ForCausalLM",
    }
)
_MLA_IF_KV_LORA = frozenset({"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"})
_MHA_FORCED = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "Glm4MoeForCausalLMNextN"})
_MLA_LATE = frozenset(
    {
        "MiniCPM3ForCausalLM",
        "KimiVLForConditionalGeneration",
        "KimiLinearForCausalLM",
        "KimiK3ForConditionalGeneration",  # sglang 0.5.17: MLA like Kimi-Linear
        "BailingMoeV2_5ForCausalLM",
        "BailingMoeForCausalLMNextN",
        "SarvamMLAForCausalLM",
    }
)


#: Members of ``_MLA_ARCHS`` that a release added to ``ModelConfig._derive_model_shapes``'s MLA
#: list (GLM-5 and Kimi-K2.5 in 0.5.9, with their models).
MLA_ARCHS_SINCE = ArchList(
    ("GlmMoeDsaForCausalLM", "0.5.9"), ("KimiK25ForConditionalGeneration", "0.5.9"), what="MLA architectures"
)


def is_mla(hf: Any, release: Any = None) -> bool:
    """``use_mla_backend()``: the model's attention is MLA (spec §3.21; any entry of architectures).
    ``release`` (the rule's ``ctx.release``; None: the newest behaviour) drops the members of
    ``MLA_ARCHS_SINCE`` it does not hold, and Mistral-Large-3 and Pixtral are MLA since 0.5.6.post1
    (``MISTRAL_LARGE_3_MLA``, ``ModelConfig._derive_model_shapes``)."""
    archs = set(hf.architectures)
    text = hf.text_config
    if release is not None:
        archs -= {a for a in archs & set(MLA_ARCHS_SINCE) if not release.holds(MLA_ARCHS_SINCE, a)}
    if archs & _MLA_ARCHS:
        return True
    if (
        archs & _MLA_IF_KV_LORA
        and text.get("kv_lora_rank") is not None
        and (release is None or release.has(CHANGES.MISTRAL_LARGE_3_MLA))
    ):
        return True
    if archs & _MHA_FORCED:
        return False
    if "MiniCPM3ForCausalLM" in archs:
        return True
    if "DeepseekVL2ForCausalLM" in archs and text.get("use_mla", True):
        return True
    return bool(archs & _MLA_LATE)


def has_attention_sinks(hf: Any) -> bool:
    """GPT-OSS always; MiMo-V2 when a sink bias is configured (spec §3.21)."""
    archs = set(hf.architectures)
    if "GptOssForCausalLM" in archs:
        return True
    if archs & {"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP"}:
        return bool(hf.get("add_swa_attention_sink_bias") or hf.get("add_full_attention_sink_bias"))
    return False


def kv_head_dims(hf: Any) -> tuple[Any, Any, Any, Any]:
    """(head_dim, v_head_dim, swa_head_dim, swa_v_head_dim) as ``ModelConfig._derive_model_shapes``
    derives them for an MHA model: each defaults to the one before it (``head_dim`` from hidden
    size / heads, ``v_head_dim`` and ``swa_head_dim`` from ``head_dim``, ``swa_v_head_dim`` from
    ``swa_head_dim``). The MLA arms overwrite these dimensions; read them for MHA models only."""
    text = hf.text_config
    head = text.get_typed("head_dim", int)
    if head is None:
        hidden, heads = text.get_typed("hidden_size", int), text.get_typed("num_attention_heads", int)
        head = hidden // heads if hidden and heads else None
    v_head = text.get_typed("v_head_dim", int) or head
    swa_head = text.get_typed("swa_head_dim", int) or head
    swa_v_head = text.get_typed("swa_v_head_dim", int) or swa_head
    return head, v_head, swa_head, swa_v_head


def has_asymmetric_kv(hf: Any) -> bool:
    """``ModelConfig.has_asymmetric_kv`` (sglang 0.5.17): K and V rows differ in width, for the
    full or the sliding-window layers (dimensions from ``kv_head_dims``)."""
    head, v_head, swa_head, swa_v_head = kv_head_dims(hf)
    return head != v_head or swa_head != swa_v_head


#: ``model_config.is_deepseek_dsa``'s architecture list, per release (checked against the wheels
#: 0.5.6.post1-0.5.23): Mistral-Large-3 and Pixtral since 0.5.6.post1, GLM-5 since 0.5.9,
#: LongCat-Flash and the GLM-5 draft since 0.5.16, Dots3 since 0.5.19, GLM-5-Next and HY-V4 since
#: 0.5.20.
DSA_ARCHS = ArchList(
    "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLMNextN",
    ("MistralLarge3ForCausalLM", "0.5.6.post1"),
    ("PixtralForConditionalGeneration", "0.5.6.post1"),
    ("GlmMoeDsaForCausalLM", "0.5.9"),
    ("GlmMoeDsaForCausalLMNextN", "0.5.16"),
    ("LongcatFlashForCausalLM", "0.5.16"),
    ("LongcatFlashForCausalLMNextN", "0.5.16"),
    ("Dots3NoteForCausalLM", "0.5.19"),
    ("Dots3NoteForCausalLMNextN", "0.5.19"),
    ("Glm5NextForConditionalGeneration", "0.5.20"),
    ("Glm5NextForConditionalGenerationNextN", "0.5.20"),
    ("HYV4ForCausalLM", "0.5.20"),
    ("HYV4ForCausalLMNextN", "0.5.20"),
    what="is_deepseek_dsa",
)


def is_deepseek_dsa(hf: Any, release: Any) -> bool:
    """``model_config.is_deepseek_dsa``: an architecture of its list in ``release`` (``DSA_ARCHS``;
    ``release`` is the rule's ``ctx.release``, which records the list member's range) with
    ``index_topk`` set (spec §3.1)."""
    return release.holds(DSA_ARCHS, hf.architecture) and hf.text_config.get("index_topk") is not None


_KV_HEAD_KEYS = (
    "n_head_kv",
    "num_kv_heads",
    "num_key_value_heads",
    "multi_query_group_num",
    "num_attention_groups",
)


def num_kv_heads_per_rank(hf: Any, tp_size: int) -> int:
    """``get_num_kv_heads(tp_size)``: total KV heads // tp, at least 1 (spec §10 #11)."""
    text = hf.text_config
    total = next((n for n in (text.get_typed(k, int) for k in _KV_HEAD_KEYS) if n is not None), None)
    if total is None:
        total = text.get_typed("num_attention_heads", int)
    if total is None:
        raise ConfigError(f"{hf.source}: no KV-head count (num_key_value_heads / num_attention_heads)")
    return max(1, total // max(1, tp_size))


_CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length")


def context_length(hf: Any) -> int:
    """The model's context length from the usual config keys (rope scaling is not applied)."""
    text = hf.text_config
    lengths = [text.get_typed(k, int) for k in _CONTEXT_KEYS]
    return max((n for n in lengths if n is not None), default=2048)


def capability_major(platform: Any) -> int:
    """Raw ``torch.cuda.get_device_capability()[0]`` (9 on MI300X), 0 when unknown."""
    cap = platform.capability
    return cap[0] if cap else 0


# -- quantization as the model config sees it (configs/model_config.py) ----------------------

#: Key under which a loader may place the raw ``hf_quant_config.json`` of a ModelOpt checkpoint
#: (read by ``ModelConfig._parse_quant_hf_config`` only when config.json has no quantization).
_MARLIN_GROUP_SIZES = (-1, 32, 64, 128)  # layers/quantization/marlin_utils.py


def _capability(platform: Any) -> int:
    cap = platform.capability
    return cap[0] * 10 + cap[1] if cap and platform.vendor in ("cuda", "hip", "musa") else -1


@record(frozen=True)  # not a dataclass: import cost (see _record)
class QuantReading:
    """How one sglang release reads the checkpoint's quantization before ``_verify_quantization``
    checks it. The defaults are 0.5.15's (kept by the 0.5.16 and 0.5.17 rules); each field names
    the release that changed it."""

    #: configs/model_config.py ``_parse_modelopt_quant_config`` (0.5.18): only ``quant_algo ==
    #: "FP8"`` is modelopt_fp8, ``MXFP8`` is mxfp8 (``checkpoint.parse_modelopt``).
    exact_fp8: bool = False
    #: ``unwrap_modelopt_quantization_config`` (0.5.20): flat and nested ModelOpt objects.
    unwrap: bool = False
    #: base_config.py ``_modelopt_override_quantization_method`` for ``--quantization modelopt``:
    #: "substring" (any FP8 / FP4 in ``quant_algo``), "exact_fp8" (0.5.18: MXFP8 → mxfp8, only
    #: FP8 itself → modelopt_fp8), "allowlist" (0.5.19: ``canonicalize_modelopt_quant_algo``).
    modelopt_user_algos: str = "substring"
    #: ``--quantization`` values for which model_config skips every override (0.5.18:
    #: ``REQUANTIZATION_METHODS``).
    keep_user: tuple[str, ...] = ()
    #: ``--quantization`` values the ModelOpt override leaves alone (0.5.18: nvfp4_online and
    #: ``REQUANTIZATION_METHODS``).
    modelopt_keeps: tuple[str, ...] = ()
    #: humming.py ``HummingConfig.override_quantization_method`` (registered since 0.5.16):
    #: ``--quantization humming`` claims any checkpoint but an mxfp4 one.
    humming: bool = False
    #: gptq.py ``GPTQMarlinConfig.is_gptq_marlin_compatible`` before 0.5.13
    #: (``GPTQ_MARLIN_OFF_CUDA``): no conversion off CUDA (``_is_cuda``).
    gptq_marlin_cuda_only: bool = False
    #: configs/model_config.py ``_parse_quant_hf_config`` before 0.5.10
    #: (``QUANT_MODELOPT_IN_CONFIG_JSON``): a config.json ``quantization_config`` that names
    #: ``quant_method: "modelopt"`` is not parsed by its ``quant_algo`` (only one without a
    #: ``quant_method`` is), so the checkpoint's method stays ``modelopt``.
    modelopt_named_kept: bool = False


_READING_BASE = QuantReading()

#: layers/modelopt_utils.py ``_MODELOPT_QUANT_ALGO_TO_METHOD`` (0.5.19).
_MODELOPT_ALGOS = {
    "FP8": "modelopt_fp8",
    "MXFP8": "mxfp8",
    "FP4": "modelopt_fp4",
    "NVFP4": "modelopt_fp4",
    "NVFP4_AWQ": "modelopt_fp4",
    "W4A16_NVFP4": "modelopt_fp4",
}


def _modelopt_user_override(algo: str, style: str) -> str | None:
    """What ``--quantization modelopt`` becomes for this ``quant_algo`` (upper case)."""
    if style == "allowlist":
        return _MODELOPT_ALGOS.get(algo)
    if style == "exact_fp8":
        if algo in ("MXFP8", "FP8"):
            return _MODELOPT_ALGOS[algo]
    elif "FP8" in algo:
        return "modelopt_fp8"
    if "NVFP4" in algo or "FP4" in algo:
        return "modelopt_fp4"
    return None


def _override_quantization(cfg: dict, user: str | None, platform: Any, reading: QuantReading) -> str | None:
    """The first ``override_quantization_method`` of sglang's registry (in registry order:
    ModelOpt, ModelOpt mixed, AWQ-Marlin, GPTQ-Marlin, MoE-WNA16, Petit, Humming, MLX) that
    claims the checkpoint, or None. Marlin conversions need compute capability >= 8.0."""
    method = str(cfg.get("quant_method") or "")
    algo = str(cfg.get("quant_algo") or "").upper()
    if user not in reading.modelopt_keeps:  # base_config.py:_modelopt_override_quantization_method
        named = _modelopt_user_override(algo, reading.modelopt_user_algos) if user == "modelopt" else None
        if named:
            return named
        if method in ("modelopt_fp8", "modelopt_fp4"):
            return method
    if method == "modelopt_mixed":  # ModelOptMixedPrecisionConfig
        return "modelopt_mixed"
    cap = _capability(platform)
    bits, group = cfg.get("bits"), cfg.get("group_size")
    if (  # awq/awq.py:AWQMarlinConfig.is_awq_marlin_compatible (CUDA, uint4 with zero point)
        user in (None, "marlin", "awq_marlin")
        and platform.is_cuda
        and method.lower() == "awq"
        and bits == 4
        and cfg.get("zero_point") is True
        and group in _MARLIN_GROUP_SIZES
        and cap >= 80
    ):
        return "awq_marlin"
    marlin_format = cfg.get("checkpoint_format") == "marlin" or bool(cfg.get("is_marlin_format", False))
    if (  # gptq/gptq.py:GPTQMarlinConfig.is_gptq_marlin_compatible (symmetric 4/8 bit)
        user in (None, "marlin", "gptq_marlin")
        and not marlin_format
        and method.lower() == "gptq"
        and bits in (4, 8)
        and cfg.get("sym") is True
        and cfg.get("desc_act") is not None
        and group in _MARLIN_GROUP_SIZES
        and cap >= 80
        and (platform.is_cuda or not reading.gptq_marlin_cuda_only)
    ):
        return "gptq_marlin"
    if user == "moe_wna16" and (  # moe_wna16.py:MoeWNA16Config.is_moe_wna16_compatible
        (method.lower() == "gptq" and not cfg.get("desc_act") and bits in (4, 8))
        or (method.lower() == "awq" and bits == 4 and cap >= 75)
    ):
        return "moe_wna16"
    if platform.is_hip and method.lower() == "modelopt":  # petit.py:PetitNvFp4Config
        return "petit_nvfp4"
    if reading.humming and user == "humming" and cfg.get("quant_method") != "mxfp4":
        return "humming"
    if (  # mlx.py:MlxQuantizationConfig (registered on Apple MPS only)
        platform.is_mps
        and user is None
        and "quant_method" not in cfg
        and isinstance(bits, int)
        and isinstance(group, int)
        and bits in (4, 8)
    ):
        return f"mlx_q{bits}"
    return None


def model_quantization(
    user: str | None, hf: Any, platform: Any, reading: QuantReading | None = None
) -> tuple[str | None, str | None]:
    """``ModelConfig._verify_quantization`` before its checks: (the model config's quantization,
    the checkpoint's method after overrides). The first is what model rules such as Nemotron-H
    read as ``model_config.quantization``; ``ServerArgs.quantization`` itself is not changed.
    ``reading`` is the release's way of reading the checkpoint (0.5.15's when None)."""
    from .checkpoint import checkpoint_quant_config  # the checkpoint module reads sidecar files

    reading = reading or _READING_BASE
    quantization = user.lower() if user is not None else None
    cfg = checkpoint_quant_config(
        hf,
        exact_fp8=reading.exact_fp8,
        unwrap=reading.unwrap,
        modelopt_named_kept=reading.modelopt_named_kept,
    )
    if cfg is None:
        return quantization, None
    raw = cfg.get("quant_method", quantization or "")
    method = str(raw if raw is not None else "").lower()
    keep = quantization in reading.keep_user
    override = None if keep else _override_quantization(cfg, quantization, platform, reading)
    if override:
        method = quantization = override
    return (method if quantization is None else quantization), method
