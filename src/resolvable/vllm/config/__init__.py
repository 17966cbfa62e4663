"""vLLM's engine configuration as rules: every derived value of vllm-config-spec.md §3.

One module per concern, registered in vLLM's order (spec §2) by ``resolvable.vllm``:

=================  ==============================================================================
``model_config``   dtype, ``max_model_len``, runner and ``attn_type``, quantization (§3.1, §3.2, §3.17)
``parallel``       world size, executor, GPU count, TP/DCP/PCP checks (§3.15)
``speculative``    ``--speculative-config`` (§3.16)
``caching``        chunked prefill, prefix caching, Mamba cache mode (§3.6, §3.7)
``kv_cache``       ``kv_cache_dtype`` string and its checks (§3.3), GPU memory utilisation (§3.14)
``batch``          ``max_num_batched_tokens`` / ``max_num_seqs`` (usage context × device tables, §3.5)
``scheduling``     async scheduling, model runner V1/V2, hybrid KV-cache manager (§3.9, §3.13, §3.19)
``compilation``    compilation mode, ``-O`` level, ``cudagraph_mode``, capture sizes (§3.10-§3.12)
``platform``       the platforms' ``check_and_update_config`` (§4)
``startup``        refusals at engine start; what cannot be known offline (§3.1 step 7, §3.14)
``model_hooks``    ``MODELS_CONFIG_MAP`` hooks that change §3 values (§5)
``changes``        the named changes 0.30 → 0.34 the rules ask about (§8)
``fields``         the engine-configuration fields (a mixin of ``VllmArgs``)
``facts``          what the rules read from the config, platform and env
``fixes``          checked fixes (a refusal's fix, resolved again)
``report``         ``engine_config(res)``: values under their ``VllmConfig`` paths
=================  ==============================================================================

Invariant: this package's ``__init__`` imports nothing (``fields`` is imported by
``resolvable.vllm.args``; the rule modules by ``resolvable.vllm``), so there is no import cycle.
Line numbers in docstrings are vLLM 0.33.0's (the spec's), paths relative to the ``vllm`` package.
"""
