"""The CUDA candidate backends of vLLM 0.33.0 (spec §3.1 capability table), as declarations.

Each entry restates one backend class's overridden hooks; the file and class are named in its
``doc``. Invariant: everything a check reads is in the ``LayerQuery`` (platform, install, HF
dims, run flags), so the same declarations give the capability table and the selection.
"""

from __future__ import annotations

from .. import fa_version as FA
from ..changes import CHANGES
from ..choices import is_quantized_kv
from ..query import LayerQuery
from ._spec import Backend, M, backend, combo, said

_FP8 = ("fp8", "fp8_e4m3")
_BASE_KV = ("auto", "float16", "bfloat16")
_MLA_HEADS = (320, 512, 576)


# -- TRTLLM availability (utils/flashinfer.py) -------------------------------------------------
def supports_trtllm(q: LayerQuery, *, prefill: bool) -> bool:
    """``supports_trtllm_attention``: no batch invariance, cubins reachable, SM90/SM12x decode, SM10x both."""
    if q.use_batch_invariant or not (q.has("flashinfer_cubin") or q.has("nvidia_artifactory")):
        return False
    if q.is_cc(9, 0) or (q.family(120) and q.changed(CHANGES.TRTLLM_XQA_SM120)):
        return not prefill
    return q.family(100)


def can_use_trtllm(q: LayerQuery, *, prefill: bool) -> bool:
    """``can_use_trtllm_attention``: not forced off, supported, heads divisible by KV heads."""
    if q.use_trtllm is False:
        return False
    return supports_trtllm(q, prefill=prefill) and q.num_kv_heads > 0 and q.num_heads % q.num_kv_heads == 0


def has_flashinfer(q: LayerQuery) -> bool:
    """``utils/flashinfer.py : has_flashinfer``: importable, with cubins (or a JIT toolchain)."""
    return q.has("flashinfer") and q.has("flashinfer_cubin")


# -- FLASH_ATTN (v1/attention/backends/flash_attn.py : FlashAttentionBackend) -------------------
def _fa_sm90_fp8_block(q: LayerQuery) -> int | None:
    if (
        q.family(90)
        and q.cache_dtype in _FP8
        and q.head_size == 512
        and FA.flash_attn_version(q, head_size=q.head_size) == 4
    ):
        return 64
    return None


def _fa_hd256_block(q: LayerQuery) -> int | None:
    if (
        FA.uses_fa4_hd256_kernel(q, q.head_size, None)
        and q.changed(CHANGES.FA4_HD256_KERNEL)
        and FA.flash_attn_version(q, head_size=q.head_size, supports_fa4_hd256=True) == 4
    ):
        return FA.FA4_HD256_PAGE_SIZE
    return None


def fa_block_sizes(q: LayerQuery) -> tuple:
    """M16; 64 (SM90 FA4 fp8 head 512); 128 (FA4 head-256 kernel); M64 on XPU"""
    if q.vendor == "xpu":
        return (M(64),)
    size = _fa_sm90_fp8_block(q) or _fa_hd256_block(q)
    return (size,) if size else (M(16),)


def _fa_preferred(q: LayerQuery, default: int) -> int:
    size = _fa_sm90_fp8_block(q) or _fa_hd256_block(q)
    if size:
        return max(default, size)
    if q.vendor == "xpu":
        return max(default, 64)
    return default


def fa_head_ok(q: LayerQuery, head: int) -> bool:
    """multiple of 8, <= 256 (<= 512 with FA4 or on XPU)"""
    if head % 8:
        return False
    if head <= 256:
        return True
    return head <= 512 and (q.vendor == "xpu" or FA.fa_supported(q, 4))


def fa_kv_ok(q: LayerQuery, kv: str) -> bool:
    """auto, float16, bfloat16; fp8/fp8_e4m3 with FA3 on SM90 or FA4 on SM90/SM100 (0.21: any
    quantized cache with FA3 on SM90)"""
    if is_quantized_kv(kv) and not q.changed(CHANGES.FA_FP8_E4M3_ONLY):  # 0.21 : flash_attn_supports_fp8
        return q.vendor == "xpu" or (FA.model_fa_version(q) == 3 and q.family(90))
    if kv not in (*_BASE_KV, *_FP8):
        return False
    return not is_quantized_kv(kv) or FA.supports_kv_cache_dtype(q, kv)


def _composite_fa(q: LayerQuery) -> int | None:
    return FA.flash_attn_version(
        q, head_size=q.head_size, has_sinks=q.has_sink, block_size=q.block_size, supports_fa4_hd256=True
    )


def _fi_nvfp4(q: LayerQuery) -> bool:
    """An NVFP4 cache on SM8x/9x/12x, where 0.32+ FlashInfer checks it (CHANGES.FLASHINFER_NVFP4_CHECKS)."""
    return (
        (q.kv_cache_dtype or "").startswith("nvfp4")
        and q.major in (8, 9, 12)
        and q.changed(CHANGES.FLASHINFER_NVFP4_CHECKS)
    )


def _fa_fp8_refused(q: LayerQuery) -> bool:
    """``flash_attn.py : supports_combination``: a quantized cache FA cannot read at this head size
    (a per-layer check from 0.27, CHANGES.FA_FP8_FA4_SM100; 0.26 reads the model-level version)."""
    if not is_quantized_kv(q.kv_cache_dtype) or not q.changed(CHANGES.FA_FP8_FA4_SM100):
        return False
    return not FA.supports_kv_cache_dtype(
        q,
        q.kv_cache_dtype,
        head_size=q.head_size,
        head_size_v=q.head_size,
        has_sinks=q.has_sink,
        block_size=q.block_size,
        supports_fa4_hd256=True,
    )


def fa_sink(q: LayerQuery) -> bool:
    """FA3 or FA4"""
    return FA.supports_sinks(q)


def fa_per_head(q: LayerQuery) -> bool:
    """FA >= 3"""
    version = FA.model_fa_version(q)
    return version is not None and version >= 3


def fa_mm_prefix(q: LayerQuery) -> bool:
    """FA4 available (0.24+)"""
    return q.changed(CHANGES.FA_MM_PREFIX) and FA.fa_supported(q, 4)


def fa_cg(q: LayerQuery) -> str:
    return "ALWAYS" if FA.model_fa_version(q) in (3, 4) or q.vendor == "xpu" else "UNIFORM_BATCH"


FLASH_ATTN = backend(
    "FLASH_ATTN",
    kv_ok=fa_kv_ok,
    head_ok=fa_head_ok,
    block_sizes=fa_block_sizes,
    preferred=_fa_preferred,
    sink=fa_sink,
    mm_prefix=fa_mm_prefix,
    per_head_scales=fa_per_head,
    cc=lambda q: q.cc_at_least(8, 0),
    cc_text=">= 8.0",
    attn_types=("decoder", "encoder", "encoder_only", "encoder_decoder"),
    sliding_window=True,
    rswa=True,
    non_causal=True,
    batch_invariant=True,
    dcp=True,
    combination=(
        combo(
            "sink not supported on compute capability < 9.0", lambda q: q.has_sink and not q.cc_at_least(9, 0)
        ),
        combo(
            "SM90 FP8 KV with mm_prefix requires Triton",
            lambda q: (
                q.use_mm_prefix
                and is_quantized_kv(q.kv_cache_dtype)
                and q.is_cc(9, 0)
                and q.changed(CHANGES.FA_SM90_FP8_MM_PREFIX_TRITON)
            ),
        ),
        # One refusal, worded per release (0.30; 0.31-0.33; 0.34).
        combo(
            "FP8 KV cache requires FA3 on SM90 or FA4 on SM100",
            lambda q: _fa_fp8_refused(q) and not q.changed(CHANGES.FA_FP8_SM90_FA4_D512),
        ),
        combo(
            "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100",
            lambda q: (
                _fa_fp8_refused(q)
                and q.changed(CHANGES.FA_FP8_SM90_FA4_D512)
                and not q.changed(CHANGES.FA_FP8_MESSAGE_0_34)
            ),
        ),
        combo(
            "FP8 KV requires FA3 (SM90), equal-d512 FA4 (SM90), or FA4 (SM100).",
            lambda q: _fa_fp8_refused(q) and q.changed(CHANGES.FA_FP8_MESSAGE_0_34),
        ),
        combo(
            "mm_prefix (PrefixLM bidirectional attention) requires FlashAttention v4, which does not "
            "resolve for this head_size",
            lambda q: (
                q.use_mm_prefix
                and q.changed(CHANGES.FA_MM_PREFIX)
                and FA.flash_attn_version(
                    q,
                    head_size=q.head_size,
                    has_sinks=q.has_sink,
                    block_size=q.block_size,
                    supports_fa4_hd256=True,
                )
                != 4
            ),
        ),
    ),
    cg_support=fa_cg,
    doc="v1/attention/backends/flash_attn.py : FlashAttentionBackend",
)


def non_causal_0_24(q: LayerQuery) -> bool:
    """from 0.24"""
    return q.changed(CHANGES.NON_CAUSAL_FLASHINFER_TRITON)


# -- FLASHINFER (v1/attention/backends/flashinfer.py : FlashInferBackend) -----------------------
def fi_block_sizes(q: LayerQuery) -> tuple:
    """16, 32, 64; up to 1024 on SM10x GQA with TRTLLM (0.24+)"""
    large = (
        q.changed(CHANGES.FLASHINFER_LARGE_PAGES)
        and q.num_kv_heads > 0
        and q.num_heads // q.num_kv_heads > 1
        and q.family(100)
        and can_use_trtllm(q, prefill=False)
    )
    return (16, 32, 64, 128, 256, 512, 1024) if large else (16, 32, 64)


def fi_kv_ok(q: LayerQuery, kv: str) -> bool:
    """+ fp8_e5m2, nvfp4 (SM10x with TRTLLM prefill and decode)"""
    if kv.startswith("nvfp4"):
        if not q.changed(CHANGES.FLASHINFER_NVFP4_KV):  # 0.20: not in supported_kv_cache_dtypes
            return False
        return q.family(100) and supports_trtllm(q, prefill=True) and supports_trtllm(q, prefill=False)
    return kv in (*_BASE_KV, *_FP8, "fp8_e5m2", "nvfp4", "nvfp4_4over6")


def fi_sink(q: LayerQuery) -> bool:
    """SM90/SM12x: TRTLLM decode; SM10x: TRTLLM prefill and decode"""
    if q.use_trtllm is False:
        return False
    if (q.is_cc(9, 0) and q.changed(CHANGES.FLASHINFER_SINKS_SM90)) or (
        q.family(120) and q.changed(CHANGES.TRTLLM_XQA_SM120)
    ):
        return supports_trtllm(q, prefill=False)
    if not q.family(100):
        return False
    return supports_trtllm(q, prefill=False) and supports_trtllm(q, prefill=True)


def fi_cg(q: LayerQuery) -> str:
    if q.dcp_size > 1:
        return "UNIFORM_SINGLE_TOKEN_DECODE"
    return "UNIFORM_BATCH" if can_use_trtllm(q, prefill=False) else "UNIFORM_SINGLE_TOKEN_DECODE"


FLASHINFER = backend(
    "FLASHINFER",
    kv_ok=fi_kv_ok,
    head_sizes=said(
        "64, 128, 256, 512 (0.21: no 512)",
        lambda q: (64, 128, 256, 512) if q.changed(CHANGES.FLASHINFER_HEAD_512) else (64, 128, 256),
    ),
    block_sizes=fi_block_sizes,
    sink=fi_sink,
    cc=lambda q: (
        (q.cc_at_least(8, 0) or (q.cc_at_least(7, 5) and not q.changed(CHANGES.FLASHINFER_SM80_FLOOR)))
        and not q.cc_at_least(12, 2)
    ),
    cc_text="8.0 ... 12.1 (0.23: 7.5 ... 12.1)",
    sliding_window=True,
    non_causal=non_causal_0_24,
    dcp=True,
    combination=(
        combo(
            "fa2 prefill misreads an NVFP4 KV cache at head_size 64",
            lambda q: _fi_nvfp4(q) and q.head_size == 64,
        ),
        combo(
            "the sink prefill wrapper cannot read an NVFP4 KV cache",
            lambda q: _fi_nvfp4(q) and q.has_sink,
        ),
    ),
    requires=(("flashinfer", "ImportError: No module named 'flashinfer'"),),
    cg_support=fi_cg,
    doc="v1/attention/backends/flashinfer.py : FlashInferBackend",
)

_TRITON_KV = (
    *_BASE_KV,
    *_FP8,
    "fp8_e5m2",
    "int4_per_token_head",
    "int8_per_token_head",
    "fp8_per_token_head",
)

TRITON_ATTN = backend(
    "TRITON_ATTN",
    dtypes=("float16", "bfloat16", "float32"),
    kv_dtypes=_TRITON_KV,
    head_ok=said(">= 32", lambda q, h: h >= 32),
    block_sizes=(M(16),),
    sink=True,
    mm_prefix=True,
    attn_types=("decoder", "encoder", "encoder_only", "encoder_decoder"),
    sliding_window=True,
    rswa=True,
    non_causal=non_causal_0_24,
    batch_invariant=True,
    cg_support="ALWAYS",
    doc="v1/attention/backends/triton_attn.py : TritonAttentionBackend",
)

FLEX_ATTENTION = backend(
    "FLEX_ATTENTION",
    dtypes=("float16", "bfloat16", "float32"),
    kv_dtypes=_BASE_KV,
    block_sizes=(M(16),),
    mm_prefix=True,
    attn_types=("decoder", "encoder_only"),
    sliding_window=True,
    rswa=True,
    non_causal=True,
    batch_invariant=said("yes (0.21+; 0.20: no)", lambda q: q.changed(CHANGES.FLEX_BATCH_INVARIANT)),
    cg_support="ALWAYS",
    doc="v1/attention/backends/flex_attention.py : FlexAttentionBackend",
)

TURBOQUANT = backend(
    "TURBOQUANT",
    kv_ok=said("turboquant_* only", lambda q, kv: kv.startswith("turboquant_")),
    head_ok=said("> 0", lambda q, h: h > 0),
    block_sizes=(16, 32, 64, 128),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/turboquant_attn.py : TurboQuantAttentionBackend",
)

TRITON_FLASHINFER = backend(
    "TRITON_FLASHINFER",
    kv_ok=said("FlashInfer and Triton both", lambda q, kv: fi_kv_ok(q, kv) and kv in _TRITON_KV),
    head_sizes=(256, 512),
    block_sizes=(64,),
    mm_prefix=True,
    sink=fi_sink,
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    sliding_window=True,
    requires=(("flashinfer", "ImportError: No module named 'flashinfer'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/triton_flashinfer.py (composite: Triton for image batches, FlashInfer causal)",
)

TRITON_FLASH_ATTN = backend(
    "TRITON_FLASH_ATTN",
    kv_ok=fa_kv_ok,
    head_sizes=(256, 512),
    block_sizes=(M(16),),
    mm_prefix=True,
    sink=fa_sink,
    cc=lambda q: q.major == 9,
    cc_text="major 9",
    sliding_window=True,
    combination=(
        # triton_flash_attn.py : _FABackend.supports_combination (0.31+: FA3 or FA4; 0.30: FA4 only).
        combo(
            "causal route requires FlashAttention v4",
            lambda q: not q.changed(CHANGES.TRITON_FLASH_ATTN_FA3) and _composite_fa(q) != 4,
        ),
        combo(
            "causal route requires FlashAttention v3 or v4",
            lambda q: q.changed(CHANGES.TRITON_FLASH_ATTN_FA3) and _composite_fa(q) not in (3, 4),
        ),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/triton_flash_attn.py (composite: Triton for image batches, FA3/FA4 causal)",
)


# -- MLA (v1/attention/backends/mla/*.py; base MLACommonBackend) --------------------------------
def _mla(name: str, **kw) -> Backend:
    kw.setdefault("head_sizes", _MLA_HEADS)
    return backend(name, mla=True, **kw)


FLASHINFER_MLA = _mla(
    "FLASHINFER_MLA",
    kv_dtypes=(*_BASE_KV, *_FP8),
    block_sizes=(32, 64),
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    non_causal=True,
    dcp=True,
    combination=(
        combo(
            "FlashInfer MLA kernel requires qk_nope_head_dim in [64, 128, 192]",
            lambda q: q.qk_nope_head_dim not in (64, 128, 192),
        ),
    ),
    requires=(("flashinfer", "ImportError: No module named 'flashinfer'"),),
    cg_support="ALWAYS",
    doc="v1/attention/backends/mla/flashinfer_mla.py : FlashInferMLABackend",
)

TOKENSPEED_MLA = _mla(
    "TOKENSPEED_MLA",
    kv_dtypes=_FP8,
    block_sizes=(32, 64),
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    non_causal=True,
    combination=(
        combo("tokenspeed_mla package is not installed", lambda q: not q.has("tokenspeed_mla")),
        combo(
            "tokenspeed_mla requires DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, "
            "v_head_dim=128)",
            lambda q: (q.qk_nope_head_dim, q.qk_rope_head_dim, q.v_head_dim) != (128, 64, 128),
        ),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/tokenspeed_mla.py : TokenspeedMLABackend",
)

CUTLASS_MLA = _mla(
    "CUTLASS_MLA",
    kv_dtypes=(*_BASE_KV, *_FP8),
    block_sizes=(128,),
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    dcp=True,
    cg_support="UNIFORM_SINGLE_TOKEN_DECODE",
    doc="v1/attention/backends/mla/cutlass_mla.py : CutlassMLABackend",
)

FLASH_ATTN_MLA = _mla(
    "FLASH_ATTN_MLA",
    kv_dtypes=_BASE_KV,
    block_sizes=(M(16),),
    cc=lambda q: q.major == 9,
    cc_text="major 9",
    batch_invariant=True,
    dcp=True,
    combination=(combo("FlashAttention MLA not supported on this device", lambda q: not FA.supports_mla(q)),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashattn_mla.py : FlashAttnMLABackend",
)


FLASHMLA = _mla(
    "FLASHMLA",
    kv_dtypes=(*_BASE_KV, *_FP8),
    block_sizes=(64,),
    cc=lambda q: q.major in (9, 10),
    cc_text="major 9 or 10 (dense: Hopper only)",
    dcp=True,
    combination=(
        combo("vllm._flashmla_C is not available", lambda q: not q.has("flashmla")),
        combo(
            "FlashMLA Sparse is only supported on Hopper and Blackwell DC devices.",
            lambda q: q.use_sparse and not (q.family(90) or q.family(100)),
        ),
        combo(
            "FlashMLA Dense is only supported on Hopper devices.",
            lambda q: not q.use_sparse and not q.family(90),
        ),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashmla.py : FlashMLABackend",
)

TRITON_MLA = _mla(
    "TRITON_MLA",
    kv_dtypes=(*_BASE_KV, *_FP8),
    head_sizes=(),
    block_sizes=(M(16),),
    batch_invariant=True,
    non_causal=True,
    dcp=True,
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/triton_mla.py : TritonMLABackend",
)


# -- sparse MLA -----------------------------------------------------------------------------------
def _fi_sparse_dims(q: LayerQuery) -> str | None:
    if q.qk_rope_head_dim == 0:
        if q.qk_nope_head_dim != 256 or q.kv_lora_rank != 512:
            return "FlashInfer native no-rope MLA requires qk_nope_head_dim=256 and kv_lora_rank=512"
        return None
    if q.qk_nope_head_dim not in (128, 192):
        return "FlashInfer MLA Sparse kernel requires qk_nope_head_dim in [128, 192]"
    return None


_FI_SPARSE_COMBINATION = (
    combo(
        "FLASHINFER_MLA_SPARSE does not support combined PCP+DCP",
        lambda q: q.pcp_size > 1 and q.dcp_size > 1,
    ),
    combo(
        "FLASHINFER_MLA_SPARSE SM10 does not support fp8_ds_mla kv-cache dtype",
        lambda q: q.kv_cache_dtype == "fp8_ds_mla",
    ),
    combo("FlashInfer MLA Sparse: unsupported MLA dims", lambda q: _fi_sparse_dims(q) is not None),
    combo("FlashInfer MLA Sparse requires model with index_topk config", lambda q: q.index_topk is None),
)

FLASHINFER_MLA_SPARSE = _mla(
    "FLASHINFER_MLA_SPARSE",
    sparse=True,
    kv_dtypes=(*_BASE_KV, *_FP8),
    head_sizes=(512, 576),
    block_sizes=said(
        "M32 (0.30-0.31: 32, 64)",
        lambda q: (M(32),) if q.changed(CHANGES.SPARSE_MLA_BLOCK_MULTIPLES) else (32, 64),
    ),
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    dcp=True,
    pcp=True,
    combination=_FI_SPARSE_COMBINATION,
    requires=(("flashinfer", "ImportError: No module named 'flashinfer'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashinfer_mla_sparse.py : FlashInferMLASparseTRTLLMBackend",
)


def _fa4_sparse_heads(q: LayerQuery) -> bool:
    counts = (8, 16, 32, 64) if q.dcp_size > 1 else (8, 16, 32, 64, 128)
    return q.num_heads * q.dcp_size not in counts


FLASH_ATTN_MLA_SPARSE_FA4 = _mla(
    "FLASH_ATTN_MLA_SPARSE_FA4",
    sparse=True,
    dtypes=("bfloat16",),
    kv_dtypes=("auto", "bfloat16"),
    head_sizes=(576,),
    block_sizes=(M(64),),
    cc=lambda q: q.major == 10,
    cc_text="major 10",
    dcp=True,
    pcp=True,
    combination=(
        combo(
            "FA4 sparse MLA runs its prefill batches on FlashInfer's kernel", lambda q: not has_flashinfer(q)
        ),
        combo(
            "FA4 sparse MLA needs the cute-DSL FlashAttention 4 interface", lambda q: not q.has("cute_dsl")
        ),
        combo(
            "FA4 sparse MLA requires index_topk % 128 == 0",
            lambda q: q.index_topk is None or q.index_topk % 128 != 0,
        ),
        combo(
            "FA4 sparse MLA requires (kv_lora_rank, qk_rope_head_dim) == (512, 64)",
            lambda q: (q.kv_lora_rank, q.qk_rope_head_dim) != (512, 64),
        ),
        combo("FA4 sparse MLA requires 8-128 gathered query heads", _fa4_sparse_heads),
        *_FI_SPARSE_COMBINATION,
    ),
    requires=(("flashinfer", "ImportError: No module named 'flashinfer'"),),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashattn_mla_sparse.py : FlashAttnMLASparseFA4Backend",
)


def _flashmla_sparse_512(q: LayerQuery) -> bool:
    if q.head_size != 512:
        return False
    # 0.31 takes head 512 with a bf16 cache only; fp8_ds_mla from 0.32 (FLASHMLA_SPARSE_HEAD_512_FP8).
    kvs = (
        "auto",
        "bfloat16",
        "float16",
        *(("fp8_ds_mla",) if q.changed(CHANGES.FLASHMLA_SPARSE_HEAD_512_FP8) else ()),
    )
    if (q.kv_cache_dtype is None or q.kv_cache_dtype in kvs) and q.major == 9:
        return q.qk_rope_head_dim != 0
    return True


FLASHMLA_SPARSE = _mla(
    "FLASHMLA_SPARSE",
    sparse=True,
    dtypes=("bfloat16",),
    kv_dtypes=("auto", "bfloat16", "fp8_ds_mla", "fp8", "nvfp4_ds_mla"),
    head_ok=said(
        "576; 512 from 0.31",
        lambda q, h: h == 576 or (h == 512 and q.changed(CHANGES.FLASHMLA_SPARSE_HEAD_512)),
    ),
    block_sizes=said(
        "M64; 64 with a quantized cache on SM10x (0.30-0.31: 64)",
        lambda q: (
            (64,)
            if not q.changed(CHANGES.SPARSE_MLA_BLOCK_MULTIPLES)
            or (is_quantized_kv(q.cache_dtype) and q.family(100))
            else (M(64),)
        ),
    ),
    cc=lambda q: q.major in (9, 10),
    cc_text="major 9 or 10",
    dcp=True,
    pcp=True,
    combination=(
        combo(
            "FLASHMLA_SPARSE supports head_size 512 only with bf16 or fp8_ds_mla kv-cache on SM90 (NoPE)",
            _flashmla_sparse_512,
        ),
        combo(
            "FLASHMLA_SPARSE only supports the nvfp4_ds_mla kv-cache dtype on SM100 (Blackwell)",
            lambda q: q.kv_cache_dtype == "nvfp4_ds_mla" and q.major != 10,
        ),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashmla_sparse.py : FlashMLASparseBackend",
)

FLASHINFER_MLA_SPARSE_SM120 = _mla(
    "FLASHINFER_MLA_SPARSE_SM120",
    sparse=True,
    dtypes=("bfloat16",),
    kv_dtypes=("auto", "fp8", "fp8_e4m3", "fp8_ds_mla"),
    head_sizes=(512, 576),
    block_sizes=said(
        "M64 (0.30-0.31: 64, 256)",
        lambda q: (M(64),) if q.changed(CHANGES.SPARSE_MLA_BLOCK_MULTIPLES) else (64, 256),
    ),
    cc=lambda q: q.major == 12,
    cc_text="major 12",
    combination=(
        combo(
            "FLASHINFER_MLA_SPARSE_SM120 requires FlashInfer's sparse MLA decode API",
            lambda q: not (q.has("flashinfer") and q.has("flashinfer_sparse_mla")),
        ),
        combo("FLASHINFER_MLA_SPARSE_SM120 requires index_topk == 2048", lambda q: q.index_topk != 2048),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashinfer_mla_sparse_sm120.py : FlashInferMLASparseSM120Backend",
)

FLASH_ATTN_MLA_SPARSE = _mla(
    "FLASH_ATTN_MLA_SPARSE",
    sparse=True,
    kv_dtypes=_BASE_KV,
    head_sizes=(),
    block_sizes=said(
        "M64 (0.30-0.31: 64)",
        lambda q: (M(64),) if q.changed(CHANGES.SPARSE_MLA_BLOCK_MULTIPLES) else (64,),
    ),
    cc=lambda q: q.major == 9,
    cc_text="major 9",
    pcp=True,
    combination=(
        combo("FlashAttention MLA not supported on this device", lambda q: not FA.supports_mla(q)),
        combo("FlashAttention MLA Sparse does not support DCP for now", lambda q: q.dcp_size > 1),
        combo("FlashAttention MLA Sparse requires model with index_topk", lambda q: q.index_topk is None),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashattn_mla_sparse.py : FlashAttnMLASparseBackend",
)

FLASHINFER_MLA_SPARSE_SM90 = _mla(
    "FLASHINFER_MLA_SPARSE_SM90",
    sparse=True,
    dtypes=("bfloat16",),
    kv_dtypes=("auto", "bfloat16", *_FP8),
    head_sizes=(512, 576),
    block_sizes=(M(64),),
    cc=lambda q: q.major == 9,
    cc_text="major 9",
    combination=(
        combo(
            "FLASHINFER_MLA_SPARSE_SM90 requires FlashInfer with SM90 MLA support (FlashInfer >= 0.6.18)",
            lambda q: not (q.has("flashinfer") and q.has("flashinfer_sparse_mla")),
        ),
        combo("FLASHINFER_MLA_SPARSE_SM90 requires kv_lora_rank=512", lambda q: q.kv_lora_rank != 512),
        combo(
            "FLASHINFER_MLA_SPARSE_SM90 requires qk_rope_head_dim in (0, 64)",
            lambda q: q.qk_rope_head_dim not in (0, 64),
        ),
    ),
    cg_support="UNIFORM_BATCH",
    doc="v1/attention/backends/mla/flashinfer_mla_sparse_sm90.py : FlashInferMLASparseSM90Backend",
)

#: The indexer of DeepSeek sparse attention: a fixed backend, not selected (mla/indexer.py).
DEEPSEEK_V32_INDEXER = backend(
    "DEEPSEEK_V32_INDEXER",
    head_sizes=(32, 64, 128),
    block_sizes=said("64; 1 or M16 on ROCm", lambda q: (1, M(16)) if q.vendor == "hip" else (64,)),
    cg_support="ALWAYS",
    doc="v1/attention/backends/mla/indexer.py : DeepseekV32IndexerBackend (fixed, not selected)",
)

BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        FLASH_ATTN,
        FLASHINFER,
        TRITON_ATTN,
        FLEX_ATTENTION,
        TURBOQUANT,
        TRITON_FLASHINFER,
        TRITON_FLASH_ATTN,
        FLASHINFER_MLA,
        TOKENSPEED_MLA,
        CUTLASS_MLA,
        FLASH_ATTN_MLA,
        FLASHMLA,
        TRITON_MLA,
        FLASHINFER_MLA_SPARSE,
        FLASH_ATTN_MLA_SPARSE_FA4,
        FLASHMLA_SPARSE,
        FLASHINFER_MLA_SPARSE_SM120,
        FLASH_ATTN_MLA_SPARSE,
        FLASHINFER_MLA_SPARSE_SM90,
        DEEPSEEK_V32_INDEXER,
    )
}


def priorities(q: LayerQuery) -> list[str]:
    """``platforms/cuda.py : _get_backend_priorities`` (8 list shapes; spec §3.1)."""
    if q.use_mla:
        if q.major == 10:
            if is_quantized_kv(q.kv_cache_dtype):
                sparse = ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]
            elif q.num_heads is not None and q.num_heads <= 16:
                sparse = ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]
                if q.changed(CHANGES.SPARSE_MLA_FA4):  # 0.33: FA4 first at low head counts
                    sparse.insert(0, "FLASH_ATTN_MLA_SPARSE_FA4")
            else:
                sparse = ["FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE"]
            return [
                "FLASHINFER_MLA",
                *(["TOKENSPEED_MLA"] if q.changed(CHANGES.TOKENSPEED_MLA_BACKEND) else []),  # 0.20: none
                "CUTLASS_MLA",
                "FLASH_ATTN_MLA",
                "FLASHMLA",
                "TRITON_MLA",
                *sparse,
            ]
        if q.major == 12 and q.changed(CHANGES.FLASHINFER_MLA_SPARSE_SM120_BACKEND):
            return ["TRITON_MLA", "FLASHINFER_MLA_SPARSE_SM120"]
        tail = ["FLASHMLA_SPARSE"]
        if q.changed(CHANGES.FLASH_ATTN_MLA_SPARSE_BACKEND):  # 0.24: not a backend yet
            tail.insert(0, "FLASH_ATTN_MLA_SPARSE")
        if q.changed(CHANGES.FLASHINFER_MLA_SPARSE_SM90):  # 0.29: not a backend yet
            if q.head_size == 512:
                tail.insert(0, "FLASHINFER_MLA_SPARSE_SM90")
            else:
                tail.append("FLASHINFER_MLA_SPARSE_SM90")
        return ["FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA", "TRITON_MLA", *tail]
    # non-causal layers on SM10x prefer FLASH_ATTN from 0.26 (CHANGES.SM100_NON_CAUSAL_FA_FIRST)
    if q.major == 10 and not (q.use_non_causal and q.changed(CHANGES.SM100_NON_CAUSAL_FA_FIRST)):
        return [
            *(
                ["TRITON_FLASHINFER"]
                if q.use_mm_prefix and q.changed(CHANGES.MM_PREFIX_COMPOSITE_BACKENDS)
                else []
            ),
            "FLASHINFER",
            "FLASH_ATTN",
            "TRITON_ATTN",
            "FLEX_ATTENTION",
            "TURBOQUANT",
        ]
    return [
        *(
            ["TRITON_FLASH_ATTN"]
            if q.major == 9 and q.use_mm_prefix and q.changed(CHANGES.MM_PREFIX_COMPOSITE_BACKENDS)
            else []
        ),
        "FLASH_ATTN",
        "FLASHINFER",
        "TRITON_ATTN",
        "FLEX_ATTENTION",
        "TURBOQUANT",
    ]
