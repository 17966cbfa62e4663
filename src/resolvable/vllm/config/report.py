"""The engine configuration of a resolution as vLLM's ``VllmConfig`` holds it after
``create_engine_config`` (vllm-config-spec.md §2 B-C), next to the final values.

``engine_config(res)`` maps each derived value of §3 to its ``VllmConfig`` attribute path (the
names an oracle running the real ``create_engine_config`` reports) with two values: ``config`` —
the value when ``create_engine_config`` returns (the declarations of the configuration stages
only) — and ``final`` — after the attention backends (block size, CUDA-graph mode) at engine
start. Invariant: read-only over the resolution's declarations; nothing is recomputed.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The stages that run inside ``create_engine_config`` (the rest runs when the engine starts).
CONFIG_STAGES = frozenset(
    {
        "platform",
        "model",
        "model_config",
        "engine_args",
        "model_hooks",
        "vllm_config",
        "platform_config",
        "model_overrides",
    }
)

#: field → ``VllmConfig`` attribute path.
PATHS = {
    "dtype": "model_config.dtype",
    "max_model_len": "model_config.max_model_len",
    "runner_type": "model_config.runner_type",
    "attn_type": "model_config.attn_type",
    "quantization": "model_config.quantization",
    "kv_cache_dtype": "cache_config.cache_dtype",
    "block_size": "cache_config.block_size",
    "enable_prefix_caching": "cache_config.enable_prefix_caching",
    "mamba_cache_mode": "cache_config.mamba_cache_mode",
    "mamba_block_size": "cache_config.mamba_block_size",
    "gpu_memory_utilization": "cache_config.gpu_memory_utilization",
    "enable_chunked_prefill": "scheduler_config.enable_chunked_prefill",
    "max_num_batched_tokens": "scheduler_config.max_num_batched_tokens",
    "max_num_seqs": "scheduler_config.max_num_seqs",
    "max_num_scheduled_tokens": "scheduler_config.max_num_scheduled_tokens",
    "async_scheduling": "scheduler_config.async_scheduling",
    "disable_hybrid_kv_cache_manager": "scheduler_config.disable_hybrid_kv_cache_manager",
    "world_size": "parallel_config.world_size",
    "distributed_executor_backend": "parallel_config.distributed_executor_backend",
    "tensor_parallel_size": "parallel_config.tensor_parallel_size",
    "pipeline_parallel_size": "parallel_config.pipeline_parallel_size",
    "decode_context_parallel_size": "parallel_config.decode_context_parallel_size",
    "speculative_method": "speculative_config.method",
    "num_speculative_tokens": "speculative_config.num_speculative_tokens",
    "compilation_mode": "compilation_config.mode",
    "cudagraph_mode": "compilation_config.cudagraph_mode",
    "cudagraph_capture_sizes": "compilation_config.cudagraph_capture_sizes",
    "max_cudagraph_capture_size": "compilation_config.max_cudagraph_capture_size",
    "use_v2_model_runner": "use_v2_model_runner",
    "reasoning_parser": "structured_outputs_config.reasoning_parser",
    "worker_cls": "parallel_config.worker_cls",
    "disable_custom_all_reduce": "parallel_config.disable_custom_all_reduce",
    "disable_chunked_mm_input": "scheduler_config.disable_chunked_mm_input",
    "sparse_mla_prefill_workspace_factor": "attention_config.sparse_mla_prefill_workspace_factor",
}


def config_time_value(res: Any, field: str) -> Any:
    """The value of ``field`` when ``create_engine_config`` returns (block size and CUDA-graph mode:
    the rule ``config_time_values`` records them; the rest: the configuration stages' last write)."""
    if field == "block_size":
        return res["block_size_config"]
    if field == "cudagraph_mode":
        return res["cudagraph_mode_config"]
    return _config_time_value(res, field)


def _config_time_value(res: Any, field: str) -> Any:
    """The last effective write of a configuration stage, else the user's value or the default."""
    value: Any = res.user.get(field, res.schema.defaults.get(field))
    for decl in res.declarations:
        if decl.stage not in CONFIG_STAGES:
            continue
        for w in decl.writes:
            if w.field == field and w.outcome != "blocked":
                value = w.value
    return value


def engine_config(res: Any) -> dict[str, dict[str, Any]]:
    """``{VllmConfig path: {"field", "config", "final"}}`` for every derived value of §3."""
    return {
        path: {"field": field, "config": config_time_value(res, field), "final": res[field]}
        for field, path in PATHS.items()
    }
