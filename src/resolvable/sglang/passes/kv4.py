"""FP4 and MXFP8 KV cache checks (spec §4.6, step 16): assertions only.

Invariant: with an FP4 KV cache (``fp4_e2m1`` up to 0.5.15; ``nvfp4`` / ``fp4_mx_block16``
since 0.5.16) the platform must be CUDA and the effective backends must be among those with
FP4 KV kernels; since 0.5.16 an MXFP8 KV cache needs Blackwell. Nothing is ever changed here.
``fp4_e2m1`` is deprecated in 0.5.16: ServerArgs accepts it unchecked and the model runner
refuses it when it starts (``LOAD_TIME_REFUSALS``, applied by ``api.resolve_server_args``).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from ..facts import effective_backends, is_mla

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    pass

_MLA_FA4_DECODE = ("cutlass_mla", "flashinfer", "trtllm_mla")
_MHA_FA4_DECODE = ("triton", "torch_native", "flex_attention")
_MLA_KV4 = ("cutlass_mla", "flashinfer", "trtllm_mla", "flashmla")
#: The speculative algorithms SM100 native NVFP4 (trtllm_mha) supports in 0.5.21.
_NVFP4_NATIVE_SPEC = ("EAGLE", "EAGLE3", "NEXTN", "NGRAM")
_MHA_KV4 = ("triton", "torch_native", "flex_attention", "trtllm_mha")


def _refuse(message: str) -> ConflictError:
    return ConflictError(
        message,
        fields=("kv_cache_dtype", "attention_backend"),
        fix=Fix(
            another=("kv_cache_dtype",),
            text="choose a backend with FP4 KV kernels or another --kv-cache-dtype",
        ),
        upstream="AssertionError",
    )


def _kv4_backend_checks(ctx) -> None:
    """fa4 prefill pairs with specific decoders; matching prefill/decode must be a listed
    backend; mixed pairs are only warned about. The MLA lists lose flashmla with
    ``KV4_NVFP4_RECIPES`` (0.5.16) and cutlass_mla with ``KV4_NATIVE_NVFP4`` (0.5.21)."""
    args = ctx.args
    mla_kv4, mla_fa4 = _MLA_KV4, _MLA_FA4_DECODE
    if ctx.release.has(CHANGES.KV4_NVFP4_RECIPES):
        mla_kv4 = tuple(b for b in mla_kv4 if b != "flashmla")
    if ctx.release.has(CHANGES.KV4_NATIVE_NVFP4):
        mla_kv4 = mla_fa4 = tuple(b for b in mla_kv4 if b != "cutlass_mla")
    prefill, decode = effective_backends(args)
    mla = is_mla(ctx.hf, ctx.release)
    if prefill == "fa4":
        allowed = mla_fa4 if mla else _MHA_FA4_DECODE
        if decode not in allowed:
            raise _refuse(
                f"FP4 KV cache with fa4 prefill needs a decode backend in {list(allowed)}, got {decode}"
            )
    elif prefill == decode:
        allowed = mla_kv4 if mla else _MHA_KV4
        if args.attention_backend not in allowed:
            raise _refuse(
                f"FP4 KV cache needs an attention backend in {list(allowed)}, got {args.attention_backend}"
            )


def _not_cuda() -> ConflictError:
    return ConflictError(
        "KV4 is not tested on non-CUDA platforms.",
        fields=("kv_cache_dtype",),
        fix=Fix(another=("kv_cache_dtype",), text="use another --kv-cache-dtype on this platform"),
        upstream="RuntimeError",
    )


def _nvfp4_native_checks(ctx) -> dict:
    """0.5.21's SM100 native-NVFP4 (trtllm_mha) refusals and the draft backend it implies."""
    args = ctx.args
    algorithm = args.speculative_algorithm.upper() if args.speculative_algorithm else None
    fields = ("kv_cache_dtype", "speculative_algorithm")
    if algorithm in ("DFLASH", "DSPARK"):
        raise ConflictError(
            f"SM100 native NVFP4 speculative decoding does not yet support {algorithm}; use "
            "EAGLE/NEXTN or NGRAM.",
            fields=fields,
            fix=Fix.any_of(
                Fix(set={"speculative_algorithm": "EAGLE"}),
                Fix(set={"speculative_algorithm": "NEXTN"}),
                Fix(set={"speculative_algorithm": "NGRAM"}),
                text="use --speculative-algorithm EAGLE, NEXTN or NGRAM with an NVFP4 KV cache",
            ),
        )
    if algorithm is not None and algorithm not in _NVFP4_NATIVE_SPEC:
        raise ConflictError(
            "SM100 native NVFP4 speculative decoding supports EAGLE, EAGLE3, NEXTN, and breadth-1 "
            f"NGRAM; got {algorithm}.",
            fields=fields,
            fix=Fix.any_of(
                Fix(set={"speculative_algorithm": "EAGLE"}),
                Fix(set={"speculative_algorithm": "EAGLE3"}),
                Fix(set={"speculative_algorithm": "NEXTN"}),
                Fix(set={"speculative_algorithm": "NGRAM"}),
                text="use --speculative-algorithm EAGLE, EAGLE3, NEXTN or NGRAM",
            ),
        )
    breadth = args.speculative_ngram_max_bfs_breadth
    if algorithm == "NGRAM" and breadth != 1:
        raise ConflictError(
            "SM100 native NVFP4 NGRAM speculative decoding requires --speculative-ngram-max-bfs-breadth=1 "
            f"because trtllm_mha supports linear target verification only; got {breadth}.",
            fields=(*fields, "speculative_ngram_max_bfs_breadth"),
            fix=Fix(set={"speculative_ngram_max_bfs_breadth": 1}),
        )
    out = {}
    if algorithm not in (None, "NGRAM"):
        draft = args.speculative_draft_attention_backend
        if draft is None:
            out["speculative_draft_attention_backend"] = "trtllm_mha"
        elif draft != "trtllm_mha":
            raise ConflictError(
                "SM100 native NVFP4 speculative decoding requires "
                "--speculative-draft-attention-backend=trtllm_mha so the draft worker consumes its "
                f"physical NVFP4 KV layout; got {draft!r}.",
                fields=(*fields, "speculative_draft_attention_backend"),
                fix=Fix(
                    set={"speculative_draft_attention_backend": "trtllm_mha"},
                    text="pass --speculative-draft-attention-backend trtllm_mha (or drop it)",
                ),
            )
    if args.disaggregation_mode != "null":
        raise ConflictError(
            "SM100 native NVFP4 with trtllm_mha does not yet support PD disaggregation because its "
            "physical block-scale layout is not implemented by the KV transfer path.",
            fields=("kv_cache_dtype", "disaggregation_mode"),
            fix=Fix(
                another=("kv_cache_dtype",), text="use another --kv-cache-dtype on PD-disaggregated servers"
            ),
        )
    if args.enable_hierarchical_cache or args.enable_lmcache:
        raise ConflictError(
            "SM100 native NVFP4 with trtllm_mha does not yet support hierarchical KV cache or LMCache "
            "because their host pools do not preserve the physical block-scale layout.",
            fields=("kv_cache_dtype", "enable_hierarchical_cache", "enable_lmcache"),
            fix=Fix.any_of(
                Fix(drop=("enable_hierarchical_cache",)),
                Fix(set={"enable_lmcache": True}),
                Fix(another=("kv_cache_dtype",)),
                text="drop --enable-hierarchical-cache / --enable-lmcache, or use another --kv-cache-dtype",
            ),
        )
    return out


@registry.rule("kv4")
def fp4_kv_cache_checks(ctx):
    """§4.6 (``_handle_kv4_compatibility``; since 0.5.21 ``kv_cache_hook.handle_kv4_compatibility``):
    for ``fp4_e2m1`` CUDA only; fa4 prefill pairs with specific decoders; otherwise a listed
    backend. ``KV4_NVFP4_RECIPES`` (0.5.16): the checks guard ``nvfp4`` and ``fp4_mx_block16``;
    ``nvfp4`` needs SM100 or SM120. ``KV4_NATIVE_NVFP4`` (0.5.21): FP4 KV refuses
    ``--enable-unified-memory``; nvfp4 on SM100 with trtllm_mha on either side refuses
    DFLASH/DSPARK, unknown algorithms, NGRAM breadth > 1, PD disaggregation and host caches, and
    gives a draft model the trtllm_mha draft backend."""
    args, platform, has = ctx.args, ctx.platform, ctx.release.has
    recipes = has(CHANGES.KV4_NVFP4_RECIPES)
    if args.kv_cache_dtype not in (("nvfp4", "fp4_mx_block16") if recipes else ("fp4_e2m1",)):
        return {}
    if not platform.is_cuda:
        raise _not_cuda()
    if not recipes:
        _kv4_backend_checks(ctx)
        return {}
    if args.kv_cache_dtype == "nvfp4" and not (platform.is_sm100 or platform.is_sm120):
        raise ConflictError(
            "--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. "
            "Use --kv-cache-dtype=fp4_mx_block16 for the block-size-16 FP4 recipe.",
            fields=("kv_cache_dtype",),
            fix=Fix(set={"kv_cache_dtype": "fp4_mx_block16"}),
            upstream="RuntimeError",
        )
    if not has(CHANGES.KV4_NATIVE_NVFP4):
        _kv4_backend_checks(ctx)
        return {}
    if args.enable_unified_memory:
        raise ConflictError(
            "FP4 KV cache does not yet support --enable-unified-memory: the unified MHA pool does not "
            "allocate FP4 block scales or the prefill dequant workspace.",
            fields=("kv_cache_dtype", "enable_unified_memory"),
            fix=Fix.any_of(
                Fix(drop=("enable_unified_memory",)),
                Fix(another=("kv_cache_dtype",)),
                text="drop --enable-unified-memory or use another --kv-cache-dtype",
            ),
        )
    out = {}
    if args.kv_cache_dtype == "nvfp4" and platform.is_sm100 and "trtllm_mha" in effective_backends(args):
        out = _nvfp4_native_checks(ctx)
    _kv4_backend_checks(ctx)
    return out


@registry.rule("kv4", since="0.5.16")
def mxfp8_kv_cache_check(ctx):
    """Since 0.5.16 (``server_args._handle_mxfp8_kv_cache_compatibility``, after the KV4 check):
    ``--kv-cache-dtype mxfp8`` needs a Blackwell GPU (``is_blackwell_supported``)."""
    if ctx.args.kv_cache_dtype != "mxfp8" or ctx.platform.is_blackwell:
        return {}
    raise ConflictError(
        "--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands "
        "used by the FA4 MXFP8 attention path.",
        fields=("kv_cache_dtype",),
        fix=Fix.any_of(
            Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
            Fix(set={"kv_cache_dtype": "auto"}),
            text="use --kv-cache-dtype fp8_e4m3 (or auto) on this GPU",
        ),
    )
