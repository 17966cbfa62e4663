"""NVFP4 KV cache: which prefill and decode backends read it (sglang 0.5.21).

Invariant: acts only with ``--kv-cache-dtype nvfp4``; it runs after the model rules and the
deterministic pass and before the default attention backend, as
``arg_groups/kv_cache_hook.handle_nvfp4_prefill_kv_dequant_dtype`` does in 0.5.21's pipeline.
It sets the prefill side to the backend of the prefill dequantization dtype and the decode side
to ``trtllm_mha``, or refuses an explicit backend that cannot read the cache. The dequant dtype
flag (``--prefill-kv-cache-dequant-dtype``) is not a pack field: its default ``auto`` is modelled.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

#: The prefill backend of each prefill dequantization dtype (the decode side is always trtllm_mha).
_PREFILL_BACKEND = {"fp8_e4m3": "flashinfer", "nvfp4": "trtllm_mha"}
_DEQUANT_DTYPE = {backend: dtype for dtype, backend in _PREFILL_BACKEND.items()}
_FIELDS = ("kv_cache_dtype", "attention_backend", "prefill_attention_backend", "decode_attention_backend")


def _refuse(message: str, fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=_FIELDS, fix=fix)


@registry.rule("attention", since="0.5.21", only_if_set=("kv_cache_dtype",))
def nvfp4_prefill_kv_dequant_dtype(ctx):
    """Since 0.5.21 (``kv_cache_hook.handle_nvfp4_prefill_kv_dequant_dtype``): with an NVFP4 KV
    cache the explicit backend (prefill, else ``attention_backend``, user or model rule) picks the
    prefill dequant dtype (trtllm_mha: native nvfp4, flashinfer: an FP8 workspace; another one is
    refused); none set: nvfp4 on SM100, fp8_e4m3 elsewhere. Native nvfp4 needs SM100. Prefill
    becomes that dtype's backend and decode ``trtllm_mha``; other explicit values are refused."""
    args, platform = ctx.args, ctx.platform
    if args.kv_cache_dtype != "nvfp4":
        return {}
    explicit = args.prefill_attention_backend or args.attention_backend
    if explicit in _DEQUANT_DTYPE:
        dtype = _DEQUANT_DTYPE[explicit]
    elif explicit is not None:
        raise _refuse(
            f"NVFP4 prefill supports an FP8 E4M3 workspace or native NVFP4, but backend {explicit!r} "
            "provides neither.",
            "pass --attention-backend trtllm_mha or flashinfer (or drop it), or another --kv-cache-dtype",
        )
    else:
        dtype = "nvfp4" if platform.is_sm100 else "fp8_e4m3"
    if dtype == "nvfp4" and not platform.is_sm100:
        raise _refuse(
            "Native NVFP4 prefill currently requires SM100; use "
            "--prefill-kv-cache-dequant-dtype=fp8_e4m3 on this platform.",
            Fix(
                set={"attention_backend": "flashinfer"},
                text="pass --attention-backend flashinfer (FP8 prefill workspace) on this GPU",
            ),
        )
    prefill = _PREFILL_BACKEND[dtype]
    if args.prefill_attention_backend not in (None, prefill):
        raise _refuse(
            f"--prefill-kv-cache-dequant-dtype={dtype} requires prefill backend {prefill!r}, but "
            f"--prefill-attention-backend={args.prefill_attention_backend!r} was set. Remove the "
            "backend option and select the KV dtype only.",
            Fix(drop=("prefill_attention_backend",)),
        )
    if args.decode_attention_backend not in (None, "trtllm_mha"):
        raise _refuse(
            "NVFP4 decode requires --decode-attention-backend=trtllm_mha; got "
            f"{args.decode_attention_backend!r}. Remove the backend option; NVFP4 selects the "
            "supported decode implementation automatically.",
            Fix(drop=("decode_attention_backend",)),
        )
    return {"prefill_attention_backend": prefill, "decode_attention_backend": "trtllm_mha"}
