"""vLLM's KV-cache capacity: ``gpu_memory_utilization``, the KV blocks, the maximum concurrency at
``max_model_len``, the "KV cache is needed" refusal and the ``max_model_len`` auto-fit.

The model shape comes from ``resolvable.memory``; this module adds vLLM's policy (vLLM 0.34 wheel,
and the V1 engine of the public releases the corpus logs come from):

* ``v1/worker/gpu_worker.py : determine_available_memory``: KV memory = total × utilization −
  (weights + the profiled activation peak + non-torch memory [+ the CUDA-graph estimate]);
  ``gpu_memory_utilization`` defaults to 0.9 (before 0.20), 0.92 (0.20–0.33) and, in 0.34,
  1.0 with the extensible KV cache on CUDA/ROCm (``resolved_gpu_memory_utilization``), which
  0.34 sizes after the warm-up and the graph capture (``v1/worker/extensible_kv_cache.py :
  measure_kv_cache_bytes``: the graphs and the sampler warm-up are before the pool, a margin of
  max(1 GiB, 0.75 × the transient peak) and the peak itself are kept free);
* ``v1/core/kv_cache_utils.py``: one page per layer per block; full attention uses
  ``2 × heads_per_rank × head_size × dtype`` a token per layer, MLA ``kv_lora_rank + rope`` (656
  bytes with ``fp8_ds_mla``); sliding-window and Mamba layers share the block pool in groups of
  equal size (the hybrid allocator), a sliding layer needs only ``window`` tokens a request and a
  Mamba layer one state page;
* the refusal (``check_enough_kv_cache_memory``): "To serve at least one request with the model's
  max seq len (L), (X GiB KV cache is needed, which is larger than the available KV cache memory
  (Y GiB). Based on the available memory, the estimated maximum model length is E. Try increasing
  `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."; with
  ``--max-model-len auto``/``-1`` the length is fitted instead (0.34 ``_auto_fit_max_model_len``).

Invariants: pure; profiling-only quantities (activation peak, non-torch memory) are ``Estimate``s
with a range, and the output says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..device_memory import Estimate, context_overhead, require_device_bytes
from ..memory import (
    GIB,
    Allocation,
    FitReport,
    after_pool_verdict,
    attention_shape,
    dtype_bytes,
    kv_heads_per_rank,
    linear_state_bytes,
    text_config,
    weight_estimate,
    weights_oom_message,
)

__all__ = ["capacity", "default_gpu_memory_utilization", "kv_needed_message", "max_model_len"]


#: First release whose ``CacheConfig.gpu_memory_utilization`` defaults to 0.92 (config/cache.py:
#: 0.9 in the 0.10.1–0.19.1 wheels, 0.92 in every wheel 0.20.0–0.33.0; 0.34 resolves it later).
UTILIZATION_092_FROM = (0, 20)


def default_gpu_memory_utilization(version: str | None) -> float:
    """0.9 before 0.20, 0.92 in 0.20–0.33, 1.0 in 0.34 (extensible KV cache)."""
    if version is None:
        return 0.92
    try:
        major, minor = (int(x) for x in version.split(".")[:2])
    except ValueError:
        return 0.92
    if (major, minor) >= (0, 34):
        return 1.0
    if (major, minor) >= UTILIZATION_092_FROM:
        return 0.92
    return 0.9


def max_model_len(hf: Mapping[str, Any], user: int | None) -> int:
    """``ModelConfig.get_and_verify_max_len`` (spec §3.2): the smallest length key, times a
    rope factor unless the scaling is su/longrope/llama3/yarn/deepseek_yarn."""
    if user and int(user) > 0:
        return int(user)
    cfg = text_config(hf)
    keys = (
        "max_position_embeddings",
        "n_positions",
        "max_seq_len",
        "seq_length",
        "max_target_positions",
        "max_sequence_length",
        "max_seq_length",
        "seq_len",
    )
    found = [int(cfg[k]) for k in keys if isinstance(cfg.get(k), int) and cfg[k] > 0]
    derived = min(found) if found else 2048
    if isinstance(cfg.get("model_max_length"), int) and cfg["model_max_length"]:
        derived = int(cfg["model_max_length"])
    scaling = cfg.get("rope_scaling") or {}
    if isinstance(scaling, Mapping) and scaling and "gemma3" not in str(cfg.get("model_type")):
        kind = str(scaling.get("rope_type") or scaling.get("type") or "")
        if kind not in (
            "su",
            "longrope",
            "llama3",
            "yarn",
            "deepseek_yarn",
            "deepseek_llama_scaling",
            "default",
            "mrope",
        ):
            derived = int(derived * float(scaling.get("factor") or 1.0))
    return derived


def _release(version: str | None) -> tuple[int, int] | None:
    try:
        major, minor = (int(x) for x in str(version).split(".")[:2])
    except ValueError:
        return None
    return major, minor


#: First release whose "GPU KV cache size: N tokens" is ``int(max_concurrency × max_model_len)``
#: (``kv_cache_utils._report_kv_cache_config`` / ``get_kv_cache_capacity``: read in the 0.20.1,
#: 0.21, 0.22, 0.24, 0.27.1, 0.31 and 0.34 wheels) instead of ``num_blocks // groups × block_size``
#: (0.19.1 and 0.20.0 wheels). The two agree for one KV cache group; for a hybrid model the
#: sliding-window groups need only their window's blocks per request, so the count is larger.
TOKENS_FROM_CONCURRENCY_FROM = (0, 20, 1)


def _release3(version: str | None) -> tuple[int, int, int] | None:
    """``0.20.2`` → (0, 20, 2); a release without its patch number counts as ``.0``."""
    import re

    m = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", str(version or ""))
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _batched_tokens(total_gib: float, device_name: str | None, world: int) -> int:
    """``get_batch_defaults`` for ``vllm serve`` (OPENAI_API_SERVER) on a GPU (spec §3.5)."""
    if total_gib >= 160:
        return 16384
    if total_gib >= 70 and "a100" not in (device_name or "").lower():
        return 8192
    return 2048


def profile_batch(
    total_gib: float, device_name: str | None, world: int, version: str | None, max_len: int
) -> tuple[int, int, str]:
    """(batched tokens, sequences, words) of the profile run when the user set neither.

    V1 (0.8 and later, and the modelled 0.30–0.34 wheels): ``get_batch_defaults`` for ``vllm
    serve`` (spec §3.5): 8192 tokens / 1024 sequences on a ≥ 70 GiB device that is not an A100,
    16384 / 1024 from 160 GiB, else 2048 / 256. V0 (before 0.8; ``SchedulerConfig`` of those
    releases): 256 sequences, and ``max(max_model_len, 2048)`` tokens without chunked prefill,
    which V0 turned on for contexts above 32k (then 2048 tokens, an estimate of its per-release
    default)."""
    rel = _release(version)
    if rel is not None and rel < (0, 8):
        tokens = max(max_len, 2048) if max_len <= 32768 else 2048
        return tokens, 256, f"V0 ({version}): 256 sequences, {tokens} tokens"
    tokens = _batched_tokens(total_gib, device_name, world)
    seqs = 1024 if tokens >= 8192 else 256
    return tokens, seqs, f"V1 get_batch_defaults: {seqs} sequences, {tokens} tokens"


#: Bytes per element of the profile run's sampler over [max_num_seqs, vocab]: both V0's
#: ``profile_run`` (SamplingParams(top_p=0.99, top_k=vocab-1)) and V1's ``_dummy_sampler_run``
#: exercise the sort-based top-k/top-p path: fp32 logits, sorted values, int64 indices, softmax,
#: cumulative sum, the scattered mask and the final probabilities live at once (~36 B).
SAMPLER_BYTES_PER_LOGIT = 36
#: Bytes per element with FlashInfer's top-k/top-p sampler (V1 ``TopKTopPSampler.forward_cuda`` →
#: ``flashinfer_sample`` → ``flashinfer.sampling.top_k_top_p_sampling_from_logits``; 0.10.1.1 and
#: 0.11.0 wheels): the fp32 logits (``Sampler.forward``: ``logits.to(torch.float32)``), the top-k
#: masked logits and their softmax, 4 B each; the model-dtype logits the caller still holds come
#: on top (``dtype_bytes``). No sort, no int64 indices.
FLASHINFER_SAMPLER_BYTES_PER_LOGIT = 12
#: When the V1 sampler takes FlashInfer's path: 0.8–0.11.0 whenever flashinfer is importable on
#: CUDA (``VLLM_USE_FLASHINFER_SAMPLER`` unset means on; the vLLM wheel lists flashinfer-python
#: only as the ``flashinfer`` extra, so a plain install falls back to the sort path, and the log
#: says which: "Using FlashInfer for top-p & top-k sampling." / "FlashInfer is not available.
#: Falling back…"); from 0.11.1 only with ``VLLM_USE_FLASHINFER_SAMPLER=1`` (0.11.1–0.34 wheels:
#: "Users must opt in explicitly"). Without the log line or the switch: the sort path.
FLASHINFER_SAMPLER_V1_FROM = (0, 8)


def flashinfer_sampler(values: Mapping[str, Any], version: str | None, device_name: str | None) -> bool:
    """Whether the profile run's sampler takes FlashInfer's top-k/top-p kernel: the log's own line
    or ``VLLM_USE_FLASHINFER_SAMPLER`` (``values["flashinfer_sampler"]``: bool or "0"/"1"), on a
    CUDA device with the V1 engine; otherwise PyTorch's sort-based path (see
    ``FLASHINFER_SAMPLER_V1_FROM``)."""
    flag = values.get("flashinfer_sampler")
    if flag is None or str(flag).strip() == "":
        return False
    on = flag if isinstance(flag, bool) else str(flag).strip().lower() in ("1", "true", "yes")
    rel = _release(version)
    v1 = rel is None or rel >= FLASHINFER_SAMPLER_V1_FROM
    rocm = (device_name or "").upper().startswith(("AMD", "INSTINCT", "RADEON"))
    return bool(on) and v1 and not rocm


def activation_peak(
    hf: Mapping[str, Any],
    tokens: int,
    tp: int,
    num_seqs: int,
    sampler_bytes_per_logit: float = SAMPLER_BYTES_PER_LOGIT,
) -> Estimate:
    """The torch peak of vLLM's profile run: the larger of the forward pass at
    ``max_num_batched_tokens`` (the widest MLP intermediate, the attention projections) and the
    sampler over ``max_num_seqs`` rows of the vocabulary (they run one after the other, so the
    peak is a max, not a sum), plus 0.1 GiB. A documented estimate: the corpus spread is about
    ±50 %."""
    cfg = text_config(hf)
    hidden = int(cfg.get("hidden_size") or 4096)
    inter = int(cfg.get("intermediate_size") or 4 * hidden)
    topk = int(cfg.get("num_experts_per_tok") or 0)
    moe_inter = int(cfg.get("moe_intermediate_size") or inter)
    width = max(inter, topk * moe_inter) if topk else inter
    vocab = int(cfg.get("vocab_size") or 32000)
    # gate/up output (2 × width) and ~6 hidden-wide tensors (residual, norm, q/k/v/o) in bf16
    per_token = 2 * (2 * width / max(1, tp) + 6 * hidden)
    forward = tokens * per_token
    sampler = num_seqs * vocab * sampler_bytes_per_logit
    value = max(forward, sampler) + 0.1 * GIB
    which = "sampler" if sampler > forward else "forward pass"
    return Estimate(
        value,
        value * 0.5,
        value * 1.6,
        f"profile-run activation peak ({which}): forward at {tokens} batched tokens, sampler over "
        f"{num_seqs} × {vocab} logits (estimated)",
    )


#: First release whose ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` defaults to 1 (envs.py:
#: "0" in the 0.19.1 wheel, "1" in every wheel 0.20.0–0.33; gpu_worker.py's log line says "default
#: since v0.21.0", the wheels say 0.20.0).
CUDAGRAPH_ESTIMATE_DEFAULT_ON = (0, 20)
#: First release where ``CompilationConfig`` raises "max_num_seqs (N) exceeds available Mamba
#: cache blocks (B)" with FULL decode CUDA graphs (config/compilation.py; 0.19 caps the capture
#: sizes with a warning instead; verified raising in the 0.25.1, 0.28 and 0.31 wheels, 0.20–0.24
#: not read and treated as raising).
MAMBA_BLOCKS_RAISE_FROM = (0, 20)
#: First release with ``request_memory``'s check that the free memory at start-up covers the
#: utilization (v1/worker/utils.py; the 0.11 logs print "Free memory on device … on startup").
FREE_MEMORY_CHECK_FROM = (0, 10)
#: First release whose V1 engine (the default from 0.8) sizes the KV budget from
#: ``total − free`` after the profile run (docs/memory.md, the vllm-17122 miss): memory held by
#: other processes counts in full, until the start-up snapshot of ``FREE_MEMORY_CHECK_FROM``.
V1_COUNTS_OTHER_PROCESSES_FROM = (0, 8)
#: First release whose V1 worker initializes the distributed environment (NCCL communicators and
#: their warm-up all-reduce, custom all-reduce buffers) *before* the start-up ``MemorySnapshot``
#: (``v1/worker/gpu_worker.py : Worker.init_device``, read in the 0.11.0 through 0.34 wheels;
#: 0.9.2 and 0.10.1.1 take the snapshot first). From it on those buffers are part of the baseline,
#: not of the profiled ``non_torch_increase``, so they do not come out of ``utilization × total``.
COMM_BEFORE_SNAPSHOT_FROM = (0, 11)


#: Model Runner V2 (``v1/worker/gpu/model_runner.py``) is the default for every model it supports
#: from 0.29 (``VllmConfig.use_v2_model_runner``: the 0.29–0.34 wheels); before that only for the
#: architectures of the release's ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` (config/vllm.py),
#: dense and unquantized ones only in 0.22, 0.23 and 0.25 (``_is_default_v2_model_runner_model``).
MRV2_DEFAULT_FROM = (0, 29)
MRV2_ARCHITECTURES: dict[tuple[int, int], tuple[frozenset[str], bool]] = {
    (0, 22): (frozenset({"Qwen3ForCausalLM"}), True),
    (0, 23): (frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"}), True),
    (0, 24): (
        frozenset(
            {
                "DeepseekV2ForCausalLM",
                "GraniteMoeForCausalLM",
                "LlamaForCausalLM",
                "MistralForCausalLM",
                "Qwen2MoeForCausalLM",
                "Qwen3ForCausalLM",
            }
        ),
        False,
    ),
    (0, 25): (frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "Qwen2MoeForCausalLM"}), True),
    (0, 26): (
        frozenset(
            {
                "DeepseekV2ForCausalLM",
                "GraniteMoeForCausalLM",
                "LongcatFlashNgramForCausalLM",
                "Qwen2MoeForCausalLM",
            }
        ),
        False,
    ),
    (0, 27): (
        frozenset(
            {
                "DeepseekV2ForCausalLM",
                "GraniteMoeForCausalLM",
                "LongcatFlashNgramForCausalLM",
                "Qwen2MoeForCausalLM",
            }
        ),
        False,
    ),
    (0, 28): (
        frozenset(
            {
                "DeepseekV2ForCausalLM",
                "DeepseekV4ForCausalLM",
                "GraniteMoeForCausalLM",
                "LongcatFlashNgramForCausalLM",
                "Qwen2MoeForCausalLM",
            }
        ),
        False,
    ),
}
#: First release with the extensible KV cache on by default (config/cache.py :
#: ``enable_extensible_kv_cache``, on CUDA and ROCm unless ``--kv-cache-memory`` is given; read in
#: the 0.34 wheel): the cache is committed after the warm-up and the CUDA-graph capture, sized by
#: ``v1/worker/extensible_kv_cache.py : measure_kv_cache_bytes`` from the memory then free:
#: min(requested - used, free after warm-up - margin) - transient peak, the margin
#: max(1 GiB (3 on ROCm), 0.75 × the transient peak); ``request_memory``'s free-memory check is
#: skipped. The graphs and the sampler warm-up are measured before the size is fixed.
EXTENSIBLE_KV_CACHE_FROM = (0, 34)


#: First release whose Model Runner V2 profile run also samples with the warm-up's parameters
#: (``_dummy_sampler_run``'s "warmup-param pass", 0.33 and 0.34 wheels). In 0.29–0.32 the profile
#: samples once with the default parameters ("the sampler may skip top_k, top_p, and logprobs":
#: logits in the model dtype, no sort), while ``gpu/warmup.py : warmup_kernels``, run by
#: ``compile_or_warm_up_model`` after the KV cache is allocated and before graph capture, samples
#: with ``SamplingParams.for_sampler_warmup()`` (top-k, top-p, min-p, penalties, logprobs): the
#: fp32 sort pipeline over max_num_seqs × vocab is then not in the profiled peak and must fit in
#: what the KV cache leaves (issue 27: gpt-oss-20b at 0.95, out of memory in the warm-up).
MRV2_SAMPLER_PROFILED_FROM = (0, 33)


def model_runner_v2(values: Mapping[str, Any], hf: Mapping[str, Any], version: str | None) -> bool:
    """Whether the release runs the model with Model Runner V2 (``VLLM_USE_V2_MODEL_RUNNER`` as
    ``values["use_v2_model_runner"]`` wins). Not modelled: the ROCm architecture exceptions and
    the features MRV2 does not support (each falls back to the V1 runner)."""
    flag = values.get("use_v2_model_runner")
    if flag is not None and str(flag).strip() != "":
        return str(flag).strip().lower() not in ("0", "false", "no")
    rel = _release(version)
    if rel is None or rel >= MRV2_DEFAULT_FROM:
        return True
    listed = MRV2_ARCHITECTURES.get(rel)
    if listed is None:
        return False
    archs, dense_only = listed
    if not any(a in archs for a in (hf.get("architectures") or ())):
        return False
    if dense_only:
        cfg = text_config(hf)
        moe = bool(cfg.get("num_experts") or cfg.get("n_routed_experts") or cfg.get("num_local_experts"))
        return not moe and not hf.get("quantization_config")
    return True


def sampler_profiled(values: Mapping[str, Any], hf: Mapping[str, Any], version: str | None) -> bool:
    """Whether the profile run's peak includes the sampler warm-up's full pipeline (V1 runner:
    ``_dummy_sampler_run`` in ``profile_run`` and again after the KV cache, the same sampler)."""
    if not model_runner_v2(values, hf, version):
        return True
    rel = _release(version)
    return rel is None or rel >= MRV2_SAMPLER_PROFILED_FROM


def cudagraph_counted(version: str | None, enforce_eager: bool, env_flag: Any = None) -> bool:
    """Whether ``determine_available_memory`` subtracts its CUDA-graph estimate from the KV
    budget: ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (``env_flag``: "0"/"1"/bool) or the
    release's default. Graphs are always captured after the KV cache; when not counted they come
    out of the headroom the utilization leaves."""
    if enforce_eager:
        return False
    if env_flag is not None and str(env_flag).strip() != "":
        return str(env_flag).strip().lower() not in ("0", "false", "no")
    rel = _release(version)
    return rel is None or rel >= CUDAGRAPH_ESTIMATE_DEFAULT_ON


def mamba_ssm_dtype(values: Mapping[str, Any], hf: Mapping[str, Any], model_dtype: str) -> str:
    """The Mamba/GDN temporal-state dtype: ``--mamba-ssm-cache-dtype``, else the model's own
    (Qwen3.5: config ``mamba_ssm_dtype``; Nemotron-H: ``mamba_ssm_cache_dtype`` or float32,
    model_executor/models/config.py), else the conv-state dtype (mamba_utils.py :
    ``_mamba_state_dtype``)."""
    flag = values.get("mamba_ssm_cache_dtype")
    if flag and flag != "auto":
        return str(flag)
    cfg = text_config(hf)
    archs = " ".join(hf.get("architectures") or ())
    if cfg.get("mamba_ssm_dtype"):
        return str(cfg["mamba_ssm_dtype"])
    if "NemotronH" in archs:
        return str(cfg.get("mamba_ssm_cache_dtype") or "float32")
    return (
        str(values.get("mamba_cache_dtype") or "auto")
        if values.get("mamba_cache_dtype") not in (None, "auto")
        else model_dtype
    )


def cudagraph_estimate(version: str | None, seqs: int, enforce_eager: bool, env_flag: Any = None) -> Estimate:
    """CUDA-graph memory held back before the KV cache is sized (``cudagraph_counted``), 0 when
    the graphs come out of the utilization headroom instead. Public logs print estimates of
    0.1–1.5 GiB; the value scales with the capture sizes (up to ``max_num_seqs``)."""
    counted = cudagraph_counted(version, enforce_eager, env_flag)
    if not counted:
        return Estimate(0.0, 0.0, 0.0, "CUDA graphs captured after the KV cache (not in the budget)")
    value = (0.25 + 0.5 * min(seqs, 1024) / 1024) * GIB
    return Estimate(value, 0.1 * GIB, 1.5 * GIB, "CUDA-graph pool estimate held back before the KV cache")


def kv_page_bytes(values: Mapping[str, Any], hf: Mapping[str, Any]) -> tuple[float, float, str]:
    """(bytes per token per full-attention layer per rank, the same for a sliding layer, words)."""
    shape = attention_shape(hf)
    cfg = text_config(hf)
    model_dtype = str(values.get("dtype") or "auto")
    if model_dtype == "auto":
        model_dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
        if model_dtype in ("float32", "float"):
            model_dtype = "bfloat16"
    kv_dtype = str(values.get("kv_cache_dtype") or "auto")
    tp = int(values.get("tensor_parallel_size") or 1)
    if shape.is_mla:
        per_layer = (
            656.0
            if kv_dtype == "fp8_ds_mla"
            else (shape.kv_lora_rank + shape.qk_rope_head_dim)
            * dtype_bytes(kv_dtype, model_dtype=model_dtype)
        )
        words = f"MLA: ({shape.kv_lora_rank} + {shape.qk_rope_head_dim}) × {dtype_bytes(kv_dtype, model_dtype=model_dtype):g} B"
        if shape.kind == "dsa":
            per_layer += 132  # the indexer's fp8 key + fp32 scale per 128 (DeepseekV32IndexerCache)
            words += " + DSA indexer 132 B"
        return per_layer, per_layer, words + " per layer"
    b = dtype_bytes(kv_dtype, model_dtype=model_dtype)
    heads = kv_heads_per_rank(shape.num_kv_heads, tp)
    per_layer = heads * (shape.head_dim + shape.v_head_dim) * b
    words = f"{heads} KV heads × ({shape.head_dim} + {shape.v_head_dim}) × {b:g} B per layer"
    global_dim = int(cfg.get("global_head_dim") or 0)
    global_heads = int(cfg.get("num_global_key_value_heads") or 0)
    if shape.swa_layers and shape.full_layers and global_dim and global_heads:
        # Gemma 4: the full-attention layers have their own KV heads and head size (K and V both
        # kept, attention_k_eq_v or not: the vLLM 0.20.2 log of gemma-4-26B-A4B closes only so)
        g_heads = kv_heads_per_rank(global_heads, tp)
        full = g_heads * 2 * global_dim * b
        return (
            full,
            per_layer,
            f"sliding: {words}; full: {g_heads} KV heads × ({global_dim} + {global_dim}) × {b:g} B",
        )
    return per_layer, per_layer, words


def kv_needed_message(max_len: int, needed: float, available: float, estimated_len: int) -> str:
    return (
        f"To serve at least one request with the model's max seq len ({max_len}), "
        f"({needed / GIB:.2f} GiB KV cache is needed, which is larger than the available KV cache memory "
        f"({available / GIB:.2f} GiB). Based on the available memory, the estimated maximum model length is "
        f"{estimated_len}. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine."
    )


def _flag_values(fix: str | None) -> dict[str, Any]:
    """``--max-num-seqs 12 --max-model-len 4096`` → the engine values it sets (empty: not flags)."""
    words = (fix or "").split()
    if not words or len(words) % 2 or not all(w.startswith("--") for w in words[::2]):
        return {}
    out: dict[str, Any] = {}
    for name, value in zip(words[::2], words[1::2]):
        try:
            out[name[2:].replace("-", "_")] = int(value)
        except ValueError:
            return {}
    return out


def checked_free_memory_fix(
    values: Mapping[str, Any],
    hf: Mapping[str, Any],
    *,
    device_name: str | None,
    memory_gib: float | None,
    version: str | None,
    free_fraction: float,
) -> str:
    """The fix for the start-up refusal "Free memory on device … is less than desired GPU memory
    utilization" (``request_memory``), checked: each utilization the free memory covers, from all
    of it (rounded down to 0.01, so ``request_memory`` passes) downwards, is predicted again with
    the same other processes' memory, and the first that starts is the fix (a lower one leaves
    room for what comes after the KV pool, such as the sampler warm-up). The scan stops where a
    lower utilization can only do worse (no KV memory left, or less than one request). Without a
    utilization that starts, the fix adds the flag the prediction at all-that-is-free asks for
    (``--max-model-len`` from vLLM's own estimate, ``--max-num-seqs``) when that then starts, or
    says that the memory other processes hold, or the GPU count, must change."""
    top = math.floor(free_fraction * 100)
    if top <= 0:
        return "free memory on the device (other processes hold nearly all of it)"

    def scan(extra: Mapping[str, Any]) -> tuple[int, FitReport, FitReport]:
        """(utilization percent that starts (0: none), its report, the report at ``top``)."""
        first: FitReport | None = None
        for pct in range(top, 0, -1):
            rep = capacity(
                {**values, **extra, "gpu_memory_utilization": pct / 100, "_free_fix_check": True},
                hf,
                device_name=device_name,
                memory_gib=memory_gib,
                version=version,
            )
            first = first or rep
            if rep.fits:
                return pct, rep, first
            if rep.inputs.get("available_kv_bytes", 0) <= 0 or rep.failing == "KV cache below max_model_len":
                break
        assert first is not None
        return 0, first, first

    pct, rep, first = scan({})
    extra: dict[str, Any] = {}
    if not pct and first.failing == "KV cache below max_model_len":
        extra = {"max_model_len": -1}  # vLLM's own estimate of the length that fits
    elif not pct:
        extra = _flag_values(first.fix)
    if extra:
        pct, rep, _ = scan(extra)
    if pct:
        more = ""
        if extra.get("max_model_len") == -1:
            more = f" --max-model-len {rep.context_length}"
        elif extra:
            more = " " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in extra.items())
        lower = (
            ""
            if pct == top
            else f"; {top / 100:.2f}, all that is free, fails at '{first.failing or first.status}'"
        )
        return (
            f"--gpu-memory-utilization {pct / 100:.2f}{more} (checked: the launch then starts with "
            f"{rep.kv_tokens:,} KV tokens{lower})"
        )
    flag = f"--gpu-memory-utilization {top / 100:.2f}"
    if first.status == "unknown":
        return f"{flag}, and check again: at {top / 100:.2f} the answer is unknown ({first.unknown_reason})"
    why = first.refusal or first.failing or first.status
    return (
        f"free memory on the device, or spread the model over more GPUs (--tensor-parallel-size): "
        f"{flag}, all that is free, does not start either ({why})"
    )


def capacity(
    values: Mapping[str, Any],
    hf: Mapping[str, Any],
    *,
    device_name: str | None,
    memory_gib: float | None,
    version: str | None = None,
    index_total_size: int | None = None,
) -> FitReport:
    """vLLM's KV cache for engine arguments ``values`` on one device.

    Read from ``values``: ``tensor_parallel_size``, ``pipeline_parallel_size``, ``data_parallel_size``,
    ``enable_expert_parallel``, ``gpu_memory_utilization``, ``kv_cache_dtype``, ``block_size``,
    ``max_model_len`` (``-1``/``auto``: fit), ``max_num_batched_tokens``, ``max_num_seqs``, ``dtype``,
    ``quantization``, ``kv_cache_memory_bytes``.
    """
    from .flags.values import check_sizes

    check_sizes(values, fit=True)  # before any division by these (issue 29)
    total = require_device_bytes(device_name, memory_gib)
    tp = int(values.get("tensor_parallel_size") or 1)
    pp = int(values.get("pipeline_parallel_size") or 1)
    dp = int(values.get("data_parallel_size") or 1)
    rel = _release(version)
    user_kv = values.get("kv_cache_memory_bytes")
    extensible = (
        not user_kv
        and rel is not None
        and rel >= EXTENSIBLE_KV_CACHE_FROM
        and values.get("enable_extensible_kv_cache") is not False
    )
    util = values.get("gpu_memory_utilization")
    # resolved_gpu_memory_utilization (0.34): 1.0 only with the extensible cache, else 0.92
    util = (
        float(util)
        if util
        else (
            default_gpu_memory_utilization(version)
            if extensible or rel is None or rel < EXTENSIBLE_KV_CACHE_FROM
            else 0.92
        )
    )
    # MXFP4 experts on CUDA: Triton/Marlin/TRT-LLM kernels pad hidden to 256 and the intermediate
    # partition to 128 (fused_moe/oracle/mxfp4.py : mxfp4_round_up_hidden_size_and_intermediate_size).
    weights = weight_estimate(
        hf,
        dtype=values.get("dtype"),
        quantization=values.get("quantization"),
        index_total_size=index_total_size,
        moe_padding=(256, 128, int(values.get("tensor_parallel_size") or 1)),
    )
    shards = tp * dp if values.get("enable_expert_parallel") else tp
    per_rank = weights.per_rank(tp=tp, pp=pp, expert_shards=shards)
    world = tp * pp
    max_len_flag = values.get("max_model_len")
    auto_fit = str(max_len_flag).lower() in ("-1", "auto")
    max_len = max_model_len(hf, None if auto_fit else max_len_flag)
    d_batched, d_seqs, batch_words = profile_batch(total / GIB, device_name, world, version, max_len)
    seqs = int(values.get("max_num_seqs") or d_seqs)
    batched = int(values.get("max_num_batched_tokens") or d_batched)
    full_sampler = sampler_profiled(values, hf, version)
    mrv2 = model_runner_v2(values, hf, version)
    # MRV2 before 0.33 profiles the default sampling pass only: the logits in the model dtype
    # the V1 runner's TopKTopPSampler; Model Runner V2 samples with its own pipeline (gpu/sample)
    fi_sampler = flashinfer_sampler(values, version, device_name) and not mrv2
    logit_bytes = (
        FLASHINFER_SAMPLER_BYTES_PER_LOGIT + dtype_bytes(values.get("dtype"))
        if fi_sampler
        else SAMPLER_BYTES_PER_LOGIT
    )
    profiled_logit_bytes = logit_bytes if full_sampler else dtype_bytes(values.get("dtype"))
    peak = activation_peak(hf, batched, tp, min(seqs, batched), profiled_logit_bytes)
    env_cg = values.get("memory_profiler_estimate_cudagraphs")
    graphs = cudagraph_estimate(version, seqs, bool(values.get("enforce_eager")), env_cg)
    nontorch = context_overhead(world)
    # non-torch memory counted against the budget: what appears after the snapshot (cuBLAS
    # workspaces, NCCL buffers); the CUDA context itself is outside the snapshot, and from
    # COMM_BEFORE_SNAPSHOT_FROM so are the communication buffers.
    comm_in_baseline = rel is not None and rel >= COMM_BEFORE_SNAPSHOT_FROM
    nontorch_counted = Estimate(
        max(0.0, (context_overhead(1) if comm_in_baseline else nontorch).value - 0.45 * GIB) + 0.25 * GIB,
        0.05 * GIB,
        nontorch.high,
        "non-torch memory that grows during start-up (cuBLAS/NCCL buffers; estimated)",
    )
    used = float(values.get("used_bytes") or 0.0)  # memory other processes already hold (--used-gib)
    if user_kv:
        available = float(user_kv)
    elif extensible:
        # measure_kv_cache_bytes: what the engine holds after the warm-up and the graphs, then
        # the transient peak kept free in full plus a margin against the device's free memory
        held = per_rank + nontorch_counted.value + graphs.value
        floor = (3 if (device_name or "").upper().startswith("AMD") else 1) * GIB
        margin = max(floor, 0.75 * peak.value)
        init_free_now = total - nontorch.value - used
        available = min(total * util - held, init_free_now - held - margin) - peak.value
    else:
        available = total * util - per_rank - peak.value - nontorch_counted.value - graphs.value
    full_pl, swa_pl, words = kv_page_bytes(values, hf)
    shape = attention_shape(hf)
    block = int(values.get("block_size") or 16)
    # Layers per KV kind; a Mamba/linear layer holds its state in pages of the same size.
    full_layers, swa_layers, lin_layers = shape.full_layers, shape.swa_layers, shape.linear_layers
    window = shape.sliding_window or max_len
    state = 0.0
    ssm_dtype = ""
    if lin_layers:
        cfg = text_config(hf)
        mdt = str(values.get("dtype") or "auto")
        if mdt == "auto":
            mdt = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
            mdt = "bfloat16" if mdt in ("float32", "float") else mdt
        ssm_dtype = mamba_ssm_dtype(values, hf, mdt)
        state = linear_state_bytes(
            shape,
            tp=tp,
            state_dtype_bytes=dtype_bytes(mdt),
            ssm_dtype_bytes=dtype_bytes(ssm_dtype, model_dtype=mdt),
        )
    # The hybrid allocator: groups of `group` layers share one tensor per slot; a block is one page
    # in each of `group` tensors. Uniform models: one group of every layer.
    counts = [c for c in (full_layers, swa_layers, lin_layers) if c]
    group = min(counts) if len(counts) > 1 else (counts[0] if counts else 1)
    if lin_layers and full_pl:
        # _align_hybrid_block_size: the attention block grows (in steps of 16 tokens) until its
        # page holds one layer's Mamba state, so both kinds share one page size.
        state_page = state / lin_layers
        block = max(block, 16 * math.ceil(state_page / (16 * full_pl)))
    # unify_kv_cache_spec_page_size (kv_cache_utils.py): layers with a smaller page get a block
    # size that many times larger, so every group's page is the largest (Gemma 4's full layers).
    page_pl = max(full_pl, swa_pl) if swa_layers else full_pl
    full_block = block * int(page_pl // full_pl) if full_pl and page_pl % full_pl == 0 else block
    swa_block = block * int(page_pl // swa_pl) if swa_layers and swa_pl and page_pl % swa_pl == 0 else block
    page_per_layer = page_pl * block
    block_bytes = page_per_layer * group
    num_groups = sum(math.ceil(c / group) for c in counts) if len(counts) > 1 else 1
    num_blocks = int(available // block_bytes) if available > 0 else 0
    # blocks one request of max_len holds, summed over groups (get_max_concurrency_for_kv_cache_config;
    # kv_cache_interface.py max_admission_blocks_per_request: a sliding window holds
    # cdiv(min(window - 1 + batched, max_len), block) + 1, a Mamba/linear group one block)
    per_req = 0
    for c, kind in ((full_layers, "full"), (swa_layers, "swa"), (lin_layers, "linear")):
        if not c:
            continue
        groups_of_kind = math.ceil(c / group) if len(counts) > 1 else 1
        if kind == "full":
            need = math.ceil(max_len / full_block)
        elif kind == "swa":
            need = math.ceil(min(window - 1 + batched, max_len) / swa_block) + 1
        else:
            need = 1
        per_req += groups_of_kind * need
    concurrency = num_blocks / per_req if per_req else 0.0
    # From TOKENS_FROM_CONCURRENCY_FROM the logged token count is the concurrency times the context.
    rel3 = _release3(version)
    by_concurrency = rel3 is None or rel3 >= TOKENS_FROM_CONCURRENCY_FROM
    req_blocks = per_req

    def reported_tokens(blocks: int) -> int:
        if by_concurrency and len(counts) > 1 and req_blocks:
            return int(blocks / req_blocks * max_len)
        return (blocks // num_groups if len(counts) > 1 else blocks) * block

    tokens = reported_tokens(num_blocks)
    needed = per_req * block_bytes
    refusal = None
    free_fix = None
    status = "refused"
    free = total - context_overhead(world).value - used
    init_free = total - nontorch.value - used
    if used and not user_kv and rel is not None and rel < FREE_MEMORY_CHECK_FROM:
        available -= used  # before the start-up check, other processes' memory came out of the budget
        num_blocks = int(available // block_bytes) if available > 0 else 0
        concurrency = num_blocks / per_req if per_req else 0.0
        tokens = reported_tokens(num_blocks)
    # Worker.init_device checks the free memory (request_memory) before load_model loads the
    # weights, so on a shared GPU the start-up refusal comes first (the 0.10.2, 0.22.1 wheels).
    free_check_refuses = bool(
        used
        and not user_kv
        and not extensible
        and (rel is None or rel >= FREE_MEMORY_CHECK_FROM)
        and init_free < math.ceil(total * util)
    )
    if per_rank >= free and not free_check_refuses:
        refusal = weights_oom_message(per_rank, free)
        status = "does-not-fit"
    elif free_check_refuses:
        refusal = (
            f"Free memory on device ({init_free / GIB:.2f}/{total / GIB:.2f} GiB) on startup is less than desired "
            f"GPU memory utilization ({util}, {math.ceil(total * util) / GIB:.2f} GiB). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes."
        )
        free_fix = f"--gpu-memory-utilization {math.floor(init_free / total * 100) / 100:.2f}"
    elif available <= 0:
        refusal = (
            "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine."
        )
    elif num_blocks < per_req:
        est_len = max(0, int(max_len * num_blocks / per_req) // block * block)
        if auto_fit:
            max_len = est_len
            concurrency = 1.0 if est_len else 0.0
            if est_len <= 0:
                refusal = "No available memory for the cache blocks."
        else:
            refusal = kv_needed_message(max_len, needed, available, est_len)
    mamba_refusal = None
    if (
        refusal is None
        and lin_layers
        and not values.get("enforce_eager")
        and (rel is None or rel >= MAMBA_BLOCKS_RAISE_FROM)
        and seqs > num_blocks
    ):
        # config/compilation.py : CompilationConfig (FULL decode graphs need one Mamba block a sequence)
        mamba_refusal = (
            f"max_num_seqs ({seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each decode sequence "
            "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to "
            f"at most {num_blocks} or increase gpu_memory_utilization."
        )
        refusal = mamba_refusal
    # What the KV cache leaves on the device, and what comes after it (v1/worker/gpu_worker.py :
    # compile_or_warm_up_model: CUDA-graph capture, then the sampler warm-up whose buffers are kept).
    kv_bytes = max(0, num_blocks) * block_bytes
    headroom = total - nontorch.value - used - per_rank - nontorch_counted.value - kv_bytes
    graph_b = (
        graphs.value
        if graphs.value
        else (0.0 if values.get("enforce_eager") else (0.25 + 0.5 * min(seqs, 1024) / 1024) * GIB)
    )
    cfg_t = text_config(hf)
    warm_reqs = min(seqs, batched)
    sampler_b = warm_reqs * int(cfg_t.get("vocab_size") or 32000) * logit_bytes
    allocations: tuple[Allocation, ...] = (
        Allocation("weights", per_rank, "before-pool", "v1/worker/gpu_model_runner.py : load_model"),
        Allocation("KV cache", float(kv_bytes), "pool", "v1/worker/gpu_worker.py : initialize_from_config"),
    )
    graph_alloc: tuple[Allocation, ...] = ()
    if graph_b:
        graph_alloc = (
            Allocation(
                "CUDA graphs" + ("" if graphs.value else " (not in the KV budget in this release/switch)"),
                graph_b,
                "before-pool" if extensible else "after-pool",
                "v1/worker/gpu_model_runner.py : capture_model",
                low=0.1 * GIB,
                high=max(graph_b, 1.5 * GIB),
            ),
        )
    sampler_alloc = (
        Allocation(
            f"sampler warm-up ({warm_reqs} requests × vocabulary"
            + ("" if full_sampler else "; not in the profiled peak in this release")
            + ")",
            float(sampler_b),
            "before-pool" if extensible else "after-pool",
            "v1/worker/gpu_worker.py : compile_or_warm_up_model → "
            + ("gpu/warmup.py : warmup_kernels" if mrv2 else "_dummy_sampler_run"),
            low=sampler_b * 0.5,
            high=sampler_b * 1.6,
        ),
    )
    # MRV2 warms the kernels (the sampler included) before capturing the graphs; the V1 runner
    # captures first and warms the sampler last. The graphs' private pool cannot reuse the blocks
    # the warm-up leaves cached, so the two add up either way.
    allocations += sampler_alloc + graph_alloc if mrv2 else graph_alloc + sampler_alloc
    failing = None
    short = 0.0
    fix = None
    unknown_reason = None
    if per_rank >= free and not free_check_refuses:  # the weights alone: torch's out of memory
        failing, short = "weights", per_rank - free
    if refusal is None and num_blocks > 0:
        status, failed, short, oom = after_pool_verdict(headroom, allocations)
        after_central = sum(a.bytes or 0.0 for a in allocations if a.phase == "after-pool")
        unreserved = not full_sampler or not graphs.value
        if status == "starts" and unreserved and after_central > headroom:
            # an allocation the budget did not reserve (the un-profiled sampler pass, graphs
            # outside the estimate): the low ends fit, the central estimates do not; not
            # derivable offline, so "unknown", never "fits"
            status = "unknown"
            failed = next(a for a in allocations if a.phase == "after-pool")
        if status == "does-not-fit" and failed is not None:
            refusal = oom
            if failed.name.startswith("sampler") and not mrv2:
                # gpu_model_runner.py : _dummy_sampler_run wraps torch's error in its own
                refusal = (
                    f"CUDA out of memory occurred when warming up sampler with {warm_reqs} dummy requests. "
                    "Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine."
                )
            failing = failed.name
            lower = math.floor((util - short / total) * 100) / 100
            fix = (
                f"--max-num-seqs {max(1, int(warm_reqs * (1 - short / sampler_b)))}"
                if failed.name.startswith("sampler") and sampler_b
                else f"--gpu-memory-utilization {lower:.2f}"
            )
        elif status == "unknown" and failed is not None:
            failing = failed.name
            room = headroom - sum(
                a.bytes or 0.0 for a in allocations if a.phase == "after-pool" and a is not sampler_alloc[0]
            )
            if sampler_b and room > 0:
                fix = f"--max-num-seqs {max(1, int(warm_reqs * room / sampler_b))}"
            unknown_reason = (
                f"the allocations after the KV cache ({sum(a.bytes or 0 for a in allocations if a.phase == 'after-pool') / GIB:.2f} GiB, "
                f"estimated) exceed the {headroom / GIB:.2f} GiB it leaves at their central estimate"
                + (
                    ""
                    if full_sampler
                    else " (this release profiles the sampler without the warm-up's top-k/top-p pipeline: "
                    "gpu/warmup.py : warmup_kernels needs it after the KV cache)"
                )
            )
    if (
        status in ("refused", "starts")
        and refusal is None
        and not used
        and not user_kv
        and rel is not None
        and V1_COUNTS_OTHER_PROCESSES_FROM <= rel < FREE_MEMORY_CHECK_FROM
        and available <= total * (1 - util)
    ):
        # V1 of the 0.8-0.9 era (v1/worker/gpu_worker.py : determine_available_memory) adds to
        # torch's peak everything else allocated on the device after the profile run
        # (total - free - torch's allocated), so memory other processes hold comes out of the KV
        # budget in full. A utilization that leaves more memory to others than the budget has
        # left for the KV cache is not derivable offline (issue 27: Qwen3-8B on an A800 at 0.4,
        # vllm#17431: "No available memory for the cache blocks" with V1, starts with V0).
        status = "unknown"
        failing = "memory held by other processes"
        unknown_reason = (
            f"vLLM {version}'s V1 engine counts the memory other processes hold on the device against "
            f"the KV budget: if they hold more than {available / GIB:.2f} GiB (the utilization "
            f'{util} leaves {total * (1 - util) / GIB:.2f} GiB to them), it refuses with "No available '
            'memory for the cache blocks"; pass --used-gib to check'
        )
        fix = "--used-gib G (what other processes hold on the device), or VLLM_USE_V1=0"
    elif mamba_refusal is not None:
        failing = "Mamba cache blocks"
        fix = f"--max-num-seqs {num_blocks}"
    elif refusal is not None and status == "refused" and available > 0 and num_blocks < per_req:
        failing = "KV cache below max_model_len"
    elif free_fix is not None:
        failing = "free memory at start-up"
        fix = (
            free_fix  # a prediction made inside the check itself: no second search (never recursive)
            if values.get("_free_fix_check")
            else checked_free_memory_fix(
                values,
                hf,
                device_name=device_name,
                memory_gib=memory_gib,
                version=version,
                free_fraction=init_free / total,
            )
        )
    per_token_bytes = (
        block_bytes * num_groups / block if len(counts) > 1 else full_pl * (full_layers + swa_layers)
    )
    lo_avail = (
        available
        - (peak.high - peak.value)
        - (nontorch_counted.high - nontorch_counted.value)
        - (graphs.high - graphs.value)
    )
    hi_avail = (
        available
        + (peak.value - peak.low)
        + (nontorch_counted.value - nontorch_counted.low)
        + (graphs.value - graphs.low)
    )

    def tok(avail: float) -> int:
        return reported_tokens(int(avail // block_bytes) if avail > 0 else 0)

    inputs = {
        "gpu_memory_utilization": util,
        "gpu_memory_utilization_from": "your flag"
        if values.get("gpu_memory_utilization")
        else f"vLLM {version or '0.33'} default",
        "compared_at": (
            f"vLLM {version}: that release's utilization default, profile-run batch, V0/V1 profiler, "
            "CUDA-graph and sampler accounting"
            if version
            else "vLLM without a release: 0.33's defaults"
        ),
        "kv_cache_dtype": values.get("kv_cache_dtype") or "auto",
        "block_size": block,
        "tensor_parallel_size": tp,
        "pipeline_parallel_size": pp,
        "max_num_batched_tokens": batched,
        "max_num_seqs": seqs,
        "profile_batch": batch_words,
        "max_model_len_auto_fit": auto_fit,
        "kv_formula": words
        + f"; {full_layers} full"
        + (f", {swa_layers} sliding (window {window})" if swa_layers else "")
        + (f", {lin_layers} linear" if lin_layers else ""),
        "kv_cache_groups": num_groups,
        "available_kv_bytes": int(available),
        "num_gpu_blocks": num_blocks,
        "mamba_ssm_dtype": ssm_dtype or None,
        "cudagraph_estimate_in_budget": bool(graphs.value),
        "extensible_kv_cache": extensible,
        "model_runner_v2": mrv2,
        "sampler_warm_up_profiled": full_sampler,
        "sampler_path": (
            "model runner v2 (gpu/sample)"
            if mrv2
            else "flashinfer (top_k_top_p_sampling_from_logits)"
            if fi_sampler
            else "pytorch sort"
        ),
        "used_gib": round(used / GIB, 3) if used else 0,
    }
    return FitReport(
        engine="vllm",
        device_total_bytes=total,
        weights_bytes=per_rank,
        weights_estimated=weights.estimated,
        weights_method=weights.method,
        kv_bytes_per_token=per_token_bytes,
        kv_tokens=max(0, tokens),
        context_length=max_len,
        max_running_requests=seqs,
        concurrency_at_context=concurrency,
        refusal=refusal,
        inputs=inputs,
        estimates={"activation_peak": peak, "non_torch": nontorch_counted, "cudagraphs": graphs},
        kv_tokens_range=(tok(lo_avail), tok(hi_avail)),
        state_bytes_per_request=state,
        allocations=allocations,
        headroom_bytes=headroom if num_blocks > 0 and (refusal is None or failing is not None) else None,
        status="starts" if refusal is None and status == "refused" else status,
        failing=failing,
        short_by_bytes=short,
        fix=fix,
        unknown_reason=unknown_reason,
    )
