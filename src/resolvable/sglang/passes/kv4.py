"""FP4 KV cache checks (spec §4.6, step 16): assertions only.

Invariant: with ``--kv-cache-dtype fp4_e2m1`` the platform must be CUDA and the effective
backends must be among those with FP4 KV kernels; nothing is ever changed here.
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..facts import effective_backends, is_mla

_MLA_FA4_DECODE = ("cutlass_mla", "flashinfer", "trtllm_mla")
_MHA_FA4_DECODE = ("triton", "torch_native", "flex_attention")
_MLA_KV4 = ("cutlass_mla", "flashinfer", "trtllm_mla", "flashmla")
_MHA_KV4 = ("triton", "torch_native", "flex_attention", "trtllm_mha")


def _refuse(message: str) -> ConflictError:
    return ConflictError(
        message,
        fields=("kv_cache_dtype", "attention_backend"),
        fix="choose a backend with FP4 KV kernels or another --kv-cache-dtype",
        upstream="AssertionError",
    )


@registry.rule("kv4")
def fp4_kv_cache_checks(ctx):
    """§4.6: CUDA only; fa4 prefill pairs with specific decoders; otherwise a listed backend."""
    args = ctx.args
    if args.kv_cache_dtype != "fp4_e2m1":
        return {}
    if not ctx.platform.is_cuda:
        raise ConflictError(
            "KV4 is not tested on non-CUDA platforms.",
            fields=("kv_cache_dtype",),
            fix="use another --kv-cache-dtype on this platform",
            upstream="RuntimeError",
        )
    prefill, decode = effective_backends(args)
    mla = is_mla(ctx.hf)
    if prefill == "fa4":
        allowed = _MLA_FA4_DECODE if mla else _MHA_FA4_DECODE
        if decode not in allowed:
            raise _refuse(
                f"FP4 KV cache with fa4 prefill needs a decode backend in {list(allowed)}, got {decode}"
            )
    elif prefill == decode:
        allowed = _MLA_KV4 if mla else _MHA_KV4
        if args.attention_backend not in allowed:
            raise _refuse(
                f"FP4 KV cache needs an attention backend in {list(allowed)}, got {args.attention_backend}"
            )
    return {}
