"""Deterministic inference (spec §4.3, step 12; runs before the default backend fill).

Invariant: with deterministic inference on, the attention backend ends in the release's
deterministic list (0.5.15: {flashinfer, fa3, triton, ascend}) or the configuration is refused — including a backend a
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


@registry.rule("deterministic", until="0.5.19", series="deterministic_attention_backend")
def deterministic_attention_backend(ctx):
    """D3-D8 (0.5.15; up to 0.5.18 in this branch, see docs/releases/0.5.19.md): fill ``A`` (triton/flashinfer on SM100/SM120, fa3 elsewhere), refuse incompatible
    backends, disable the radix cache for flashinfer, pin NCCL tree all-reduce for TP."""
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
    elif backend not in C.DETERMINISTIC_BACKENDS:
        raise ConflictError(
            f"Currently only {list(C.DETERMINISTIC_BACKENDS)} attention backends are supported for "
            f"deterministic inference, but you explicitly specified '{backend}'.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend with one of {list(C.DETERMINISTIC_BACKENDS)}, "
            "or drop --enable-deterministic-inference",
        )
    if deepseek and backend not in C.DEEPSEEK_DETERMINISTIC_BACKENDS:
        raise ConflictError(
            "Currently only ['fa3', 'triton', 'ascend'] attention backends are supported for deterministic "
            f"inference with DeepSeek models. But you're using {backend}.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix="pass --attention-backend fa3 or triton",
        )
    if backend not in C.RADIX_DETERMINISTIC_BACKENDS and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    if args.tp_size > 1 and not platform.is_hip and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out


#: 0.5.19's "DeepSeek model" list of ``handle_deterministic_inference`` (adds GLM-4 MoE Lite).
DEEPSEEK_ARCHS_0_5_19 = DEEPSEEK_ARCHS | {"Glm4MoeLiteForCausalLM"}


@registry.rule("deterministic", since="0.5.19", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_19(ctx):
    """D3-D8 (since 0.5.19, ``overrides._deterministic_attention_backend`` and
    ``arg_groups/attention_hook.py:handle_deterministic_inference``): the fill is as before; the
    accepted backends are ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES`` (0.5.19 adds intel_xpu to
    0.5.16's list); absorbed-MLA (DeepSeek) models need a radix-capable backend, fa4 only on
    SM100/SM110; the radix cache stays on for ascend, fa3, fa4 and triton."""
    args, platform = ctx.args, ctx.platform
    if not args.enable_deterministic_inference:
        return {}
    out = {}
    backend = args.attention_backend
    deepseek = ctx.arch in DEEPSEEK_ARCHS_0_5_19
    choices, radix = C.DETERMINISTIC_BACKENDS_0_5_19, C.RADIX_DETERMINISTIC_BACKENDS_0_5_19
    if backend is None:
        if platform.is_sm100 or platform.is_sm120:
            backend = "triton" if deepseek else "flashinfer"
        else:
            backend = "fa3"
        out["attention_backend"] = backend
    elif backend not in choices:
        raise ConflictError(
            f"Currently only {list(choices)} attention backends are supported for deterministic "
            f"inference, but you explicitly specified '{backend}'.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend with one of {list(choices)}, or drop --enable-deterministic-inference",
        )
    if deepseek:
        if backend not in radix:
            raise ConflictError(
                f"Currently only {list(radix)} attention backends are supported for deterministic inference "
                f"with absorbed-MLA models. But you're using {backend}.",
                fields=("enable_deterministic_inference", "attention_backend"),
                fix="pass --attention-backend fa3 or triton",
            )
        if backend == "fa4" and not platform._cuda_major_in((10, 11), (12, 8)):  # is_sm100_or_sm110
            raise ConflictError(
                "Deterministic inference with absorbed-MLA models on the fa4 attention backend requires "
                "SM100/SM110: it runs absorbed MLA, whose qv argument flash_attn.cute only implements on "
                "those archs.",
                fields=("enable_deterministic_inference", "attention_backend"),
                fix="pass --attention-backend fa3 or triton",
            )
    if backend not in radix and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    if args.tp_size > 1 and not platform.is_hip and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out
