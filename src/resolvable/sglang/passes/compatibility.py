"""Attention-backend compatibility fallbacks (spec §4.2 C1-C3, C15, C18-C19, C22-C23).

Invariant: each rule either swaps a backend the platform or KV dtype cannot run for the
portable one, switches off what a backend cannot use, or refuses; page sizes are handled
in ``page_constraints`` and kernel/platform refusals in ``backend_checks``.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import context_length


def _disable_graphs(args, reason: str) -> dict:
    return {
        f"cuda_graph_backend_{phase}": Force("disabled", reason)
        for phase in ("prefill", "decode")
        if args[f"cuda_graph_backend_{phase}"] != "disabled"
    }


@registry.rule("attention_compat")
def torch_native_and_flex_graphs(ctx):
    """C1/C2: torch_native and flex_attention run without CUDA graphs; flex refuses speculation."""
    args = ctx.args
    if args.attention_backend == "torch_native":
        return _disable_graphs(args, "torch_native attention does not support CUDA graphs")
    if args.attention_backend == "flex_attention":
        if args.speculative_algorithm is not None:
            raise ConflictError(
                "Speculative decoding is currently not supported with Flex Attention backend",
                fields=("attention_backend", "speculative_algorithm"),
                fix=Fix.any_of(
                    Fix(drop=("speculative_algorithm",)),
                    Fix(another=("attention_backend",)),
                    text="drop --speculative-algorithm or choose another --attention-backend",
                ),
                upstream="AssertionError",
            )
        return _disable_graphs(args, "flex_attention does not support CUDA graphs")
    return {}


@registry.rule("attention_compat")
def whisper_radix_cache(ctx):
    """C3: encoder-decoder Whisper runs without the radix cache (since 0.5.10, ``WHISPER_ARMS``)."""
    if (
        "WhisperForConditionalGeneration" in ctx.hf.architectures
        and not ctx.args.disable_radix_cache
        and ctx.release.has(CHANGES.WHISPER_ARMS)
    ):
        return {"disable_radix_cache": True}
    return {}


@registry.rule("attention_compat", only_if_set=("kv_cache_dtype",))
def fa3_fp8_e5m2_fallback(ctx):
    """C15: FA3 reads FP8 KV only as e4m3; with ``fp8_e5m2`` the backend falls back to triton."""
    args = ctx.args
    if args.attention_backend == "fa3" and args.kv_cache_dtype == "fp8_e5m2":
        return {"attention_backend": Force("triton", "FlashAttention3 supports only fp8_e4m3 FP8 KV caches")}
    return {}


@registry.rule("attention_compat")
def fa4_prefill_only(ctx):
    """Before 0.5.8 (``FA4_DECODE_ALLOWED``; ``_handle_attention_backend_compatibility``, after the
    FA3 FP8 fallback): fa4 runs prefill only, so fa4 as the attention or the decode backend is
    refused."""
    args = ctx.args
    if ctx.release.has(CHANGES.FA4_DECODE_ALLOWED):
        return {}
    if args.attention_backend == "fa4" or args.decode_attention_backend == "fa4":
        named = "attention_backend" if args.attention_backend == "fa4" else "decode_attention_backend"
        raise ConflictError(
            "FA4 backend is only supported for prefill. Please use `--prefill-attention-backend fa4` instead.",
            fields=(named,),
            fix=Fix(
                another=(named,),
                text="name fa4 with --prefill-attention-backend only (or use sglang 0.5.8 or later)",
            ),
            upstream="ValueError",
        )
    return {}


@registry.rule("attention_compat")
def aiter_long_context_memory(ctx):
    """C17: aiter with a context longer than 8192 tokens keeps 15% more memory free.

    sglang scales the resolved fraction; here a given ``--mem-fraction-static`` (the default: in
    ``sglang.memory.aiter_long_context_scale``); the context is ``--context-length`` or the model's."""
    args = ctx.args
    if (
        args.attention_backend == "aiter"
        and args.mem_fraction_static is not None
        and int(args.context_length or context_length(ctx.hf)) > 8192
    ):
        return {
            "mem_fraction_static": Force(
                round(args.mem_fraction_static * 0.85, 6),
                "aiter with contexts over 8192 tokens uses 85% of the memory fraction",
            )
        }
    return {}


@registry.rule("attention_compat")
def platform_fallbacks(ctx):
    """C18/C19: intel_amx without AMX → torch_native; intel_xpu without XMX → triton.

    C1 already ran, so the torch_native fallback keeps CUDA graphs (spec §10 #9)."""
    args, platform = ctx.args, ctx.platform
    if args.attention_backend == "intel_amx" and args.device == "cpu" and not platform.has_amx:
        return {"attention_backend": Force("torch_native", "this CPU has no AMX")}
    if args.attention_backend == "intel_xpu" and args.device == "xpu" and not platform.has_xmx:
        return {"attention_backend": Force("triton", "this Intel GPU has no XMX")}
    return {}


@registry.rule("attention_compat", until="0.5.20")
def dual_chunk_attention(ctx):
    """§4.2 C22/C23 (until 0.5.20): dual-chunk models need ``dual_chunk_flash_attn`` (explicitly: §4.1
    already filled ``A``), which runs without mixed chunks and without the radix cache. sglang
    0.5.20 deletes the backend and this pass (``overrides._attention_backend_dual_chunk``): a
    dual-chunk model then gets the ordinary default, and the name is refused by argparse
    (``passes/release_choices.py``), so nothing replaces this rule. Another backend is refused
    later, by ``dual_chunk_attention_check``."""
    args = ctx.args
    if ctx.hf.text_config.get("dual_chunk_attention_config") is not None and args.attention_backend is None:
        return {"attention_backend": "dual_chunk_flash_attn"}
    if args.attention_backend == "dual_chunk_flash_attn":
        reason = "dual_chunk_flash_attn runs without mixed chunks and without the radix cache"
        return {"enable_mixed_chunk": Force(False, reason), "disable_radix_cache": True}
    return {}


@registry.rule("attention_late", until="0.5.20")
def dual_chunk_attention_check(ctx):
    """§4.2 C22's refusal (until 0.5.20): a dual-chunk model with another backend. §6.5 step 13
    lists ``overrides._attention_backend_dual_chunk`` last, after the MLA and CuteDSL checks, and
    the TRT-LLM platform checks come before it too, so their refusals come first (found by the
    agreement runs against the 0.5.15 wheel)."""
    args = ctx.args
    if (
        ctx.hf.text_config.get("dual_chunk_attention_config") is not None
        and args.attention_backend != "dual_chunk_flash_attn"
    ):
        raise ConflictError(
            f"Dual chunk attention is enabled, but attention backend is set to {args.attention_backend}. "
            "Please set it to 'dual_chunk_flash_attn'.",
            fields=("attention_backend",),
            fix=Fix(set={"attention_backend": "dual_chunk_flash_attn"}),
        )
    return {}
