"""Stages "platform" and "model": installed kernels, use_mla, checkpoint kv-cache dtype (the model dtype: ``config.model_config``).

Spec §1.1 (``config/model.py : ModelConfig.use_mla``, ``_resolve_auto_dtype``), §1.3 (the install)
and §5 (``utils/torch_utils.py : resolve_kv_cache_dtype_string``; llm-compressor
``kv_cache_scheme``). Invariant: each rule declares only what differs from its input.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import HFConfig
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


@registry.rule("model")
def checkpoint_kv_cache_dtype(ctx: Any) -> dict[str, Any]:
    """Spec §5: ``--kv-cache-dtype auto`` with an llm-compressor ``kv_cache_scheme`` in the checkpoint becomes fp8."""
    if ctx.args.kv_cache_dtype != "auto" or ctx.hf is None:
        return {}
    quant = ctx.hf.get("quantization_config") or ctx.hf.text_config.get("quantization_config")
    if isinstance(quant, HFConfig) and str(quant.get("quant_method") or "").startswith("modelopt"):
        return {}  # ModelOpt: resolve_kv_cache_dtype_string (config.kv_cache) decides
    if isinstance(quant, HFConfig) and isinstance(quant.get("kv_cache_scheme"), HFConfig):
        return {"kv_cache_dtype": "fp8"}
    return {}
