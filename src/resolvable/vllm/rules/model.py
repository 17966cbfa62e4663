"""Stages "platform" and "model": installed kernels, use_mla, model dtype, checkpoint kv-cache dtype.

Spec §1.1 (``config/model.py : ModelConfig.use_mla``, ``_resolve_auto_dtype``), §1.3 (the install)
and §5 (``utils/torch_utils.py : resolve_kv_cache_dtype_string``; llm-compressor
``kv_cache_scheme``). Invariant: each rule declares only what differs from its input.
"""

from __future__ import annotations

from ..._hfconfig import HFConfig
from ...errors import ConflictError
from .. import kernels
from .._base import registry
from ..layers import use_mla

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@registry.rule("platform")
def standard_install_kernels(ctx: Any) -> dict[str, Any]:
    """Spec §1.3: optional kernels of a standard vLLM install on this platform, then ``--kernels``."""
    return {"installed_kernels": kernels.installed(ctx.platform, ctx.args.kernels)}


@registry.rule("platform")
def validate_environ(ctx: Any) -> dict[str, Any]:
    """Appendix B, §8 (0.34): ``platforms/interface.py : Platform.validate_environ`` refuses a
    variable of ``vllm/envs.py : removed_environment_variables`` with vLLM's migration hint, and
    ``VLLM_USE_V2_MODEL_RUNNER`` other than 1 once the V1 runner is gone; other unknown
    ``VLLM_*`` names only warn (``resolvable.vllm.environ`` lists them)."""
    env = ctx.env or {}
    if not any(k.startswith("VLLM_") for k in env):
        return {}
    from ..environ import classify

    report = classify(env, ctx.release.version)
    if report.removed:
        name, message = next(iter(report.removed.items()))
        raise ConflictError(message, fields=(), fix=f"unset {name}")
    return {}


@registry.rule("model")
def mla_model(ctx: Any) -> dict[str, Any]:
    """Spec §1.1: ``ModelConfig.use_mla`` (DeepSeek-MLA model type with kv_lora_rank; VLLM_MLA_DISABLE off)."""
    if ctx.hf is None:
        return {}
    return {"use_mla": True} if use_mla(ctx.hf, ctx.env) else {}


_DTYPE_ALIASES = {
    "half": "float16",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float": "float32",
    "float32": "float32",
}


def _supported_dtypes(platform: Any) -> tuple[str, ...]:
    """``Platform.supported_dtypes``: CUDA bf16 from SM80; fp16 before; CPU bf16 with AVX-512/AMX."""
    if platform.vendor in ("cuda",):
        cap = platform.capability or (0, 0)
        if tuple(cap) >= (8, 0):
            return ("bfloat16", "float16", "float32")
        return ("float16", "float32")
    if platform.vendor == "cpu" and platform.is_arm64_host:
        return ("float16", "float32") if not platform.cpu_amx else ("bfloat16", "float16", "float32")
    return ("bfloat16", "float16", "float32")


@registry.rule("model")
def model_dtype(ctx: Any) -> dict[str, Any]:
    """Spec §1.1: the model dtype (``--dtype``, else the checkpoint's; fp32 and unsupported dtypes
    fall back to the platform's preferred one, e.g. fp16 on SM75) (``config/model.py : _resolve_auto_dtype``)."""
    supported = _supported_dtypes(ctx.platform)
    requested = ctx.args.dtype
    if requested != "auto":
        return {"dtype": _DTYPE_ALIASES.get(requested, requested)}
    hf = ctx.hf
    raw = None
    if hf is not None:
        raw = (
            hf.get("torch_dtype")
            or hf.get("dtype")
            or hf.text_config.get("torch_dtype")
            or hf.text_config.get("dtype")
        )
    config = _DTYPE_ALIASES.get(str(raw), "float32" if raw is None else str(raw))
    if config == "float32":
        config = supported[0]
    return {"dtype": config if config in supported else supported[0]}


@registry.rule("model")
def checkpoint_kv_cache_dtype(ctx: Any) -> dict[str, Any]:
    """Spec §5: ``--kv-cache-dtype auto`` with an llm-compressor ``kv_cache_scheme`` in the checkpoint becomes fp8."""
    if ctx.args.kv_cache_dtype != "auto" or ctx.hf is None:
        return {}
    quant = ctx.hf.get("quantization_config") or ctx.hf.text_config.get("quantization_config")
    if isinstance(quant, HFConfig) and isinstance(quant.get("kv_cache_scheme"), HFConfig):
        return {"kv_cache_dtype": "fp8"}
    return {}
