"""Stage "model_config": ``ModelConfig.__post_init__`` — runner, ``attn_type``, dtype,
``max_model_len`` and quantization (vllm-config-spec.md §3.1, §3.2, §3.7 step 1, §3.17).

Invariants: the checkpoint is read only through ``ctx.hf`` (``config.json`` and its side files);
what vLLM would read from the weights (the safetensors dtype when ``config.json`` names none, the
tokenizer's ``model_max_length``) is not known offline and the rule says which default it used.
Messages are vLLM's, word for word; every refusal is a ``ConflictError`` with vLLM's exception
type and a fix that names flags (so ``resolvable._fixes`` can check it).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force, HFConfig
from .._base import registry
from ..changes import CHANGES
from . import model_info
from .facts import (
    architecture_kind,
    derived_fact,
    env_flag,
    is_hybrid,
    platform_supported_dtypes,
    rope_parameters,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``config/model.py : _STR_DTYPE_TO_TORCH_DTYPE``.
_DTYPE_NAMES = {
    "half": "float16",
    "float16": "float16",
    "float": "float32",
    "float32": "float32",
    "bfloat16": "bfloat16",
}
#: ``config/model.py : _FLOAT16_NOT_SUPPORTED_MODELS`` (model_type → reason).
FLOAT16_NOT_SUPPORTED = {
    "gemma2": "Numerical instability. Please use bfloat16 or float32 instead.",
    "gemma3": "Numerical instability. Please use bfloat16 or float32 instead.",
    "gemma3_text": "Numerical instability. Please use bfloat16 or float32 instead.",
    "glm4": "Numerical instability. Please use bfloat16 or float32 instead.",
}
#: ``transformers_utils/model_arch_config_convertor.py : derive_max_model_len_and_key`` keys.
MAX_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
#: RoPE types whose ``factor`` is already in ``max_position_embeddings`` (not multiplied again).
_UNSCALED_ROPE = frozenset({"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"})
#: The same list before 0.30 (``_get_and_verify_max_len`` of 0.29: the YaRN types were scaled).
_UNSCALED_ROPE_YARN_SCALED = frozenset({"su", "longrope", "llama3"})


def registry_facts(hf: HFConfig, release: Any = None) -> tuple[bool, bool, str | None, str | None]:
    """``(is_text_generation_model, is_pooling_model, default runner, registered class)`` of the
    architecture (``ModelRegistry.is_text_generation_model`` / ``is_pooling_model`` through
    ``_normalize_arch``; ``_get_default_runner_type``: pooling before generation for a registered
    class, else the name's suffix). Unknown to the registry: the config-based guess
    (``architecture_kind``), as the Transformers backend would serve it. ``release``: the
    registry of that release (``ctx.release``; None: the newest)."""
    arch = hf.architecture or ""
    found = model_info.normalized(arch, release=release)
    match = model_info.suffix_defaults(arch)
    if found is not None:
        name, info = found
        if name == arch:
            default = "pooling" if info.pooling else "generate" if info.generate else None
        else:
            default = None
        if default is None:
            default = match[1] if match else "generate"
        return info.generate, info.pooling, default, name
    kind = architecture_kind(hf)
    pooling = kind in ("pooling", "encoder_only")
    default = match[1] if match else ("pooling" if pooling else "generate")
    return not pooling, pooling, default, None


def _default_convert(arch: str, runner: str, facts: tuple[bool, bool, str | None, str | None]) -> str:
    """``_get_default_convert_type``: none when the class serves the runner, else the suffix's
    convert for that runner, else embed for pooling."""
    generate, pooling, _, name = facts
    serves = (runner == "generate" and generate) or (runner == "pooling" and pooling)
    if name is not None and name == arch and serves:
        return "none"
    match = model_info.suffix_defaults(arch, runner)
    if match is not None:
        return match[2]
    return "embed" if runner == "pooling" else "none"


def _may_be_transformers_class(arch: str) -> bool:
    """Whether ``arch`` can name a model class of the transformers library (its naming: ``…Model``,
    ``…For<Task>``, ``…LMHeadModel``); the pack holds no list of transformers' classes, so a name
    in that form is assumed to resolve (``ModelRegistry._try_resolve_transformers``)."""
    return arch.endswith("Model") or "For" in arch


def unsupported_architectures(hf: HFConfig, release: Any = None) -> list[str] | None:
    """``ModelRegistry.inspect_model_cls`` → ``_raise_for_unsupported`` (``model_executor/models/
    registry.py``, 0.20-0.34): the ``architectures`` when ``release``'s registry holds none of them
    (``model_info.is_registered``, per release), none is the same model under another suffix
    (``_normalize_arch``) and the Transformers backend cannot serve the first (no ``auto_map``;
    ``_try_resolve_transformers``: for a class vLLM registers in another release, whether the
    transformers install exports a backend-compatible class of that name,
    ``model_info.transformers_serves``; for any other name, ``_may_be_transformers_class``);
    else None. ``release``: ``ctx.release`` (None: the newest release read)."""
    archs = hf.get("architectures")
    if not isinstance(archs, (list, tuple)) or not archs or hf.get("auto_map"):
        return None
    names = [str(a) for a in archs]
    if any(
        model_info.is_registered(a, release) or model_info.normalized(a, release=release) is not None
        for a in names
    ):
        return None
    served = model_info.transformers_serves(names[0], release) if release is not None else None
    if served is None:
        served = _may_be_transformers_class(names[0])
    return None if served else names


def _unsupported_message(names: list[str], release: Any) -> str:
    """``_raise_for_unsupported``'s words for ``names`` at ``release``: a class the release's
    ``_PREVIOUSLY_SUPPORTED_MODELS`` lists gets "was supported in vLLM until …"; any other the
    generic message. A class vLLM registers in other releases is named with those releases."""
    for arch in names:
        until = model_info.previously_supported(arch, release)
        if until is not None:
            return (
                f"Model architecture {arch} was supported in vLLM until v{until}, and is not supported "
                "anymore. Please use an older version of vLLM if you want to use this model architecture."
            )
    text = (
        f"Model architectures {names} are not supported for now. Supported architectures: "
        "the classes of vLLM's model registry"
    )
    known = [(a, model_info.registered_ranges(a)) for a in names]
    known = [(a, words) for a, words in known if words]
    if known:
        where = "; ".join(f"{a} is registered in vLLM {words}" for a, words in known)
        text += f" (vLLM {release}'s model registry has no {names[0]}; {where})"
    return text


@registry.rule("model_config")
def runner_and_attn_type(ctx: Any) -> dict[str, Any]:
    """§3.7 step 1: ``ModelConfig.runner_type`` (``config/model.py : _get_runner_type``: ``--runner``;
    else pooling when ``--convert`` is embed/classify; else the registry's default for the
    architecture, ``_get_default_runner_type``), the runner checks of ``ModelConfig.__post_init__``
    (an embedding-only class under ``--runner generate``/``draft``; a runner the class does not
    serve without a ``--convert`` that adapts it) and ``ModelConfig.attn_type`` (``attn_type``,
    line 2174): with a pooler, non-causal attention (or CLS pooling) is ``encoder_only`` and
    anything else the class's ``attn_type`` (``decoder`` for the in-tree classes, hybrid and
    encoder-decoder ones included); without one ``hybrid`` (``is_hybrid``), ``attention_free``
    (pure Mamba/SSM), ``encoder_decoder`` or ``decoder``."""
    hf = ctx.hf
    unsupported = unsupported_architectures(hf, ctx.release)
    if unsupported is not None:
        raise ConflictError(
            _unsupported_message(unsupported, ctx.release),
            fields=("hf_overrides",) if hf.origins.get("architectures") else ("model",),
            fix="name an architecture this vLLM release registers (config.json's or --hf-overrides' "
            '"architectures"), or run a vLLM release that registers it',
            upstream="ValueError",
        )
    kind = derived_fact(hf, "vllm.arch_kind", architecture_kind)
    facts = registry_facts(hf, ctx.release)  # per release: not kept with the config
    generate, pooling, default, _ = facts
    model_impl = getattr(ctx.args, "model_impl", "auto") or "auto"
    backend_pools = model_impl == "auto" and model_info.transformers_backend_pools(
        hf.architecture or "", ctx.args.runner, ctx.release
    )
    if backend_pools:  # the Transformers backend's pooling class answers, not the adapted CausalLM
        generate, pooling = False, True
        facts = (generate, pooling, default, facts[3])
    convert = ctx.args.convert
    if ctx.args.runner != "auto":
        runner = ctx.args.runner
    elif convert not in ("auto", "none") and ctx.release.has(CHANGES.RUNNER_FROM_CONVERT):
        runner = "pooling"  # 0.21: the architecture's default runner, whatever --convert says
    else:
        runner = default or "generate"
    if convert == "auto":
        convert = _default_convert(hf.architecture or "", runner, facts)
    if (
        pooling
        and not generate
        and runner in ("draft", "generate")
        and ctx.release.has(CHANGES.EMBEDDING_RUNNER_GENERATE_REFUSED)
    ):  # 0.21: only the generate check below ("This model does not support `--runner generate`.")
        raise ConflictError(
            f"Embedding models do not support `--runner {runner}`. "
            "Use `--runner pooling` or `--runner auto` for embedding models.",
            fields=("runner",),
            fix=Fix.any_of(
                Fix(set={"runner": "pooling"}),
                Fix(drop=("runner",)),
                text="pass --runner pooling (or drop --runner)",
            ),
        )
    if runner == "generate" and not generate and convert not in model_info.RUNNER_CONVERTS["generate"]:
        raise ConflictError(
            "This model does not support `--runner generate`.",
            fields=("runner",),
            fix=Fix(drop=("runner",)),
        )
    if runner == "pooling" and not pooling and convert not in model_info.RUNNER_CONVERTS["pooling"]:
        raise ConflictError(
            "This model does not support `--runner pooling`. You can pass `--convert <embed|classify> "
            "to adapt it into a pooling model.",
            fields=("runner", "convert"),
            fix=Fix.any_of(
                Fix(set={"convert": "embed"}),
                Fix(set={"convert": "classify"}),
                text="pass --convert embed or --convert classify",
            ),
        )
    t = hf.text_config
    if runner == "pooling":  # a pooler: CLS pooling or non-causal → encoder_only, else the class's own
        # the Transformers backend's pooling classes pool CLS (``default_seq_pooling_type``); it
        # serves the model under --convert none, or when ``_normalize_arch`` (the suffix matched
        # with the resolved runner and convert) finds no registered class of the same model
        cls_pooled = backend_pools and (
            convert == "none" or model_info.normalized(hf.architecture or "", runner, convert) is None
        )
        attn = (
            "encoder_only"
            if (t.get("is_causal") is False or kind == "encoder_only" or cls_pooled)
            else "decoder"
        )
    elif derived_fact(hf, "vllm.is_hybrid", is_hybrid):
        attn = "hybrid"
    elif kind == "attention_free":
        attn = "attention_free"
    elif hf.get("is_encoder_decoder") or t.get("is_encoder_decoder"):
        attn = "encoder_decoder"
    else:
        attn = "decoder"
    out: dict[str, Any] = {}
    if runner != ctx.args.runner_type:
        out["runner_type"] = runner
    if attn != ctx.args.attn_type:
        out["attn_type"] = attn
    return out


def checkpoint_dtype(hf: HFConfig) -> str:
    """``get_torch_dtype`` (``model_arch_config_convertor.py:201``): HF ``dtype``/``torch_dtype``, the
    text, vision and encoder sub-configs'; else the safetensors metadata (not read offline: float32)."""
    configs = [hf, hf.text_config]
    for key in ("vision_config", "encoder_config"):
        sub = hf.get(key)
        if isinstance(sub, HFConfig):
            configs.append(sub)
    for cfg in configs:
        raw = cfg.get("dtype") or cfg.get("torch_dtype")
        if raw:
            name = str(raw).replace("torch.", "")
            return _DTYPE_NAMES.get(name, name)
    return "float32"


@registry.rule("model_config")
def model_dtype(ctx: Any) -> dict[str, Any]:
    """§3.1: the model dtype (``config/model.py : _get_and_verify_dtype`` 2467, ``_resolve_auto_dtype``
    2423). ``auto``: the platform's list without fp16 for Gemma-2/3 and GLM-4; pooling prefers fp16;
    a float32 checkpoint is downcast; a checkpoint dtype the device lacks falls back to the first
    allowed one. An explicit fp16 for those model types is refused."""
    model_type = str(ctx.hf.get("model_type") or ctx.hf.text_config.get("model_type") or "")
    requested = str(ctx.args.dtype).lower()
    if requested == "auto":
        allowed = [
            d
            for d in platform_supported_dtypes(ctx.platform)
            if not (d == "float16" and model_type in FLOAT16_NOT_SUPPORTED)
        ]
        preferred = "float16" if ctx.args.runner_type == "pooling" and "float16" in allowed else allowed[0]
        config = derived_fact(ctx.hf, "vllm.checkpoint_dtype", checkpoint_dtype)
        if config == "float32":
            config = preferred
        dtype = config if config in allowed else preferred
    else:
        dtype = _DTYPE_NAMES[requested]
    if dtype == "float16" and model_type in FLOAT16_NOT_SUPPORTED:
        raise ConflictError(
            f"The model type {model_type!r} does not support float16. Reason: {FLOAT16_NOT_SUPPORTED[model_type]}",
            fields=("dtype",),
            fix=Fix.any_of(
                Fix(set={"dtype": "bfloat16"}),
                Fix(set={"dtype": "float32"}),
                text="pass --dtype bfloat16 or --dtype float32",
            ),
        )
    if dtype == ctx.args.dtype:
        return {}
    if ctx.user_set("dtype"):  # vLLM's spelling of the user's choice, not a different one
        return {"dtype": Force(dtype, f"--dtype {ctx.args.dtype} is torch.{dtype}")}
    return {"dtype": dtype}


def derived_max_len(hf: HFConfig) -> tuple[float, str | None]:
    """``derive_max_model_len_and_key`` (convertor line 374): the smallest of the length keys of the
    text config, overridden by a truthy ``model_max_length`` (Command-R)."""
    t = hf.text_config
    value: float = float("inf")
    key = None
    for name in MAX_LEN_KEYS:
        v = t.get(name)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            if v < value:
                key = name
            value = min(value, v)
    if t.get("model_max_length"):
        return t["model_max_length"], "model_max_length"
    return value, key


#: transformers config classes whose ``__post_init__`` sets ``sliding_window = None`` unless
#: ``use_sliding_window`` (default False) is true (``Qwen2Config``, ``Qwen3Config``,
#: ``Qwen3MoeConfig``, ``Qwen2VLTextConfig``, ``Qwen2_5_VLTextConfig``): vLLM sees no window.
_WINDOW_NEEDS_USE_FLAG = frozenset({"qwen2", "qwen3", "qwen3_moe", "qwen2_vl_text", "qwen2_5_vl_text"})


#: ``transformers_utils/configs/step3p5.py : Step3p5Config`` (0.30-0.32): vLLM's own config class
#: for ``step3p5`` fills ``max_seq_len`` = 4096 when config.json has none, and ``max_seq_len`` is
#: a length key; 0.33 loads transformers' ``Step3p7TextConfig``, which has no such default.
STEP3P5_DEFAULT_MAX_SEQ_LEN = 4096


def length_facts(
    hf: HFConfig, disable_sliding_window: bool, step3p5_default: bool = False, yarn_scaled: bool = False
) -> tuple[bool, float, str | None, int | None]:
    """What ``_get_and_verify_max_len`` derives from the config alone: (no length key at all, the
    derived length after the sliding-window cap, RoPE scaling and the encoder's length, its key,
    the LongRoPE default length or None). ``step3p5_default``: the release's Step3p5Config adds
    ``max_seq_len`` 4096 (config-3117-00083: step-3.5-flash derives 4096 on 0.30-0.32).
    ``yarn_scaled``: 0.29 multiplies YaRN-family factors too, a ``yarn`` layer's length being its
    ``original_max_position_embeddings`` (operators-5528-00101: gpt-oss-20b with YaRN ×4 derives
    524288 on 0.29, 131072 from 0.30)."""
    t = hf.text_config
    derived, key = derived_max_len(hf)
    if (
        step3p5_default
        and str(t.get("model_type") or "") == "step3p5"
        and "max_seq_len" not in t
        and key != "model_max_length"
        and derived > STEP3P5_DEFAULT_MAX_SEQ_LEN
    ):
        derived, key = STEP3P5_DEFAULT_MAX_SEQ_LEN, "max_seq_len"
    window = t.get("sliding_window")
    if str(t.get("model_type") or "") in _WINDOW_NEEDS_USE_FLAG and not t.get("use_sliding_window", False):
        window = None  # transformers' config class dropped it (config-3117-00343)
    if disable_sliding_window and isinstance(window, int) and window < derived:
        derived, key = window, "sliding_window"
    missing = derived == float("inf")
    if missing:
        derived = 2048  # vLLM warns: no key in config.json, assuming 2048
    ropes = rope_parameters(t)
    model_type = str(hf.get("model_type") or t.get("model_type") or "")
    if ropes and "gemma3" not in model_type:
        factor: Any = 1.0
        unscaled = _UNSCALED_ROPE_YARN_SCALED if yarn_scaled else _UNSCALED_ROPE
        for rp in ropes:
            rope_type = rp.get("rope_type", rp.get("type", "default"))
            if rope_type not in unscaled:
                factor = rp.get("factor", factor)
                if yarn_scaled and rope_type == "yarn":
                    derived = rp.get("original_max_position_embeddings") or derived
        derived = derived * (1.0 if factor is None else factor)
    encoder = hf.get("encoder_config")
    if isinstance(encoder, HFConfig) and "max_seq_length" in encoder:
        derived = encoder["max_seq_length"]
    longrope = None
    if any(rp.get("rope_type", rp.get("type")) == "longrope" for rp in ropes):
        longrope = int(t.get("original_max_position_embeddings") or derived)
    return missing, derived, key, longrope


@registry.rule("model_config")
def max_model_len(ctx: Any) -> dict[str, Any]:
    """§3.2: ``config/model.py : _get_and_verify_max_len`` (2545). The derived length (smallest key),
    capped by the sliding window with ``--disable-sliding-window``, 2048 when no key exists, times
    the RoPE factor (not for YaRN/Llama-3/LongRoPE types, nor Gemma-3); unset or -1 → the derived
    value (LongRoPE: ``original_max_position_embeddings``); a larger user value is refused unless
    ``model_max_length`` allows it or ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``."""
    disable = bool(ctx.args.disable_sliding_window)
    step = not ctx.release.has(CHANGES.STEP3P5_UPSTREAM_CONFIG)
    yarn = not ctx.release.has(CHANGES.YARN_LENGTH_NOT_RESCALED)
    missing, derived, key, longrope = derived_fact(
        ctx.hf, f"vllm.length/{disable}/{step}/{yarn}", lambda hf: length_facts(hf, disable, step, yarn)
    )
    user = ctx.args.max_model_len
    if missing and user is not None:
        return {}
    if user is None or user == -1:
        value = longrope if longrope is not None else int(derived)
        if user == -1:
            return {
                "max_model_len": Force(
                    value, "-1 (auto): the derived length; vLLM fits it to the KV memory at start"
                )
            }
        return {"max_model_len": value}
    t = ctx.hf.text_config
    if user <= 0:
        raise ConflictError(
            f"max_model_len must be a positive integer, got {user}",
            fields=("max_model_len",),
            fix=Fix.any_of(Fix(drop=("max_model_len",)), Fix(set={"max_model_len": -1})),
        )
    if user > derived:
        model_max_length = t.get("model_max_length")
        if (model_max_length is None or user > model_max_length) and not env_flag(
            ctx.env, "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
        ):
            shown = int(derived) if float(derived).is_integer() else derived
            raise ConflictError(
                f"User-specified max_model_len ({user}) is greater than the derived max_model_len "
                f"({key}={shown} or model_max_length={model_max_length} in model's config.json). "
                "To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. "
                "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.",
                fields=("max_model_len",),
                fix=Fix.any_of(
                    Fix(set={"max_model_len": int(derived)}),
                    Fix(drop=("max_model_len",)),
                    text=f"pass --max-model-len {int(derived)} or less (or drop --max-model-len)",
                ),
            )
    return {}
