"""SGLang's KV-cache capacity: ``mem_fraction_static``, ``max_total_num_tokens``, the running-request
cap and the "Not enough memory" refusal, from a resolution (sglang 0.5.23 wheel).

The model shape (weights, KV bytes per layer) comes from ``resolvable.memory``; this module adds
sglang's policy:

* ``default_mem_fraction_static``: ``arg_groups/memory_hook.py : handle_gpu_memory_settings`` —
  reserved MiB = 512 + 1.5 × max(chunked_prefill_size, 2048) + TP×PP/8 GiB + the CUDA-graph
  reserve (``reserve_for_graph_mb``: decode max_bs × 2, the prefill graph 8 MiB per captured size
  or 1.5 GiB with an MLA backend), at least 10 GiB on a >60 GiB device, + 2 GiB for DeepEP;
  ``round((gpu - reserved) / gpu, 3)``; multimodal models scaled by ``adjust_mem_fraction_for_vlm``;
* the pool: ``mem_cache/kv_cache_configurator.py : _profile_available_bytes`` — rest = free
  memory after loading − pre-load free memory × (1 − mem_fraction_static); then
  ``model_executor/pool_configurator.py``: tokens = rest // cell size, floored to the page size;
  the cell is ``(K+V heads per rank × head dims)`` per full-attention layer, or MLA's
  ``kv_lora_rank + qk_rope_head_dim``, plus the DSA indexer (``index_head_dim`` fp8 + an fp32 scale
  per 128, 132 bytes a layer); hybrid-SWA models: cell = full + ``swa_full_tokens_ratio`` × SWA;
* ``resolve_max_num_reqs``: clamp(tokens / context × 512, 2048, 4096), at most tokens // 2, or
  the user's ``--max-running-requests`` capped the same way;
* the refusals: "Loaded weights leave no GPU memory for the KV cache under
  --mem-fraction-static=…" (``_profile_available_bytes``) when the weights take the whole fraction,
  and ``MemoryPoolConfig.__post_init__``'s "Not enough memory. Please try to increase
  --mem-fraction-static." when less than one page of KV fits.

After the pool, the allocations sglang makes in order (``after_pool_allocations``): the request
table, graphs, FlashInfer autotuner and symmetric-memory pools, and on ROCm the aiter attention
backend's decode workspace and CUDA-graph buffers (``aiter_allocations``, sized from
``layers/attention/aiter_backend.py``; its MLA metadata is sized inside aiter: unknown).

Releases: the arithmetic is 0.5.23's; ``version`` applies the differences read in the other
wheels (``default_mem_fraction_static``'s 0.5.5-0.5.22 reserves and decode ``max_bs``:
``prefill_graph_reserve_mib``, ``draft_reserve_mib``; ``max_running_requests`` and the request
table; the DSA fp8 cell in ``kv_cell``; the symmetric-memory pool from 0.5.9;
``model_runner_vlm_scale`` for 0.4.4-0.4.8; the empty-pool refusal and its text before 0.5.14).
Per-release differences of the releases the pack resolves are named changes (``changes.py``).

Invariants: a pure function of (resolution, config, platform, flags sglang has that the pack
does not model, release); every profiling-only quantity is an ``Estimate`` with a range.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace as _replace
from typing import Any

from ..device_memory import Estimate, context_overhead, require_device_bytes
from ..memory import (
    GIB,
    Allocation,
    FitReport,
    after_pool_verdict,
    attention_shape,
    dtype_bytes,
    kv_bytes_per_token,
    linear_state_bytes,
    text_config,
    weight_estimate,
    weights_oom_message,
)
from .changes import CHANGES
from .passes.memory import decode_cuda_graph_max_bs, in_small_gpu_band

__all__ = [
    "HYBRID_SWA_ARCHS",
    "NOT_ENOUGH_MEMORY",
    "capacity",
    "context_length",
    "default_mem_fraction_static",
]

NOT_ENOUGH_MEMORY = "Not enough memory. Please try to increase --mem-fraction-static."


def no_kv_room_message(mfs: float, minimum: float) -> str:
    """``KVCacheConfigurator._profile_available_bytes`` (0.5.15–0.5.23): the loaded weights leave
    nothing under the fraction; sglang names the smallest fraction that would leave any room."""
    suggested = math.ceil(minimum * 1000) / 1000
    return (
        f"Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={mfs}. "
        f"Raise --mem-fraction-static above {suggested:.3f} (minimum viable = 1 - available/pre = "
        f"{minimum:.4f}). If using speculative decoding, draft weights are now counted."
    )


#: ``configs/model_config.py : is_hybrid_swa_model`` (0.5.23): the archs with a separate SWA pool.
#: Gemma-2/3 are not among them: sglang keeps a full KV for their sliding layers.
HYBRID_SWA_ARCHS = frozenset(
    {
        "Llama4ForConditionalGeneration",
        "DeepseekV4ForCausalLM",
        "GptOssForCausalLM",
        "MiMoV2FlashForCausalLM",
        "MiMoV2ForCausalLM",
        "Step3p5ForCausalLM",
        "Gemma4ForCausalLM",
        "Gemma4ForConditionalGeneration",
        "Exaone4ForCausalLM",
        "Olmo3ForCausalLM",
    }
)


def not_enough_memory_message(mfs: float, version: str | None = None) -> str:
    """The empty-pool refusal with the value sglang prints: ``MemoryPoolConfig.__post_init__``
    (model_runner_kv_cache_mixin.py, 0.5.10; ``pool_configurator.py`` later) writes
    ``mem_fraction_static=F``; ``init_memory_pool`` of 0.5.5-0.5.9 printed the expression itself,
    ``self.server_args.mem_fraction_static=F`` (``NOT_ENOUGH_MEMORY_PLAIN_VALUE``)."""
    name = (
        "mem_fraction_static"
        if _newest_has(version, CHANGES.NOT_ENOUGH_MEMORY_PLAIN_VALUE)
        else "self.server_args.mem_fraction_static"
    )
    return f"{NOT_ENOUGH_MEMORY} Current value: {name}={mfs}"


#: The DSA indexer key per token per layer: index_head_dim fp8 values + one fp32 scale per 128.
def _dsa_indexer_bytes(index_head_dim: int) -> int:
    return index_head_dim + index_head_dim // 128 * 4


def _dsa_scaled_fp8_layout(values: Mapping[str, Any], version: str | None = None) -> bool:
    """Whether a DSA model's fp8 KV uses the scaled FlashMLA layout: not with the TRT-LLM DSA
    backends, nor the raw layout of ROCm's TileLang/aiter kernels. ``calculate_mla_kv_cache_dim``
    (model_runner_kv_cache_mixin.py) first sizes the scaled cell in 0.5.9 (``DSA_FP8_SCALED_CELL``;
    0.5.5-0.5.8's ``profile_max_num_token`` counts kv_lora_rank + rope at the KV dtype) and keeps
    the raw one on ROCm with TileLang from 0.5.10 (``DSA_FP8_RAW_CELL_ON_ROCM``)."""
    if not _newest_has(version, CHANGES.DSA_FP8_SCALED_CELL):
        return False
    backends = {
        str(values.get(k) or "")
        for k in ("dsa_prefill_backend", "dsa_decode_backend", "nsa_prefill_backend", "nsa_decode_backend")
    }
    if "trtllm" in backends:
        return False
    rocm_raw = _newest_has(version, CHANGES.DSA_FP8_RAW_CELL_ON_ROCM)
    return not (rocm_raw and backends & {"tilelang", "aiter"} and str(values.get("device") or "") == "hip")


def context_length(hf: Mapping[str, Any], user: int | None) -> int:
    """``ModelConfig`` context length: the user's ``--context-length``, else the config's
    ``max_position_embeddings`` (or its aliases), times a rope-scaling factor unless the scaling
    keeps ``original_max_position_embeddings`` or is llama3 (``hf_transformers_utils.get_context_length``)."""
    if user:
        return int(user)
    cfg = text_config(hf)
    scaling = cfg.get("rope_scaling") or {}
    factor = 1.0
    if isinstance(scaling, Mapping) and scaling:
        factor = float(scaling.get("factor") or 1.0)
        if "original_max_position_embeddings" in scaling or scaling.get("rope_type") == "llama3":
            factor = 1.0
    for key in (
        "max_sequence_length",
        "seq_length",
        "max_seq_len",
        "model_max_length",
        "max_position_embeddings",
    ):
        value = cfg.get(key)
        if isinstance(value, int) and value > 0:
            return int(factor * value)
    return 2048


def _prefill_graph_sizes(max_bs: int) -> int:
    """How many prefill CUDA-graph sizes ``generate_prefill_cuda_graph_batch_sizes`` captures:
    4..32 by 4, 48..256 by 16, 288..512 by 32, 576..1024 by 64, 1280..4096 by 256, then every 512
    from 4608 — counted, not listed, so a huge ``--chunked-prefill-size`` costs nothing (issue 29)."""
    segments = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256))
    count = 0
    for start, stop, step in (*segments, (4608, max_bs, 512)):
        top = min(stop, max_bs)
        if top >= start:
            count += (top - start) // step + 1
    return count


def _uses_mla_backend(hf: Mapping[str, Any]) -> bool:
    return bool(text_config(hf).get("kv_lora_rank"))


def _release(version: str | None) -> tuple[int, int, int] | None:
    """ "0.4.4.post2" → (0, 4, 4); "0.4 (March 2025)" → (0, 4, 0); None when not a release."""
    import re

    m = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", str(version or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


#: The release differences of ``handle_gpu_memory_settings`` in the modelled releases, read in
#: the 0.5.14-0.5.23 wheels (server_args.py, arg_groups/memory_hook.py from 0.5.19): the decode
#: graph reserve is added whatever the decode graph backend before 0.5.16 (``reserve_for_graph_mb``
#: from 0.5.16 skips a disabled one), and DeepEP's 2 GiB (``reserve_for_deepep_a2a_mb``) from
#: 0.5.16; the 20-35 GiB band's decode ``max_bs`` is 48/160 (TP < 4 / >= 4) from 0.5.20, 24/80
#: before; a default decode ``max_bs`` is capped by ``--max-running-requests`` from 0.5.22.
GRAPH_RESERVE_FN_SINCE = (0, 5, 16)
DECODE_BS_48_SINCE = (0, 5, 20)
DECODE_BS_CAPPED_SINCE = (0, 5, 22)


#: The piecewise CUDA-graph flags (not modelled fields: they reach ``capacity`` in ``extra``).
_PIECEWISE_FLAGS = ("enable_piecewise_cuda_graph", "piecewise_cuda_graph_max_tokens")
#: Flags the pack does not model that the default fraction reads (``extra`` to ``values``).
_FRACTION_FLAGS = (*_PIECEWISE_FLAGS, "enable_multimodal", "language_only")

#: configs/model_config.py ``ModelConfig.__init__`` ``mm_disabled_models`` (0.5.5-0.5.23; Inkling
#: from 0.5.16, the release that serves it): multimodal is off for these unless
#: ``--enable-multimodal``, so ``adjust_mem_fraction_for_vlm`` does not scale their default.
MM_DISABLED_ARCHS = frozenset(
    {
        "Gemma3ForConditionalGeneration",
        "Llama4ForConditionalGeneration",
        "Step3VLForConditionalGeneration",
        "InklingForConditionalGeneration",
    }
)


def scales_default_for_vlm(values: Mapping[str, Any], hf: Mapping[str, Any]) -> bool:
    """Whether sglang scales its default fraction for a multimodal model: the config has a
    ``vision_config``, multimodal is on (``--enable-multimodal``, or an architecture outside
    ``MM_DISABLED_ARCHS``) and not ``--language-only`` (server_args ``_handle_gpu_memory_settings``,
    0.5.19+ ``memory_hook``: ``model_config.is_multimodal and not language_only``)."""
    if not isinstance(hf.get("vision_config"), Mapping) or values.get("language_only"):
        return False
    archs = hf.get("architectures") or ()
    return bool(values.get("enable_multimodal")) or not (archs and archs[0] in MM_DISABLED_ARCHS)


def _resolved_release(version: str | None) -> str | None:
    """The pack's release for a release name (``0.5.8.post1`` → ``0.5.8``); None for no release
    or one the pack does not resolve (0.4.x, 0.5.1-0.5.4)."""
    from ._base import registry

    if not version:
        return None
    try:
        return registry.release(str(version).split()[0])
    except ValueError:  # InvalidArgumentError: not a release the pack resolves
        return None


def _release_has(version: str | None, change: Any) -> bool:
    """Whether a resolved release (by name) has a named change (``changes.py``), through its
    release view; False for no release or one the pack does not resolve."""
    from ._base import registry

    release = _resolved_release(version)
    return release is not None and registry.release_view(release).has(change)


def _newest_has(version: str | None, change: Any) -> bool:
    """As ``_release_has``, but no release, or one the pack does not resolve, is compared at the
    newest (0.5.23): it has the change when 0.5.23 has it (the model's default arithmetic)."""
    from ._base import registry

    release = _resolved_release(version) or registry.releases[-1]
    return registry.release_view(release).has(change)


def prefill_graph_reserve_mib(
    values: Mapping[str, Any], hf: Mapping[str, Any], chunk: int, version: str | None = None
) -> float:
    """The default fraction's reserve for the prefill (piecewise) CUDA graph, in MiB, and where
    ``server_args.py : _handle_gpu_memory_settings`` adds it (see ``default_mem_fraction_static``).

    * from 0.5.10 (``PREFILL_GRAPH_RESERVE_BY_DEFAULT``): on unless the prefill graph is disabled;
      8 MiB per captured size up to the chunked-prefill size, 1.5 GiB with an MLA backend;
    * before, only with ``--enable-piecewise-cuda-graph`` (``piecewise_cuda_graph_max_tokens``
      read as ``max_tokens``): 0.5.8-0.5.9 8 MiB per captured size up to ``max_tokens`` (default
      the chunked-prefill size, 2048 with an MLA backend; ``PIECEWISE_GRAPH_RESERVE_PER_SIZE``);
      0.5.7 ``max_tokens // 8`` (default the chunked-prefill size); 0.5.5.post1-0.5.6.post2
      ``max_tokens // 4`` (default 4096); 0.5.5 nothing.
    """
    if _newest_has(version, CHANGES.PREFILL_GRAPH_RESERVE_BY_DEFAULT):
        if values.get("disable_cuda_graph") or values.get("cuda_graph_backend_prefill") in (None, "disabled"):
            return 0.0
        if _uses_mla_backend(hf):
            return 1.5 * 1024
        return _prefill_graph_sizes(chunk if chunk > 0 else 8192) * 8.0
    if not values.get("enable_piecewise_cuda_graph"):
        return 0.0
    given = values.get("piecewise_cuda_graph_max_tokens")
    if _release_has(version, CHANGES.PIECEWISE_GRAPH_RESERVE_PER_SIZE):
        top = int(given or (2048 if _uses_mla_backend(hf) else chunk))
        return _prefill_graph_sizes(top) * 8.0
    if _release_has(version, CHANGES.PIECEWISE_GRAPH_RESERVE_EIGHTH):
        return float(int(given or chunk) // 8)
    if _release_has(version, CHANGES.PIECEWISE_GRAPH_RESERVE_QUARTER):
        return float(int(given or 4096) // 4)
    return 0.0


def draft_reserve_mib(values: Mapping[str, Any], version: str | None = None) -> float:
    """What the default fraction reserves for a speculative draft model and its graphs, in MiB,
    after the 10 GiB floor (``server_args.py : _handle_gpu_memory_settings``, 0.5.5-0.5.13):
    STANDALONE 6 GiB, any other algorithm but NGRAM 2 GiB (4 GiB in 0.5.10-0.5.13,
    ``EAGLE_DRAFT_RESERVE_4GIB``); nothing from 0.5.14 (``DRAFT_RESERVE_DROPPED``) or for a
    release the pack does not resolve."""
    algorithm = str(values.get("speculative_algorithm") or "").upper()
    if not algorithm or algorithm == "NGRAM" or _newest_has(version, CHANGES.DRAFT_RESERVE_DROPPED):
        return 0.0
    if algorithm == "STANDALONE":
        return 6.0 * 1024
    return (4.0 if _release_has(version, CHANGES.EAGLE_DRAFT_RESERVE_4GIB) else 2.0) * 1024


def _since(version: str | None, first: tuple[int, int, int]) -> bool:
    """Whether the release (None: the modelled 0.5.23) has a behaviour that began in ``first``."""
    rel = _release(version)
    return rel is None or rel >= first


def default_decode_max_bs(gpu_mib: float | None, tp: int, version: str | None = None) -> int:
    """The decode CUDA-graph ``max_bs`` sglang picks when ``--cuda-graph-max-bs`` is unset."""
    if in_small_gpu_band(gpu_mib) and _since(version, DECODE_BS_48_SINCE):
        return 48 if tp < 4 else 160
    return decode_cuda_graph_max_bs(gpu_mib, tp)


def default_mem_fraction_static(
    values: Mapping[str, Any],
    hf: Mapping[str, Any],
    gpu_mib: float | None,
    cuda_graph_max_bs: int | None = None,
    version: str | None = None,
) -> float:
    """``handle_gpu_memory_settings`` (0.5.23, with the differences of the release ``version``)
    when ``--mem-fraction-static`` is unset."""
    if gpu_mib is None:
        return 0.95
    tp, pp = int(values.get("tp_size") or 1), int(values.get("pp_size") or 1)
    chunk = int(values.get("chunked_prefill_size") or 8192)
    activation_tokens = max(chunk, 2048) if chunk > 0 else 16384
    reserved = 512 + activation_tokens * 1.5 + tp * pp / 8 * 1024
    graphs = not values.get("disable_cuda_graph")
    max_bs = cuda_graph_max_bs or default_decode_max_bs(gpu_mib, tp, version)
    capped = _since(version, DECODE_BS_CAPPED_SINCE)
    if max_bs and values.get("max_running_requests") and cuda_graph_max_bs is None and capped:
        max_bs = min(max_bs, int(values["max_running_requests"]))
    decode_graphs = graphs and values.get("cuda_graph_backend_decode", "full") != "disabled"
    if decode_graphs or not _since(version, GRAPH_RESERVE_FN_SINCE):
        reserved += max_bs * 2
        if values.get("enable_dp_attention"):
            dp = int(values.get("dp_size") or 1)
            reserved += max_bs * dp * 3 + (max_bs * dp * 1.5 if max_bs > 300 else 0)
    prefill = prefill_graph_reserve_mib(values, hf, chunk, version)
    # 0.5.5.post1-0.5.7 add the (opt-in) piecewise reserve after the 10 GiB floor, later before it
    after_floor = _release_has(version, CHANGES.PIECEWISE_GRAPH_RESERVE_QUARTER) or _release_has(
        version, CHANGES.PIECEWISE_GRAPH_RESERVE_EIGHTH
    )
    if not after_floor:
        reserved += prefill
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if values.get("moe_a2a_backend") == "deepep" and graphs and _since(version, GRAPH_RESERVE_FN_SINCE):
        reserved += 2 * 1024
    if values.get("device") == "xpu" and _newest_has(version, CHANGES.XPU_ONEDNN_RESERVE):
        reserved += 2 * 1024  # oneDNN's matmul scratch space
    reserved += draft_reserve_mib(values, version)
    if after_floor:
        reserved += prefill
    fraction = round((gpu_mib - reserved) / gpu_mib, 3)
    if scales_default_for_vlm(values, hf):
        vision = hf["vision_config"]
        # getattr(vision_config, name, default): Qwen-VL's ``depth`` / ``embed_dim`` are not read
        # (real 0.5.9 and 0.5.23 on qwen3-vl-8b: 24 layers assumed, tests/memory/test_release_memory.py)
        # (a config class's own tower sizes are filled in by config_defaults: Kimi-K2.5's MoonViT)
        layers = vision.get("num_hidden_layers") or 24
        hidden = vision.get("hidden_size") or 1024
        ratio = layers * hidden**2 / (24 * 1024**2)
        fraction *= 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return fraction


def kv_cell(
    values: Mapping[str, Any], hf: Mapping[str, Any], version: str | None = None
) -> tuple[float, float, str]:
    """(bytes per full-pool token per rank, SWA bytes per token per rank, formula in words) at the
    sglang release ``version`` (None: 0.5.23)."""
    shape = attention_shape(hf)
    cfg = text_config(hf)
    model_dtype = str(values.get("dtype") or "auto")
    if model_dtype == "auto":
        model_dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
        if model_dtype in ("float32", "float"):
            model_dtype = "bfloat16"
    kv_dtype = str(values.get("kv_cache_dtype") or "auto")
    kv_b = dtype_bytes(kv_dtype, model_dtype=model_dtype)
    scale = 32 if kv_dtype == "mxfp8" else 0
    tp = int(values.get("tp_size") or 1)
    dp = int(values.get("dp_size") or 1) if values.get("enable_dp_attention") else 1
    attn_tp = max(1, tp // dp)
    archs = set(hf.get("architectures") or ())
    hybrid_swa = (
        bool(archs & HYBRID_SWA_ARCHS)
        and shape.swa_layers > 0
        and not values.get("disable_hybrid_swa_memory")
    )
    full_layers = shape.full_layers if hybrid_swa else shape.full_layers + shape.swa_layers
    full = kv_bytes_per_token(
        shape, attn_tp=attn_tp, kv_dtype_bytes=kv_b, layers=full_layers, scale_block=scale
    )
    swa = (
        kv_bytes_per_token(
            shape, attn_tp=attn_tp, kv_dtype_bytes=kv_b, layers=shape.swa_layers, scale_block=scale
        )
        if hybrid_swa
        else 0.0
    )
    if shape.is_mla:
        words = f"MLA: ({shape.kv_lora_rank} + {shape.qk_rope_head_dim}) × {kv_b:g} B × {full_layers} layers"
    else:
        words = (
            f"{max(1, shape.num_kv_heads // attn_tp)} KV heads × ({shape.head_dim} + {shape.v_head_dim}) × {kv_b:g} B"
            f" × {full_layers} layers"
        )
    if shape.kind == "dsa" and kv_b == 1 and _dsa_scaled_fp8_layout(values, version):
        # FlashMLA's fp8 layout (model_runner_kv_cache_mixin.py : calculate_mla_kv_cache_dim,
        # 0.5.15): kv_lora_rank fp8 + an fp32 scale per 128 + the rope key in bf16 (656 B for V3.2)
        dim = shape.kv_lora_rank + shape.kv_lora_rank // 128 * 4 + shape.qk_rope_head_dim * 2
        full = float(dim * full_layers)
        words = f"DSA fp8 (FlashMLA layout): ({shape.kv_lora_rank} + scales + {shape.qk_rope_head_dim} bf16) = {dim} B × {full_layers} layers"
    if shape.kind == "dsa":
        full += _dsa_indexer_bytes(shape.index_head_dim) * full_layers
        words += f" + DSA indexer {_dsa_indexer_bytes(shape.index_head_dim)} B × {full_layers}"
    if hybrid_swa:
        ratio = float(values.get("swa_full_tokens_ratio") or 0.8)
        words += f"; SWA pool {shape.swa_layers} layers at ratio {ratio:g}"
    return full, swa, words


#: Before 0.4.9, ``ModelRunner.__init__`` (model_executor/model_runner.py) scaled the memory
#: fraction of every multimodal model, the user's ``--mem-fraction-static`` included: by 0.95 in
#: the 0.4.4 wheels (post1-post3), by 0.90 in 0.4.5-0.4.8. From 0.4.9 server_args.py scales only
#: the default it computes (``adjust_mem_fraction_for_vlm`` from 0.5), as ``default_mem_fraction_static``.
MODEL_RUNNER_VLM_SCALE_UNTIL = (0, 4, 9)


#: First release whose ``_profile_available_bytes`` refuses weights that leave no room with "Loaded
#: weights leave no GPU memory for the KV cache…" (read in the 0.5.13.post1 and 0.5.14 wheels);
#: before it the pool comes out empty and the refusal is "Not enough memory…".
NO_KV_ROOM_CHECK_SINCE = (0, 5, 14)


def model_runner_vlm_scale(version: str | None, hf: Mapping[str, Any]) -> float:
    """The factor a release's model runner applies to a multimodal model's fraction (1.0: none)."""
    rel = _release(version)
    if rel is None or rel >= MODEL_RUNNER_VLM_SCALE_UNTIL or not isinstance(hf.get("vision_config"), Mapping):
        return 1.0
    return 0.95 if rel < (0, 4, 5) else 0.90


def _compared_at(version: str | None) -> str:
    """Which release's memory model a prediction (a log's check) uses, in words."""
    rel = _release(version)
    if rel is None:
        return "sglang 0.5.23's memory model (no release given)"
    if _resolved_release(version) is not None:  # 0.5.5-0.5.23, the releases the pack resolves
        return f"sglang {version}: a modelled release (0.5.23's memory arithmetic with this release's differences)"
    return (
        f"sglang {version} is not a modelled release: compared at 0.5.23's memory model with the differences "
        "known for it (the model runner's multimodal scale before 0.4.9, the empty-pool refusal before 0.5.14)"
    )


def aiter_long_context_scale(values: Mapping[str, Any], ctx_len: int) -> float:
    """``attention_hook`` (0.5.23; server_args.py before): aiter with a context over 8192 tokens
    scales the memory fraction by 0.85. The pass ``aiter_long_context_memory`` already scales a
    given ``--mem-fraction-static``; this is for sglang's own default."""
    return 0.85 if str(values.get("attention_backend") or "") == "aiter" and ctx_len > 8192 else 1.0


_ROWS_FIX = "--max-running-requests "


def capacity(
    values: Mapping[str, Any],
    hf: Mapping[str, Any],
    *,
    device_name: str | None,
    memory_gib: float | None,
    extra: Mapping[str, Any] | None = None,
    index_total_size: int | None = None,
    pre_load_free_bytes: float | None = None,
    version: str | None = None,
) -> FitReport:
    """SGLang's KV pool for a resolution's ``values`` on one device.

    ``extra`` holds sglang flags the pack does not model: ``max_total_tokens``,
    ``cuda_graph_max_bs``, ``max_mamba_cache_size``, ``mamba_ssm_dtype``.
    ``pre_load_free_bytes`` replaces the estimate of free memory before the weights load (a
    start-up log's first ``avail mem``). ``version`` is the sglang release the log or the user
    names; the model is 0.5.23's, with the release differences of ``model_runner_vlm_scale``.

    Invariant: a ``--max-running-requests N`` fix is one this model says starts. Fewer running
    requests also cap the decode graphs' batch (from 0.5.22), which raises sglang's default
    fraction and shrinks what the pool leaves, so the fix is checked and tightened (a few rounds).
    """
    kwargs = dict(
        device_name=device_name,
        memory_gib=memory_gib,
        extra=extra,
        index_total_size=index_total_size,
        pre_load_free_bytes=pre_load_free_bytes,
        version=version,
    )
    report = _capacity(values, hf, kwargs)
    if (report.fix or "").startswith(_ROWS_FIX):
        return _tightened_rows_fix(report, values, hf, kwargs)
    return report


def _fix_rows(fix: str) -> int:
    return int(fix[len(_ROWS_FIX) :].split()[0])


def _tightened_rows_fix(
    report: FitReport, values: Mapping[str, Any], hf: Mapping[str, Any], kwargs: Mapping[str, Any]
) -> FitReport:
    """``report`` with a ``--max-running-requests`` fix the model says starts (tried, and
    lowered by what each try was short, a few rounds); ``report`` itself when none is found."""
    rows = _fix_rows(report.fix or "")
    for _ in range(4):
        tried = _capacity({**values, "max_running_requests": rows}, hf, kwargs)
        table = next((a for a in tried.allocations if a.name == "req_to_token table"), None)
        if tried.status != "does-not-fit":
            if rows == _fix_rows(report.fix or ""):
                return report
            taken = (
                f" (the request table then takes {table.bytes / GIB:.2f} GiB)"
                if table and table.bytes
                else ""
            )
            return _replace(report, fix=f"{_ROWS_FIX}{rows}{taken}")
        if table is None or not table.bytes:
            break
        rows -= max(1, math.ceil(tried.short_by_bytes / (table.bytes / (rows + 1))))
        if rows < 1:
            break
    return report


def _capacity(values: Mapping[str, Any], hf: Mapping[str, Any], kwargs: Mapping[str, Any]) -> FitReport:
    """``capacity`` without the check of its fix (``kwargs``: ``capacity``'s keywords)."""
    device_name, memory_gib, version = kwargs["device_name"], kwargs["memory_gib"], kwargs["version"]
    index_total_size, pre_load_free_bytes = kwargs["index_total_size"], kwargs["pre_load_free_bytes"]
    extra = dict(kwargs["extra"] or {})
    total = require_device_bytes(device_name, memory_gib)
    gpu_mib = total / (1 << 20)
    tp, pp = int(values.get("tp_size") or 1), int(values.get("pp_size") or 1)
    dp = int(values.get("dp_size") or 1) if values.get("enable_dp_attention") else 1
    user_mfs = values.get("mem_fraction_static") or extra.get("mem_fraction_static")
    ctx_len = context_length(hf, values.get("context_length") or extra.get("context_length"))
    fraction_values = {**{k: extra[k] for k in _FRACTION_FLAGS if k in extra}, **values}
    if extra.get("enable_dp_attention_asked") and not _newest_has(
        version, CHANGES.DP_ATTENTION_RESERVE_AFTER_RESET
    ):
        # before 0.5.22 the memory settings ran before ``dp_size == 1`` turned DP attention off
        fraction_values["enable_dp_attention"] = True
    mfs = (
        float(user_mfs)
        if user_mfs
        else default_mem_fraction_static(
            fraction_values,
            hf,
            gpu_mib,
            extra.get("cuda_graph_max_bs"),
            version,
        )
        * aiter_long_context_scale(values, ctx_len)
    )
    vlm_scale = model_runner_vlm_scale(version, hf)
    mfs *= vlm_scale
    # MXFP4 experts on SM100 with FlashInfer: hidden and the intermediate partition padded to 128
    # (layers/quantization/mxfp4.py : Mxfp4MoEMethod.create_weights); elsewhere left as stored.
    sm100 = any(k in (device_name or "") for k in ("B200", "B300", "GB200", "GB300"))
    weights = weight_estimate(
        hf,
        dtype=values.get("dtype"),
        quantization=values.get("quantization"),
        index_total_size=index_total_size,
        moe_padding=(128, 128, tp) if sm100 else None,
    )
    per_rank = weights.per_rank(tp=tp, pp=pp, attn_tp=max(1, tp // dp), expert_shards=tp)
    ctx = context_overhead(tp * pp)
    used = float(extra.get("used_bytes") or 0.0)  # memory other processes already hold (--used-gib)
    pre = pre_load_free_bytes if pre_load_free_bytes is not None else total - ctx.value - used
    # rest = (pre - weights - load-time scratch) - pre × (1 - mfs)
    scratch = Estimate(0.0, 0.0, 0.5 * GIB, "buffers allocated while loading (rope caches, MoE workspaces)")
    rest = pre * mfs - per_rank - scratch.value
    full_cell, swa_cell, words = kv_cell(values, hf, version)
    shape = attention_shape(hf)
    cell = full_cell
    ratio = float(values.get("swa_full_tokens_ratio") or 0.8)
    if swa_cell:
        cell = full_cell + ratio * swa_cell
    state = 0.0
    mamba_slots = 0
    if shape.is_hybrid_linear:
        ssm_dtype = str(extra.get("mamba_ssm_dtype") or "float32")
        state = linear_state_bytes(
            shape, tp=max(1, tp // dp), state_dtype_bytes=2.0, ssm_dtype_bytes=dtype_bytes(ssm_dtype)
        )
        mamba_slots = int(extra.get("max_mamba_cache_size") or 0) or _default_mamba_slots(values, rest, state)
        rest -= mamba_slots * state
    page = int(values.get("page_size") or 1)

    def tokens_for(rest_bytes: float) -> int:
        if rest_bytes <= 0 or cell <= 0:
            return 0
        t = int(rest_bytes // cell) // page * page
        cap = extra.get("max_total_tokens")
        return min(t, int(cap) // page * page) if cap else t

    tokens = tokens_for(rest)
    lo = tokens_for(rest - (ctx.high - ctx.value) - scratch.high)
    hi = tokens_for(rest + (ctx.value - ctx.low))
    refusal = None
    status = "starts"
    if per_rank + scratch.value >= pre:
        refusal = weights_oom_message(per_rank, pre)
        status = "does-not-fit"
    elif rest <= 0:
        rel = _release(version)
        if rel is not None and rel < NO_KV_ROOM_CHECK_SINCE:  # before 0.5.14 an empty pool is the only check
            refusal = (
                not_enough_memory_message(mfs, version) if _resolved_release(version) else NOT_ENOUGH_MEMORY
            )
        else:
            refusal = no_kv_room_message(mfs, 1 - (pre - per_rank - scratch.value) / pre)
        status = "refused"
    elif tokens <= 0:  # room, but less than one page of KV
        refusal = not_enough_memory_message(mfs, version)
        status = "refused"
    running = None
    table_rows = None  # the request table's rows when they are not the running cap (before 0.5.10)
    if tokens > 0:
        running, table_rows = max_running_requests(values, tokens, ctx_len, dp, version)
        if mamba_slots:
            running = min(running, mamba_slots // 3 or 1)
            table_rows = min(table_rows, mamba_slots // 3 or 1) if table_rows else None
    # What the pool leaves on the device, and the allocations made after it (in order).
    pool_bytes = tokens * cell + mamba_slots * state
    headroom = pre - per_rank - scratch.value - pool_bytes
    allocations = (
        Allocation("weights", per_rank, "before-pool", "model_runner.load_model"),
        Allocation("KV pool", float(tokens * cell), "pool", "pool_configurator / MHATokenToKVPool"),
        *after_pool_allocations(
            values, extra, hf, gpu_mib, tp, dp, running, ctx_len, device_name, version, table_rows=table_rows
        ),
    )
    fix = None
    failing = None
    short = 0.0
    unknown_reason = None
    if status == "does-not-fit":  # the weights alone: torch's out of memory while loading them
        failing, short = "weights", per_rank + scratch.value - pre
    if refusal is None and tokens > 0:
        # sglang's own margin for run-time buffers (memory_hook.handle_gpu_memory_settings: 512 MiB
        # + 1.5 MiB per chunked-prefill token): an allocation that cannot be sized is assumed
        # covered only while what the sized ones leave is at least that margin
        # (its default fraction is built on that margin: only a fraction raised above the default
        # can eat into it)
        chunk = int(values.get("chunked_prefill_size") or 8192)
        margin = (512 + 1.5 * (max(chunk, 2048) if chunk > 0 else 16384)) * (1 << 20)
        if not user_mfs or mfs <= default_mem_fraction_static(
            fraction_values, hf, gpu_mib, extra.get("cuda_graph_max_bs"), version
        ):
            margin = 0.0
        status, failed, short, oom = after_pool_verdict(headroom, allocations, unknown_margin=margin)
        if status == "does-not-fit" and failed is not None:
            refusal = oom
            failing = failed.name
            rows = table_rows or running or 1
            fix = _after_pool_fix(failed, short, headroom, allocations, rows, ctx_len, values, mfs)
        elif status == "unknown" and failed is not None:
            failing = failed.name
            unknown_reason = (
                f"{failed.name}: {failed.unknown}"
                + (
                    f"; the sized allocations leave less than sglang's own margin ({margin / GIB:.2f} GiB) after the KV pool"
                    if failed.covered_by_margin
                    else ""
                )
                if failed.bytes is None
                else f"the allocations after the KV pool ({sum(a.bytes or 0 for a in allocations if a.phase == 'after-pool') / GIB:.2f} GiB, estimated) "
                f"exceed the {headroom / GIB:.2f} GiB it leaves at their central estimate"
            )
        if status == "starts" and lo <= 0:
            status = "unknown"
            unknown_reason = (
                f"the KV pool may be empty: {tokens:,} tokens at the estimate, 0 at the low end of its range "
                "(sglang then refuses: Not enough memory)"
            )
    # scheduler's request cap (managers/tp_worker.py, 0.5.6): the pool caps the request length
    max_req_input_len = max(0, min(ctx_len - 1, tokens - 1) - 5) if tokens > 0 else 0
    inputs = {
        "mem_fraction_static": mfs,
        "mem_fraction_static_from": (
            "your flag"
            if user_mfs
            else "sglang's default for this GPU (memory_hook.handle_gpu_memory_settings)"
        )
        + (
            f", × {vlm_scale:g} for a multimodal model in sglang {version}'s model runner"
            if vlm_scale != 1.0
            else ""
        ),
        "compared_at": _compared_at(version),
        "kv_cache_dtype": values.get("kv_cache_dtype"),
        "page_size": page,
        "tp_size": tp,
        "pp_size": pp,
        "attn_dp_size": dp,
        "swa_full_tokens_ratio": ratio if swa_cell else None,
        "kv_formula": words,
        "max_total_tokens": extra.get("max_total_tokens"),
        "max_req_input_len": max_req_input_len,
        "used_gib": round(used / GIB, 3) if used else 0,
    }
    estimates: dict[str, Any] = {"pre_load_context": ctx, "load_scratch": scratch}
    if mamba_slots:
        estimates["mamba_slots"] = mamba_slots
    return FitReport(
        engine="sglang",
        device_total_bytes=total,
        weights_bytes=per_rank,
        weights_estimated=weights.estimated,
        weights_method=weights.method,
        kv_bytes_per_token=cell,
        kv_tokens=tokens,
        context_length=ctx_len,
        max_running_requests=running,
        concurrency_at_context=tokens / ctx_len if ctx_len else 0.0,
        refusal=refusal,
        inputs=inputs,
        estimates=estimates,
        kv_tokens_range=(lo, hi),
        state_bytes_per_request=state,
        allocations=allocations,
        headroom_bytes=headroom if (tokens > 0 and refusal is None) or failing else None,
        status=status,
        failing=failing,
        short_by_bytes=short,
        fix=fix,
        unknown_reason=unknown_reason,
    )


#: ``SGLANG_SYMM_MEM_PREALLOC_GB_SIZE``'s value when ``--enable-symm-mem`` is on and the variable
#: is unset (server_args.py, 0.5.15: ``ServerArgs`` sets 4; model_runner.py :
#: ``prealloc_symmetric_memory_pool`` allocates it after the CUDA graphs).
SYMM_MEM_PREALLOC_GIB = 4


def max_running_requests(
    values: Mapping[str, Any], tokens: int, ctx_len: int, dp: int, version: str | None = None
) -> tuple[int, int | None]:
    """(max running requests per rank, the request table's rows where they differ, else None).

    The estimate is clamp(tokens / context × 512, 2048, 4096) in every release read. From 0.5.14
    (``MAX_RUNNING_REQUESTS_HALF_POOL``; ``resolve_max_num_reqs``) a ``--max-running-requests`` per
    DP rank is capped by tokens // 2; 0.5.10-0.5.13 (``MAX_RUNNING_REQUESTS_FROM_POOL``;
    ``model_runner_kv_cache_mixin._resolve_max_num_reqs``) cap it by the estimate; 0.5.5-0.5.9
    (``init_memory_pool``; the cap in ``managers/tp_worker.py : TpModelWorker`` 0.5.5-0.5.6,
    ``model_executor/model_runner.py`` 0.5.7-0.5.9) size the request table by your value
    undivided (or the estimate) and run min(yours // DP or tokens // 2, the table) requests. Unset,
    every release runs min(estimate, tokens // 2)."""
    estimated = max(min(int(tokens / ctx_len * 512), 4096), 2048)
    asked = values.get("max_running_requests")
    if not _newest_has(version, CHANGES.MAX_RUNNING_REQUESTS_FROM_POOL):
        rows = int(asked) if asked else estimated
        return max(1, min(int(asked) // dp if asked else tokens // 2, rows)), rows
    if not asked:
        return min(estimated, tokens // 2), None
    if _newest_has(version, CHANGES.MAX_RUNNING_REQUESTS_HALF_POOL):
        return min(max(1, int(asked) // dp), tokens // 2), None
    return max(1, min(int(asked) // dp, estimated)), None


def req_to_token_bytes(running: int, ctx_len: int, draft_tokens: int = 0) -> int:
    """``ReqToTokenPool``: an int32 table of (max running requests + 1 padding row) × (context
    length + 4 + speculative draft tokens) (mem_cache/memory_pool.py : ReqToTokenPool.__init__,
    0.5.15; model_runner_kv_cache_mixin ``extra_max_context_len``), allocated after the KV size
    is computed and not counted in it."""
    return (running + 1) * (ctx_len + 4 + draft_tokens) * 4


def after_pool_allocations(
    values: Mapping[str, Any],
    extra: Mapping[str, Any],
    hf: Mapping[str, Any],
    gpu_mib: float,
    tp: int,
    dp: int,
    running: int | None,
    ctx_len: int,
    device_name: str | None,
    version: str | None = None,
    table_rows: int | None = None,
) -> tuple[Allocation, ...]:
    """The device allocations sglang makes after the KV pool, in order, per rank (``table_rows``:
    the request table's size where it is not ``running``, see ``max_running_requests``).

    Exact: the request-to-token table, the symmetric-memory pool. Estimated: decode CUDA graphs
    (sglang's own reserve, ``max_bs`` × 2 MiB, more with DP attention) and prefill/piecewise
    graphs (8 MiB per captured size, 1.5 GiB with an MLA backend; up to 8 GiB a rank, as issue 27
    measured on Kimi-K2). Unknown: ROCm aiter attention workspaces, speculative-decoding draft
    buffers and graphs."""
    out: list[Allocation] = []
    draft = int(values.get("speculative_num_draft_tokens") or 0)
    if running:
        out.append(
            Allocation(
                "req_to_token table",
                float(req_to_token_bytes(table_rows or running, ctx_len, draft)),
                "after-pool",
                "mem_cache/memory_pool.py : ReqToTokenPool (int32, max_running_requests+1 × context_len+4)",
            )
        )
    graphs = not values.get("disable_cuda_graph")
    if graphs and values.get("cuda_graph_backend_decode", "full") != "disabled":
        max_bs = extra.get("cuda_graph_max_bs") or default_decode_max_bs(gpu_mib, tp, version)
        if running:
            max_bs = min(int(max_bs), int(running))
        mib = max_bs * 2.0
        if values.get("enable_dp_attention"):
            mib += max_bs * dp * 3 + (max_bs * dp * 1.5 if max_bs > 300 else 0)
        b = mib * (1 << 20)
        out.append(
            Allocation(
                "decode CUDA graphs",
                b,
                "after-pool",
                "model_executor/cuda_graph_runner.py (size: memory_hook.handle_gpu_memory_settings's reserve)",
                low=b * 0.5,
                high=b * 2.0,
            )
        )
    # before 0.5.10 the piecewise prefill graph is captured only with --enable-piecewise-cuda-graph
    by_default = _newest_has(version, CHANGES.PREFILL_GRAPH_RESERVE_BY_DEFAULT)
    prefill = (by_default and values.get("cuda_graph_backend_prefill") not in (None, "disabled")) or bool(
        values.get("enable_piecewise_cuda_graph") or extra.get("enable_piecewise_cuda_graph")
    )
    if graphs and prefill:
        chunk = int(values.get("chunked_prefill_size") or 8192)
        mib = 1.5 * 1024 if _uses_mla_backend(hf) else _prefill_graph_sizes(chunk if chunk > 0 else 8192) * 8
        b = mib * (1 << 20)
        out.append(
            Allocation(
                "prefill (piecewise) CUDA graphs",
                b,
                "after-pool",
                "model_executor/piecewise_cuda_graph_runner.py (size: memory_hook's reserve)",
                low=b * 0.5,
                high=max(b, 8.0 * GIB),
            )
        )
    moe_runner = str(values.get("moe_runner_backend") or "")
    fp4_gemm = str(values.get("fp4_gemm_backend") or values.get("fp4_gemm_runner_backend") or "")
    if moe_runner.startswith("flashinfer") or fp4_gemm.startswith("flashinfer"):
        out.append(
            Allocation(
                "FlashInfer autotuner workspaces",
                None,
                "after-pool",
                "model_runner.py : kernel warm-up (FlashInfer autotune of the MoE/FP4 GEMM runners)",
                unknown=f"sized by FlashInfer's autotuner for {moe_runner or fp4_gemm} at run time",
            )
        )
    if values.get("enable_symm_mem") and _newest_has(version, CHANGES.SYMM_MEM_PREALLOC_POOL):  # from 0.5.9
        gib = float(extra.get("symm_mem_prealloc_gib") or SYMM_MEM_PREALLOC_GIB)
        if gib > 0:
            out.append(
                Allocation(
                    "symmetric-memory pool",
                    gib * GIB,
                    "after-pool",
                    "model_runner.py : prealloc_symmetric_memory_pool (SGLANG_SYMM_MEM_PREALLOC_GB_SIZE, 4 by default)",
                )
            )
    backend = str(values.get("attention_backend") or "")
    if backend == "aiter" or (backend == "" and (device_name or "").upper().startswith("AMD")):
        out.extend(aiter_allocations(values, extra, hf, gpu_mib, tp, dp, running, ctx_len, version))
    if values.get("speculative_algorithm"):
        out.append(
            Allocation(
                "speculative draft buffers and CUDA graphs",
                None,
                "after-pool",
                "speculative/eagle_worker.py : EAGLEWorker (draft CUDA graphs, top-k × draft-token buffers)",
                unknown=(
                    f"{values.get('speculative_algorithm')} with top-k {values.get('speculative_eagle_topk')} and "
                    f"{values.get('speculative_num_draft_tokens')} draft tokens: sized by the draft model's graphs"
                ),
            )
        )
    return tuple(out)


#: ``_AITER_PARTITION_SIZE_ROCM`` (layers/attention/aiter_backend.py, 0.5.14-0.5.23): the
#: paged-attention decode splits each request's context into partitions of this many tokens.
AITER_PARTITION_TOKENS = 256


def aiter_allocations(
    values: Mapping[str, Any],
    extra: Mapping[str, Any],
    hf: Mapping[str, Any],
    gpu_mib: float,
    tp: int,
    dp: int,
    running: int | None,
    ctx_len: int,
    version: str | None = None,
) -> tuple[Allocation, ...]:
    """What ``AiterAttnBackend`` allocates after the KV pool (layers/attention/aiter_backend.py,
    the same in the 0.5.14-0.5.23 wheels), per rank.

    * ``__init__``: the decode workspace (MHA/GQA, unless the Triton unified-attention path is
      on: a sliding-window pool or ``SGLANG_USE_AITER_UNIFIED_ATTN``): ``max_bs`` (the request
      table's size, i.e. the max running requests) × query heads per rank × ceil(context / 256)
      partitions × (head_dim fp32 partial outputs + 2 fp32 softmax statistics);
    * ``init_cuda_graph_state`` (with CUDA graphs): the flat per-token KV indices, graph
      ``max_bs`` × (ceil(context / page) × page + draft tokens) int32; the custom mask,
      graph tokens × context bytes; the unified path's page table, graph ``max_bs`` ×
      ceil(context / page) int32.
    * MLA: no decode workspace; the persistent decode kernel's metadata (on by default, off with
      a non-fp8 KV cache at 16 or 128 padded heads) comes from aiter's ``get_mla_metadata_info_v1``
      (sized from the device's compute units inside aiter): unknown.
    """
    shape = attention_shape(hf)
    cfg = text_config(hf)
    out: list[Allocation] = []
    src = "layers/attention/aiter_backend.py : AiterAttnBackend"
    env = extra.get("env") or {}
    attn_tp = max(1, tp // dp)
    heads = max(1, int(cfg.get("num_attention_heads") or 1) // attn_tp)
    if shape.is_mla:
        # the persistent MLA decode kernel (SGLANG_AITER_MLA_PERSIST, on by default) is turned off
        # with a non-fp8 KV cache at 16 (not zero-padded) or 128 padded heads; without it there
        # is no metadata buffer
        padded = 16 if heads < 16 else heads
        fp8_kv = str(values.get("kv_cache_dtype") or "auto").startswith("fp8")
        persist = str(env.get("SGLANG_AITER_MLA_PERSIST", "true")).lower() in ("1", "true", "yes")
        if persist and not (((padded == 16 and heads != 12) or padded == 128) and not fp8_kv):
            out.append(
                Allocation(
                    "aiter MLA decode metadata",
                    None,
                    "after-pool",
                    src + ".make_mla_decode_meta_data_buffer",
                    unknown="sized inside aiter (get_mla_metadata_info_v1, from the device's compute units and "
                    "the split count): not derivable offline",
                    covered_by_margin=False,
                )
            )
    unified = bool(shape.swa_layers) or str(env.get("SGLANG_USE_AITER_UNIFIED_ATTN", "")).lower() in (
        "1",
        "true",
        "yes",
    )
    partitions = -(-ctx_len // AITER_PARTITION_TOKENS)
    if running and not unified and not shape.is_mla:
        ws = running * heads * partitions * shape.head_dim * 4 + 2 * running * heads * partitions * 4
        out.append(
            Allocation(
                "aiter decode workspace",
                float(ws),
                "after-pool",
                src + ".__init__ (workspace_buffer: max running requests × "
                f"{heads} heads × {partitions} partitions × ({shape.head_dim} + 2) × 4 B)",
            )
        )
    if not values.get("disable_cuda_graph"):  # MHA and MLA alike
        page = int(values.get("page_size") or 1)
        draft = int(values.get("speculative_num_draft_tokens") or 0)
        max_bs = int(extra.get("cuda_graph_max_bs") or default_decode_max_bs(gpu_mib, tp, version))
        blocks = -(-ctx_len // page)
        b = max_bs * (blocks * page + draft) * 4 + max_bs * max(1, draft) * ctx_len
        if unified and not shape.is_mla:
            b += max_bs * blocks * 4
        out.append(
            Allocation(
                "aiter CUDA-graph index buffers",
                float(b),
                "after-pool",
                src + ".init_cuda_graph_state (kv indices int32, custom mask, page table)",
            )
        )
    return tuple(out)


def _after_pool_fix(
    failed: Allocation,
    short: float,
    headroom: float,
    allocations: tuple[Allocation, ...],
    running: int,
    ctx_len: int,
    values: Mapping[str, Any],
    mfs: float,
) -> str:
    """The fix for an allocation after the pool that does not fit: fewer running requests (or a
    shorter context) for the request table, else a lower ``--mem-fraction-static``."""
    after = [a for a in allocations if a.phase == "after-pool" and a.bytes is not None]
    short = max(short, sum(a.bytes if a.exact else (a.low or 0.0) for a in after) - headroom)  # type: ignore[operator]
    if failed.name == "req_to_token table" and failed.bytes:
        per_row = failed.bytes / (running + 1)
        rows = int((failed.bytes - short) // per_row) - 1
        if rows >= 1:
            return f"--max-running-requests {rows} (the request table then takes {(rows + 1) * per_row / GIB:.2f} GiB)"
        cols = int((failed.bytes - short) // ((running + 1) * 4)) - 4
        return f"--context-length {max(1, cols)}"
    total = headroom / (1 - mfs) if mfs < 1 else headroom
    lower = math.floor((mfs - short / total) * 100) / 100 if total else mfs
    return f"--mem-fraction-static {lower:.2f} (leaves {short / GIB:.2f} GiB more after the KV pool)"


def _default_mamba_slots(values: Mapping[str, Any], rest: float, state: float) -> int:
    """``_handle_max_mamba_cache`` without ``--max-mamba-cache-size``: the state pool takes
    ``mamba_full_memory_ratio`` (0.9) of the rest over (1 + ratio), as slots."""
    if state <= 0 or rest <= 0:
        return 0
    asked = values.get("max_running_requests")
    if asked and values.get("disable_radix_cache"):
        return int(asked)
    ratio = 0.9
    return max(1, int(rest * ratio / (1 + ratio) // state))
