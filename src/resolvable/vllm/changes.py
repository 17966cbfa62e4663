"""What changed between vLLM 0.30.0 and 0.34.0 in attention selection and block size, as data.

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
            "ROCM_ATTN_PREFERS_16",
            "0.34.0",
            upstream="v1/attention/backends/rocm_attn.py : RocmAttentionBackend.get_preferred_block_size",
            summary="ROCM_ATTN keeps block size 16 although the default became 64",
        ),
    ],
)

#: The changes a backend check of each vendor may ask about (``LayerQuery.changes``).
SELECTION = {
    "cuda": (
        CHANGES.SPARSE_MLA_FA4,
        CHANGES.SPARSE_MLA_BLOCK_MULTIPLES,
        CHANGES.FLASHMLA_SPARSE_HEAD_512,
        CHANGES.FLASHMLA_SPARSE_HEAD_512_FP8,
    ),
    "hip": (CHANGES.ULTRAQUANT_BACKEND, CHANGES.ROCM_OCTAVE_BACKEND, CHANGES.ROCM_ATTN_PREFERS_16),
    "xpu": (CHANGES.XPU_FLASH_ATTN_MLA, CHANGES.XPU_MM_PREFIX_TRITON_FLASH_ATTN),
    "cpu": (CHANGES.CPU_KV_DTYPE_CHECKS,),
}
