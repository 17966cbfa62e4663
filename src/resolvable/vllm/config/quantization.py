"""Quantization detection and its checks (vllm-config-spec.md §3.17).

``config/model.py : ModelConfig._verify_quantization`` (stage "model_config") and
``config/vllm.py : VllmConfig._get_quantization_config`` (stage "vllm_config"). Invariant: the
detected method is what vLLM reports as ``model_config.quantization``; per-layer schemes
(compressed-tensors' ``kv_cache_scheme``) are the attention rules' business.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force, HFConfig
from .._base import registry
from ..changes import CHANGES
from .facts import derived_fact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``model_executor/layers/quantization/__init__.py : QuantizationMethods`` of vLLM 0.23 (30 names;
#: the releases' deltas below, in the wheels' order).
QUANTIZATION_METHODS = (
    *("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8"),
    *("modelopt_mixed", "gguf", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming"),
    *("compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc"),
    *("mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block"),
    *("int8_per_channel_weight_only", "mxfp8"),
)
#: The releases' deltas of ``QuantizationMethods``, oldest first: (change, methods removed, methods
#: added — a name is appended, a ``(name, after)`` pair inserted after ``after``). 0.24
#: (``QUANTIZATION_METHODS_AUTO_AWQ``): + ``auto_awq``, ``fp8_per_channel``, − ``gguf``; 0.26
#: (``QUANTIZATION_NVFP4_PER_TOKEN``): + ``nvfp4_per_token``; 0.28 (``BITSANDBYTES_REMOVED``):
#: − ``bitsandbytes``; 0.34 (``QUANTIZATION_METHODS_W4AFP8``): + ``w4afp8``, ``lut_b_moe``,
#: ``mxfp4_hadamard32``; − ``fp_quant``.
QUANTIZATION_METHOD_CHANGES = (
    (
        CHANGES.QUANTIZATION_METHODS_AUTO_AWQ,
        ("gguf",),
        (("auto_awq", "awq"), ("fp8_per_channel", "fp8_per_block")),
    ),
    (CHANGES.QUANTIZATION_NVFP4_PER_TOKEN, (), (("nvfp4_per_token", "int8_per_channel_weight_only"),)),
    (CHANGES.BITSANDBYTES_REMOVED, ("bitsandbytes",), ()),
    (CHANGES.QUANTIZATION_METHODS_W4AFP8, ("fp_quant",), ("w4afp8", "lut_b_moe", "mxfp4_hadamard32")),
)


def quantization_methods(release: Any) -> tuple[str, ...]:
    """``QuantizationMethods`` of ``release`` (``ctx.release.derive``): ``QUANTIZATION_METHODS``
    with each delta of ``QUANTIZATION_METHOD_CHANGES`` the release has, in order; below 0.23 the
    older names (``CHANGES.CPU_AWQ_REMOVED``: 0.21-0.22 list ``cpu_awq`` after ``deepseek_v4_fp8``;
    ``CHANGES.AUTO_GPTQ``: 0.21 has no ``auto_gptq`` and lists ``gptq`` after ``awq_marlin``)."""
    methods = list(QUANTIZATION_METHODS)
    if not release.has(CHANGES.CPU_AWQ_REMOVED):
        methods.insert(methods.index("deepseek_v4_fp8") + 1, "cpu_awq")
    if not release.has(CHANGES.AUTO_GPTQ):
        methods = [m for m in methods if m not in ("auto_gptq", "gptq")]
        methods.insert(methods.index("awq_marlin") + 1, "gptq")
    for change, removed, added in QUANTIZATION_METHOD_CHANGES:
        if release.has(change):
            methods = [m for m in methods if m not in removed]
            for item in added:
                if isinstance(item, tuple):
                    methods.insert(methods.index(item[1]) + 1, item[0])
                else:
                    methods.append(item)
    return tuple(methods)


#: GPTQ configs whose ``from_config`` refuses dynamic activation ordering (``auto_gptq.py`` and
#: ``moe_wna16.py`` call ``normalize_and_validate_gptq_desc_act``).
GPTQ_DESC_ACT_METHODS = frozenset({"gptq", "gptq_marlin", "auto_gptq", "moe_wna16"})
#: ``get_min_capability`` of the quantization configs (spec §3.17 step 5).
MIN_CAPABILITY = {
    "fp8": 75,
    "auto_awq": 75,
    "awq": 75,  # AWQConfig (0.23), AutoAWQConfig (0.24+)
    "awq_marlin": 75,
    "auto_gptq": 60,
    "compressed-tensors": 70,
    "modelopt": 80,
    "modelopt_fp4": 75,
    "modelopt_mxfp8": 80,
    "modelopt_mixed": 75,
    "mxfp4": 80,
    "gpt_oss_mxfp4": 80,
    "moe_wna16": 70,
    "experts_int8": 80,
    "fbgemm_fp8": 80,
    "fp_quant": 100,
    "torchao": 75,
    "humming": 75,
    "quark": 70,
    "inc": 60,
    "bitsandbytes": 70,
    "gguf": 60,
}
#: ``get_supported_act_dtypes`` where it is not {bf16, fp16}.
_ACT_DTYPES = {
    "mxfp4": ("bfloat16",),
    "gpt_oss_mxfp4": ("bfloat16",),
    "modelopt_mxfp8": ("bfloat16",),
    "fp_quant": ("bfloat16",),
    "compressed-tensors": ("float32", "float16", "bfloat16"),
    "torchao": ("float32", "float16", "bfloat16"),
    "bitsandbytes": ("float32", "float16", "bfloat16"),
}


#: ``_normalize_quantization_config``: ModelOpt ``quant_algo`` → ``quant_method``.
_MODELOPT_ALGOS = {
    "FP8": "modelopt",
    "FP8_PER_CHANNEL_PER_TOKEN": "modelopt",
    "FP8_PB_WO": "modelopt",
    "NVFP4": "modelopt_fp4",
    "MIXED_PRECISION": "modelopt_mixed",
}


def _modelopt_algo(quant: HFConfig) -> str | None:
    """``_extract_modelopt_quant_algo``: the upper-cased ``quant_algo`` of a ModelOpt config."""
    if not str(quant.get("quant_method") or "").lower().startswith("modelopt"):
        return None
    inner = quant.get("quantization")
    if inner is not None:
        return str(inner.get("quant_algo") or "").upper() if isinstance(inner, HFConfig) else None
    return str(quant.get("quant_algo") or "").upper()


def _normalised_method(quant: HFConfig) -> str:
    """``_normalize_quantization_config``: the checkpoint's ``quant_method`` (ModelOpt producer →
    ``modelopt``/``modelopt_fp4``/``modelopt_mixed``, ``compressed_tensors`` → ``compressed-tensors``)."""
    method = str(quant.get("quant_method") or "").lower().replace("compressed_tensors", "compressed-tensors")
    inner = quant.get("quantization")
    producer = quant.get("producer")
    legacy = isinstance(inner, HFConfig) and "modelopt_quant_config" in inner
    if (isinstance(producer, HFConfig) and producer.get("name") == "modelopt") or legacy:
        algo = inner.get("quant_algo") if isinstance(inner, HFConfig) else None
        if algo is not None:
            method = _MODELOPT_ALGOS.get(str(algo).upper(), method)
    return method


def _moe_wna16_compatible(quant: HFConfig, capability: tuple[int, int] | None) -> bool:
    """``MoeWNA16Config.is_moe_wna16_compatible``: a 4/8-bit GPTQ checkpoint without act-order, or
    a 4-bit AWQ one on a GPU AWQ runs on."""
    method = str(quant.get("quant_method") or "").lower()
    bits = quant.get("bits")
    if method == "gptq":
        return bits in (4, 8) and not quant.get("desc_act")
    cap = -1 if capability is None else capability[0] * 10 + capability[1]
    return method == "awq" and bits == 4 and cap >= MIN_CAPABILITY["auto_awq"]


def _awq_marlin_compatible(quant: HFConfig) -> bool:
    """``AWQMarlinConfig.is_awq_marlin_compatible`` (0.23) on a platform that runs Marlin: an AWQ
    checkpoint of 4 bits (``TYPE_MAP``) with a zero point (uint4) and a Marlin group size."""
    return (
        str(quant.get("quant_method") or "").lower() == "awq"
        and quant.get("bits") == 4
        and quant.get("zero_point") is True
        and quant.get("group_size") in (-1, 32, 64, 128)
    )


def _gptq_marlin_compatible(quant: HFConfig, on_cpu: bool) -> bool:
    """``GPTQMarlinConfig.is_gptq_marlin_compatible`` (0.21) on a platform that runs Marlin: a GPTQ
    checkpoint naming ``bits``, ``group_size``, ``sym`` and ``desc_act``, symmetric 4 or 8 bits
    (``TYPE_MAP``; the CPU's Marlin takes 4 bits only) and a Marlin group size."""
    if str(quant.get("quant_method") or "").lower() != "gptq":
        return False
    if any(quant.get(k) is None for k in ("bits", "group_size", "sym", "desc_act")):
        return False
    if quant.get("sym") is not True or quant.get("bits") not in ((4,) if on_cpu else (4, 8)):
        return False
    return quant.get("group_size") in (-1, 32, 64, 128)


def gptq_marlin_platform(ctx: Any) -> bool | None:
    """0.21 (before ``CHANGES.AUTO_GPTQ``): whether GPTQ checkpoints may become ``gptq_marlin``
    here — ``is_gptq_marlin_compatible`` answers on CUDA from capability 7.5 and on CPU, never on
    ROCm or XPU. None from 0.22 (``AutoGPTQConfig`` claims GPTQ)."""
    if ctx.release.has(CHANGES.AUTO_GPTQ):
        return None
    vendor, cap = ctx.platform.vendor, ctx.platform.capability
    return vendor == "cpu" or (vendor == "cuda" and cap is not None and tuple(cap) >= (7, 5))


def awq_marlin_platform(ctx: Any) -> bool | None:
    """0.23 (no ``auto_awq``): whether AWQ checkpoints may become ``awq_marlin`` here — not under
    ``VLLM_BATCH_INVARIANT`` (Marlin is not batch invariant), and ``query_marlin_supported_quant_types``
    answers on ROCm and CPU, on CUDA from capability 7.5 (XPU never: ``is_cuda_alike`` or CPU only).
    None from 0.24 (``AutoAWQConfig`` claims AWQ)."""
    from .facts import env_flag

    if ctx.release.has(CHANGES.QUANTIZATION_METHODS_AUTO_AWQ):
        return None
    if env_flag(ctx.env, "VLLM_BATCH_INVARIANT"):
        return False
    vendor, cap = ctx.platform.vendor, ctx.platform.capability
    if vendor == "cpu":  # 0.21-0.22: is_awq_marlin_compatible is CUDA/ROCm only (cpu_awq takes it)
        return ctx.release.has(CHANGES.CPU_AWQ_REMOVED)
    return vendor == "hip" or (vendor == "cuda" and cap is not None and tuple(cap) >= (7, 5))


def quantization_override(
    quant: HFConfig,
    method: str,
    model_type: str,
    user: str | None,
    on_cpu: bool,
    capability: tuple[int, int] | None = None,
    awq_marlin: bool | None = None,
    gptq_marlin: bool | None = None,
    cpu_awq: bool = False,
) -> str | None:
    """The first override method that claims the checkpoint, in ``_verify_quantization``'s order
    (``config/model.py``: the ``overrides`` list, ``humming`` first when the user asked for it):
    each ``QuantizationConfig.override_quantization_method`` (``model_executor/layers/quantization``).
    Only GPTQ, AWQ, ``moe_wna16``, ``humming`` and ``deepseek_v4_fp8`` consult ``--quantization``;
    the ModelOpt (by ``quant_algo``), INC (``auto-round``) and GPT-OSS MXFP4 overrides claim the
    checkpoint whatever the user passed, and the override then replaces ``--quantization``.
    ``awq_marlin`` (0.23, before ``CHANGES.QUANTIZATION_METHODS_AUTO_AWQ``: no ``auto_awq``): whether
    the platform runs AWQ Marlin kernels (``awq_marlin_platform``); None from 0.24. ``gptq_marlin``
    (0.21, before ``CHANGES.AUTO_GPTQ``): the same for GPTQ (``gptq_marlin_platform``); ``cpu_awq``
    (0.21-0.22): ``CPUAWQConfig`` claims any AWQ checkpoint on CPU, after the others."""
    if user == "humming":  # HummingConfig.override_quantization_method
        if model_type == "gpt_oss" and method == "mxfp4":
            raise ConflictError(
                "For gpt-oss model, use '--moe-backend humming' instead of '--quantization humming'.",
                fields=("quantization",),
                fix="drop --quantization humming and pass --moe-backend humming",
            )
        return "humming"
    if gptq_marlin is not None:  # 0.21: GPTQMarlinConfig.override_quantization_method
        if gptq_marlin and user in (None, "marlin", "gptq_marlin") and _gptq_marlin_compatible(quant, on_cpu):
            return "gptq_marlin"
    elif method == "gptq" and user in (None, "gptq", "gptq_marlin", "auto_gptq", "marlin"):
        return "auto_gptq"  # AutoGPTQConfig
    if awq_marlin is not None:  # 0.23: AWQMarlinConfig.override_quantization_method
        if awq_marlin and user in (None, "marlin", "awq_marlin") and _awq_marlin_compatible(quant):
            return "awq_marlin"
    elif method == "awq" and not on_cpu and user in (None, "awq", "awq_marlin", "auto_awq", "marlin"):
        return "auto_awq"  # AutoAWQConfig (not on CPU: cpu_awq handles it there)
    if method == "auto-round":
        return "inc"  # INCConfig
    if user == "moe_wna16" and _moe_wna16_compatible(quant, capability):
        return "moe_wna16"
    algo = _modelopt_algo(HFConfig({**quant.to_dict(), "quant_method": method}))
    if algo:  # ModelOptFp8Config, ModelOptNvFp4Config, ModelOptMxFp8Config, ModelOptMixedPrecisionConfig
        if algo == "FP8":
            return "modelopt"
        if "NVFP4" in algo or "FP4" in algo:
            return "modelopt_fp4"
        if "MXFP8" in algo:
            return "modelopt_mxfp8"
        if algo == "MIXED_PRECISION":
            return "modelopt_mixed"
    if method in ("mxfp4", "gpt_oss_mxfp4") and model_type == "gpt_oss":
        return "gpt_oss_mxfp4"  # GptOssMxfp4Config
    if method in ("fp8", "deepseek_v4_fp8") and (
        model_type.startswith(("deepseek_v4", "deepseek_v41")) or user == "deepseek_v4_fp8"
    ):
        return "deepseek_v4_fp8"  # DeepseekV4FP8Config
    if cpu_awq and on_cpu and method == "awq":
        return "cpu_awq"  # CPUAWQConfig (0.21-0.22), last of the override list
    return None


def _quant_config(hf: HFConfig) -> HFConfig | None:
    quant = hf.get("quantization_config") or hf.get("compression_config")
    if not isinstance(quant, HFConfig):
        quant = hf.text_config.get("quantization_config")
    return quant if isinstance(quant, HFConfig) else None


def checkpoint_quantization(
    hf: HFConfig,
    on_cpu: bool,
    user: str | None = None,
    capability: tuple[int, int] | None = None,
    awq_marlin: bool | None = None,
    gptq_marlin: bool | None = None,
    cpu_awq: bool = False,
) -> tuple[str | None, bool]:
    """``(method, overridden)`` as ``_verify_quantization`` (``config/model.py`` 1383) finds them:
    the HF ``quantization_config`` (or compressed-tensors' ``compression_config``; a multimodal
    model's text config), normalised (``_normalised_method``), then the first override method that
    claims it (``quantization_override``). ``overridden``: an override claimed it, so its answer
    replaces ``--quantization``; else the user's method must equal ``method``."""
    quant = _quant_config(hf)
    if quant is None:
        return None, False
    method = _normalised_method(quant)
    model_type = str(hf.get("model_type") or hf.text_config.get("model_type") or "")
    override = quantization_override(
        quant, method, model_type, user, on_cpu, capability, awq_marlin, gptq_marlin, cpu_awq
    )
    if override is not None:
        return override, True
    return (method or None), False


@registry.rule("model_config")
def quantization_method(ctx: Any) -> dict[str, Any]:
    """§3.17 steps 1-3: ``ModelConfig._verify_quantization`` (``config/model.py`` 1383): the
    checkpoint's method wins when ``--quantization`` is unset; an override method that claims the
    checkpoint replaces ``--quantization`` (``gpt_oss_mxfp4`` under ``--quantization gptq`` is
    accepted: config-3117-00041); otherwise a different user method is refused."""
    on_cpu = ctx.platform.vendor == "cpu"
    user = ctx.args.quantization
    cap = ctx.platform.capability
    marlin = awq_marlin_platform(ctx)
    gptq_marlin = gptq_marlin_platform(ctx)
    cpu_awq = not ctx.release.has(CHANGES.CPU_AWQ_REMOVED)
    detected, overridden = derived_fact(
        ctx.hf,
        f"vllm.quantization/{on_cpu}/{user}/{cap}/{marlin}/{gptq_marlin}/{cpu_awq}",
        lambda hf: checkpoint_quantization(hf, on_cpu, user, cap, marlin, gptq_marlin, cpu_awq),
    )
    if detected is None:
        out = _known_method(ctx, user)
        _platform_supports(ctx, user)
        return out
    if user is None:  # a checkpoint method the release does not list is refused too (bitsandbytes)
        out = {**_known_method(ctx, detected, checkpoint=True), "quantization": detected}
        _platform_supports(ctx, detected, checkpoint=True)
        return out
    if user == detected:
        _platform_supports(ctx, user)
        return {}
    if overridden:
        _platform_supports(ctx, detected, checkpoint=True)
        return {
            "quantization": Force(detected, f"the checkpoint's {detected} override of --quantization {user}")
        }
    raise ConflictError(
        f"Quantization method specified in the model config ({detected}) does not match the "
        f"quantization method specified in the `quantization` argument ({user}).",
        fields=("quantization",),
        fix=Fix.any_of(
            Fix(drop=("quantization",)),
            Fix(set={"quantization": detected}),
            text=f"drop --quantization (or pass --quantization {detected})",
        ),
    )


def _known_method(ctx: Any, method: str | None, checkpoint: bool = False) -> dict[str, Any]:
    """``_verify_quantization``: an unknown method is refused ("Unknown quantization method: …"),
    the user's ``--quantization`` or the checkpoint's own (``checkpoint``: e.g. a bitsandbytes
    checkpoint, a method no release 0.30-0.34 lists; no flag makes vLLM load it)."""
    if method is None:
        return {}
    known = ctx.release.derive(quantization_methods)
    if method not in known:
        raise ConflictError(
            f"Unknown quantization method: {method}. Must be one of {list(known)}.",
            fields=("quantization",),
            fix=Fix(text=f"use a checkpoint quantized with one of: {', '.join(known)}")
            if checkpoint
            else Fix(drop=("quantization",)),
        )
    return {}


#: ``platforms/rocm.py : RocmPlatform.supported_quantization`` (0.28-0.33, 0.27.1 with bitsandbytes
#: and without inc: ``CHANGES.ROCM_QUANTIZATION_INC_NOT_BNB``; 0.34 adds
#: ``mxfp4_hadamard32``, a method earlier releases do not know at all, so one list serves every
#: release). CUDA and CPU leave the list empty (every known method passes).
ROCM_QUANTIZATION = frozenset(
    {
        "awq", "auto_awq", "awq_marlin", "gptq", "auto_gptq", "fp8", "deepseek_v4_fp8",
        "compressed-tensors", "fbgemm_fp8", "inc", "quark", "mxfp4", "mxfp4_hadamard32", "mxfp8",
        "torchao", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "fp8_per_tensor",
        "fp8_per_block", "fp8_per_channel", "online", "gpt_oss_mxfp4",
    }
)  # fmt: skip


#: The ROCm methods 0.21 added (CHANGES.ROCM_QUANTIZATION_MODELOPT_ONLINE).
_ROCM_MODELOPT_ONLINE = frozenset(
    {
        "deepseek_v4_fp8", "mxfp8", "modelopt", "modelopt_mxfp8", "modelopt_mixed", "fp8_per_tensor",
        "fp8_per_block", "online",
    }
)  # fmt: skip


def _platform_supports(ctx: Any, method: str | None, checkpoint: bool = False) -> None:
    """``Platform.verify_quantization`` (``platforms/interface.py``, called at the end of
    ``_verify_quantization`` on the resolved method, 0.28-0.34): ROCm refuses a known method
    outside its ``supported_quantization`` — "experts_int8 quantization is currently not
    supported in rocm." (dev seeds 7004/7005, ``operators``: experts-int8 checkpoints on MI300X)."""
    if method is None or ctx.platform.vendor != "hip":
        return
    supported = ROCM_QUANTIZATION
    if not ctx.release.has(CHANGES.ROCM_QUANTIZATION_INC_NOT_BNB):  # 0.27.1: bitsandbytes, not inc
        supported = (supported - {"inc"}) | {"bitsandbytes"}
    if not ctx.release.has(CHANGES.QUANTIZATION_METHODS_AUTO_AWQ):  # 0.23: gguf, not auto_awq/fp8_per_channel
        supported = (supported - {"auto_awq", "fp8_per_channel"}) | {"gguf"}
    if method in _ROCM_MODELOPT_ONLINE and not ctx.release.has(CHANGES.ROCM_QUANTIZATION_MODELOPT_ONLINE):
        supported = supported - _ROCM_MODELOPT_ONLINE  # 0.20: not in the ROCm list yet
    if method in supported:
        return
    raise ConflictError(
        f"{method} quantization is currently not supported in rocm.",
        fields=("quantization",),
        fix=Fix(text=f"use a checkpoint quantized with a method ROCm supports (not {method}), or a CUDA GPU")
        if checkpoint
        else Fix(drop=("quantization",)),
    )


#: Methods whose ``QuantizationConfig.get_config_filenames`` is not empty: without a
#: ``quantization_config`` in config.json they read one of these files from the model directory.
_CONFIG_FILES = {
    **dict.fromkeys(("awq", "awq_marlin", "auto_awq"), ("quantize_config.json", "quant_config.json")),
    **dict.fromkeys(("gptq", "gptq_marlin", "auto_gptq", "moe_wna16"), ("quantize_config.json",)),
    **dict.fromkeys(
        ("modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed"), ("hf_quant_config.json",)
    ),
    "inc": ("quantization_config.json",),
}


def _quant_config_file(ctx: Any, method: str) -> None:
    """``model_loader/weight_utils.py : get_quant_config`` (called by
    ``VllmConfig._get_quantization_config`` before the capability check): a method that reads its
    own file (``_CONFIG_FILES``) on a checkpoint whose config.json carries no quantization config
    (modelopt_mixed: none with ``quantized_layers``) is refused, "Cannot find the config file for
    awq" (config-3117-00015: ``--quantization awq`` on unquantized granite-4.0-h-small). The
    configuration describes config.json only, so no such side file is assumed."""
    files = _CONFIG_FILES.get(method)
    if files is None:
        return
    quant = _quant_config(ctx.hf)
    if quant is not None and not (method == "modelopt_mixed" and "quantized_layers" not in quant):
        return
    raise ConflictError(
        f"Cannot find the config file for {method}.",
        fields=("quantization",),
        fix=Fix(
            drop=("quantization",),
            text=f"drop --quantization {method} (the checkpoint is not quantized), or add its {files[0]}",
        ),
    )


@registry.rule("vllm_config")
def quantization_support(ctx: Any) -> dict[str, Any]:
    """§3.17 step 5: ``VllmConfig._get_quantization_config`` (``config/vllm.py`` 926): the GPU's
    capability must reach the method's minimum, and the model dtype must be an activation dtype of
    the method."""
    method = ctx.args.quantization
    if method is None:
        return {}
    _quant_config_file(ctx, method)
    quant = _quant_config(ctx.hf)
    if (
        method in GPTQ_DESC_ACT_METHODS
        and ctx.release.has(CHANGES.GPTQ_DESC_ACT_REFUSED)
        and quant is not None
        and quant.get("desc_act")
        and quant.get("group_size", 128) != -1
    ):  # quantization/utils/gptq_utils.py : normalize_and_validate_gptq_desc_act (0.30-0.34)
        raise ConflictError(
            "GPTQ group activation ordering (desc_act=True) is no longer supported. Use a checkpoint "
            "with static activation ordering or desc_act=False.",
            fields=("quantization",),
            fix="use a GPTQ checkpoint with desc_act=false (or static activation ordering)",
        )
    cap = ctx.platform.capability
    minimum = MIN_CAPABILITY.get(method)
    if method == "modelopt" and not ctx.release.has(CHANGES.MODELOPT_FP8_SM80):
        minimum = 89  # ModelOptFp8Config.get_min_capability (0.26)
    if method in ("gptq", "gptq_marlin") and not ctx.release.has(CHANGES.AUTO_GPTQ):
        minimum = 60 if method == "gptq" else 75  # 0.21: GPTQConfig, GPTQMarlinConfig
    if cap is not None and ctx.platform.vendor != "cpu" and minimum is not None:
        current = cap[0] * 10 + cap[1]
        if current < minimum:
            raise ConflictError(
                f"The quantization method {method} is not supported for the current GPU. Minimum "
                f"capability: {minimum}. Current capability: {current}.",
                fields=("quantization",),
                fix="use a GPU of that capability (--platform), or a checkpoint with another quantization",
            )
    supported = _ACT_DTYPES.get(method, ("bfloat16", "float16"))
    if method == "awq" and not ctx.release.has(CHANGES.QUANTIZATION_METHODS_AUTO_AWQ):
        supported = ("float16",)  # 0.23: AWQConfig (0.24+ serves "awq" with AutoAWQConfig)
    if method == "gptq" and not ctx.release.has(CHANGES.AUTO_GPTQ):
        supported = ("float16",)  # 0.21: GPTQConfig (0.22+ serves "gptq" with AutoGPTQConfig)
    if ctx.args.dtype not in supported:
        listed = ", ".join(f"torch.{d}" for d in supported)
        raise ConflictError(
            f"torch.{ctx.args.dtype} is not supported for quantization method {method}. "
            f"Supported dtypes: [{listed}]",
            fields=("dtype",),
            fix=Fix(set={"dtype": supported[0]}),
        )
    return {}
