"""Quantization detection and its checks (vllm-config-spec.md §3.17).

``config/model.py : ModelConfig._verify_quantization`` (stage "model_config") and
``config/vllm.py : VllmConfig._get_quantization_config`` (stage "vllm_config"). Invariant: the
detected method is what vLLM reports as ``model_config.quantization``; per-layer schemes
(compressed-tensors' ``kv_cache_scheme``) are the attention rules' business.
"""

from __future__ import annotations

from ..._declaration import Force
from ..._hfconfig import HFConfig
from ...errors import ConflictError
from .._base import registry
from .facts import derived_fact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``_verify_quantization``: checkpoint ``quant_method`` → the method vLLM resolves it to
#: (the override methods' ``override_quantization_method``, on GPUs).
_METHOD_ALIASES = {
    "gptq": "auto_gptq",
    "awq": "auto_awq",
    "gptq_marlin": "auto_gptq",
    "awq_marlin": "auto_awq",
}
#: Spellings of the same method a user may pass (``--quantization gptq`` on a GPTQ checkpoint).
_COMPATIBLE = {
    "auto_gptq": {"gptq", "gptq_marlin", "auto_gptq"},
    "auto_awq": {"awq", "awq_marlin", "auto_awq"},
}
#: ``get_min_capability`` of the quantization configs (spec §3.17 step 5).
MIN_CAPABILITY = {
    "fp8": 75,
    "auto_awq": 75,
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
}


def checkpoint_quantization(hf: HFConfig, on_cpu: bool) -> str | None:
    """The method ``_verify_quantization`` detects from ``quantization_config.quant_method`` after the
    model hooks' renames (GPT-OSS ``mxfp4`` → ``gpt_oss_mxfp4``; DeepSeek-V4 ``fp8`` →
    ``deepseek_v4_fp8``) and the override methods (GPTQ → ``auto_gptq``, AWQ → ``auto_awq`` off CPU;
    ModelOpt by ``quant_algo``)."""
    quant = hf.get("quantization_config") or hf.text_config.get("quantization_config")
    if not isinstance(quant, HFConfig):
        return None
    method = str(quant.get("quant_method") or "").lower() or None
    if method is None:
        return None
    model_type = str(hf.text_config.get("model_type") or "")
    if method == "mxfp4" and model_type == "gpt_oss":
        return "gpt_oss_mxfp4"
    if method == "fp8" and model_type.startswith("deepseek_v4"):
        return "deepseek_v4_fp8"
    if method == "modelopt":
        algo = str(quant.get("quant_algo") or "").upper()
        if "MIXED" in algo:
            return "modelopt_mixed"
        if "MXFP8" in algo:
            return "modelopt_mxfp8"
        if "FP4" in algo:
            return "modelopt_fp4"
        return "modelopt"
    if method in _METHOD_ALIASES and not on_cpu:
        return _METHOD_ALIASES[method]
    return method


@registry.rule("model_config")
def quantization_method(ctx: Any) -> dict[str, Any]:
    """§3.17 steps 1-3: ``ModelConfig._verify_quantization`` (``config/model.py`` 1383): the
    checkpoint's method wins when ``--quantization`` is unset; a different user method is refused."""
    on_cpu = ctx.platform.vendor == "cpu"
    detected = derived_fact(
        ctx.hf, f"vllm.quantization/{on_cpu}", lambda hf: checkpoint_quantization(hf, on_cpu)
    )
    user = ctx.args.quantization
    if detected is None:
        return {}
    if user is None:
        return {"quantization": detected}
    if user == detected or user in _COMPATIBLE.get(detected, ()):
        if user == detected:
            return {}
        return {"quantization": Force(detected, f"the checkpoint's {detected} checkpoint, spelled {user}")}
    raise ConflictError(
        f"Quantization method specified in the model config ({detected}) does not match the "
        f"quantization method specified in the `quantization` argument ({user}).",
        fields=("quantization",),
        fix=f"drop --quantization (or pass --quantization {detected})",
    )


@registry.rule("vllm_config")
def quantization_support(ctx: Any) -> dict[str, Any]:
    """§3.17 step 5: ``VllmConfig._get_quantization_config`` (``config/vllm.py`` 926): the GPU's
    capability must reach the method's minimum, and the model dtype must be an activation dtype of
    the method."""
    method = ctx.args.quantization
    if method is None:
        return {}
    cap = ctx.platform.capability
    minimum = MIN_CAPABILITY.get(method)
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
    if ctx.args.dtype not in supported:
        listed = ", ".join(f"torch.{d}" for d in supported)
        raise ConflictError(
            f"torch.{ctx.args.dtype} is not supported for quantization method {method}. "
            f"Supported dtypes: [{listed}]",
            fields=("dtype",),
            fix=f"pass --dtype {supported[0]}",
        )
    return {}
