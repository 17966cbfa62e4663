"""FlashAttention version (2/3/4), and the FA facts FLASH_ATTN's checks depend on (spec §3.1).

Pure re-statements of ``v1/attention/backends/fa_utils.py`` (``get_flash_attn_version``,
``flash_attn_supports_kv_cache_dtype``, ``flash_attn_supports_sinks``, ``flash_attn_supports_mla``,
``uses_fa4_hd256_kernel``) and ``vllm_flash_attn/flash_attn_interface.py``
(``_is_fa2/3/4_supported``), over a ``LayerQuery``. Invariant: no function here reads anything
but its arguments.
"""

from __future__ import annotations

from .changes import CHANGES
from .choices import is_quantized_kv
from .query import LayerQuery

FA4_HD256_PAGE_SIZE = 128


def fa_supported(q: LayerQuery, version: int) -> bool:
    """``flash_attn_interface.is_fa_version_supported``: the build is present and the cc fits."""
    if q.vendor != "cuda":
        return False
    if version == 2:
        return q.has("fa2") and q.cc_at_least(8, 0)
    if version == 3:
        return q.has("fa3") and q.family(90)
    if version == 4:
        return q.has("fa4") and (q.family(90) or q.family(100) or q.family(110))
    return False


def uses_fa4_hd256_kernel(q: LayerQuery, head_size: int | None, head_size_v: int | None) -> bool:
    """``fa_utils.uses_fa4_hd256_kernel``: head 256 (K and V) on SM10x/SM11x."""
    if head_size != 256 or (head_size_v is not None and head_size_v != 256):
        return False
    return q.cc is not None and q.cc[0] in (10, 11)


def _hd256_fallback(q: LayerQuery, has_sinks: bool, block_size: int | None) -> str | None:
    """``fa_utils._fa4_hd256_fallback_reason``."""
    if has_sinks:
        return "attention sinks"
    if q.softcap:
        return "logits soft capping"
    if is_quantized_kv(q.cache_dtype):
        return f"quantized KV cache dtype {q.cache_dtype}"
    if block_size is not None and block_size % FA4_HD256_PAGE_SIZE:
        return f"a KV cache block size of {block_size}"
    if q.use_mm_prefix:
        return "mm_prefix bidirectional attention"
    if q.use_rswa:
        return "R-SWA"
    if q.dcp_size > 1:
        return "decode context parallelism"
    return None


def flash_attn_version(
    q: LayerQuery,
    *,
    head_size: int | None = None,
    head_size_v: int | None = None,
    has_sinks: bool = False,
    requires_alibi: bool = False,
    block_size: int | None = None,
    supports_fa4_hd256: bool = False,
    local: bool = False,
) -> int | None:
    """``fa_utils.get_flash_attn_version`` (spec §3.1, rules 1-9); None when unsupported.
    ``local`` is 0.27's ``requires_local_attention`` (a sliding-window layer)."""
    if q.vendor == "xpu":
        return 2
    if q.vendor != "cuda":
        return None
    # 1. default per platform
    if q.major == 9 and fa_supported(q, 3):
        version = 3
    elif q.major == 10 and fa_supported(q, 4):
        version = 4
    else:
        version = 2
    # 2. attention_config.flash_attn_version
    if q.flash_attn_version_cfg is not None:
        version = q.flash_attn_version_cfg
    # 3. no FA3 on Blackwell
    if q.major >= 10 and version == 3:
        version = 4 if fa_supported(q, 4) else 2
    # 4. ALiBi
    if requires_alibi and version in (3, 4):
        version = 2
    # 5. SM90 cases FA3 cannot run move to FA4 (a head over 256 from 0.21,
    # CHANGES.FA4_SM90_LARGE_HEAD_IN_FA_UTILS; 0.20 does it in FlashAttentionImpl, impl_version)
    if (
        version == 3
        and q.major == 9
        and fa_supported(q, 4)
        and (
            (head_size is not None and head_size > 256 and q.changed(CHANGES.FA4_SM90_LARGE_HEAD_IN_FA_UTILS))
            or (has_sinks and head_size is not None and head_size_v is not None and head_size != head_size_v)
            or q.is_diffusion
        )
    ):
        version = 4
    # 6. batch invariance
    if q.use_batch_invariant and version == 4:
        version = 2
    # 7. head 256 on Blackwell: the FA4 head-256 kernel from 0.29 (CHANGES.FA4_HD256_KERNEL); 0.28
    # turned FA4 off at head 256, 0.27 for sliding-window layers only (CHANGES.FA4_HD256_OFF), 0.26
    # under the TMEM limit of rule 8 (no head-256 exemption before CHANGES.FA4_HD256_ON)
    hd256_kernel = q.major < 10 or head_size != 256 or q.changed(CHANGES.FA4_HD256_KERNEL)
    if hd256_kernel:
        if (
            version == 4
            and uses_fa4_hd256_kernel(q, head_size, head_size_v)
            and (not supports_fa4_hd256 or _hd256_fallback(q, has_sinks, block_size) is not None)
        ):
            version = 2
    elif version == 4 and (local or q.changed(CHANGES.FA4_HD256_OFF) or not q.changed(CHANGES.FA4_HD256_ON)):
        version = 2
    # 8. TMEM limits on Blackwell (head 256 exempt; 0.29+ only with a head-256 V)
    if (
        version == 4
        and q.major >= 10
        and head_size is not None
        and head_size > 128
        and not (
            (head_size == 256 and (head_size_v in (None, 256) or not hd256_kernel))
            or (head_size == 192 and (head_size_v == 128 or not q.changed(CHANGES.FA4_HD256_ON)))
        )
    ):
        version = 2
    # 9. must be supported
    return version if fa_supported(q, version) else None


def impl_version(q: LayerQuery, version: int | None, head_size: int | None) -> int | None:
    """The version ``FlashAttentionImpl`` runs: 0.20's ``__init__`` (flash_attn.py) moves FA3 to
    FA4 on SM90 for a head over 256 after ``get_flash_attn_version``, whatever FA4 support or
    batch invariance say; from 0.21 the function does it (CHANGES.FA4_SM90_LARGE_HEAD_IN_FA_UTILS)."""
    if (
        version == 3
        and q.vendor == "cuda"
        and q.major == 9
        and head_size is not None
        and head_size > 256
        and not q.changed(CHANGES.FA4_SM90_LARGE_HEAD_IN_FA_UTILS)
    ):
        return 4
    return version


def model_fa_version(q: LayerQuery) -> int | None:
    """The version FLASH_ATTN reports with no per-layer arguments (``get_flash_attn_version()``),
    as read by ``supports_sink``/``supports_per_head_quant_scales``."""
    return flash_attn_version(q)


def supports_kv_cache_dtype(q: LayerQuery, kv_cache_dtype: str, **kwargs: object) -> bool:
    """``fa_utils.flash_attn_supports_kv_cache_dtype``."""
    if kv_cache_dtype == "fp8_e5m2":
        return False
    if q.vendor == "xpu":
        return True
    version = flash_attn_version(q, **kwargs)  # type: ignore[arg-type]
    head_size = kwargs.get("head_size")
    # FA4 at head size 512 on SM90 from 0.31 (CHANGES.FA_FP8_SM90_FA4_D512; asked only on SM90).
    fa4_d512 = q.family(90) and version == 4 and head_size in (None, 512)
    sm90_ok = version == 3 or (fa4_d512 and q.changed(CHANGES.FA_FP8_SM90_FA4_D512))
    # FA4 on SM100 from 0.27 (CHANGES.FA_FP8_FA4_SM100; asked only for a quantized cache)
    sm100_ok = version == 4 and q.family(100) and q.changed(CHANGES.FA_FP8_FA4_SM100)
    return (sm90_ok and q.family(90)) or sm100_ok


def supports_sinks(q: LayerQuery) -> bool:
    """``fa_utils.flash_attn_supports_sinks``."""
    if q.vendor == "xpu":
        return True
    return model_fa_version(q) in (3, 4)


def supports_mla(q: LayerQuery) -> bool:
    """``fa_utils.flash_attn_supports_mla``: FA3 on SM9x (CUDA); always on XPU."""
    if q.vendor == "cuda":
        return fa_supported(q, 3) and q.family(90)
    return q.vendor == "xpu"
