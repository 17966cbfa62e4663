"""vLLM's engine-configuration changes 0.22 → 0.34, as data (vllm-config-spec.md §8; blocks per
release pair below, oldest last, each listed in docs/releases/vllm-NEXT[-config].md).

One ``Change`` per behaviour a release changed; they join the pack's one change table
(``resolvable.vllm.changes.CHANGES``) and rule bodies ask ``ctx.release.has(CHANGES.X)`` (traced
into ``explain``). The default block size 64 (0.34) is the table's ``DEFAULT_BLOCK_SIZE_64``. Invariants: names are the behaviour, not the release; ``since`` is the
first release with the behaviour, ``until`` (exclusive) the release that removed it again;
``upstream`` is the vLLM file:function that changed (paths relative to the ``vllm`` package).
"""

from __future__ import annotations

from ...rules import Change

CONFIG_CHANGES = (
    Change(
        "ROCM_V1_RUNNER_DEFAULT_REMOVED",
        "0.32.0",
        upstream="config/vllm.py:VllmConfig.use_v2_model_runner",
        summary="ROCm no longer defaults DeepSeek-V3.2/V4 and GLM-MoE-DSA to the V1 model runner",
    ),
    Change(
        "V2_RUNNER_DRAFT_MODEL",
        "0.31.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="the V2 runner supports draft-model speculative decoding",
    ),
    Change(
        "V2_RUNNER_MAMBA_CACHE_ALL",
        "0.32.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="mamba cache mode 'all' no longer sends the engine to the V1 runner",
    ),
    Change(
        "MTP_ANY_TARGET",
        "0.34.0",
        upstream="config/speculative.py:SpeculativeConfig.__post_init__",
        summary="method 'mtp' no longer needs a target whose config maps to an MTP draft model type",
    ),
    Change(
        "V2_RUNNER_NGRAM",
        "0.32.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="the V2 runner supports n-gram speculative decoding",
    ),
    Change(
        "BATCH_INVARIANT_BREAKABLE_GRAPHS",
        "0.31.0",
        upstream="config/vllm.py:VllmConfig._uses_breakable_cudagraph_for_batch_invariance",
        summary="VLLM_BATCH_INVARIANT turns on breakable CUDA graphs for models with a tuned matmul shape",
    ),
    Change(
        "XPU_BATCH_INVARIANT_REFUSALS",
        "0.31.0",
        upstream="platforms/xpu.py:XPUPlatform.check_and_update_config",
        summary="XPU with VLLM_BATCH_INVARIANT refuses quantized models and quantized KV caches",
    ),
    Change(
        "XPU_GRAPHS_WITHOUT_ENV",
        "0.31.0",
        upstream="platforms/xpu.py:XPUPlatform.check_and_update_config",
        summary="XPU graphs no longer need VLLM_XPU_ENABLE_XPU_GRAPH=1",
    ),
    Change(
        "SPARSE_MLA_PREFILL_WORKSPACE_FACTOR",
        "0.32.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="sparse_mla_prefill_workspace_factor is resolved from max_model_len (5 up to 256K tokens, else 2)",
    ),
    Change(
        "CAPTURE_SIZES_INCLUDE_MAX_NUM_SEQS",
        "0.31.0",
        upstream="config/vllm.py:VllmConfig._set_cudagraph_sizes",
        summary="the uniform-decode size max_num_seqs joins the CUDA-graph capture sizes",
    ),
    Change(
        "ASYNC_SCHED_OFF_FOR_PP_ON_V1",
        "0.31.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="async scheduling defaults off for pipeline parallelism on the V1 runner",
    ),
    Change(
        "ASYNC_SCHED_DFLASH",
        "0.31.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="DFlash counts as an async-scheduling speculative method",
    ),
    Change(
        "STOCK_COMPILE_V2_NO_GRAPHS",
        "0.32.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="stock torch.compile on the V2 runner runs without CUDA graphs",
    ),
    Change(
        "EMBEDDING_GEMMA2_HOOK",
        "0.32.0",
        upstream="model_executor/models/config.py:EmbeddingGemma2ModelConfig.verify_and_update_config",
        summary="EmbeddingGemma2 caps a derived max_model_len at 8192",
    ),
    Change(
        "STEP3P5_UPSTREAM_CONFIG",
        "0.33.0",
        upstream="transformers_utils/config.py:_CONFIG_REGISTRY",
        summary="step3p5 loads transformers' Step3p7TextConfig, without vLLM's max_seq_len default 4096",
    ),
    Change(
        "GLM_DSA_FP8_CACHE_SM10X",
        "0.32.0",
        upstream="model_executor/models/config.py:GlmMoeDsaForCausalLM.verify_and_update_config",
        summary="GLM-MoE-DSA turns an auto KV cache into fp8_e4m3 on CUDA SM10x",
    ),
    Change(
        "GLM5_NEXT_FP8_CACHE_SM10X",
        "0.33.0",
        upstream="model_executor/models/config.py:Glm5NextModelConfig.verify_and_update_config",
        summary="GLM-5-Next with index_topk turns an auto KV cache into fp8 on CUDA SM10x",
    ),
    Change(
        "GB10_SMALL_BATCH_TIER",
        "0.33.0",
        upstream="engine/arg_utils.py:EngineArgs.get_batch_defaults",
        summary="GB10 (cc 12.1) takes the small batch-default tier despite its memory",
    ),
    Change(
        "CPU_BLOCK_SIZE_AT_SELECTION",
        "0.33.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="CPU's default block size 128 moves from the config hook to the backend preference",
    ),
    Change(
        "ASYNC_SCHED_SPEC_RULES_V1_ONLY",
        "0.33.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="the speculative-method and PP limits of async scheduling apply to the V1 runner only",
    ),
    Change(
        "REJECT_MISMATCHED_FLOAT_KV_CACHE",
        "0.33.0",
        upstream="config/vllm.py:VllmConfig._reject_mismatched_float_kv_cache",
        summary="an explicit float16/bfloat16 KV cache must equal the model dtype",
    ),
    Change(
        "MAMBA_PREFIX_CACHING_WORDING",
        "0.33.0",
        upstream="model_executor/models/config.py:MambaModelConfig.verify_and_update_config",
        summary="'Chunked prefill is required for Mamba prefix caching.' (before: mamba cache mode 'align')",
    ),
    Change(
        "EXTENSIBLE_KV_CACHE",
        "0.34.0",
        upstream="config/cache.py:CacheConfig._resolve_extensible_kv_cache",
        summary="gpu_memory_utilization unset: 1.0 with the default-on extensible KV cache (CUDA/ROCm), else 0.92",
    ),
    Change(
        "BREAKABLE_GRAPHS_QWEN3_5",
        "0.34.0",
        upstream="config/vllm.py:default_breakable_cudagraph_architectures",
        summary="Qwen3.5 defaults to breakable CUDA graphs on CUDA; ROCm adds HYV4",
    ),
    Change(
        "BATCH_INVARIANT_SM120_SHAPES",
        "0.32.0",
        upstream="model_executor/determinism/batch_invariant_configs.py:_BATCH_INVARIANT_MATMUL_TUNED_CONFIGS",
        summary="41 more tuned matmul shapes for SM120 (breakable CUDA graphs under VLLM_BATCH_INVARIANT)",
    ),
    Change(
        "BATCH_INVARIANT_HOPPER_SHAPES",
        "0.33.0",
        upstream="model_executor/determinism/batch_invariant_configs.py:_BATCH_INVARIANT_MATMUL_TUNED_CONFIGS",
        summary="8 more tuned matmul shapes for Hopper (breakable CUDA graphs under VLLM_BATCH_INVARIANT)",
    ),
    Change(
        "QUANTIZATION_METHODS_W4AFP8",
        "0.34.0",
        upstream="model_executor/layers/quantization/__init__.py:QuantizationMethods",
        summary="quantization methods + w4afp8, lut_b_moe, mxfp4_hadamard32; - fp_quant",
    ),
    Change(
        "MODEL_RUNNER_V1_REMOVED",
        "0.34.0",
        upstream="config/vllm.py:VllmConfig.use_v2_model_runner",
        summary="Model Runner V1 is gone; VLLM_USE_V2_MODEL_RUNNER other than 1 is refused",
    ),
    Change(
        "LORA_MODEL_SUPPORT_CHECK",
        "0.33.0",
        upstream="config/lora.py:LoRAConfig.verify_with_model_config",
        summary="--enable-lora on a class without SupportsLoRA is refused in create_engine_config (before: at model load)",
    ),
    Change(
        "GPU_RUNNER_PP_EXTERNAL_LAUNCHER_REFUSED",
        "0.34.0",
        upstream="config/vllm.py:VllmConfig._get_model_runner_unsupported_features",
        summary="PP with the external_launcher executor is refused (before: the V1 runner served it)",
    ),
    Change(
        "SPLIT_CUDAGRAPH_CAPTURE_SIZES",
        "0.34.0",
        upstream="config/vllm.py:VllmConfig._split_cudagraph_capture_sizes",
        summary="CUDA-graph sizes split into prefill token sizes and decode request sizes (wider on SM10x)",
    ),
    # 0.29.0 -> 0.30.0 (docs/releases/vllm-0.30.0.md)
    Change(
        "TRANSFORMERS_BACKEND_ATTN_IMPLEMENTATION",
        "0.30.0",
        upstream="model_executor/models/registry.py:_ModelRegistry._try_resolve_transformers",
        summary="the Transformers backend also serves a transformers class that can set its attention "
        "implementation (_can_set_attn_implementation), not only an is_backend_compatible() one",
    ),
    Change(
        "PIECEWISE_FALLBACK_WITHOUT_PIECEWISE",
        "0.30.0",
        upstream="config/vllm.py:VllmConfig._normalize_piecewise_cudagraph_mode",
        summary="a piecewise CUDA-graph mode without VLLM_COMPILE keeps its full part "
        "(FULL_AND_PIECEWISE -> FULL_DECODE_ONLY); 0.29 turned it into NONE",
    ),
    Change(
        "YARN_LENGTH_NOT_RESCALED",
        "0.30.0",
        upstream="config/model.py:_get_and_verify_max_len",
        summary="YaRN/deepseek_yarn/deepseek_llama_scaling factors no longer multiply the derived length "
        "(0.29: yarn length = original_max_position_embeddings x factor)",
    ),
    Change(
        "GPTQ_DESC_ACT_REFUSED",
        "0.30.0",
        upstream="model_executor/layers/quantization/utils/gptq_utils.py:normalize_and_validate_gptq_desc_act",
        summary="a GPTQ checkpoint with group activation ordering (desc_act=True) is refused (0.29 serves it)",
    ),
    Change(
        "MTP_DRAFTS_SUPPORT_PP",
        "0.30.0",
        upstream="model_executor/models/deepseek_mtp.py, qwen3_5_mtp.py : SupportsPP",
        summary="the DeepSeek(-V3.2) and Qwen3.5 MTP draft classes implement SupportsPP, so MTP runs "
        "with --pipeline-parallel-size > 1 (0.29 refuses it)",
    ),
    # 0.28.0 -> 0.29.0 (docs/releases/vllm-0.29.0.md)
    Change(
        "V2_RUNNER_BY_DEFAULT",
        "0.29.0",
        upstream="config/vllm.py:VllmConfig.use_v2_model_runner",
        summary="the V2 model runner is the default for every model its features allow; 0.28 used it "
        "only for dense non-hybrid generating models and DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES",
    ),
    Change(
        "BREAKABLE_GRAPHS_DSA_MODELS",
        "0.29.0",
        upstream="config/vllm.py:default_breakable_cudagraph_architectures",
        summary="DeepSeek-V3.2 (+MTP), GLM-MoE-DSA, Dots3-Note and HY-V4 default to breakable CUDA graphs "
        "(torch.compile off); 0.28 listed DeepSeek-V4, Inkling, Kimi-K3/Linear, MiniMax-M3 only",
    ),
    Change(
        "ROCM_BREAKABLE_GRAPHS_DSV41_ONLY",
        "0.30.0",
        upstream="config/vllm.py:default_breakable_cudagraph_architectures",
        summary="on ROCm only DeepSeek-V4.1 defaults to breakable CUDA graphs (0.29: the CUDA list "
        "without DeepSeek-V3.2)",
    ),
    Change(
        "CPU_AMX_MLA",
        "0.29.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="MLA on an AMX CPU runs the AMX_MLA backend, keeping chunked prefill, prefix caching "
        "and the block size; 0.28 has the reference CPU_MLA kernel only (block 16, both off)",
    ),
    Change(
        "SPEC_DECODE_CAPTURE_SIZES",
        "0.29.0",
        upstream="config/vllm.py:VllmConfig._set_cudagraph_sizes",
        summary="with speculative decoding the uniform-decode sizes (request counts x (1 + k)) join the "
        "default CUDA-graph sizes; 0.28 captured the token grid only",
    ),
    # 0.27.1 -> 0.28.0 (docs/releases/vllm-0.28.0.md)
    Change(
        "ASYNC_SCHED_DRAFT_MODEL_DEFAULT",
        "0.28.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="async scheduling defaults on with draft-model speculation; 0.21-0.27 accept it when "
        "asked for but leave it off by default (issue 32, h32r: the 'async_scheduling pack on, vLLM "
        "off' class of the 0.21-0.27 operators runs, read from the 0.21-0.30 wheels)",
    ),
    Change(
        "BATCH_DEFAULTS_160GIB_TIER",
        "0.28.0",
        upstream="engine/arg_utils.py:EngineArgs.get_batch_defaults",
        summary="a GPU with >= 160 GiB (B200/B300) takes 16384 tokens / 1024 sequences for the API "
        "server too; 0.27.1 gave it the >= 70 GiB tier (8192 tokens)",
    ),
    Change(
        "HYBRID_PREFIX_CACHING_BY_DEFAULT",
        "0.28.0",
        upstream="engine/arg_utils.py:EngineArgs._set_default_chunked_prefill_and_prefix_caching_args",
        summary="hybrid (attention + Mamba/linear) models turn prefix caching on by default; 0.27.1 "
        "kept it opt-in",
    ),
    Change(
        "MAMBA_ALIGN_BY_DEFAULT",
        "0.28.0",
        upstream="model_executor/models/config.py:MambaModelConfig.verify_and_update_config",
        summary="with prefix caching the Mamba cache mode defaults to 'align' for every model; 0.27.1 "
        "chose 'all' for the classes implementing SupportsMambaPrefixCaching",
    ),
    Change(
        "CAPTURE_SIZE_1024_SM10X",
        "0.28.0",
        upstream="config/vllm.py:VllmConfig._set_cudagraph_sizes",
        summary="the default largest CUDA-graph size is 1024 on data-center Blackwell (SM10x); 0.27.1 "
        "capped it at 512 everywhere",
    ),
    Change(
        "BITSANDBYTES_REMOVED",
        "0.28.0",
        upstream="model_executor/layers/quantization/__init__.py:QuantizationMethods",
        summary="bitsandbytes is no longer a quantization method (0.27.1 served it, 8-bit checkpoints "
        "in eager mode: ModelConfig._verify_bnb_config)",
    ),
    Change(
        "ROCM_QUANTIZATION_INC_NOT_BNB",
        "0.28.0",
        upstream="platforms/rocm.py:RocmPlatform.supported_quantization",
        summary="ROCm supports inc and no longer bitsandbytes; 0.27.1 the other way round",
    ),
    Change(
        "V2_DEFAULT_DEEPSEEK_V4",
        "0.28.0",
        upstream="config/vllm.py:default_v2_model_runner_architectures",
        summary="DeepSeek-V4 joins DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES and ROCm leaves it out; 0.27.1 "
        "had no DeepSeek-V4 there and ROCm left out Kimi-K3",
    ),
    Change(
        "SCHEDULED_TOKENS_FULL_BUDGET",
        "0.28.0",
        upstream="config/vllm.py:VllmConfig._set_max_num_scheduled_tokens",
        summary="max_num_scheduled_tokens defaults to max_num_batched_tokens; 0.27.1 subtracted "
        "max_num_seqs x the drafting slots (1 for a draft model, K-1 more with parallel drafting)",
    ),
    # 0.26.0 -> 0.27.0 (docs/releases/vllm-0.27.0-config.md)
    Change(
        "BREAKABLE_GRAPHS_KIMI",
        "0.27.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="Kimi-K3 (+MTP) and Kimi-Linear default to breakable CUDA graphs (torch.compile off); "
        "0.26 listed DeepSeek-V4, Inkling and MiniMax-M3 only",
    ),
    Change(
        "V2_DEFAULT_LISTED_HYBRID",
        "0.27.0",
        upstream="config/vllm.py:VllmConfig._is_default_v2_model_runner_model",
        summary="Kimi-K3 joins DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (not on ROCm) and a listed hybrid "
        "model defaults to the V2 runner; 0.26 sent every hybrid model to V1",
    ),
    Change(
        "MODELOPT_FP8_SM80",
        "0.27.0",
        upstream="model_executor/layers/quantization/modelopt.py:ModelOptFp8Config.get_min_capability",
        summary="ModelOpt FP8 checkpoints need capability 80 (Ampere, through Marlin); 0.26 needed 89",
    ),
    Change(
        "DRAFT_LIMITS_MAX_MODEL_LEN",
        "0.33.0",
        upstream="config/vllm.py:VllmConfig._limit_max_model_len_to_draft",
        summary="a draft whose positions are not the target's (a plain draft model, or a draft RoPE "
        "that is more than a cache size) lowers max_model_len to the draft's (0.33: V2 runner only)",
    ),
    Change(
        "DRAFT_PIPELINE_PARALLEL_ONE",
        "0.30.0",
        upstream="config/speculative.py:SpeculativeConfig.create_draft_parallel_config",
        summary="the draft's parallel config has pipeline_parallel_size 1 (0.28/0.29: the target's), "
        "so a draft class without SupportsPP no longer refuses --pipeline-parallel-size > 1",
    ),
    Change(
        "DRAFT_INHERITS_EXPERT_PARALLEL",
        "0.30.0",
        "0.31.0",
        upstream="config/speculative.py:SpeculativeConfig.create_draft_parallel_config",
        summary="the draft's parallel config takes the target's --enable-expert-parallel, so a dense "
        "draft refuses it (0.28/0.29: EP off for the draft; 0.31+: on only for an MoE draft)",
    ),
    Change(
        "QUANTIZATION_NVFP4_PER_TOKEN",
        "0.26.0",
        upstream="model_executor/layers/quantization/__init__.py:QuantizationMethods",
        summary="nvfp4_per_token (online shorthand) is a quantization method; 0.25 does not know it",
    ),
    # 0.24.0 -> 0.25.0 (docs/releases/vllm-0.25.0-config.md, read from the two wheels'
    # config/vllm.py, config/speculative.py, model_executor/models/{config,registry}.py)
    Change(
        "V2_DEFAULT_DENSE_MODELS",
        "0.25.0",
        upstream="config/vllm.py:VllmConfig._is_default_v2_model_runner_model",
        summary="a generating model that is neither MoE, hybrid nor attention-free defaults to the V2 "
        "runner; 0.24 used V2 by default for DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES only (Qwen3, Llama, "
        "Mistral, DeepSeek-V2, Qwen2-MoE, Granite-MoE)",
    ),
    Change(
        "V2_RUNNER_MAMBA_ALIGN",
        "0.25.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="a hybrid/Mamba model in Mamba cache mode 'align' is no longer V2-unsupported; 0.24 "
        "refuses it under VLLM_USE_V2_MODEL_RUNNER=1",
    ),
    Change(
        "CPU_AMX_LINEAR_ATTENTION_CACHING",
        "0.25.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="an AMX CPU keeps prefix caching and chunked prefill for a model with linear-attention "
        "layers; 0.24 turned both off",
    ),
    Change(
        "MODEL_HOOKS_NORMALIZED_ARCH",
        "0.25.0",
        upstream="config/vllm.py:VllmConfig.try_verify_and_update_config",
        summary="a model hook (MODELS_CONFIG_MAP) is also found under the registered class another "
        "suffix names (_normalize_arch); 0.24 looked up model_config.architecture only",
    ),
    Change(
        "UNLIMITED_OCR_HOOK",
        "0.25.0",
        upstream="model_executor/models/config.py:UnlimitedOCRForCausalLMConfig.verify_and_update_config",
        summary="Unlimited-OCR is registered and its hook turns prefix caching off; 0.24 has neither",
    ),
    # 0.25.1 -> 0.26.0 (docs/vllm.md "vLLM 0.25.0", read from the two wheels' config/vllm.py,
    # config/parallel.py, model_executor/models/config.py)
    Change(
        "CPU_AMX_SSM_FLOAT32",
        "0.26.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="an AMX CPU resets the Mamba SSM cache dtype to float32 ('Reset SSM cache type to "
        "float32 for AMX mamba attention.'); 0.25 and below keep the dtype asked for (issue 32, "
        "h32r: found reading the 0.21-0.26 wheels)",
    ),
    Change(
        "V2_DEFAULT_INKLING_LONGCAT_NGRAM",
        "0.26.0",
        upstream="config/vllm.py:DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES",
        summary="Inkling (causal LM and multimodal) and Longcat-Flash-Ngram join the default-V2 MoE "
        "classes; 0.25 sends them to the V1 runner",
    ),
    Change(
        "BREAKABLE_GRAPHS_INKLING",
        "0.26.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="Inkling defaults to breakable CUDA graphs (torch.compile off); 0.25 listed "
        "DeepSeek-V4 and MiniMax-M3 only",
    ),
    Change(
        "V2_RUNNER_PCP_MLA",
        "0.26.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="prefill context parallelism with MLA no longer sends the engine to the V1 runner; "
        "0.25 runs every -pcp > 1 on V1",
    ),
    Change(
        "V2_RUNNER_RAW_LOGPROBS",
        "0.26.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="--logprobs-mode raw_logits/processed_logits no longer sends a generating model to "
        "the V1 runner",
    ),
    Change(
        "LONGCAT_NGRAM_HOOK",
        "0.26.0",
        upstream="model_executor/models/config.py:LongcatFlashNgramForCausalLMConfig.verify_and_update_config",
        summary="Longcat-Flash-Ngram defaults to compilation mode NONE and CUDA-graph mode FULL; "
        "0.25 has no hook for it",
    ),
    Change(
        "HYBRID_POOLING_PREFIX_CACHING_OPT_IN",
        "0.26.0",
        upstream="engine/arg_utils.py:EngineArgs._set_default_chunked_prefill_and_prefix_caching_args",
        summary="a hybrid model run as a pooling model (--convert, --runner pooling) keeps prefix "
        "caching off by default; 0.25 turned it on where the pooling type allows (LAST/ALL pooling)",
    ),
    Change(
        "PCP_DCP_AXES",
        "0.26.0",
        upstream="config/parallel.py:ParallelConfig._validate_parallel_config",
        summary="with PCP, DCP may span the PCP axis or TP x PCP (0.25: DCP must divide TP always, "
        "'tp_size=T must be divisible bydcp_size=D.')",
    ),
    # 0.23.0 -> 0.24.0 (docs/releases/vllm-0.24.0-config.md, read from the two wheels'
    # config/vllm.py)
    Change(
        "V2_DEFAULT_LISTED_MOE_QUANTIZED",
        "0.24.0",
        upstream="config/vllm.py:VllmConfig._is_default_v2_model_runner_model",
        summary="DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES gains DeepSeek-V2, Qwen2-MoE and Granite-MoE and "
        "a listed class defaults to V2 even when MoE or quantized; 0.23 listed Llama, Mistral and "
        "Qwen3 and ran MoE or quantized (quantization_config) checkpoints on V1",
    ),
    Change(
        "BREAKABLE_GRAPHS_MINIMAX_M3",
        "0.24.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="MiniMax-M3 defaults to breakable CUDA graphs (torch.compile off); 0.23 listed "
        "DeepSeek-V4 only",
    ),
    Change(
        "V2_RUNNER_DFLASH",
        "0.24.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="the V2 runner supports DFlash (its parallel drafting included); 0.23 sends DFlash "
        "to the V1 runner",
    ),
    Change(
        "V2_RUNNER_PP_EXTERNAL_LAUNCHER_UNSUPPORTED",
        "0.24.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="pipeline parallelism with the external launcher sends the engine to the V1 runner "
        "(refused under VLLM_USE_V2_MODEL_RUNNER=1); 0.23 runs it on V2",
    ),
    Change(
        "QUANTIZATION_METHODS_AUTO_AWQ",
        "0.24.0",
        upstream="model_executor/layers/quantization/__init__.py:QuantizationMethods",
        summary="auto_awq (AWQ checkpoints claimed by AutoAWQConfig off CPU) and fp8_per_channel are "
        "quantization methods and gguf no longer is; 0.23 served AWQ through awq_marlin or awq",
    ),
    # 0.22.1 -> 0.23.0 (docs/releases/vllm-0.23.0-config.md, read from the two wheels'
    # config/*.py, engine/arg_utils.py, model_executor/models/{config,registry}.py, platforms/*.py)
    Change(
        "V2_DEFAULT_LLAMA_MISTRAL",
        "0.23.0",
        upstream="config/vllm.py:DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES",
        summary="Llama and Mistral join Qwen3 as default-V2 classes; 0.22 listed Qwen3 only",
    ),
    Change(
        "BREAKABLE_GRAPHS_DEEPSEEK_V4",
        "0.23.0",
        upstream="config/vllm.py:VllmConfig.__post_init__",
        summary="DeepSeek-V4 (+MTP) defaults to breakable CUDA graphs (torch.compile off); 0.22 compiles it",
    ),
    Change(
        "V2_RUNNER_HYBRID_ALIGN_ONLY",
        "0.23.0",
        upstream="config/vllm.py:VllmConfig._get_v2_model_runner_unsupported_features",
        summary="a HasInnerState (hybrid/Mamba) model is a V2-unsupported feature in Mamba align mode "
        "only; 0.22 lists every such model ('hybrid/mamba models')",
    ),
    Change(
        "V2_RUNNER_REFUSAL_NAMES_RUNNER",
        "0.23.0",
        upstream="config/vllm.py:VllmConfig._validate_v2_model_runner",
        summary="the forced-V2 refusal reads 'Model Runner V2 does not yet support: ...'; 0.20-0.22 "
        "name the variable ('VLLM_USE_V2_MODEL_RUNNER does not yet support: ...')",
    ),
    Change(
        "CPU_UNI_EXECUTOR_ENV_GATED",
        "0.23.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="the CPU turns the uni executor into mp only under V1 multiprocessing "
        "(VLLM_ENABLE_V1_MULTIPROCESSING, default 1); 0.22 always does",
    ),
    Change(
        "CPU_AWQ_REMOVED",
        "0.23.0",
        upstream="model_executor/layers/quantization/__init__.py:QuantizationMethods",
        summary="AWQ Marlin takes AWQ checkpoints on CPU too (is_awq_marlin_compatible) and cpu_awq is "
        "no longer a quantization method; 0.21-0.22 list it and CPUAWQConfig claims every AWQ "
        "checkpoint on CPU (AWQ Marlin is CUDA/ROCm only there)",
    ),
    # 0.21.0 -> 0.22.0 (docs/releases/vllm-0.22.0-config.md, read from the two wheels'
    # config/*.py, engine/arg_utils.py, model_executor/models/{config,registry}.py,
    # model_executor/layers/quantization/__init__.py, platforms/*.py)
    Change(
        "V2_RUNNER_DEFAULT_LIST",
        "0.22.0",
        upstream="config/vllm.py:VllmConfig.use_v2_model_runner",
        summary="the V2 model runner is the default for the listed classes (Qwen3, dense, unquantized); "
        "0.21 runs V2 only under VLLM_USE_V2_MODEL_RUNNER=1",
    ),
    Change(
        "AUTO_GPTQ",
        "0.22.0",
        upstream="model_executor/layers/quantization/__init__.py:get_quantization_config",
        summary="GPTQ checkpoints are served by AutoGPTQConfig (auto_gptq; gptq and gptq_marlin its "
        "aliases); 0.21 serves them through gptq_marlin where Marlin runs them, else gptq (float16 only)",
    ),
    Change(
        "CPU_AMX_LINEAR_ATTENTION_OFF",
        "0.22.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="an AMX CPU turns prefix caching and chunked prefill off for a model with "
        "linear-attention layers (until CPU_AMX_LINEAR_ATTENTION_CACHING, 0.25); 0.21 keeps both",
    ),
    Change(
        "EAGLE3_ANY_TARGET",
        "0.22.0",
        upstream="config/speculative.py:SpeculativeConfig._verify_args",
        summary="EAGLE3, DFlash and hidden-state extraction accept any target; 0.21 refuses a target "
        "whose model type is not in its auxiliary-hidden-states list",
    ),
    Change(
        "MAMBA_ALL_WITH_SPEC",
        "0.22.0",
        upstream="model_executor/models/config.py:MambaModelConfig.verify_and_update_config",
        summary="with prefix caching, a SupportsMambaPrefixCaching class defaults to mamba cache mode "
        "'all' with speculative decoding too; 0.21 picks 'align' when a speculative config is set",
    ),
    Change(
        "RUNNER_FROM_CONVERT",
        "0.22.0",
        upstream="config/model.py:ModelConfig._get_runner_type",
        summary="--runner auto with --convert other than auto/none resolves to the pooling runner; "
        "0.21 takes the architecture's default runner",
    ),
    Change(
        "EMBEDDING_RUNNER_GENERATE_REFUSED",
        "0.22.0",
        upstream="config/model.py:ModelConfig.__post_init__",
        summary="an embedding-only class under --runner generate/draft is refused ('Embedding models "
        "do not support ...'); 0.21 refuses --runner generate only as 'This model does not support'",
    ),
    # 0.20.2 -> 0.21.0 (docs/releases/vllm-0.21.0.md, read from the two wheels' config/*.py,
    # engine/arg_utils.py, model_executor/models/{config,registry}.py, platforms/*.py)
    Change(
        "ROCM_QUANTIZATION_MODELOPT_ONLINE",
        "0.21.0",
        upstream="platforms/rocm.py:RocmPlatform.supported_quantization",
        summary="ROCm supports deepseek_v4_fp8, mxfp8, modelopt, modelopt_mxfp8, modelopt_mixed, "
        "fp8_per_tensor, fp8_per_block and online; 0.20 refuses them ('... is currently not supported "
        "in rocm')",
    ),
    Change(
        "CPU_QUANTIZED_KV_CACHE",
        "0.21.0",
        upstream="platforms/cpu.py:CpuPlatform.check_and_update_config",
        summary="CPU keeps a quantized (fp8) KV cache; 0.20 refuses it with chunked prefill or prefix "
        "caching ('... is not compatible with FP8 KV cache.') and otherwise falls back to auto",
    ),
    # 0.20.0 -> 0.20.1 (docs/releases/vllm-0.20.1.md, read from the two wheels' config/*.py,
    # engine/arg_utils.py, platforms/*.py)
    Change(
        "CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET",
        "0.20.1",
        upstream="config/vllm.py:VllmConfig._set_cudagraph_sizes",
        summary="max_num_batched_tokens joins the default CUDA-graph capture sizes when it fits under "
        "max_cudagraph_capture_size (an off-stride budget is captured); 0.20.0 keeps the 1/2/4/8/16 grid",
    ),
)
