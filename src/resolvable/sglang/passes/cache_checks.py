"""Cache-setting checks of ``ServerArgs`` (sglang 0.5.15 step 23, ``_handle_cache_compatibility``;
since 0.5.17 also HiCache and PD decode with decode context parallelism).

Invariant: refusals only. They read the values after the speculative hook and before dLLM
(step 24), as sglang does, so e.g. deterministic flashinfer's radix-cache disable (step 12)
meets ``--enable-hierarchical-cache`` here.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..facts import is_mla


@registry.rule("cache_compat")
def cache_compatibility(ctx):
    """Hierarchical cache and a disabled radix cache exclude each other; the SWA full-token
    ratio must be in (0, 1]."""
    args = ctx.args
    if args.enable_hierarchical_cache and args.disable_radix_cache:
        raise ConflictError(
            "The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive "
            "and cannot be used at the same time. Please use only one of them.",
            fields=("enable_hierarchical_cache", "disable_radix_cache"),
            fix=Fix.any_of(
                Fix(drop=("enable_hierarchical_cache",)),
                Fix(set={"disable_radix_cache": True}),
                text="drop --enable-hierarchical-cache or --disable-radix-cache",
            ),
        )
    if not 0 < args.swa_full_tokens_ratio <= 1.0:
        raise ConflictError(
            "--swa-full-tokens-ratio should be in range (0, 1.0].",
            fields=("swa_full_tokens_ratio",),
            fix=Fix.any_of(
                Fix(set={"swa_full_tokens_ratio": 0.0}),
                Fix(set={"swa_full_tokens_ratio": 1.0}),
                text="pass --swa-full-tokens-ratio between 0 (exclusive) and 1",
            ),
        )
    return {}


@registry.rule("device", since="0.5.17", until="0.5.21")
def pd_decode_dcp_cache(ctx):
    """0.5.17 to 0.5.20 ``pd_disaggregation_hook.handle_pd_disaggregation``: a PD decode server
    with decode context parallelism needs the chunk cache, so the hierarchical cache is refused.
    (Its other two conditions, a mooncake/nixl transfer backend and no decode radix cache, hold at
    sglang's defaults; those flags are not pack fields.) 0.5.21 drops the refusal (its
    docs/releases/0.5.21.md #19)."""
    args = ctx.args
    if args.disaggregation_mode == "decode" and args.dcp_size > 1 and args.enable_hierarchical_cache:
        raise ConflictError(
            "PD decode DCP currently requires chunk cache; --enable-hierarchical-cache is not supported.",
            fields=("disaggregation_mode", "dcp_size", "enable_hierarchical_cache"),
            fix=Fix(
                drop=("enable_hierarchical_cache",),
                text="drop --enable-hierarchical-cache (or --dcp-size) on the decode server",
            ),
        )
    return {}


@registry.rule("parallelism", since="0.5.17", only_if_set=("dcp_size",))
def hicache_dcp_compatibility(ctx):
    """0.5.17 ``server_args._handle_hicache`` step 3 (``_resolve_hicache_dcp_compatibility``):
    HiCache with ``dcp_size > 1`` is L1/L2 only, without speculative decoding, LMCache or
    HiSparse, and for MLA models only (``NotImplementedError``). The L3 storage backend is not a
    pack field. sglang runs it just before data parallelism; here it runs after the MoE checks."""
    args = ctx.args
    if args.dcp_size <= 1 or not args.enable_hierarchical_cache:
        return {}
    refusals = (
        (
            args.speculative_algorithm is not None,
            "HiCache with --dcp-size > 1 does not support speculative decoding yet (the draft-model host "
            "pool has no DCP index translation).",
            "speculative_algorithm",
        ),
        (
            args.enable_lmcache,
            "--enable-lmcache with --dcp-size > 1 is not supported: LMCache has no DCP-aware index translation.",
            "enable_lmcache",
        ),
        (
            args.enable_hisparse,
            "--enable-hisparse with --dcp-size > 1 is not supported: the HiSparse host pool is constructed "
            "without DCP translation.",
            "enable_hisparse",
        ),
        (
            not is_mla(ctx.hf, ctx.release),
            "HiCache with --dcp-size > 1 is only supported for MLA models: the index translation lives in "
            "MLATokenToKVPoolHost, and the MHA host pool has none.",
            "enable_hierarchical_cache",
        ),
    )
    for refused, message, field in refusals:
        if refused:
            raise ConflictError(
                message,
                fields=("dcp_size", "enable_hierarchical_cache", field),
                fix=Fix(
                    drop=("enable_hierarchical_cache",), text="drop --enable-hierarchical-cache or --dcp-size"
                ),
                upstream="NotImplementedError",
            )
    return {}


def _lmcache_refusal(message: str, fields: tuple[str, ...], fix: str | Fix, upstream: str) -> ConflictError:
    return ConflictError(message, fields=("enable_lmcache", *fields), fix=fix, upstream=upstream)


@registry.rule("cache_compat", since="0.5.21", only_if_set=("enable_lmcache",))
def lmcache_compatibility(ctx):
    """Since 0.5.21 (``arg_groups/kv_cache_hook.handle_cache_compatibility``, after the SWA
    ratio check): ``--enable-lmcache`` excludes the hierarchical cache and needs the radix cache;
    the LMCache radix cache does not support speculation, DP attention, DCP or PD disaggregation
    (``NotImplementedError``). The external-linker, streaming-session and ``buffer_only`` checks
    read flags the pack does not have."""
    args = ctx.args
    if not args.enable_lmcache:
        return {}
    if args.enable_hierarchical_cache:
        raise _lmcache_refusal(
            "--enable-lmcache and --enable-hierarchical-cache are mutually exclusive",
            ("enable_hierarchical_cache",),
            Fix(drop=("enable_lmcache",)) | Fix(drop=("enable_hierarchical_cache",)),
            "ValueError",
        )
    if args.disable_radix_cache:
        raise _lmcache_refusal(
            "--enable-lmcache requires radix cache to be enabled",
            ("disable_radix_cache",),
            Fix(drop=("disable_radix_cache",)) | Fix(drop=("enable_lmcache",)),
            "ValueError",
        )
    if args.speculative_algorithm is not None:
        raise _lmcache_refusal(
            "LMCacheUnifiedRadixCache does not yet support speculative decoding",
            ("speculative_algorithm",),
            Fix(drop=("enable_lmcache",)) | Fix(drop=("speculative_algorithm",)),
            "NotImplementedError",
        )
    if args.enable_dp_attention:
        raise _lmcache_refusal(
            "LMCacheUnifiedRadixCache does not yet support DP attention",
            ("enable_dp_attention",),
            Fix(drop=("enable_lmcache",)) | Fix(drop=("enable_dp_attention",)),
            "NotImplementedError",
        )
    if args.dcp_size > 1:
        raise _lmcache_refusal(
            "--enable-lmcache with --dcp-size > 1 is not supported: LMCache has no DCP-aware index "
            "translation",
            ("dcp_size",),
            Fix.any_of(
                Fix(set={"dcp_size": 1}),
                Fix(drop=("enable_lmcache",)),
                text="pass --dcp-size 1 (or drop --enable-lmcache)",
            ),
            "NotImplementedError",
        )
    if args.disaggregation_mode != "null":
        raise _lmcache_refusal(
            "LMCacheUnifiedRadixCache currently supports colocated prefill/decode scheduling only",
            ("disaggregation_mode",),
            Fix(drop=("enable_lmcache",), note="on PD-disaggregated servers"),
            "NotImplementedError",
        )
    return {}
