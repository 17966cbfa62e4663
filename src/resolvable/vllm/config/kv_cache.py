"""``kv_cache_dtype`` at config time and GPU memory utilisation (vllm-config-spec.md §3.3, §3.14).

``create_engine_config`` → ``utils/torch_utils.py : resolve_kv_cache_dtype_string`` (498) (stage
"engine_args"), then ``VllmConfig._reject_mismatched_float_kv_cache`` (``config/vllm.py`` 1492) and
the validator ``validate_nvfp4_kv_cache_with_mla`` (stage "vllm_config"). Per-layer dtypes and
the backends' checks are the attention rules' (``resolvable.vllm.rules``). Invariant: a non-auto
user value is never replaced here.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, HFConfig
from .._base import registry
from ..changes import CHANGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``utils/torch_utils.py : MODELOPT_TO_VLLM_KV_CACHE_DTYPE_MAP``.
MODELOPT_KV = {"fp8": "fp8_e4m3", "nvfp4": "nvfp4"}
#: 0.30-0.33 ``CacheConfig.gpu_memory_utilization`` default.
GPU_MEMORY_UTILIZATION = 0.92


def modelopt_kv_cache_dtype(quant: HFConfig) -> str | None:
    """``get_kv_cache_quant_algo_string`` (``utils/torch_utils.py`` 443) for ModelOpt checkpoints:
    ``kv_cache_scheme``/``kv_cache_quant_algo`` → ``fp8_e4m3`` or ``nvfp4``; unknown → ``auto``."""
    if not str(quant.get("quant_method") or "").startswith("modelopt"):
        return None
    inner = quant.get("quantization")
    inner = inner if isinstance(inner, HFConfig) else quant
    algo = (
        inner.get("kv_cache_scheme")
        or quant.get("kv_cache_scheme")
        or inner.get("kv_cache_quant_algo")
        or quant.get("kv_cache_quant_algo")
    )
    if isinstance(algo, HFConfig):
        if algo.get("dynamic") is False and algo.get("num_bits") == 8 and algo.get("type") == "float":
            algo = "fp8"
        elif algo.get("num_bits") == 4 and algo.get("type") == "float":
            algo = "nvfp4"
        else:
            return "auto"
    if isinstance(algo, str):
        return MODELOPT_KV.get(algo.lower(), "auto")
    return None


@registry.rule("engine_args")
def kv_cache_dtype_from_checkpoint(ctx: Any) -> dict[str, Any]:
    """§3.3 step 1: ``resolve_kv_cache_dtype_string``: ``auto`` with a ModelOpt checkpoint that
    quantizes the KV cache becomes ``fp8_e4m3`` / ``nvfp4`` (other methods stay ``auto`` here)."""
    if ctx.args.kv_cache_dtype != "auto":
        return {}
    quant = ctx.hf.get("quantization_config") or ctx.hf.text_config.get("quantization_config")
    if not isinstance(quant, HFConfig):
        return {}
    value = modelopt_kv_cache_dtype(quant)
    return {"kv_cache_dtype": value} if value not in (None, "auto") else {}


@registry.rule("engine_args")
def gpu_memory_utilization(ctx: Any) -> dict[str, Any]:
    """§3.14: ``CacheConfig.gpu_memory_utilization`` defaults to 0.92 (0.30-0.33); 0.34 resolves an
    unset value to 1.0 when the extensible KV cache is on (CUDA/ROCm without a KV connector), else
    0.92. How much of it the KV cache gets is measured at start (profiling), not known offline."""
    if ctx.args.gpu_memory_utilization is None:
        requested = ctx.args.enable_extensible_kv_cache  # --[no-]enable-extensible-kv-cache (0.34)
        extensible = (
            ctx.release.has(CHANGES.EXTENSIBLE_KV_CACHE)
            and requested is not False
            and (requested or (ctx.platform.vendor in ("cuda", "hip") and not ctx.args.kv_connector))
        )
        return {"gpu_memory_utilization": 1.0 if extensible else GPU_MEMORY_UTILIZATION}
    value = ctx.args.gpu_memory_utilization
    if not 0 < value <= 1:
        raise ConflictError(
            f"gpu_memory_utilization must be in (0, 1], got {value}",
            fields=("gpu_memory_utilization",),
            fix=Fix(set={"gpu_memory_utilization": 0.9}),
        )
    return {}


@registry.rule("platform_config")
def extensible_kv_cache_platform(ctx: Any) -> dict[str, Any]:
    """0.34 ``VllmConfig._resolve_extensible_kv_cache`` (``config/vllm.py``): an explicit
    ``--enable-extensible-kv-cache`` off CUDA and ROCm (``is_cuda_alike``) is refused with
    "enable_extensible_kv_cache: it is only supported on CUDA and ROCm." (unset: simply off).
    Stage ``platform_config``: vLLM runs it after ``check_and_update_config``, so the
    ``VllmConfig.__post_init__`` refusals before it come first (dev 7003:320: "Cannot find the
    config file for awq" on CPU wins)."""
    if (
        not ctx.release.has(CHANGES.EXTENSIBLE_KV_CACHE)
        or ctx.args.enable_extensible_kv_cache is not True
        or ctx.platform.vendor in ("cuda", "hip")
    ):
        return {}
    raise ConflictError(
        "enable_extensible_kv_cache: it is only supported on CUDA and ROCm.",
        fields=("enable_extensible_kv_cache",),
        fix=Fix(drop=("enable_extensible_kv_cache",)),
    )


@registry.rule("vllm_config")
def reject_mismatched_float_kv_cache(ctx: Any) -> dict[str, Any]:
    """§3.3 step 4: ``VllmConfig._reject_mismatched_float_kv_cache`` (0.33+): an explicit
    float16/bfloat16 KV cache must equal the model dtype."""
    cache, model = ctx.args.kv_cache_dtype, ctx.args.dtype
    if (
        not ctx.release.has(CHANGES.REJECT_MISMATCHED_FLOAT_KV_CACHE)
        or cache not in ("float16", "bfloat16")
        or cache == model
    ):
        return {}
    allowed = f"`auto` or `{model}`" if model in ("float16", "bfloat16") else "`auto`"
    raise ConflictError(
        f'kv_cache_dtype="{cache}" is incompatible with dtype="{model}". Please set `--kv-cache-dtype` to {allowed}.',
        fields=("kv_cache_dtype", "dtype"),
        fix=Fix(set={"kv_cache_dtype": "auto"}),
    )


@registry.rule("vllm_config")
def nvfp4_kv_cache_with_mla(ctx: Any) -> dict[str, Any]:
    """§3.3 step 5: ``VllmConfig.validate_nvfp4_kv_cache_with_mla``: an NVFP4 cache (not the
    ``*_ds_mla`` layout) is refused on MLA models."""
    cache = ctx.args.kv_cache_dtype
    if ctx.args.use_mla and cache.startswith("nvfp4") and not cache.endswith("_ds_mla"):
        raise ConflictError(
            "nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends.",
            fields=("kv_cache_dtype",),
            fix=Fix.any_of(
                Fix(set={"kv_cache_dtype": "auto"}),
                Fix(set={"kv_cache_dtype": "fp8"}),
                text="pass --kv-cache-dtype auto or --kv-cache-dtype fp8",
            ),
        )
    return {}


@registry.rule("vllm_config")
def sparse_mla_prefill_workspace_factor(ctx: Any) -> dict[str, Any]:
    """§3.20: ``VllmConfig.__post_init__`` (``config/vllm.py`` 1866, 0.32+): unset, the sparse-MLA
    prefill workspace factor is resolved once from ``max_model_len``: 5 up to 256K tokens, else 2
    (KV auto-fit may lower ``max_model_len`` later; the workspace reserved at start must hold
    ``factor × max_model_len``)."""
    a = ctx.args
    if a.sparse_mla_prefill_workspace_factor is not None or not ctx.release.has(
        CHANGES.SPARSE_MLA_PREFILL_WORKSPACE_FACTOR
    ):
        return {}
    return {"sparse_mla_prefill_workspace_factor": 5 if a.max_model_len <= 256 * 1024 else 2}
