"""The engine-configuration fields of the vLLM pack (spec vllm-config-spec.md §3).

``ConfigArgs`` is a record mixin (a dataclass in behaviour, ``_record``) of ``VllmArgs``
(``resolvable.vllm.args``): each field is a vLLM engine argument (``engine/arg_utils.py :
EngineArgs``; the flag is ``--`` + the name with dashes) or a value vLLM derives in
``EngineArgs.create_engine_config`` / ``VllmConfig.__post_init__`` (then its leaf names the config
object that holds it, e.g. ``scheduler.max_num_seqs``).

Invariants:

* an input whose flag default is ``None`` in vLLM ("decide for me") is ``None`` here too, so a
  rule can tell "unset" from an explicit value (``ctx.user_set``), as vLLM does;
* every derived value is ``resolvable=True`` with a leaf; rules in ``resolvable.vllm.config``
  write them, never the user's explicit value without ``Force`` and vLLM's reason.
"""

from __future__ import annotations

from ...rules import record
from ...rules import record_arg as arg

#: ``usage/usage_lib.py : UsageContext`` members that change the batch defaults (spec §3.5).
USAGE_CONTEXTS = ("OPENAI_API_SERVER", "LLM_CLASS", "OPENAI_BATCH_RUNNER", "ENGINE_CONTEXT")
#: ``config/compilation.py : CompilationMode``.
COMPILATION_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
#: ``config/model.py : ModelConfig.attn_type`` values.
ATTN_TYPES = ("decoder", "hybrid", "attention_free", "encoder_decoder", "encoder_only")
#: ``config/cache.py : MambaCacheMode``.
MAMBA_CACHE_MODES = ("none", "align", "all")
#: ``config/parallel.py : DistributedExecutorBackend`` (in-tree names).
EXECUTORS = ("uni", "mp", "ray", "external_launcher")
#: ``config/scheduler.py : SchedulerConfig.performance_mode``.
PERFORMANCE_MODES = ("balanced", "interactivity", "throughput")
#: ``config/model.py : LogprobsMode``.
LOGPROBS_MODES = ("raw_logprobs", "raw_logits", "processed_logprobs", "processed_logits")
#: Speculative methods (``config/speculative.py : SpeculativeMethod``).
SPEC_METHODS = (
    "ngram",
    "ngram_gpu",
    "suffix",
    "draft_model",
    "eagle",
    "eagle3",
    "mtp",
    "dflash",
    "dspark",
    "medusa",
    "mlp_speculator",
    "extract_hidden_states",
    "custom_class",
)


def _optimization_level(value: object) -> str | None:
    if value not in (0, 1, 2, 3):
        return f"--optimization-level must be 0, 1, 2 or 3 (-O0 … -O3), got {value!r}"
    return None


@record  # a dataclass in behaviour, without importing dataclasses (import cost)
class ConfigArgs:
    # -- inputs ------------------------------------------------------------------------------
    usage_context: str = arg(
        "OPENAI_API_SERVER",
        choices=USAGE_CONTEXTS,
        help="Who builds the engine: `vllm serve` (OPENAI_API_SERVER), the LLM class (LLM_CLASS), run-batch.",
    )
    runner: str = arg("auto", choices=("auto", "generate", "pooling", "draft"), help="Model runner type.")
    convert: str = arg(
        "auto",
        choices=("auto", "none", "embed", "classify"),
        help="Adapt the model to a pooling task (--convert).",
    )
    enable_lora: bool | None = arg(None, help="Serve LoRA adapters (--enable-lora).")
    max_loras: int = arg(1, help="LoRA adapters in one batch (--max-loras).")
    enable_extensible_kv_cache: bool | None = arg(
        None,
        help="0.34: size the KV cache from measured memory (default on CUDA/ROCm; False: 0.92 utilisation).",
    )
    max_cpu_loras: int | None = arg(
        None, help="LoRA adapters kept in CPU memory (--max-cpu-loras; default --max-loras)."
    )
    pipeline_parallel_size: int = arg(1, help="Pipeline-parallel size (-pp).")
    data_parallel_size: int = arg(1, help="Data-parallel size (-dp).")
    enable_expert_parallel: bool = arg(False, help="Expert parallelism for MoE layers (-ep).")
    all2all_backend: str | None = arg(None, help="All-to-all backend of expert parallelism.")
    nnodes: int = arg(1, help="Number of nodes of one engine (--nnodes).")
    disable_sliding_window: bool = arg(
        False, help="Disable sliding window (caps max_model_len at the window)."
    )
    speculative_config: str | None = arg(
        None, help='Speculative decoding as JSON, e.g. \'{"method": "ngram", "num_speculative_tokens": 3}\'.'
    )
    performance_mode: str = arg("balanced", choices=PERFORMANCE_MODES, help="Scheduler performance mode.")
    logprobs_mode: str = arg(
        "raw_logprobs",
        choices=LOGPROBS_MODES,
        help="What returned logprobs hold (--logprobs-mode); 0.25 runs the *_logits modes on the V1 runner.",
    )
    optimization_level: int = arg(2, check=_optimization_level, help="-O level (0-3).")
    max_cudagraph_capture_size: int | None = arg(
        None,
        resolvable=True,
        leaf="compilation.max_cudagraph_capture_size",
        help="Largest CUDA-graph capture size.",
    )
    prefill_cudagraph_capture_token_sizes: list[int] | None = arg(
        None,
        resolvable=True,
        leaf="compilation.prefill_cudagraph_capture_token_sizes",
        help="0.34: token counts of the prefill CUDA graphs (-cc.prefill_cudagraph_capture_token_sizes).",
    )
    max_decode_cudagraph_capture_requests: int | None = arg(
        None,
        resolvable=True,
        leaf="compilation.max_decode_cudagraph_capture_requests",
        help="0.34: most requests of a decode CUDA graph (-cc.max_decode_cudagraph_capture_requests).",
    )
    mm_encoder_only: bool = arg(False, help="Run only the multimodal encoder (prefix caching off).")
    capture_size_conflict: str | None = arg(
        None,
        cli=False,
        help="A capture-size flag whose -cc key was given too (the key): refused where "
        "create_engine_config refuses it, after the speculative, scheduler and LoRA configs.",
    )

    # -- derived (create_engine_config / VllmConfig.__post_init__) --------------------------------
    runner_type: str = arg(
        "generate",
        resolvable=True,
        leaf="model.runner_type",
        choices=("generate", "pooling", "draft"),
        cli=False,
        help="Runner the model runs with (from --runner and the architecture).",
    )
    attn_type: str = arg(
        "decoder",
        resolvable=True,
        leaf="model.attn_type",
        choices=ATTN_TYPES,
        cli=False,
        help="ModelConfig.attn_type: decoder, hybrid, attention_free, encoder_decoder, encoder_only.",
    )
    max_model_len: int | None = arg(
        None, resolvable=True, leaf="model.max_model_len", help="Context length (None or -1: derived)."
    )
    quantization: str | None = arg(
        None,
        resolvable=True,
        leaf="model.quantization",
        help="Quantization method (None: from the checkpoint).",
    )
    world_size: int = arg(
        1,
        resolvable=True,
        leaf="parallel.world_size",
        cli=False,
        help="Ranks of one engine: pipeline × tensor × prefill-context parallel.",
    )
    distributed_executor_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="parallel.distributed_executor_backend",
        choices=EXECUTORS,
        help="Executor (None: uni for one rank, mp otherwise).",
    )
    speculative_method: str | None = arg(
        None,
        resolvable=True,
        leaf="speculative.method",
        choices=SPEC_METHODS,
        cli=False,
        help="Speculative method (from --speculative-config).",
    )
    enable_chunked_prefill: bool | None = arg(
        None,
        resolvable=True,
        leaf="scheduler.enable_chunked_prefill",
        help="Chunked prefill (None: by model).",
    )
    enable_prefix_caching: bool | None = arg(
        None, resolvable=True, leaf="cache.enable_prefix_caching", help="Prefix caching (None: by model)."
    )
    mamba_cache_mode: str = arg(
        "none",
        resolvable=True,
        leaf="cache.mamba_cache_mode",
        choices=MAMBA_CACHE_MODES,
        help="Mamba state caching for prefix caching (decided by prefix caching from 0.33).",
    )
    mamba_block_size: int | None = arg(
        None, resolvable=True, leaf="cache.mamba_block_size", help="Mamba block size (tokens)."
    )
    max_num_batched_tokens: int | None = arg(
        None, resolvable=True, leaf="scheduler.max_num_batched_tokens", help="Tokens per scheduler step."
    )
    max_num_seqs: int | None = arg(
        None, resolvable=True, leaf="scheduler.max_num_seqs", help="Sequences per scheduler step."
    )
    max_num_scheduled_tokens: int | None = arg(
        None,
        resolvable=True,
        leaf="scheduler.max_num_scheduled_tokens",
        help="Tokens scheduled per step (defaults to max_num_batched_tokens).",
    )
    async_scheduling: bool | None = arg(
        None, resolvable=True, leaf="scheduler.async_scheduling", help="Async scheduling (None: decided)."
    )
    use_v2_model_runner: bool = arg(
        True, resolvable=True, leaf="model_runner.v2", cli=False, help="Model Runner V2 (False: V1)."
    )
    compilation_mode: str | None = arg(
        None,
        resolvable=True,
        leaf="compilation.mode",
        choices=COMPILATION_MODES,
        help="torch.compile mode (-cc.mode).",
    )
    cudagraph_capture_sizes: list[int] | None = arg(
        None, resolvable=True, leaf="compilation.cudagraph_capture_sizes", help="CUDA-graph capture sizes."
    )
    mamba_ssm_cache_dtype: str = arg(
        "auto",
        resolvable=True,
        leaf="cache.mamba_ssm_cache_dtype",
        choices=("auto", "float32", "float16", "bfloat16"),
        help="dtype of the Mamba SSM state cache (auto: the model's, or a model hook's).",
    )
    block_size_config: int | None = arg(
        None,
        resolvable=True,
        leaf="cache.block_size_at_config",
        cli=False,
        help="CacheConfig.block_size when create_engine_config returns (before the backends' preference).",
    )
    cudagraph_mode_config: str | None = arg(
        None,
        resolvable=True,
        leaf="compilation.cudagraph_mode_at_config",
        choices=("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"),
        cli=False,
        help="CompilationConfig.cudagraph_mode when create_engine_config returns (before the backends').",
    )
    gpu_memory_utilization: float | None = arg(
        None,
        resolvable=True,
        leaf="cache.gpu_memory_utilization",
        help="Fraction of device memory vLLM may use.",
    )
    disable_hybrid_kv_cache_manager: bool | None = arg(
        None,
        resolvable=True,
        leaf="scheduler.disable_hybrid_kv_cache_manager",
        help="Disable the hybrid KV-cache manager (None: decided).",
    )
    worker_cls: str = arg(
        "auto",
        resolvable=True,
        leaf="parallel.worker_cls",
        help="Worker class (auto: the platform's).",
    )
    disable_chunked_mm_input: bool = arg(
        False,
        resolvable=True,
        leaf="scheduler.disable_chunked_mm_input",
        help="Schedule a multimodal item's tokens whole (forced for encoder-decoder and multimodal prefix-LM models).",
    )
    disable_custom_all_reduce: bool = arg(
        False,
        resolvable=True,
        leaf="parallel.disable_custom_all_reduce",
        help="Disable the custom all-reduce kernel (forced where the platform has none).",
    )
    reasoning_parser: str = arg(
        "",
        resolvable=True,
        leaf="structured_outputs.reasoning_parser",
        help="Reasoning parser ('': none, unless a model hook names one, e.g. GPT-OSS's openai_gptoss).",
    )
    sparse_mla_prefill_workspace_factor: int | None = arg(
        None,
        resolvable=True,
        leaf="attention.sparse_mla_prefill_workspace_factor",
        cli=False,
        help="Sparse-MLA prefill workspace, in multiples of max_model_len (0.32+: 5 up to 256K tokens, else 2).",
    )
