"""What changed between vLLM 0.21.0 and 0.34.0 in attention selection and block size, as data
(and, from ``config/changes.py``, in the engine configuration).

One ``Change`` per behaviour (vllm-config-spec.md §9; each checked against the wheels' source):
the release it arrived in and the upstream file/function. A rule is written once and asks
``ctx.release.has(CHANGES.X)`` (traced: explain names the change); the backend checks, which run
on a ``LayerQuery``, ask ``q.changed(CHANGES.X)`` — the query carries the changes of its
vendor's list (``SELECTION``), read from ``ctx.release`` when the query is built, so the read is
traced on the rule that builds it.

Invariants: the table is the only place a release number appears in the pack's behaviour; a
change listed in ``SELECTION`` under a vendor is every change a backend check of that vendor may
ask about (asking for another one raises, ``LayerQuery.changed``).
"""

from __future__ import annotations

from ..rules import Change, ChangeTable
from .config.changes import CONFIG_CHANGES

CHANGES = ChangeTable(
    "vllm",
    [
        Change(
            "BLOCK_SIZE_ACROSS_BACKENDS",
            "0.31.0",
            upstream="platforms/interface.py : Platform._preferred_block_size_for_backends",
            summary="the block size suits every chosen backend (the default if all accept it, else the "
            "smallest common LCM); 0.30 used the first non-SSM backend's preference only",
        ),
        Change(
            "FA_FP8_SM90_FA4_D512",
            "0.31.0",
            upstream="v1/attention/backends/fa_utils.py : flash_attn_supports_kv_cache_dtype",
            summary="FLASH_ATTN takes an FP8 KV cache on SM90 with FA4 at head size 512 too (0.30: FA3 on "
            "SM90 or FA4 on SM100 only)",
        ),
        Change(
            "FA_SM90_FP8_MM_PREFIX_TRITON",
            "0.31.0",
            upstream="v1/attention/backends/flash_attn.py : FlashAttentionBackend.supports_combination",
            summary='FLASH_ATTN refuses "SM90 FP8 KV with mm_prefix requires Triton"',
        ),
        Change(
            "TRITON_FLASH_ATTN_FA3",
            "0.31.0",
            upstream="v1/attention/backends/triton_flash_attn.py : _FABackend.supports_combination",
            summary="the TRITON_FLASH_ATTN composite's causal route runs on FA3 or FA4 (0.30: FA4 only)",
        ),
        Change(
            "ROCM_ATTN_NO_MM_PREFIX",
            "0.32.0",
            upstream="v1/attention/backends/rocm_attn.py : RocmAttentionBackend.supports_mm_prefix",
            summary='ROCM_ATTN refuses multimodal-prefix layers (Gemma 3, PaliGemma …: "partial multimodal '
            'token full attention not supported"), so ROCm runs them on TRITON_ATTN; 0.31: ROCM_ATTN '
            "takes them",
        ),
        Change(
            "ULTRAQUANT_BACKEND",
            "0.32.0",
            upstream="platforms/rocm.py : _get_backend_priorities",
            summary="ULTRAQUANT is an attention backend (last in the ROCm list)",
        ),
        Change(
            "SPARSE_MLA_BLOCK_MULTIPLES",
            "0.32.0",
            upstream="v1/attention/backends/mla/*sparse*.py : get_supported_kernel_block_sizes",
            summary="sparse MLA kernels take multiples of 32/64 (0.30-0.31: the listed sizes only)",
        ),
        Change(
            "FLASHINFER_NVFP4_CHECKS",
            "0.32.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.supports_combination",
            summary="FLASHINFER refuses an NVFP4 cache at head size 64 or with sinks on SM8x/9x/12x",
        ),
        Change(
            "XPU_FLASH_ATTN_MLA",
            "0.32.0",
            upstream="platforms/xpu.py : XPUPlatform.get_attn_backend_cls",
            summary="XPU MLA can run FLASH_ATTN_MLA (XPUFlashAttnMLABackend); before, always TRITON_MLA",
        ),
        Change(
            "FLASHMLA_SPARSE_HEAD_512",
            "0.31.0",
            upstream="v1/attention/backends/mla/flashmla_sparse.py : FlashMLASparseBackend.get_supported_head_sizes",
            summary="FLASHMLA_SPARSE accepts head size 512 (0.30: 576 only)",
        ),
        Change(
            "FLASHMLA_SPARSE_HEAD_512_FP8",
            "0.32.0",
            upstream="v1/attention/backends/mla/flashmla_sparse.py : FlashMLASparseBackend.supports_combination",
            summary="FLASHMLA_SPARSE head 512 also with an fp8_ds_mla cache (0.31: bf16 only)",
        ),
        Change(
            "SPARSE_MLA_FA4",
            "0.33.0",
            upstream="platforms/cuda.py : _get_backend_priorities",
            summary="FLASH_ATTN_MLA_SPARSE_FA4 exists and leads the SM10x sparse list at <= 16 heads (bf16 cache)",
        ),
        Change(
            "ROCM_OCTAVE_BACKEND",
            "0.33.0",
            upstream="platforms/rocm.py : _get_backend_priorities",
            summary="ROCM_OCTAVE is an attention backend (in the ROCm list before ULTRAQUANT)",
        ),
        Change(
            "XPU_MM_PREFIX_TRITON_FLASH_ATTN",
            "0.33.0",
            upstream="platforms/xpu.py : XPUPlatform.get_attn_backend_cls",
            summary="XPU mm-prefix models with head 256/512 get the TRITON_FLASH_ATTN composite",
        ),
        Change(
            "CPU_KV_DTYPE_CHECKS",
            "0.33.0",
            upstream="platforms/cpu.py : CpuPlatform.get_attn_backend_cls",
            summary="CPU refuses a quantized KV cache for MLA and checks CPU_ATTN's KV dtypes before selection",
        ),
        Change(
            "DEFAULT_BLOCK_SIZE_64",
            "0.34.0",
            upstream="config/cache.py : CacheConfig.DEFAULT_BLOCK_SIZE",
            summary="the default KV-cache block size is 64 (16 before); every backend that accepts 64 prefers it",
        ),
        Change(
            "FA_FP8_MESSAGE_0_34",
            "0.34.0",
            upstream="v1/attention/backends/flash_attn.py : FlashAttentionBackend.supports_combination",
            summary='the FP8 refusal reads "FP8 KV requires FA3 (SM90), equal-d512 FA4 (SM90), or FA4 (SM100)."',
        ),
        Change(
            "ROCM_ATTN_PREFERS_16",
            "0.34.0",
            upstream="v1/attention/backends/rocm_attn.py : RocmAttentionBackend.get_preferred_block_size",
            summary="ROCM_ATTN keeps block size 16 although the default became 64",
        ),
        # 0.29.0 -> 0.30.0 (docs/releases/vllm-0.30.0.md)
        Change(
            "MM_PREFIX_COMPOSITE_BACKENDS",
            "0.30.0",
            upstream="platforms/cuda.py : _get_backend_priorities",
            summary="TRITON_FLASHINFER (and TRITON_FLASH_ATTN on SM90) lead the list for mm-prefix "
            "(bidirectional image) models; 0.29 has neither backend",
        ),
        Change(
            "FLASHINFER_MLA_SPARSE_SM90",
            "0.30.0",
            upstream="platforms/cuda.py : _get_backend_priorities",
            summary="FLASHINFER_MLA_SPARSE_SM90 is in the SM8x/9x sparse MLA list (first at head size 512)",
        ),
        Change(
            "FLASHINFER_SINKS_SM90",
            "0.30.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.supports_sink",
            summary="FLASHINFER serves attention sinks on SM90 through TRTLLM decode (0.29: SM10x/SM12x only)",
        ),
        # 0.27.1 -> 0.28.0 and 0.28.0 -> 0.29.0 (docs/releases/vllm-0.28.0.md)
        Change(
            "FA4_HD256_KERNEL",
            "0.29.0",
            upstream="v1/attention/backends/fa_utils.py : get_flash_attn_version, uses_fa4_hd256_kernel",
            summary="FA4 runs head 256 on SM10x/SM11x with its head-256 kernel (block 128; FA2 with sinks, "
            "soft-capping, a quantized cache, mm-prefix, ...); before, no such kernel and FLASH_ATTN "
            "blocks are multiples of 16",
        ),
        Change(
            "FA4_HD256_OFF",
            "0.28.0",
            upstream="v1/attention/backends/fa_utils.py : get_flash_attn_version",
            summary="FA4 on Blackwell at head 256 falls back to FA2 on every layer (0.27: only on "
            "sliding-window layers, requires_local_attention)",
        ),
        Change(
            "TRTLLM_XQA_SM120",
            "0.28.0",
            upstream="utils/flashinfer.py : supports_trtllm_attention",
            summary="SM12x has the XQA decode kernel (TRTLLM decode, FLASHINFER sinks, UNIFORM_BATCH "
            "graphs); 0.27: SM90 decode and SM10x only",
        ),
        Change(
            "CPU_MLA_BACKEND",
            "0.28.0",
            upstream="platforms/cpu.py : CpuPlatform.get_attn_backend_cls",
            summary="MLA runs on CPU (the reference CPU_MLA backend, block 16); 0.27 refuses "
            '"MLA is not supported on CPU."',
        ),
        # 0.20.2 -> 0.21.0 (docs/releases/vllm-0.21.0.md)
        Change(
            "MLA_PREFILL_SELECTOR",
            "0.21.0",
            upstream="v1/attention/backends/mla/prefill/selector.py : get_mla_prefill_backend",
            summary="the MLA prefill backend is a selection (candidates with checks, SM10x list); 0.20 "
            "has no prefill package: MLACommonImpl takes FlashAttention unless a deprecated "
            "attention-config flag opts into TRT-LLM ragged, FlashInfer or cuDNN "
            "(layers/attention/mla_attention.py)",
        ),
        Change(
            "FLEX_BATCH_INVARIANT",
            "0.21.0",
            upstream="v1/attention/backends/flex_attention.py : FlexAttentionBackend.supports_batch_invariance",
            summary="FLEX_ATTENTION supports batch invariance (VLLM_BATCH_INVARIANT=1); 0.20 refuses it",
        ),
        Change(
            "FA4_SM90_LARGE_HEAD_IN_FA_UTILS",
            "0.21.0",
            upstream="v1/attention/backends/fa_utils.py : get_flash_attn_version",
            summary="FA3 at head size over 256 on SM90 moves to FA4 inside get_flash_attn_version (when FA4 "
            "is supported, before the batch-invariance step); 0.20's FlashAttentionImpl.__init__ "
            "forces FA4 afterwards, whatever FA4 support or batch invariance say",
        ),
        Change(
            "TOKENSPEED_MLA_BACKEND",
            "0.21.0",
            upstream="v1/attention/backends/registry.py : AttentionBackendEnum.TOKENSPEED_MLA; "
            "platforms/cuda.py : _get_backend_priorities",
            summary="TOKENSPEED_MLA is a backend (second on SM10x MLA); 0.20's enum has no such member",
        ),
        Change(
            "FLASHINFER_NVFP4_KV",
            "0.21.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.supported_kv_cache_dtypes",
            summary="FLASHINFER reads an nvfp4 KV cache; 0.20 does not list it",
        ),
        # 0.21.0 -> 0.22.0 (docs/releases/vllm-0.22.0.md)
        Change(
            "FA_FP8_E4M3_ONLY",
            "0.22.0",
            upstream="v1/attention/backends/flash_attn.py : FlashAttentionBackend.supports_kv_cache_dtype",
            summary="FLASH_ATTN reads fp8/fp8_e4m3 caches only; 0.21 takes any quantized cache (fp8_e5m2, "
            "fp8_inc, *_per_token_head, nvfp4) when FA3 runs on SM90 (fa_utils.flash_attn_supports_fp8)",
        ),
        Change(
            "FLASHINFER_HEAD_512",
            "0.22.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.get_supported_head_sizes",
            summary="FLASHINFER takes head size 512; 0.21: 64, 128, 256",
        ),
        # 0.22.1 -> 0.23.0 (docs/releases/vllm-0.23.0.md)
        Change(
            "KV_CONNECTOR_CHECK",
            "0.23.0",
            upstream="v1/attention/backend.py : supports_kv_connector, validate_configuration; "
            "platforms/rocm.py : _get_backend_priorities",
            summary="with a KV connector ROCM_ATTN is left out of the ROCm list and refused when selected "
            '("KV connector not supported"); 0.22: no such check, ROCM_ATTN first',
        ),
        # 0.23.0 -> 0.24.0 (docs/releases/vllm-0.24.0.md)
        Change(
            "FLASHINFER_MLA_SPARSE_SM120_BACKEND",
            "0.24.0",
            upstream="platforms/cuda.py : _get_backend_priorities",
            summary="SM12x MLA has its own list (TRITON_MLA, FLASHINFER_MLA_SPARSE_SM120); 0.23: the SM8x/9x "
            "list, no sparse MLA backend for SM12x",
        ),
        Change(
            "FLASHINFER_SM80_FLOOR",
            "0.24.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.supports_compute_capability",
            summary="FLASHINFER needs SM 8.0 (SM75 is broken upstream); 0.23: SM 7.5 and up",
        ),
        Change(
            "FA_MM_PREFIX",
            "0.24.0",
            upstream="v1/attention/backends/flash_attn.py : FlashAttentionBackend.supports_mm_prefix",
            summary="FLASH_ATTN serves mm-prefix (bidirectional image) layers with FA4; 0.23: never",
        ),
        Change(
            "FLASHINFER_LARGE_PAGES",
            "0.24.0",
            upstream="v1/attention/backends/flashinfer.py : FlashInferBackend.get_supported_kernel_block_sizes",
            summary="FLASHINFER takes blocks up to 1024 on SM10x GQA with TRTLLM; 0.23: 16, 32, 64",
        ),
        Change(
            "NON_CAUSAL_FLASHINFER_TRITON",
            "0.24.0",
            upstream="v1/attention/backends/{flashinfer,triton_attn}.py : supports_non_causal",
            summary="FLASHINFER and TRITON_ATTN serve non-causal (DFlash) decoder layers; 0.23: FLASH_ATTN, "
            "FLEX_ATTENTION and the ROCm backends only",
        ),
        # 0.24.0 -> 0.25.0 (docs/releases/vllm-0.25.0.md)
        Change(
            "FLASH_ATTN_MLA_SPARSE_BACKEND",
            "0.25.0",
            upstream="platforms/cuda.py : _get_backend_priorities; v1/attention/backends/registry.py : "
            "AttentionBackendEnum",
            summary="FLASH_ATTN_MLA_SPARSE exists and leads the SM8x/9x sparse MLA list; 0.24: FLASHMLA_SPARSE "
            'only, and the name is refused ("Unknown attention backend")',
        ),
        Change(
            "ROCM_MLA_PREFILL_AITER_FA",
            "0.25.0",
            upstream="v1/attention/backends/mla/prefill/selector.py : _get_mla_prefill_backend_priorities",
            summary="ROCm's MLA prefill list is ROCM_AITER_FA, FLASH_ATTN; 0.24 has no ROCM_AITER_FA prefill "
            "backend and takes the device-capability list (FLASH_ATTN only on MI300/MI355)",
        ),
        # 0.25.1 -> 0.26.0 (docs/releases/vllm-0.26.0.md)
        Change(
            "MLA_PREFILL_FA_DIMS",
            "0.26.0",
            upstream="v1/attention/backends/mla/prefill/flash_attn.py : supports_mla_dimensions",
            summary="FLASH_ATTN MLA prefill takes only the DeepSeek, GLM and Mistral dimensions (GLM not under "
            "FA4); 0.25: any dimensions",
        ),
        Change(
            "SM100_NON_CAUSAL_FA_FIRST",
            "0.26.0",
            upstream="platforms/cuda.py : _get_backend_priorities",
            summary="non-causal (DFlash) layers on SM10x use the SM90 order (FLASH_ATTN first); 0.25: the "
            "SM10x order (FLASHINFER first)",
        ),
        Change(
            "SLIDING_WINDOW_CHECK",
            "0.26.0",
            upstream="v1/attention/backend.py : AttentionBackend.supports_sliding_window, validate_configuration",
            summary='a backend without sliding-window support refuses such layers ("sliding window not '
            'supported"); 0.25 has no such check',
        ),
        Change(
            "ROCM_ATTN_ENCODER_DECODER_MODEL",
            "0.26.0",
            upstream="platforms/rocm.py : RocmPlatform.get_valid_backends (model_config.attn_type)",
            summary="an encoder-decoder model (Whisper, BART …) leaves ROCM_ATTN out of the ROCm list for "
            "every layer, its decoder and encoder self-attention too; 0.25: only the cross-attention "
            "layers lose it (supports_attn_type)",
        ),
        # 0.26.0 -> 0.27.0 (docs/releases/vllm-0.27.0.md)
        Change(
            "FA4_HD256_ON",
            "0.27.0",
            upstream="v1/attention/backends/fa_utils.py : get_flash_attn_version",
            summary="FA4 on Blackwell exempts head 256 and 192/128 from its TMEM limit (FA2 on sliding-window "
            "layers only at 256); 0.26: FA2 at head 256, any head 192 exempt",
        ),
        Change(
            "FA_FP8_FA4_SM100",
            "0.27.0",
            upstream="v1/attention/backends/fa_utils.py : flash_attn_supports_kv_cache_dtype",
            summary="FLASH_ATTN takes an FP8 cache with FA4 on SM100 and checks it per layer "
            '("FP8 KV cache requires FA3 on SM90 or FA4 on SM100"); 0.26: FA3 on SM90 only',
        ),
        Change(
            "MLA_PREFILL_GLM_DIMS",
            "0.27.0",
            upstream="v1/attention/backends/mla/prefill/selector.py : _get_mla_prefill_backend_priorities; "
            "prefill/flash_attn.py : supports_mla_dimensions",
            summary="MLA dims (192, 64, 256) (GLM): TRTLLM_RAGGED first on SM10x and FLASH_ATTN prefill takes "
            "them under FA4; 0.26: FLASH_ATTN first, refusing them when the model's FA version is 4",
        ),
        *CONFIG_CHANGES,  # the engine-configuration changes (config/changes.py, vllm-config-spec.md §8)
    ],
)


def _sparse(q) -> bool:
    return bool(q.use_sparse)


def _quantized(q) -> bool:
    kv = q.kv_cache_dtype or "auto"
    return kv not in ("auto", "float16", "bfloat16", "float32")


#: MLA dimensions every release's FLASH_ATTN prefill takes (DeepSeek, Mistral Small 4)
_COMMON_MLA_DIMS = ((128, 64, 128), (64, 64, 128))


def _always(q) -> bool:
    return True


#: The changes a backend check of each vendor may ask about (``LayerQuery.changes``), each with
#: the layers it can matter for: only those reads are traced (explain names them), the others are
#: answered from the table without a trace.
SELECTION = {
    "cuda": (
        (CHANGES.MM_PREFIX_COMPOSITE_BACKENDS, lambda q: q.use_mm_prefix and not q.use_mla),
        (CHANGES.FLASHINFER_MLA_SPARSE_SM90, lambda q: q.use_sparse and q.major not in (10, 12)),
        (CHANGES.FLASHINFER_SINKS_SM90, lambda q: q.has_sink and q.major == 9),
        (CHANGES.FA4_HD256_KERNEL, lambda q: q.head_size == 256 and q.major >= 10),
        (CHANGES.FA4_HD256_OFF, lambda q: q.head_size == 256 and q.major >= 10),
        (CHANGES.FA4_HD256_ON, lambda q: q.head_size in (192, 256) and q.major >= 10),
        (CHANGES.FA_FP8_FA4_SM100, _quantized),
        (CHANGES.MLA_PREFILL_GLM_DIMS, lambda q: q.use_mla and q.v_head_dim == 256),
        # traced only where FLASH_ATTN prefill's answer can differ (not DeepSeek's or Mistral's dims)
        (
            CHANGES.MLA_PREFILL_FA_DIMS,
            lambda q: (
                q.use_mla and (q.qk_nope_head_dim, q.qk_rope_head_dim, q.v_head_dim) not in _COMMON_MLA_DIMS
            ),
        ),
        (CHANGES.SM100_NON_CAUSAL_FA_FIRST, lambda q: q.use_non_causal and q.major == 10),
        (CHANGES.SLIDING_WINDOW_CHECK, lambda q: q.has_sliding_window),
        (CHANGES.FLASH_ATTN_MLA_SPARSE_BACKEND, lambda q: q.use_sparse and q.major not in (10, 12)),
        (CHANGES.FLEX_BATCH_INVARIANT, lambda q: q.use_batch_invariant),
        (
            CHANGES.FA4_SM90_LARGE_HEAD_IN_FA_UTILS,
            lambda q: not q.use_mla and q.major == 9 and q.head_size is not None and q.head_size > 256,
        ),
        (CHANGES.TOKENSPEED_MLA_BACKEND, lambda q: q.use_mla and q.major == 10),
        (CHANGES.FLASHINFER_NVFP4_KV, lambda q: (q.kv_cache_dtype or "").startswith("nvfp4")),
        (CHANGES.FA_FP8_E4M3_ONLY, lambda q: _quantized(q) and q.major == 9),
        (CHANGES.FLASHINFER_HEAD_512, lambda q: q.head_size == 512),
        (CHANGES.FLASHINFER_MLA_SPARSE_SM120_BACKEND, lambda q: q.use_mla and q.major == 12),
        (CHANGES.FLASHINFER_SM80_FLOOR, lambda q: q.major == 7),
        (CHANGES.FA_MM_PREFIX, lambda q: q.use_mm_prefix),
        (
            CHANGES.FLASHINFER_LARGE_PAGES,
            lambda q: q.major == 10 and q.block_size is not None and q.block_size > 64,
        ),
        (CHANGES.NON_CAUSAL_FLASHINFER_TRITON, lambda q: q.use_non_causal),
        (CHANGES.TRTLLM_XQA_SM120, lambda q: q.major == 12),
        (CHANGES.FA_FP8_SM90_FA4_D512, lambda q: _quantized(q) and q.major == 9),
        (CHANGES.FA_SM90_FP8_MM_PREFIX_TRITON, lambda q: _quantized(q) and q.use_mm_prefix and q.major == 9),
        (CHANGES.FA_FP8_MESSAGE_0_34, _quantized),
        (CHANGES.FLASHINFER_NVFP4_CHECKS, lambda q: (q.kv_cache_dtype or "").startswith("nvfp4")),
        (CHANGES.TRITON_FLASH_ATTN_FA3, lambda q: q.use_mm_prefix and q.major == 9),
        (CHANGES.SPARSE_MLA_FA4, lambda q: q.use_sparse and q.major == 10),
        (CHANGES.SPARSE_MLA_BLOCK_MULTIPLES, _sparse),
        (CHANGES.FLASHMLA_SPARSE_HEAD_512, _sparse),
        (CHANGES.FLASHMLA_SPARSE_HEAD_512_FP8, _sparse),
    ),
    "hip": (
        (CHANGES.KV_CONNECTOR_CHECK, lambda q: q.use_kv_connector),
        (CHANGES.ROCM_ATTN_ENCODER_DECODER_MODEL, lambda q: q.is_encoder_decoder and not q.use_mla),
        (CHANGES.ROCM_ATTN_NO_MM_PREFIX, lambda q: q.use_mm_prefix and not q.use_mla),
        (CHANGES.ROCM_MLA_PREFILL_AITER_FA, lambda q: q.use_mla),
        (CHANGES.ULTRAQUANT_BACKEND, lambda q: not q.use_mla),
        (CHANGES.SLIDING_WINDOW_CHECK, lambda q: q.has_sliding_window),
        (CHANGES.ROCM_OCTAVE_BACKEND, lambda q: not q.use_mla),
        (CHANGES.ROCM_ATTN_PREFERS_16, lambda q: not q.use_mla),
    ),
    "xpu": (
        (CHANGES.XPU_FLASH_ATTN_MLA, lambda q: q.use_mla),
        (CHANGES.SLIDING_WINDOW_CHECK, lambda q: q.has_sliding_window),
        (CHANGES.XPU_MM_PREFIX_TRITON_FLASH_ATTN, lambda q: q.use_mm_prefix),
    ),
    "cpu": (
        (CHANGES.CPU_KV_DTYPE_CHECKS, _always),
        (CHANGES.SLIDING_WINDOW_CHECK, lambda q: q.has_sliding_window),
        (CHANGES.CPU_MLA_BACKEND, lambda q: q.use_mla),
        (CHANGES.CPU_AMX_MLA, lambda q: q.use_mla and q.has("amx")),
    ),
}
