"""``ModelConfig._verify_quantization`` (sglang 0.5.15 configs/model_config.py; spec §11.1).

sglang builds the model config while it constructs ``ServerArgs`` (first at the CUDA-graph
step, spec §2.2 step 5), and the model config refuses three things: a ``--quantization``
that contradicts the checkpoint (unless the pair is compatible, e.g. ``modelopt_fp4`` for a
``modelopt`` checkpoint), a method the platform's quantization registry does not hold
(``mxfp4`` only on CUDA, the CPU engine and gfx95 ROCm; ``mlx_q4``/``mlx_q8`` only on Apple
MPS; ``marlin`` never as such), and on ROCm a method outside sglang's ROCm list.

Invariant: this rule only refuses; ``ServerArgs.quantization`` is not changed here (sglang
keeps the refined method on the model config, which model rules read via
``facts.model_quantization``).
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry
from ..facts import model_quantization

#: QUANTIZATION_METHODS of layers/quantization/__init__.py on every platform (registry order).
BASE_METHODS = (
    "fp8",
    "mxfp8",
    "blockwise_int8",
    "modelopt",
    "modelopt_fp8",
    "modelopt_fp4",
    "nvfp4_online",
    "modelopt_mixed",
    "w8a8_int8",
    "w8a8_fp8",
    "awq",
    "awq_marlin",
    "bitsandbytes",
    "gguf",
    "gptq",
    "gptq_marlin",
    "moe_wna16",
    "compressed-tensors",
    "qoq",
    "w4afp8",
    "petit_nvfp4",
    "fbgemm_fp8",
    "quark",
    "quark_mxfp4",
    "auto-round",
    "auto-round-int8",
    "modelslim",
    "quark_int4fp8_moe",
    "mxfp_w4a8",
)
#: ``rocm_supported_quantization`` of ``_verify_quantization``.
ROCM_METHODS = frozenset(
    {
        "awq",
        "gptq",
        "fp8",
        "compressed_tensors",
        "compressed-tensors",
        "fbgemm_fp8",
        "w8a8_fp8",
        "petit_nvfp4",
        "quark",
        "mxfp4",
        "mxfp8",
        "auto-round",
        "auto-round-int8",
        "quark_int4fp8_moe",
        "quark_mxfp4",
    }
)
#: ``compatible_quantization_methods``: --quantization value -> checkpoint methods it may serve.
COMPATIBLE = {
    "modelopt_fp8": ("modelopt",),
    "modelopt_fp4": ("modelopt",),
    "modelopt_mixed": ("modelopt",),
    "nvfp4_online": ("fp8",),
    "petit_nvfp4": ("modelopt",),
    "w8a8_int8": ("compressed-tensors", "compressed_tensors"),
    "w8a8_fp8": ("compressed-tensors", "compressed_tensors"),
    "auto-round-int8": ("compressed-tensors", "compressed_tensors"),
}


def mxfp4_registered(platform) -> bool:
    """``mxfp4`` is registered on the CPU engine, CUDA and gfx95 ROCm only (spec §11.1)."""
    return platform.is_cuda or platform.is_cpu or platform.is_gfx95


#: 0.5.16 ``BASE_QUANTIZATION_METHODS``: qoq and fbgemm_fp8 removed, humming added (after moe_wna16).
BASE_METHODS_0_5_16 = tuple(m for m in BASE_METHODS if m not in ("qoq", "fbgemm_fp8"))
BASE_METHODS_0_5_16 = (
    *BASE_METHODS_0_5_16[: BASE_METHODS_0_5_16.index("moe_wna16") + 1],
    "humming",
    *BASE_METHODS_0_5_16[BASE_METHODS_0_5_16.index("moe_wna16") + 1 :],
)


def registered_methods(platform, base: tuple[str, ...] = BASE_METHODS) -> list[str]:
    """The quantization registry sglang builds at import time on this platform."""
    methods = list(base)
    if mxfp4_registered(platform):
        methods.append("mxfp4")
    if platform.is_mps:
        methods += ["mlx_q4", "mlx_q8"]
    return methods


#: ``model_config.REQUANTIZATION_METHODS`` (0.5.17): online methods that may requantize a
#: checkpoint quantized with another method.
REQUANTIZATION_METHODS = ("quark_mxfp4",)


@registry.rule("device", until="0.5.16", series="verify_quantization")
def verify_quantization(ctx):
    """``ModelConfig._verify_quantization`` (0.5.15): checkpoint vs ``--quantization``, the
    registry, ROCm."""
    return _verify_quantization(ctx, BASE_METHODS, requantize=())


@registry.rule("device", since="0.5.16", until="0.5.17", series="verify_quantization")
def verify_quantization_0_5_16(ctx):
    """``ModelConfig._verify_quantization`` (0.5.16): as before, over 0.5.16's registry
    (layers/quantization/__init__.py: qoq and fbgemm_fp8 gone, humming added)."""
    return _verify_quantization(ctx, BASE_METHODS_0_5_16, requantize=())


@registry.rule("device", since="0.5.17", series="verify_quantization")
def verify_quantization_0_5_17(ctx):
    """``ModelConfig._verify_quantization`` (since 0.5.17): as 0.5.16, except that a requested
    online method of ``REQUANTIZATION_METHODS`` (``quark_mxfp4``) requantizes a checkpoint of
    another method instead of being refused."""
    return _verify_quantization(ctx, BASE_METHODS_0_5_16, requantize=REQUANTIZATION_METHODS)


def _verify_quantization(ctx, base: tuple[str, ...], *, requantize: tuple[str, ...]) -> dict:
    """``ModelConfig._verify_quantization`` shared by every release: ``base`` is the release's
    registry; a ``--quantization`` in ``requantize`` is accepted over a checkpoint of another method."""
    args, platform = ctx.args, ctx.platform
    user = args.quantization
    quantization, method = model_quantization(user, ctx.hf, platform)
    user_norm = user.lower() if user is not None else None
    if (
        user_norm is not None
        and method is not None
        and quantization != method
        and method not in COMPATIBLE.get(quantization, ())
        and quantization not in requantize
    ):
        raise ConflictError(
            f"Quantization method specified in the model config ({method}) does not match the "
            f"quantization method specified in the `quantization` argument ({quantization}).",
            fields=("quantization",),
            fix=f"drop --quantization (the checkpoint is {method}) or pass --quantization {method}",
        )
    if quantization is None:
        return {}
    supported = registered_methods(platform, base)
    if quantization not in supported:
        where = (
            f" (sglang registers mxfp4 only on CUDA, the CPU engine and gfx95 ROCm; this is {platform.name})"
            if quantization == "mxfp4"
            else ""
        )
        fix = (
            "use a bf16 checkpoint of this model here, or run it on CUDA or gfx95 (MI350/MI355)"
            if quantization == "mxfp4"
            else f"pass a registered --quantization, e.g. {supported[0]}, or none for this checkpoint"
        )
        raise ConflictError(
            f"Unknown quantization method: {quantization}. Must be one of {supported}.{where}",
            fields=("quantization",) if user is not None else (),  # else: the checkpoint says so
            fix=fix,
        )
    if platform.is_hip and quantization not in ROCM_METHODS:
        raise ConflictError(
            f"{quantization} quantization is currently not supported in ROCm.",
            fields=("quantization",) if user is not None else (),
            fix=f"use a checkpoint/--quantization among {sorted(ROCM_METHODS)} on ROCm",
        )
    return {}
