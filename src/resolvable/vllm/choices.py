"""Choice lists of the vLLM pack (vLLM 0.33.0 names).

Invariant: names are vLLM's own (``AttentionBackendEnum`` members, ``CacheDType`` literals,
``KVCacheSpecKind`` values, ``CUDAGraphMode`` members), so a value printed here can be passed to
``vllm serve`` unchanged.
"""

from __future__ import annotations

#: ``v1/attention/backends/registry.py : AttentionBackendEnum`` (attention members; CUSTOM and
#: the mamba members are not selectable by the attention selector).
ATTENTION_BACKENDS = (
    "FLASH_ATTN",
    "FLASH_ATTN_DIFFKV",
    "TRITON_ATTN",
    "TRITON_ATTN_DIFFKV",
    "TRITON_FLASH_ATTN",
    "ROCM_ATTN",
    "ROCM_SEGMENTED_ATTN",
    "ROCM_AITER_MLA",
    "ROCM_AITER_TRITON_MLA",
    "ROCM_AITER_FA",
    "ROCM_AITER_MLA_SPARSE",
    "XPU_MLA_SPARSE",
    "TORCH_SDPA",
    "FLASHINFER",
    "TRITON_FLASHINFER",
    "FLASHINFER_MLA",
    "TOKENSPEED_MLA",
    "FLASHINFER_MLA_SPARSE",
    "FLASHINFER_MLA_SPARSE_SM120",
    "FLASHINFER_MLA_SPARSE_SM90",
    "TRITON_MLA",
    "CUTLASS_MLA",
    "FLASHMLA",
    "FLASHMLA_SPARSE",
    "FLASH_ATTN_MLA",
    "FLASH_ATTN_MLA_SPARSE",
    "FLASH_ATTN_MLA_SPARSE_FA4",
    "FLEX_ATTENTION",
    "ROCM_AITER_UNIFIED_ATTN",
    "CPU_ATTN",
    "CPU_MLA",
    "AMX_MLA",
    "TURBOQUANT",
    "ROCM_OCTAVE",
    "ULTRAQUANT",
    # Fixed per model, not selected (the DeepSeek sparse-attention indexer's own backend).
    "DEEPSEEK_V32_INDEXER",
)

#: ``config/cache.py : CacheDType`` (23 literals).
KV_CACHE_DTYPES = (
    "auto",
    "float16",
    "bfloat16",
    "fp8",
    "fp8_e4m3",
    "fp8_e5m2",
    "fp8_inc",
    "fp8_ds_mla",
    "nvfp4_ds_mla",
    "turboquant_k8v4",
    "turboquant_4bit_nc",
    "turboquant_k3v4_nc",
    "turboquant_3bit_nc",
    "octave_k3v4",
    "octave_k3v3",
    "octave_k3v3_compact",
    "ultraquant_4bit",
    "int4_per_token_head",
    "int8_per_token_head",
    "fp8_per_token_head",
    "nvfp4",
    "nvfp4_4over6",
)

#: ``--dtype`` values (``config/model.py : ModelDType``).
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
#: config/model.py:_STR_DTYPE_TO_TORCH_DTYPE: the other spellings of ``--dtype`` and what they are.
DTYPE_SPELLINGS = {"half": "float16", "float": "float32"}

#: ``v1/attention/selector.py : get_attn_spec_kind`` values (``backend_per_kind`` keys).
KINDS = (
    "full_attention",
    "sliding_window",
    "mla_attention",
    "sliding_window_mla",
    "encoder_only_attention",
    "cross_attention",
)

#: ``config/compilation.py : CUDAGraphMode``.
CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")

#: ``v1/attention/backends/mla/prefill/registry.py : MLAPrefillBackendEnum`` (+ ROCm/CPU ones).
MLA_PREFILL_BACKENDS = (
    "FLASH_ATTN",
    "FLASHINFER",
    "TRTLLM_RAGGED",
    "TOKENSPEED_MLA",
    "ROCM_AITER_FA",
    "ZEN_CPU",
    "CPU",
)

#: Optional kernels a vLLM install may or may not have (``resolvable.vllm.kernels``).
KERNELS = (
    "fa2",
    "fa3",
    "fa4",
    "flashmla",
    "flashinfer",
    "flashinfer_cubin",
    "nvidia_artifactory",
    "flashinfer_sparse_mla",
    "tokenspeed_mla",
    "cute_dsl",
    "aiter",
    "amx",
)


def is_quantized_kv(kv_cache_dtype: str | None) -> bool:
    """``v1/kv_cache_interface.py : is_quantized_kv_cache``: anything but auto/fp16/bf16."""
    return kv_cache_dtype not in (None, "auto", "float16", "bfloat16")
