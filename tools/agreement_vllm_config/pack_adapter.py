"""The one place the config comparer knows the pack: a case in, the pack's §3 values out.

Interface (agreed with h21, written to /work/coord/h17o-config-oracle.md): the pack resolves
``resolve_vllm_args(config, platform, env, vllm_version=V, kernels=install, **flags)`` with the
case's engine-argument names; ``FIELDS`` maps each oracle key to the ``Resolution`` field that
holds the same value. A key the pack does not expose is reported as not exposed, not as a miss.
Refusals are ``ValueError`` subclasses; anything else is a crash. Where the pack has a vLLM CLI
parser (``resolvable.vllm.cli_args``), the case goes through it as argv (``VIA_CLI``), as a
pasted ``vllm serve`` line would; else the flags are passed as keyword arguments.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

#: oracle key (oracle_worker.extract) -> pack Resolution field
FIELDS: dict[str, str] = {
    "dtype": "dtype",
    "max_model_len": "max_model_len",
    "quantization": "quantization",
    "kv_cache_dtype": "kv_cache_dtype",
    "block_size_config": "block_size_config",
    "mamba_block_size": "mamba_block_size",
    "mamba_cache_mode": "mamba_cache_mode",
    "enable_prefix_caching": "enable_prefix_caching",
    "gpu_memory_utilization": "gpu_memory_utilization",
    "max_num_batched_tokens": "max_num_batched_tokens",
    "max_num_seqs": "max_num_seqs",
    "max_num_scheduled_tokens": "max_num_scheduled_tokens",
    "enable_chunked_prefill": "enable_chunked_prefill",
    "async_scheduling": "async_scheduling",
    "compilation_mode": "compilation_mode",
    "cudagraph_mode": "cudagraph_mode",
    "cudagraph_capture_sizes": "cudagraph_capture_sizes",
    "max_cudagraph_capture_size": "max_cudagraph_capture_size",
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "data_parallel_size": "data_parallel_size",
    "decode_context_parallel_size": "decode_context_parallel_size",
    "world_size": "world_size",
    "enable_expert_parallel": "enable_expert_parallel",
    "distributed_executor_backend": "distributed_executor_backend",
    "speculative_method": "speculative_method",
    "num_speculative_tokens": "num_speculative_tokens",
    "use_v2_model_runner": "use_v2_model_runner",
    "disable_hybrid_kv_cache_manager": "disable_hybrid_kv_cache_manager",
    "attn_type": "attn_type",
    "runner_type": "runner_type",
    "optimization_level": "optimization_level",
    "prefill_context_parallel_size": "prefill_context_parallel_size",
}


#: the pack gets the case as argv through its CLI parser when it has one (else keyword arguments)
VIA_CLI = True


def _cli():
    try:
        from resolvable.vllm.cli_args import parse, resolution_kwargs
    except ImportError:
        return None
    return parse, resolution_kwargs


def platform_for(name: str, gpus: int | None = None):
    from resolvable import Platform

    if name.startswith("sm"):
        cc = (int(name[2:-1]), int(name[-1]))
        base = Platform.preset("b200" if cc[0] >= 10 else "h100")
        p = base.replace(name=name, capability=cc, device_name=f"NVIDIA sm{name[2:]}")
    else:  # the harness's stand-ins (dgx-spark), then the product's presets
        from stand_ins import platform

        p = platform(name)
    return p.replace(device_count=gpus) if gpus else p


def pack_values(case: dict, release: str) -> dict[str, Any]:
    """``{"values": {key: value}, "exposed": [...]}``, ``{"error": msg}`` or ``{"crash": msg}``."""
    from resolvable.vllm import resolve_vllm_args

    flags = dict(case["flags"])
    if isinstance(flags.get("speculative_config"), dict):
        flags["speculative_config"] = json.dumps(flags["speculative_config"])
    cli = _cli() if VIA_CLI else None
    if cli is not None:
        parse, resolution_kwargs = cli
        try:  # the pack's own `vllm serve` parser, as a pasted command reaches the rules
            flags = resolution_kwargs(parse(["MODEL", *case["argv"]], release))
        except ValueError as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
    if case.get("install"):
        flags["kernels"] = case["install"]
    if "vllm_version" in inspect.signature(resolve_vllm_args).parameters:
        flags["vllm_version"] = release
    try:
        res = resolve_vllm_args(case["config"], platform_for(case["platform"]), case["env"], **flags)
    except ValueError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    except Exception as exc:  # a crash is a finding
        return {"crash": f"{type(exc).__name__}: {exc}"}
    try:  # the oracle reads VllmConfig when create_engine_config returns: compare that moment
        from resolvable.vllm.config.report import config_time_value
    except ImportError:
        config_time_value = None
    values, exposed = {}, []
    for key, field in FIELDS.items():
        try:
            value = res[field]
            if config_time_value is not None:
                # not the value after the attention backends (sparse-MLA fp8_ds_mla cache, the
                # backends' CUDA-graph mode): those are decided when the model is built
                value = config_time_value(res, field)
        except (KeyError, AttributeError):
            continue
        exposed.append(key)
        values[key] = normalise(key, value)
    return {"values": values, "exposed": exposed}


def normalise(key: str, value: Any) -> Any:
    """Both sides' values in one spelling (enum names, torch dtypes without ``torch.``)."""
    if value is None:
        return None
    if hasattr(value, "name") and not isinstance(value, (str, int, float, bool)):
        value = value.name
    if key == "dtype":
        return str(value).replace("torch.", "")
    if key == "cudagraph_capture_sizes":
        return sorted(int(v) for v in value)
    if isinstance(value, float):
        return round(value, 6)
    if key in ("compilation_mode", "cudagraph_mode"):
        return str(value).upper()
    return value
