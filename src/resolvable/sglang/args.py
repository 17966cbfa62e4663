"""``ServerArgs``: the SGLang arguments this pack reads or resolves (spec §2.1).

Field names, defaults and choices follow sglang 0.5.15; the CLI flag of a field is
``--`` + its name with dashes. Invariants:

* a field rules may write is marked ``resolvable=True``; everything else is input only;
* every resolvable field has one leaf in the published runtime context, grouped by concern
  (``attention_backend`` → ``attn.backend``, ``moe_runner_backend`` → ``moe.runner_backend`` …);
* constructing ``ServerArgs(...)`` resolves (from ``__post_init__``) unless ``model_path`` is
  None or a dummy; the object then holds the resolved values and ``.resolution`` (the record).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..rules import record
from ..rules import record_arg as arg
from . import choices as C

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from dataclasses import InitVar
    from typing import Any

#: Short spellings SGLang accepts besides ``--<field-name>``.


def _page_size_check(value: Any) -> str | None:
    """sglang 0.5.15 has no range check for ``page_size``, but fails on a non-positive one:
    0 in ``ServerArgs.check_server_args`` (``chunked_prefill_size % page_size``: ZeroDivisionError),
    a negative one at start-up (``model_runner_kv_cache_mixin.py`` asserts ``page_size >= 1``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 1:
        where = (
            "check_server_args divides chunked_prefill_size by it (ZeroDivisionError)"
            if value == 0
            else "its KV-cache pools assert 'page_size must be >= 1' at start-up"
        )
        return (
            f"page_size must be >= 1, got {value} (sglang 0.5.15: {where}); "
            "pass --page-size 1 or more, or leave it unset"
        )
    return None


def _tp_size_check(value: Any) -> str | None:
    """sglang 0.5.15's ``ServerArgs`` lets ``tp_size < 1`` through, but the launcher then starts
    no scheduler (``entrypoints/engine.py: _calculate_rank_ranges`` gives an empty TP range)."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 1:
        return (
            f"tp_size must be >= 1, got {value} (sglang 0.5.15 accepts it in ServerArgs but then launches "
            "no scheduler process: entrypoints/engine.py _calculate_rank_ranges); pass --tp-size 1 or more"
        )
    return None


@record  # a dataclass in behaviour: dataclasses.fields/replace/asdict work (see _record: import cost)
class ServerArgs:
    """sglang's server arguments, as far as this pack reads or resolves them (spec §2.1).

    ``ServerArgs(model_path=..., **flags)`` resolves from ``__post_init__`` (``hf_config``,
    ``platform``, ``env`` and ``user_set`` are init-only inputs of that resolution)."""

    # -- model and platform -------------------------------------------------------------
    model_path: str | None = arg(None, help="Model: bundled sample name, config.json, model dir, or hub id.")
    # Which config class loads the checkpoint (passes/model_config.py reads it).
    trust_remote_code: bool = arg(False, help="Load the checkpoint's own config class (auto_map).")
    device: str | None = arg(
        None,
        resolvable=True,
        leaf="platform.device",
        choices=C.DEVICES,
        help="Device type; auto-detected from the platform when unset.",
    )
    dtype: str = arg(
        "auto", resolvable=True, leaf="model.dtype", choices=C.DTYPES, help="Model weight dtype."
    )
    quantization: str | None = arg(
        None, resolvable=True, leaf="model.quantization", choices=C.QUANTIZATIONS, help="Quantization method."
    )
    enable_tf32_matmul: bool = arg(
        False, resolvable=True, leaf="model.enable_tf32_matmul", help="Allow TF32 matmuls."
    )
    is_embedding: bool = arg(False, help="Serve a CausalLM as an embedding model.")

    # -- attention --------------------------------------------------------------------------
    attention_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.backend",
        choices=C.ATTENTION_BACKENDS,
        help="Attention kernel backend.",
    )
    prefill_attention_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.prefill_backend",
        choices=C.ATTENTION_BACKENDS,
        help="Attention backend for prefill (overrides --attention-backend for prefill).",
    )
    decode_attention_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.decode_backend",
        choices=C.ATTENTION_BACKENDS,
        help="Attention backend for decode (overrides --attention-backend for decode).",
    )
    speculative_draft_attention_backend: str | None = arg(
        None, resolvable=True, leaf="attn.draft_backend", help="Attention backend of the draft model."
    )
    dsa_prefill_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.dsa_prefill_backend",
        choices=C.DSA_BACKENDS,
        help="DeepSeek sparse attention prefill kernel.",
    )
    dsa_decode_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="attn.dsa_decode_backend",
        choices=C.DSA_BACKENDS,
        help="DeepSeek sparse attention decode kernel.",
    )
    linear_attn_backend: str = arg("triton", help="Linear-attention kernel backend.")

    # -- KV cache ---------------------------------------------------------------------------
    page_size: int | None = arg(
        None,
        resolvable=True,
        leaf="cache.page_size",
        help="Tokens per KV-cache page.",
        check=_page_size_check,
    )
    kv_cache_dtype: str = arg(
        "auto", resolvable=True, leaf="cache.kv_dtype", choices=C.KV_CACHE_DTYPES, help="KV-cache dtype."
    )
    disable_radix_cache: bool = arg(
        False, resolvable=True, leaf="cache.disable_radix", help="Disable RadixAttention prefix caching."
    )
    enable_hierarchical_cache: bool = arg(
        False, resolvable=True, leaf="cache.hierarchical", help="Enable the hierarchical (host) cache."
    )
    enable_lmcache: bool = arg(False, resolvable=True, leaf="cache.lmcache", help="Enable LMCache.")
    # Only refused or accepted (passes/mamba_backend.py): no rule chooses the mamba kernel.
    mamba_backend: str = arg("triton", choices=("triton", "flashinfer"), help="Mamba SSM kernel backend.")
    mamba_radix_cache_strategy: str = arg(
        "auto",
        resolvable=True,
        leaf="cache.mamba_strategy",
        choices=C.MAMBA_STRATEGIES,
        help="Mamba radix-cache buffering strategy.",
    )
    uses_mamba_radix_cache: bool = arg(False, resolvable=True, leaf="cache.uses_mamba_radix", cli=False)
    mamba_track_interval: int = arg(256, help="Mamba state tracking interval (tokens).")
    swa_full_tokens_ratio: float = arg(
        0.8,
        resolvable=True,
        leaf="cache.swa_full_tokens_ratio",
        help="Ratio of full-attention to sliding-window KV tokens.",
    )
    disable_hybrid_swa_memory: bool = arg(
        False,
        resolvable=True,
        leaf="cache.disable_hybrid_swa_memory",
        help="Disable the hybrid SWA memory pool.",
    )

    # -- scheduling -----------------------------------------------------------------------------
    chunked_prefill_size: int | None = arg(
        None, resolvable=True, leaf="sched.chunked_prefill_size", help="Chunked prefill size (-1 disables)."
    )
    mem_fraction_static: float | None = arg(
        None,
        resolvable=True,
        leaf="sched.mem_fraction_static",
        help="Fraction of GPU memory for weights and KV cache (unset: profiled at startup).",
    )
    max_running_requests: int | None = arg(
        None, resolvable=True, leaf="sched.max_running_requests", help="Maximum concurrent requests."
    )
    disable_overlap_schedule: bool = arg(
        False, resolvable=True, leaf="sched.disable_overlap", help="Disable the overlap scheduler."
    )
    enable_mixed_chunk: bool = arg(
        False, resolvable=True, leaf="sched.enable_mixed_chunk", help="Mix prefill and decode in a batch."
    )
    disaggregation_mode: str = arg(
        "null",
        resolvable=True,
        leaf="sched.disaggregation_mode",
        choices=C.DISAGGREGATION_MODES,
        help="PD disaggregation role.",
    )
    prefill_round_robin_balance: bool = arg(
        False, help="PD decode: the prefill side balances data-parallel ranks round robin (before 0.5.8)."
    )
    enable_lora: bool = arg(False, resolvable=True, leaf="sched.enable_lora", help="Enable LoRA adapters.")
    sampling_backend: str | None = arg(
        None, resolvable=True, leaf="sampling.backend", choices=C.SAMPLING_BACKENDS, help="Sampling kernels."
    )

    # -- CUDA graphs ----------------------------------------------------------------------------
    disable_cuda_graph: bool = arg(
        False, resolvable=True, leaf="graph.disable_all", help="Disable CUDA graphs in both phases."
    )
    cuda_graph_backend_prefill: str | None = arg(
        None,
        resolvable=True,
        leaf="graph.prefill_backend",
        choices=C.CUDA_GRAPH_BACKENDS,
        help="CUDA-graph backend of the prefill phase.",
    )
    cuda_graph_backend_decode: str | None = arg(
        None,
        resolvable=True,
        leaf="graph.decode_backend",
        choices=C.CUDA_GRAPH_BACKENDS,
        help="CUDA-graph backend of the decode phase.",
    )
    # The per-phase off-switches: ``_parse_cuda_graph_config`` folds them in below the per-phase
    # backend flags (they matter to the dLLM backend choice, which reads the decode graph).
    disable_prefill_cuda_graph: bool = arg(False, help="Disable the prefill-phase CUDA graph.")
    disable_decode_cuda_graph: bool = arg(False, help="Disable the decode-phase CUDA graph.")

    # -- parallelism ----------------------------------------------------------------------------
    tp_size: int = arg(1, help="Tensor parallel size.", check=_tp_size_check)
    dp_size: int = arg(1, resolvable=True, leaf="parallel.dp_size", help="Data parallel size.")
    pp_size: int = arg(1, resolvable=True, leaf="parallel.pp_size", help="Pipeline parallel size.")
    nnodes: int = arg(1, help="Number of nodes.")
    dcp_size: int = arg(1, help="Decode context parallel size.")
    attn_cp_size: int = arg(
        1, resolvable=True, leaf="parallel.attn_cp_size", help="Attention context parallel size."
    )
    enable_dp_attention: bool = arg(
        False, resolvable=True, leaf="parallel.enable_dp_attention", help="Data-parallel attention."
    )
    enable_dp_lm_head: bool = arg(
        False, resolvable=True, leaf="parallel.enable_dp_lm_head", help="DP LM head."
    )
    enable_prefill_cp: bool = arg(False, help="Context parallelism for prefill.")
    cp_strategy: str | None = arg(None, choices=C.CP_STRATEGIES, help="Prefill CP strategy.")
    enable_dsa_prefill_context_parallel: bool = arg(
        False, resolvable=True, leaf="parallel.enable_dsa_prefill_cp", help="DSA prefill context parallel."
    )
    dsa_prefill_cp_mode: str | None = arg(
        None, resolvable=True, leaf="parallel.dsa_prefill_cp_mode", help="DSA prefill CP mode."
    )
    enable_two_batch_overlap: bool = arg(False, help="Overlap two micro-batches.")

    # -- MoE ----------------------------------------------------------------------------------------
    ep_size: int = arg(1, resolvable=True, leaf="moe.ep_size", help="Expert parallel size.")
    moe_runner_backend: str = arg(
        "auto", resolvable=True, leaf="moe.runner_backend", choices=C.MOE_RUNNER_BACKENDS, help="MoE runner."
    )
    moe_a2a_backend: str = arg(
        "none",
        resolvable=True,
        leaf="moe.a2a_backend",
        choices=C.MOE_A2A_BACKENDS,
        help="MoE all-to-all backend.",
    )
    moe_dense_tp_size: int | None = arg(
        None, resolvable=True, leaf="moe.dense_tp_size", help="TP size of the dense MLP layers."
    )
    speculative_moe_runner_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="moe.speculative_runner_backend",
        choices=C.MOE_RUNNER_BACKENDS,
        help="MoE runner of the draft model.",
    )
    speculative_moe_a2a_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="moe.speculative_a2a_backend",
        choices=C.MOE_A2A_BACKENDS,
        help="MoE all-to-all backend of the draft model.",
    )

    # -- speculative decoding -------------------------------------------------------------------
    speculative_algorithm: str | None = arg(
        None, choices=C.SPECULATIVE_ALGORITHMS, help="Speculative algorithm."
    )
    # Resolvable: sglang's speculative hook (arg_groups/speculative_hook.py) chooses or overrides
    # them (EAGLE auto parameters, NGRAM topk := max BFS breadth, DFLASH topk := 1); rules before
    # step 22 read the raw value, as sglang's do (spec §10 #15).
    speculative_eagle_topk: int | None = arg(
        None, resolvable=True, leaf="spec.eagle_topk", help="Draft tokens sampled per EAGLE step."
    )
    speculative_num_draft_tokens: int | None = arg(
        None, resolvable=True, leaf="spec.num_draft_tokens", help="Draft tokens per verification."
    )
    enable_multi_layer_eagle: bool = arg(
        False, resolvable=True, leaf="spec.enable_multi_layer_eagle", help="Multi-layer EAGLE drafting."
    )

    # -- determinism, diffusion, features -------------------------------------------------------
    enable_deterministic_inference: bool = arg(
        False, resolvable=True, leaf="features.deterministic", help="Deterministic inference."
    )
    rl_on_policy_target: str | None = arg(None, help="RL on-policy target (implies deterministic inference).")
    dllm_algorithm: str | None = arg(None, help="Diffusion LLM algorithm, e.g. LowConfidence.")
    enable_mis: bool = arg(False, help="Multi-item scoring.")
    prefill_only_disable_kv_cache: bool = arg(False, help="Prefill-only serving without a KV cache.")
    enable_unified_memory: bool = arg(False, help="Unified memory pool (implies page-major KV layout).")
    enable_hisparse: bool = arg(False, help="Hierarchical sparse attention.")

    # -- communication -------------------------------------------------------------------------
    flashinfer_allreduce_fusion_backend: str | None = arg(
        None,
        resolvable=True,
        leaf="comm.flashinfer_allreduce_fusion_backend",
        help="FlashInfer all-reduce fusion.",
    )
    enforce_disable_flashinfer_allreduce_fusion: bool = arg(
        False,
        resolvable=True,
        leaf="comm.enforce_disable_flashinfer_allreduce_fusion",
        help="Never use FlashInfer all-reduce fusion.",
    )
    enable_aiter_allreduce_fusion: bool = arg(
        False, resolvable=True, leaf="comm.enable_aiter_allreduce_fusion", help="AITER all-reduce fusion."
    )
    disable_custom_all_reduce: bool = arg(
        False,
        resolvable=True,
        leaf="comm.disable_custom_all_reduce",
        help="Disable custom all-reduce kernels.",
    )

    # -- server-args checks (issue 9 item 3): inputs and fields of the step-21/22 handlers -------
    # Written by the speculative hook (see speculative_eagle_topk above).
    speculative_num_steps: int | None = arg(
        None, resolvable=True, leaf="spec.num_steps", help="Draft steps per speculative round."
    )
    speculative_draft_model_path: str | None = arg(None, help="Draft model weights (path or hub id).")
    speculative_ngram_max_bfs_breadth: int = arg(
        10, help="Maximum BFS breadth of NGRAM speculative decoding (its EAGLE topk)."
    )
    # Whitelisted resolvable field of 0.5.15 (spec §6.2): the MoE/A2A passes write it.
    disable_shared_experts_fusion: bool = arg(
        False,
        resolvable=True,
        leaf="moe.disable_shared_experts_fusion",
        help="Disable the shared-experts fusion (DeepSeek V3/R1).",
    )
    enable_deepep_waterfill: bool = arg(
        False,
        help="DeepEP Waterfill: dispatch the shared expert through DeepEP (implies --moe-a2a-backend deepep).",
    )
    deepep_mode: str = arg("auto", choices=C.DEEPEP_MODES, help="DeepEP / MoRI EP mode.")
    # ModelConfig._derive_context_length reads it (passes/model_config.py).
    context_length: int | None = arg(
        None, help="The model's maximum context length (default: from its config)."
    )

    # -- resolution from __post_init__ (init-only; not fields of the schema) --------------------
    hf_config: InitVar[Mapping[str, Any] | None] = None
    platform: InitVar[Any] = None
    env: InitVar[Mapping[str, str] | None] = None
    user_set: InitVar[Iterable[str] | None] = None
    #: The sglang release to model (None: the pack's default; "auto": the installed one).
    sglang_version: InitVar[str | None] = None

    def __post_init__(
        self, hf_config: Any, platform: Any, env: Any, user_set: Any, sglang_version: Any
    ) -> None:
        from .api import resolve_server_args_object

        resolve_server_args_object(self, hf_config, platform, env, user_set, sglang_version)


_record_init = ServerArgs.__init__


def _init(self: ServerArgs, *args: Any, **kwargs: Any) -> None:
    """``ServerArgs(**fields)`` takes every field of the release's ServerArgs, as sglang's does:
    the fields this pack does not model are type-checked, kept as attributes and recorded
    (``.not_modelled_fields``, and ``.resolution.not_modelled``); see ``fields.split_fields``."""
    from .api import sglang_release
    from .fields import split_fields

    release = sglang_release(kwargs.get("sglang_version"))
    inputs = {
        k: kwargs.pop(k)
        for k in ("hf_config", "platform", "env", "user_set", "sglang_version")
        if k in kwargs
    }
    modelled, other = split_fields(kwargs, release)
    for name, value in other.items():
        object.__setattr__(self, name, value)
    object.__setattr__(self, "not_modelled_fields", dict(other))
    _record_init(self, *args, **modelled, **inputs)


_init.__qualname__ = "ServerArgs.__init__"
ServerArgs.__init__ = _init  # type: ignore[method-assign]
