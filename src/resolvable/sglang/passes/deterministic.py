"""Deterministic inference (spec §4.3, step 12; runs before the default backend fill).

Invariant: with deterministic inference on, the attention backend ends in
{flashinfer, fa3, triton, ascend} (since 0.5.16 also fa4) or the configuration is refused — including a backend a
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
    ctx, allowed: tuple[str, ...], radix_ok: tuple[str, ...], deepseek_listed: tuple[str, ...]
) -> dict:
    """D3-D8 shared by every release; ``allowed``/``radix_ok`` are the release's
    ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES`` / ``RADIX_SUPPORTED_…`` lists and
    ``deepseek_listed`` the list the DeepSeek message names."""
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
    elif backend not in allowed:
        raise ConflictError(
            f"Currently only {list(allowed)} attention backends are supported for "
            f"deterministic inference, but you explicitly specified '{backend}'.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend with one of {list(allowed)}, "
            "or drop --enable-deterministic-inference",
        )
    if deepseek and backend not in C.DEEPSEEK_DETERMINISTIC_BACKENDS:
        raise ConflictError(
            f"Currently only {list(deepseek_listed)} attention backends are supported for deterministic "
            f"inference with DeepSeek models. But you're using {backend}.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix="pass --attention-backend fa3 or triton",
        )
    if backend not in radix_ok and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    if args.tp_size > 1 and not platform.is_hip and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out


@registry.rule("deterministic", until="0.5.16")
def deterministic_attention_backend(ctx):
    """D3-D8 (up to 0.5.15): fill ``A`` (triton/flashinfer on SM100/SM120, fa3 elsewhere), refuse
    backends outside {flashinfer, fa3, triton, ascend}, disable the radix cache unless fa3/triton/
    ascend, pin NCCL tree all-reduce for TP."""
    return _deterministic_attention_backend(
        ctx, C.DETERMINISTIC_BACKENDS, C.RADIX_DETERMINISTIC_BACKENDS, C.RADIX_DETERMINISTIC_BACKENDS
    )


@registry.rule("deterministic", since="0.5.16", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_16(ctx):
    """D3-D8 (since 0.5.16, ``server_args.DETERMINISTIC_ATTENTION_BACKEND_CHOICES``,
    ``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND``, ``_handle_deterministic_inference``):
    fa4 is accepted and keeps the radix cache; the lists are sorted; the DeepSeek message names
    the list it checks (fa3, triton)."""
    return _deterministic_attention_backend(
        ctx,
        C.DETERMINISTIC_BACKENDS_0_5_16,
        C.RADIX_DETERMINISTIC_BACKENDS_0_5_16,
        C.DEEPSEEK_DETERMINISTIC_BACKENDS,
    )


@registry.rule("deterministic", since="0.5.23")
def deterministic_rocm_rccl_check(ctx):
    """D8 (since 0.5.23, ``overrides._deterministic_rocm_rccl_check``, run from the TP branch of
    ``attention_hook``'s deterministic handler on ROCm): deterministic TP relies on the one-stage
    custom all-reduce, so above two ranks ``--disable-custom-all-reduce`` (RCCL, not
    batch-invariant) is refused."""
    args = ctx.args
    if not (
        args.enable_deterministic_inference
        and ctx.platform.is_hip
        and args.tp_size > 2
        and args.disable_custom_all_reduce
    ):
        return {}
    raise ConflictError(
        "--disable-custom-all-reduce cannot be combined with --enable-deterministic-inference on "
        "ROCm when --tp-size is above 2: the all-reduce would run through RCCL, which is not "
        "batch-invariant.",
        fields=("disable_custom_all_reduce", "enable_deterministic_inference", "tp_size"),
        fix="drop --disable-custom-all-reduce (or run with --tp-size 2 or less)",
    )
