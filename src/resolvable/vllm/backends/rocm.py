"""The ROCm candidate backends of vLLM 0.33.0 and their priority list (spec §3.2).

``platforms/rocm.py : _get_backend_priorities`` and the ROCm backend classes. TRITON_ATTN and
TRITON_MLA are the CUDA declarations (the same classes). Invariant: ``aiter`` (installed) and
the ``VLLM_ROCM_USE_AITER*`` switches come through the query, never from the process.
"""

from __future__ import annotations

from ..changes import CHANGES
from ..query import LayerQuery
from ._spec import Backend, M, backend, preferred_block, said
from .cuda import TRITON_ATTN, TRITON_MLA, TURBOQUANT

_BASE_KV = ("auto", "float16", "bfloat16")
_FP8 = ("fp8", "fp8_e4m3", "fp8_e5m2")


def cdna_version(q: LayerQuery) -> int:
    """``platforms/rocm.py : get_cdna_version`` from the gfx arch."""
    arch = q.gcn_arch or ""
    for prefix, version in (("gfx90a", 2), ("gfx942", 3), ("gfx950", 4), ("gfx1250", 5)):
        if arch.startswith(prefix):
            return version
    return 0


def on_rdna4(q: LayerQuery) -> bool:
    return (q.gcn_arch or "").startswith("gfx12") and not (q.gcn_arch or "").startswith("gfx125")


def aiter_found_and_supported(q: LayerQuery) -> bool:
    """``_aiter_ops.is_aiter_found_and_supported``: aiter installed on CDNA3 or newer."""
    return q.has("aiter") and cdna_version(q) >= 3


def aiter_enabled(q: LayerQuery) -> bool:
    """``rocm_aiter_ops.is_enabled``: VLLM_ROCM_USE_AITER=1 (and aiter usable)."""
    return q.flag("VLLM_ROCM_USE_AITER") and aiter_found_and_supported(q)


ROCM_ATTN = backend(
    "ROCM_ATTN",
    dtypes=("float16", "bfloat16", "float32"),
    kv_dtypes=(*_BASE_KV, *_FP8),
    head_sizes=(32, 64, 80, 96, 128, 160, 192, 224, 256),
    block_sizes=(M(16),),
    # 0.34 keeps the native 16-token kernel when the default became 64 (CHANGES.ROCM_ATTN_PREFERS_16).
    preferred=said(
        "16 from 0.34, else the default",
        lambda q, default: (
            16 if q.changed(CHANGES.ROCM_ATTN_PREFERS_16) else preferred_block((M(16),), default)
        ),
    ),
    non_causal=True,
    kv_connector=False,
    sliding_window=True,
    # supports_mm_prefix: True through 0.31, False ("Not implemented") from 0.32
    mm_prefix=said("through 0.31 (not from 0.32)", lambda q: not q.changed(CHANGES.ROCM_ATTN_NO_MM_PREFIX)),
    attn_types=("decoder", "encoder", "encoder_only"),
    cg_support="ALWAYS",
    doc="v1/attention/backends/rocm_attn.py : RocmAttentionBackend",
)

ROCM_AITER_FA = backend(
    "ROCM_AITER_FA",
    kv_dtypes=(*_BASE_KV, *_FP8),
    head_sizes=(64, 128, 256),
    block_sizes=(16, 32),
    sink=True,
    cc=lambda q: cdna_version(q) > 2,
    cc_text="CDNA3+ (gfx942, gfx950)",
    sliding_window=True,
    non_causal=True,
    requires=(("aiter", "ImportError: No module named 'aiter'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/rocm_aiter_fa.py : AiterFlashAttentionBackend",
)

ROCM_AITER_UNIFIED_ATTN = backend(
    "ROCM_AITER_UNIFIED_ATTN",
    kv_dtypes=(*_BASE_KV, *_FP8),
    head_ok=said(">= 32", lambda q, h: h >= 32),
    block_sizes=(M(16),),
    preferred=lambda q, default: 64,
    sink=True,
    sliding_window=True,
    attn_types=("decoder", "encoder", "encoder_only", "encoder_decoder"),
    requires=(("aiter", "ImportError: No module named 'aiter'"),),
    cg_support="ALWAYS",
    doc="v1/attention/backends/rocm_aiter_unified_attn.py : RocmAiterUnifiedAttentionBackend",
)

ROCM_AITER_MLA = backend(
    "ROCM_AITER_MLA",
    mla=True,
    kv_dtypes=(*_BASE_KV, *_FP8),
    block_sizes=(M(1),),
    requires=(("aiter", "ImportError: No module named 'aiter'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/rocm_aiter_mla.py : AiterMLABackend",
)

ROCM_AITER_TRITON_MLA = backend(
    "ROCM_AITER_TRITON_MLA",
    mla=True,
    kv_dtypes=(*_BASE_KV, *_FP8),
    block_sizes=(M(1),),
    requires=(("aiter", "ImportError: No module named 'aiter'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/aiter_triton_mla.py : AiterTritonMLABackend",
)

ROCM_AITER_MLA_SPARSE = backend(
    "ROCM_AITER_MLA_SPARSE",
    mla=True,
    sparse=True,
    kv_dtypes=(*_BASE_KV, "fp8", "fp8_e4m3"),
    block_sizes=(1, M(16)),
    sink=said("on MI3xx", lambda q: cdna_version(q) in (3, 4)),
    requires=(("aiter", "ImportError: No module named 'aiter'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/rocm_aiter_mla_sparse.py : ROCMAiterMLASparseBackend",
)

ROCM_OCTAVE = backend(
    "ROCM_OCTAVE",
    kv_dtypes=("octave_k3v4", "octave_k3v3", "octave_k3v3_compact"),
    block_sizes=(M(16),),
    cc=lambda q: q.vendor == "hip" and cdna_version(q) >= 3,
    cc_text="CDNA3+",
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/rocm_octave_attn.py : RocmOctaveAttentionBackend",
)

ULTRAQUANT = backend(
    "ULTRAQUANT",
    dtypes=("bfloat16",),
    kv_dtypes=("ultraquant_4bit",),
    block_sizes=(64,),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/ultraquant_attn.py : UltraQuantAttentionBackend",
)

BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        ROCM_ATTN,
        ROCM_AITER_FA,
        ROCM_AITER_UNIFIED_ATTN,
        ROCM_AITER_MLA,
        ROCM_AITER_TRITON_MLA,
        ROCM_AITER_MLA_SPARSE,
        ROCM_OCTAVE,
        ULTRAQUANT,
        TRITON_ATTN,
        TRITON_MLA,
        TURBOQUANT,
    )
}


def priorities(q: LayerQuery) -> list[str]:
    """``platforms/rocm.py : _get_backend_priorities`` (+ the encoder-decoder ROCM_ATTN removal of
    ``RocmPlatform.get_valid_backends``: the cross-attention layers always, every layer of an
    encoder-decoder model from 0.26, CHANGES.ROCM_ATTN_ENCODER_DECODER_MODEL)."""
    if q.use_sparse:
        return ["ROCM_AITER_MLA_SPARSE"]
    if q.use_mla:
        if aiter_enabled(q) and q.flag("VLLM_ROCM_USE_AITER_MLA"):
            return ["ROCM_AITER_MLA", "TRITON_MLA", "ROCM_AITER_TRITON_MLA"]
        return ["TRITON_MLA"]
    out: list[str] = []
    # KV connectors exclude ROCM_ATTN from 0.23 (CHANGES.KV_CONNECTOR_CHECK)
    encoder_decoder_model = q.is_encoder_decoder and q.changed(CHANGES.ROCM_ATTN_ENCODER_DECODER_MODEL)
    if (
        (not q.use_kv_connector or not q.changed(CHANGES.KV_CONNECTOR_CHECK))
        and q.attn_type != "encoder_decoder"
        and not encoder_decoder_model
    ):
        out.append("ROCM_ATTN")
    if aiter_enabled(q) and q.flag("VLLM_ROCM_USE_AITER_MHA"):
        out.append("ROCM_AITER_FA")
    if aiter_found_and_supported(q):
        out.append("ROCM_AITER_UNIFIED_ATTN")
    elif q.has("aiter") and on_rdna4(q) and q.flag("VLLM_ROCM_USE_AITER"):
        out.insert(0, "ROCM_AITER_UNIFIED_ATTN")
    tail = ["TRITON_ATTN", "TURBOQUANT"]
    if q.changed(CHANGES.ROCM_OCTAVE_BACKEND):
        tail.append("ROCM_OCTAVE")
    if q.changed(CHANGES.ULTRAQUANT_BACKEND):
        tail.append("ULTRAQUANT")
    return [*out, *tail]
