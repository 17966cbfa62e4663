"""Deterministic inference (spec §4.3, step 12; runs before the default backend fill).

Invariant: with deterministic inference on, the attention backend ends in
the release's deterministic list (0.5.15: {flashinfer, fa3, triton, ascend}; fa4 since 0.5.16, intel_xpu since 0.5.19) or the configuration is refused — including a backend a
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


#: 0.5.18 ``_handle_deterministic_inference`` / ``overrides._deterministic_is_deepseek_model``:
#: the absorbed-MLA list adds GLM-4.7-Flash.
ABSORBED_MLA_ARCHS_0_5_18 = DEEPSEEK_ARCHS | {"Glm4MoeLiteForCausalLM"}
_RELEASE_0_5_15 = {
    "deepseek_archs": DEEPSEEK_ARCHS,
    "backends": C.DETERMINISTIC_BACKENDS,
    "radix": C.RADIX_DETERMINISTIC_BACKENDS,
    "deepseek_backends": C.DEEPSEEK_DETERMINISTIC_BACKENDS,
    "deepseek_listed": ["fa3", "triton", "ascend"],
    "deepseek_word": "DeepSeek models",
    "fa4_needs_sm100_or_sm110": False,
}
#: 0.5.16 (``DETERMINISTIC_ATTENTION_BACKEND_CHOICES``, sorted, with fa4; its radix list): the
#: DeepSeek message names the list it checks (fa3, triton).
_RELEASE_0_5_16 = {
    **_RELEASE_0_5_15,
    "backends": C.DETERMINISTIC_BACKENDS_0_5_16,
    "radix": C.RADIX_DETERMINISTIC_BACKENDS_0_5_16,
    "deepseek_listed": list(C.DEEPSEEK_DETERMINISTIC_BACKENDS),
}
#: 0.5.17 (``_handle_deterministic_inference``): DeepSeek models are checked against the radix
#: list (ascend, fa3, fa4, triton), fa4 only on SM100/SM110.
_RELEASE_0_5_17 = {
    **_RELEASE_0_5_16,
    "deepseek_backends": C.RADIX_DETERMINISTIC_BACKENDS_0_5_17,
    "deepseek_listed": list(C.RADIX_DETERMINISTIC_BACKENDS_0_5_17),
    "fa4_needs_sm100_or_sm110": True,
}
#: 0.5.18: the FA4 entries of the lists are 0.5.16's; the DeepSeek check against the radix list
#: and its FA4 arch check are 0.5.17's; GLM-4.7-Flash and "absorbed-MLA" are 0.5.18's.
_RELEASE_0_5_18 = {
    "deepseek_archs": ABSORBED_MLA_ARCHS_0_5_18,
    "backends": ("ascend", "fa3", "fa4", "flashinfer", "triton"),
    "radix": ("ascend", "fa3", "fa4", "triton"),
    "deepseek_backends": ("ascend", "fa3", "fa4", "triton"),
    "deepseek_listed": ["ascend", "fa3", "fa4", "triton"],
    "deepseek_word": "absorbed-MLA models",
    "fa4_needs_sm100_or_sm110": True,
}


@registry.rule("deterministic", until="0.5.16", series="deterministic_attention_backend")
def deterministic_attention_backend(ctx):
    """D3-D8 (0.5.15): fill ``A`` (triton/flashinfer on SM100/SM120, fa3 elsewhere), refuse
    incompatible backends, disable the radix cache for flashinfer, pin NCCL tree all-reduce for TP."""
    return _deterministic_attention_backend(ctx, _RELEASE_0_5_15)


@registry.rule("deterministic", since="0.5.16", until="0.5.17", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_16(ctx):
    """D3-D8 (since 0.5.16, ``server_args.DETERMINISTIC_ATTENTION_BACKEND_CHOICES``,
    ``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND``, ``_handle_deterministic_inference``):
    fa4 is accepted and keeps the radix cache; the lists are sorted; the DeepSeek message names
    the list it checks (fa3, triton)."""
    return _deterministic_attention_backend(ctx, _RELEASE_0_5_16)


@registry.rule("deterministic", since="0.5.17", until="0.5.18", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_17(ctx):
    """D3-D8 (0.5.17 ``server_args._handle_deterministic_inference``): DeepSeek models accept
    ``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND`` (ascend, fa3, fa4, triton; the message
    lists it), fa4 only on SM100/SM110 (``is_sm100_or_sm110_supported``)."""
    return _deterministic_attention_backend(ctx, _RELEASE_0_5_17)


@registry.rule("deterministic", since="0.5.18", until="0.5.19", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_18(ctx):
    """``server_args._handle_deterministic_inference`` and
    ``overrides._deterministic_attention_backend`` (0.5.18): FA4 is a deterministic backend (keeps
    the radix cache); absorbed-MLA models (the DeepSeek list plus ``Glm4MoeLiteForCausalLM``)
    default to triton on SM100/SM120 and need ascend/fa3/fa4/triton, fa4 only on SM100/SM110."""
    return _deterministic_attention_backend(ctx, _RELEASE_0_5_18)


#: 0.5.19 (``arg_groups/attention_hook.py:handle_deterministic_inference``): the deterministic
#: list adds intel_xpu; the rest is 0.5.18's.
_RELEASE_0_5_19 = {**_RELEASE_0_5_18, "backends": C.DETERMINISTIC_BACKENDS_0_5_19}


@registry.rule("deterministic", since="0.5.19", series="deterministic_attention_backend")
def deterministic_attention_backend_0_5_19(ctx):
    """D3-D8 (since 0.5.19, ``overrides._deterministic_attention_backend`` and
    ``attention_hook.handle_deterministic_inference``): as 0.5.18, and intel_xpu is a
    deterministic backend (``DETERMINISTIC_ATTENTION_BACKEND_CHOICES``)."""
    return _deterministic_attention_backend(ctx, _RELEASE_0_5_19)


def _deterministic_attention_backend(ctx, release: dict):
    args, platform = ctx.args, ctx.platform
    if not args.enable_deterministic_inference:
        return {}
    out = {}
    backend = args.attention_backend
    deepseek = ctx.arch in release["deepseek_archs"]
    allowed = list(release["backends"])
    if backend is None:
        if platform.is_sm100 or platform.is_sm120:
            backend = "triton" if deepseek else "flashinfer"
        else:
            backend = "fa3"
        out["attention_backend"] = backend
    elif backend not in allowed:
        raise ConflictError(
            f"Currently only {allowed} attention backends are supported for "
            f"deterministic inference, but you explicitly specified '{backend}'.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=f"pass --attention-backend with one of {allowed}, or drop --enable-deterministic-inference",
        )
    if deepseek and backend not in release["deepseek_backends"]:
        raise ConflictError(
            f"Currently only {release['deepseek_listed']} attention backends are supported for deterministic "
            f"inference with {release['deepseek_word']}. But you're using {backend}.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix="pass --attention-backend fa3 or triton",
        )
    # utils/common.py is_sm100_or_sm110_supported: CUDA capability major 10 or 11
    sm100_or_sm110 = platform.is_cuda and (platform.capability or (0, 0))[0] in (10, 11)
    if deepseek and backend == "fa4" and release["fa4_needs_sm100_or_sm110"] and not sm100_or_sm110:
        raise ConflictError(
            f"Deterministic inference with {release['deepseek_word']} on the fa4 attention backend requires "
            "SM100/SM110: it runs absorbed MLA, whose qv argument flash_attn.cute only implements on "
            "those archs.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix="pass --attention-backend triton",
        )
    if backend not in release["radix"] and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    if args.tp_size > 1 and not platform.is_hip and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out


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
