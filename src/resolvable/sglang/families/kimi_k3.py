"""Kimi-K3 (sglang 0.5.17, ``arg_groups/overrides.py:_kimi_k3_overrides``; new architecture).

Invariants: Kimi-K3 is an MLA model (``configs/model_config.py``, like Kimi-Linear). With decode
context parallelism the decode kernel must be ``cutedsl_mla`` (prefill ``trtllm_mla``) or
``tokenspeed_mla`` (both phases, FP8 KV); otherwise, on SM100/SM103 with no attention backend
set, prefill and decode run ``trtllm_mla``. The mamba radix cache (KDA layers) is in
``mamba_radix``. Not modelled: the DSPARK verify mode, the DCP communication fields, the
FlashInfer DCP-patch probe and the MXFP4 MoE cubin-pool check (they read installed files).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..facts import backends_not_set, effective_backends

ARCH = "KimiK3ForConditionalGeneration"


@registry.rule("model", archs=(ARCH,), since="0.5.17")
def kimi_k3_attention(ctx):
    """0.5.17 ``_kimi_k3_overrides``: DCP picks the decode kernel pair; else SM100/SM103
    (capability 10.0 / 10.3) with A, P, D unset → P = D = ``trtllm_mla``."""
    args, platform = ctx.args, ctx.platform
    if args.dcp_size > 1:
        _, decode = effective_backends(args)
        if decode in (None, "cutedsl_mla"):
            return {
                "prefill_attention_backend": Force("trtllm_mla", "Kimi-K3 DCP prefills with trtllm_mla"),
                "decode_attention_backend": "cutedsl_mla",
            }
        if decode == "tokenspeed_mla":
            reason = "Kimi-K3 DCP with tokenspeed_mla runs both phases on it"
            return {
                "prefill_attention_backend": Force("tokenspeed_mla", reason),
                "decode_attention_backend": Force("tokenspeed_mla", reason),
                "kv_cache_dtype": Force("fp8_e4m3", "Kimi-K3 DCP with tokenspeed_mla uses an FP8 KV cache"),
            }
        raise ConflictError(
            f"Decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' or 'tokenspeed_mla', got {decode!r}.",
            fields=("decode_attention_backend", "attention_backend", "dcp_size"),
            fix=Fix.any_of(
                Fix(set={"decode_attention_backend": "cutedsl_mla"}),
                Fix(set={"decode_attention_backend": "tokenspeed_mla"}),
                Fix(drop=("dcp_size",)),
                text="pass --decode-attention-backend cutedsl_mla (or tokenspeed_mla), or drop --dcp-size",
            ),
            upstream="AssertionError",
        )
    cap = tuple(platform.capability or ())
    if platform.is_sm100 and cap in ((10, 0), (10, 3)) and backends_not_set(args):
        return {"prefill_attention_backend": "trtllm_mla", "decode_attention_backend": "trtllm_mla"}
    return {}
