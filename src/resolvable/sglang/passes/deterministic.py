"""Deterministic inference (spec §4.3, step 12; runs before the default backend fill).

Invariant: with deterministic inference on, the attention backend ends in
{flashinfer, fa3, triton, ascend} or the configuration is refused — including a backend a
model rule chose (sglang reports it as "explicitly specified"). Only ``A`` is examined.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .. import choices as C
from .._base import registry

#: "DeepSeek model" for this check (KimiK25 is not included), spec §4.3.
DEEPSEEK_ARCHS = frozenset(
    {
        "DeepseekV2ForCausalLM",
        "DeepseekV3ForCausalLM",
        "DeepseekV32ForCausalLM",
        "MistralLarge3ForCausalLM",
        "PixtralForConditionalGeneration",
        "GlmMoeDsaForCausalLM",
    }
)


@registry.rule("deterministic")
def deterministic_enable(ctx):
    """D0: ``--rl-on-policy-target`` implies deterministic inference."""
    if ctx.args.rl_on_policy_target is not None and not ctx.args.enable_deterministic_inference:
        return {"enable_deterministic_inference": True}
    return {}


@registry.rule("deterministic")
def deterministic_allreduce_fusion_disable(ctx):
    """Step 9 and D2: no all-reduce fusion under deterministic inference."""
    args = ctx.args
    if not args.enable_deterministic_inference:
        return {}
    reason = "deterministic inference disables all-reduce fusion"
    out = {"enforce_disable_flashinfer_allreduce_fusion": True}
    if args.enable_aiter_allreduce_fusion:
        out["enable_aiter_allreduce_fusion"] = Force(False, reason)
    if args.flashinfer_allreduce_fusion_backend is not None:
        out["flashinfer_allreduce_fusion_backend"] = Force(None, reason)
    return out


@registry.rule("deterministic")
def deterministic_sampling_backend(ctx):
    """D2: sampling with pytorch, unless it is ``ascend``."""
    args = ctx.args
    if args.enable_deterministic_inference and args.sampling_backend not in ("ascend", "pytorch"):
        return {"sampling_backend": Force("pytorch", "deterministic inference samples with pytorch")}
    return {}


def _deterministic_attention_backend(
    ctx,
    *,
    backends: tuple[str, ...],
    radix_backends: tuple[str, ...],
    deepseek_backends: tuple[str, ...],
    deepseek_message_list: list[str],
    deepseek_fa4_needs_sm100_sm110: bool,
) -> dict:
    """D3-D8 shared by every release: fill ``A``, refuse a backend outside ``backends`` (DeepSeek:
    outside ``deepseek_backends``), keep the radix cache only for ``radix_backends``, pin NCCL
    tree all-reduce for TP."""
    args, platform = ctx.args, ctx.platform
    if not args.enable_deterministic_inference:
        return {}
    out = {}
    backend = args.attention_backend
    deepseek = ctx.arch in DEEPSEEK_ARCHS
    if backend is None:
        if platform.is_sm100 or platform.is_sm120:
            backend = "triton" if deepseek else "flashinfer"
        else:
            backend = "fa3"
        out["attention_backend"] = backend
    elif backend not in backends:
        raise ConflictError(
            f"Currently only {list(backends)} attention backends are supported for "
            f"deterministic inference, but you explicitly specified '{backend}'.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend with one of {list(backends)}, "
            "or drop --enable-deterministic-inference",
        )
    if deepseek and backend not in deepseek_backends:
        raise ConflictError(
            f"Currently only {deepseek_message_list} attention backends are supported for deterministic "
            f"inference with DeepSeek models. But you're using {backend}.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend {' or '.join(b for b in deepseek_backends if b != 'ascend')}",
        )
    if deepseek and deepseek_fa4_needs_sm100_sm110 and backend == "fa4" and not platform.is_sm100_or_sm110:
        raise ConflictError(
            "Deterministic inference with DeepSeek models on the fa4 attention backend requires "
            "SM100/SM110: it runs absorbed MLA, whose qv argument flash_attn.cute only implements "
            "on those archs.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix="pass --attention-backend fa3 or triton (or run on SM100/SM110)",
        )
    if backend not in radix_backends and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    if args.tp_size > 1 and not platform.is_hip and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out


@registry.rule("deterministic", until="0.5.17", series="deterministic_attention_backend")
def deterministic_attention_backend(ctx):
    """D3-D8: fill ``A`` (triton/flashinfer on SM100/SM120, fa3 elsewhere), refuse incompatible
    backends, disable the radix cache for flashinfer, pin NCCL tree all-reduce for TP."""
    return _deterministic_attention_backend(
        ctx,
        backends=C.DETERMINISTIC_BACKENDS,
        radix_backends=C.RADIX_DETERMINISTIC_BACKENDS,
        deepseek_backends=C.DEEPSEEK_DETERMINISTIC_BACKENDS,
        deepseek_message_list=["fa3", "triton", "ascend"],
        deepseek_fa4_needs_sm100_sm110=False,
    )


@registry.rule("deterministic", since="0.5.17", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_17(ctx):
    """D3-D8 (0.5.17 ``server_args._handle_deterministic_inference``,
    ``overrides._deterministic_attention_backend``): the accepted list includes fa4 (since
    0.5.16); DeepSeek models accept the radix-capable list (ascend, fa3, fa4, triton), fa4 only
    on SM100/SM110 (``is_sm100_or_sm110_supported``)."""
    return _deterministic_attention_backend(
        ctx,
        backends=C.DETERMINISTIC_BACKENDS_0_5_17,
        radix_backends=C.RADIX_DETERMINISTIC_BACKENDS_0_5_17,
        deepseek_backends=C.RADIX_DETERMINISTIC_BACKENDS_0_5_17,
        deepseek_message_list=list(C.RADIX_DETERMINISTIC_BACKENDS_0_5_17),
        deepseek_fa4_needs_sm100_sm110=True,
    )
