"""Deterministic inference (spec §4.3, step 12; runs before the default backend fill).

Since 0.5.12 ``_handle_deterministic_inference`` runs just
before ``_handle_attention_backend_compatibility``; in 0.5.11 it ran after the cache checks, so it
saw the backend the default fill chose and validated it instead of filling it. Each rule below
is registered in both slots (``deterministic`` since 0.5.12, ``deterministic_late`` before it)
with one body.

Invariant: with deterministic inference on, the attention backend ends in
the release's deterministic list (0.5.15: {flashinfer, fa3, triton, ascend}; fa4 since 0.5.16, intel_xpu since 0.5.19) or the configuration is refused — including a backend a
model rule chose (sglang reports it as "explicitly specified"). Only ``A`` is examined.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix, Force
from .._base import registry
from ..changes import CHANGES, in_release

#: "DeepSeek model" for this check (KimiK25 is not included), spec §4.3; since 0.5.18
#: (``overrides._deterministic_is_deepseek_model``) the absorbed-MLA models, with GLM-4.7-Flash.
DEEPSEEK_ARCHS = ArchList(
    "DeepseekV2ForCausalLM",
    "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM",
    ("MistralLarge3ForCausalLM", "0.5.6.post1"),
    ("PixtralForConditionalGeneration", "0.5.6.post1"),
    ("GlmMoeDsaForCausalLM", "0.5.9"),
    ("Glm4MoeLiteForCausalLM", "0.5.18"),
    what="deterministic DeepSeek models",
)
#: ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES`` since 0.5.16 (sorted), each entry with the change
#: that added it; 0.5.15's list had another order (``_LEGACY_BACKENDS``).
_BACKENDS = (
    ("ascend", None),
    ("fa3", None),
    ("fa4", CHANGES.DETERMINISTIC_FA4),
    ("flashinfer", None),
    ("intel_xpu", CHANGES.DETERMINISTIC_INTEL_XPU),
    ("triton", None),
)
_LEGACY_BACKENDS = (
    ("flashinfer", None),
    ("fa3", None),
    ("triton", None),
    ("ascend", CHANGES.DETERMINISTIC_ASCEND),
)
#: ``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND`` since 0.5.16, and 0.5.15's.
_RADIX = ("ascend", "fa3", "fa4", "triton")
_LEGACY_RADIX = (("fa3", None), ("triton", None), ("ascend", CHANGES.DETERMINISTIC_ASCEND))


@registry.rule("deterministic", since="0.5.12")
def deterministic_enable(ctx):
    """D0: ``--rl-on-policy-target`` implies deterministic inference."""
    if ctx.args.rl_on_policy_target is not None and not ctx.args.enable_deterministic_inference:
        return {"enable_deterministic_inference": True}
    return {}


@registry.rule("deterministic", since="0.5.12")
def deterministic_allreduce_fusion_disable(ctx):
    """Step 9 and D2: no all-reduce fusion under deterministic inference (the FlashInfer fusion
    since 0.5.12, ``DETERMINISTIC_FLASHINFER_AR_FUSION_OFF``; 0.5.11 turned off AITER's only)."""
    args = ctx.args
    if not args.enable_deterministic_inference:
        return {}
    reason = "deterministic inference disables all-reduce fusion"
    flashinfer = ctx.release.has(CHANGES.DETERMINISTIC_FLASHINFER_AR_FUSION_OFF)
    out = {"enforce_disable_flashinfer_allreduce_fusion": True} if flashinfer else {}
    if args.enable_aiter_allreduce_fusion:
        out["enable_aiter_allreduce_fusion"] = Force(False, reason)
    if flashinfer and args.flashinfer_allreduce_fusion_backend is not None:
        out["flashinfer_allreduce_fusion_backend"] = Force(None, reason)
    return out


@registry.rule("deterministic", since="0.5.12")
def deterministic_sampling_backend(ctx):
    """D2: sampling with pytorch, unless it is ``ascend`` (since 0.5.13, ``DETERMINISTIC_ASCEND``)."""
    args = ctx.args
    kept = ("ascend", "pytorch") if ctx.release.has(CHANGES.DETERMINISTIC_ASCEND) else ("pytorch",)
    if args.enable_deterministic_inference and args.sampling_backend not in kept:
        return {"sampling_backend": Force("pytorch", "deterministic inference samples with pytorch")}
    return {}


@registry.rule("deterministic", since="0.5.12")
def deterministic_attention_backend(ctx):
    """D3-D8 (``_handle_deterministic_inference``; since 0.5.18 also
    ``overrides._deterministic_attention_backend``; since 0.5.19 ``attention_hook``): fill ``A``
    (triton for DeepSeek / flashinfer on SM100/SM120, fa3 elsewhere), refuse incompatible
    backends, disable the radix cache off its list, pin NCCL tree all-reduce for TP. The lists
    and the DeepSeek check follow ``DETERMINISTIC_FA4`` (0.5.16),
    ``DETERMINISTIC_DEEPSEEK_RADIX_LIST`` (0.5.17), ``DETERMINISTIC_ABSORBED_MLA`` (0.5.18) and
    ``DETERMINISTIC_INTEL_XPU`` (0.5.19); ascend is on the lists since 0.5.13
    (``DETERMINISTIC_ASCEND``). ``DETERMINISTIC_ROCM_KEEPS_CUSTOM_AR`` (0.5.7): ROCm keeps the
    custom all-reduce (before: off on every vendor)."""
    args, platform, has = ctx.args, ctx.platform, ctx.release.has
    if not args.enable_deterministic_inference:
        return {}
    out = {}
    backend = args.attention_backend
    deepseek = ctx.release.holds(DEEPSEEK_ARCHS, ctx.arch)
    fa4 = has(CHANGES.DETERMINISTIC_FA4)
    allowed = list(in_release(ctx.release, _BACKENDS if fa4 else _LEGACY_BACKENDS))
    radix = _RADIX if fa4 else in_release(ctx.release, _LEGACY_RADIX)
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
            fix=Fix.any_of(
                *(Fix(set={"attention_backend": b}) for b in allowed),
                Fix(drop=("enable_deterministic_inference",)),
                text=f"pass --attention-backend with one of {allowed}, or drop --enable-deterministic-inference",
            ),
        )
    radix_for_deepseek = deepseek and has(CHANGES.DETERMINISTIC_DEEPSEEK_RADIX_LIST)
    word = (
        "absorbed-MLA models" if deepseek and has(CHANGES.DETERMINISTIC_ABSORBED_MLA) else "DeepSeek models"
    )
    if deepseek and backend not in (radix if radix_for_deepseek else ("fa3", "triton")):
        if radix_for_deepseek:
            listed = list(radix)
        else:  # 0.5.15's message named its radix list (with ascend, which its check refuses)
            listed = ["fa3", "triton"] if fa4 else list(radix)
        raise ConflictError(
            f"Currently only {listed} attention backends are supported for deterministic "
            f"inference with {word}. But you're using {backend}.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "fa3"}),
                Fix(set={"attention_backend": "triton"}),
                text="pass --attention-backend fa3 or triton",
            ),
        )
    # utils/common.py is_sm100_or_sm110_supported: CUDA capability major 10 or 11
    sm100_or_sm110 = platform.is_cuda and (platform.capability or (0, 0))[0] in (10, 11)
    if radix_for_deepseek and backend == "fa4" and not sm100_or_sm110:
        raise ConflictError(
            f"Deterministic inference with {word} on the fa4 attention backend requires "
            "SM100/SM110: it runs absorbed MLA, whose qv argument flash_attn.cute only implements on "
            "those archs.",
            fields=("enable_deterministic_inference", "attention_backend"),
            fix=Fix(set={"attention_backend": "triton"}),
        )
    if backend not in radix and not args.disable_radix_cache:
        out["disable_radix_cache"] = True
    rocm_keeps = platform.is_hip and ctx.release.has(CHANGES.DETERMINISTIC_ROCM_KEEPS_CUSTOM_AR)
    if args.tp_size > 1 and not rocm_keeps and not args.disable_custom_all_reduce:
        out["disable_custom_all_reduce"] = True
    return out


def _after_cache_checks(rule) -> None:
    """Register ``rule``'s body in 0.5.11's slot (``deterministic_late``, until 0.5.12), in the
    rule's series, so explain shows one rule whose slot moved."""

    def moved(ctx):
        return rule(ctx)

    moved.__name__ = moved.__qualname__ = f"{rule.__name__}_after_cache_checks"
    moved.__doc__ = (
        f"{rule.__name__} in 0.5.11's slot: ``_handle_deterministic_inference`` after the cache "
        "checks (0.5.12 moved it before the attention backend fill)."
    )
    registry.rule("deterministic_late", until="0.5.12", series=rule.__name__)(moved)


for _rule in (
    deterministic_enable,
    deterministic_allreduce_fusion_disable,
    deterministic_sampling_backend,
    deterministic_attention_backend,
):
    _after_cache_checks(_rule)


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
        fix=Fix.any_of(
            Fix(drop=("disable_custom_all_reduce",)),
            Fix(set={"tp_size": 2}),
            text="drop --disable-custom-all-reduce (or run with --tp-size 2 or less)",
        ),
    )
