"""``ModelConfig._verify_quantization`` (configs/model_config.py; spec §11.1), per release.

sglang builds the model config while it constructs ``ServerArgs`` (first at the CUDA-graph
step, spec §2.2 step 5), and the model config refuses three things: a ``--quantization``
that contradicts the checkpoint (unless the pair is compatible, e.g. ``modelopt_fp4`` for a
``modelopt`` checkpoint), a method the platform's quantization registry does not hold
(``mxfp4`` only on some platforms; ``mlx_q4``/``mlx_q8`` only on Apple MPS; ``marlin`` never
as such; since 0.5.20 plain ``gptq`` only on NPU, the CPU engine and XPU), and on ROCm a
method outside sglang's ROCm list.

Each release's registry (layers/quantization/__init__.py) is a ``QuantRegistry``: the base
dict in sglang's order plus what each platform appends; the "Must be one of" list is that,
in that order. What changed per release (registry, compatible pairs, requantization, ROCm list,
``facts.QuantReading``) is named in ``changes.py`` and picked by ``release_arguments``.

Invariant: this rule only refuses; ``ServerArgs.quantization`` is not changed here (sglang
keeps the refined method on the model config, which model rules read via
``facts.model_quantization``).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, record, record_replace
from .._base import registry
from ..changes import CHANGES
from ..facts import QuantReading, model_quantization

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

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


_PLATFORM_NAMES = {
    "cuda": "CUDA",
    "cpu": "the CPU engine",
    "gfx95": "gfx95 ROCm",
    "xpu": "XPU",
    "npu": "NPU",
}


def _kind(platform) -> str | None:
    """The platform as layers/quantization/__init__.py tells them apart (None: none of them)."""
    checks = {
        "cuda": platform.is_cuda,
        "cpu": platform.is_cpu,
        "gfx95": platform.is_gfx95,
        "xpu": platform.is_xpu,
        "npu": platform.is_npu,
    }
    return next((kind for kind, hit in checks.items() if hit), None)


def _names(kinds: tuple[str, ...]) -> str:
    names = [_PLATFORM_NAMES[k] for k in _PLATFORM_NAMES if k in kinds]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@record(frozen=True)  # not a dataclass: import cost (see _record)
class QuantRegistry:
    """``QUANTIZATION_METHODS`` of one release (layers/quantization/__init__.py): the base
    dict in its order, then what each platform's ``update`` appends (a key already in the base
    keeps its place). Platforms: cuda, cpu (the CPU engine), gfx95 (ROCm MI350/MI355; other
    ROCm adds nothing), xpu, npu; Apple MPS always appends ``mlx_q4``, ``mlx_q8``."""

    base: tuple[str, ...]
    #: platforms that register ``mxfp4``
    mxfp4: tuple[str, ...] = ("cuda", "cpu", "gfx95")
    #: platforms that append plain ``gptq`` (since 0.5.20, when it left the base dict)
    gptq: tuple[str, ...] = ()
    #: methods only the NPU update appends, last (before 0.5.8: ``modelslim``)
    npu_only: tuple[str, ...] = ()

    def methods(self, platform) -> list[str]:
        """The registry sglang builds at import time on this platform, in its order (the
        "Must be one of" list). NPU's update names gptq before mxfp4; the others after."""
        methods = list(self.base)
        kind = _kind(platform)
        for name in ("gptq", "mxfp4") if platform.is_npu else ("mxfp4", "gptq"):
            if kind in getattr(self, name) and name not in methods:
                methods.append(name)
        if platform.is_npu:
            methods += [m for m in self.npu_only if m not in methods]
        if platform.is_mps:
            methods += ["mlx_q4", "mlx_q8"]
        return methods

    def where(self, method: str, platform) -> str:
        """Why a method of another platform is unknown here ('' when it is no such method)."""
        if method == "mxfp4":
            return f" (sglang registers mxfp4 only on {_names(self.mxfp4)}; this is {platform.name})"
        if method == "gptq" and self.gptq:
            return (
                f" (since 0.5.20 sglang registers plain gptq only on {_names(self.gptq)}; "
                f"this is {platform.name})"
            )
        return ""


#: ``model_config.REQUANTIZATION_METHODS`` (0.5.17): online methods that may requantize a
#: checkpoint quantized with another method.
REQUANTIZATION_METHODS = ("quark_mxfp4",)


def release_arguments(release: Any) -> dict[str, Any]:
    """The arguments of ``_verify_quantization`` for ``release`` (a ``ReleaseView``): 0.5.15's
    registry, ROCm list, compatible pairs and checkpoint reading, with the delta of each change
    the release has applied in release order (one delta per change, never a copy per release)."""
    has = release.has
    base, mxfp4, gptq, npu_only = BASE_METHODS, ("cuda", "cpu", "gfx95"), (), ()
    out: dict[str, Any] = {}
    reading = QuantReading()
    if not has(CHANGES.QUANT_REGISTRY_BNB_MODELSLIM):
        # before 0.5.8: no bitsandbytes or quark_int4fp8_moe (nor in the ROCm list), and
        # modelslim only on NPU (appended by its update, from hardware_backend/npu)
        base = tuple(m for m in base if m not in ("bitsandbytes", "modelslim", "quark_int4fp8_moe"))
        npu_only = ("modelslim",)
        out["rocm"] = ROCM_METHODS - {"quark_int4fp8_moe"}
    if not has(CHANGES.QUANT_MODELOPT_IN_CONFIG_JSON):  # before 0.5.10: config.json's modelopt stays modelopt
        reading = out["reading"] = record_replace(reading, modelopt_named_kept=True)
    if not has(CHANGES.QUANT_MXFP8):  # before 0.5.9: no mxfp8 in the registry or the ROCm list
        base = tuple(m for m in base if m != "mxfp8")
        out["rocm"] = out.get("rocm", ROCM_METHODS) - {"mxfp8"}
    if not has(CHANGES.QUANT_MXFP4_ON_CPU):  # before 0.5.14: mxfp4 on CUDA and gfx95 ROCm only
        mxfp4 = ("cuda", "gfx95")
    if not has(CHANGES.GPTQ_MARLIN_OFF_CUDA):  # before 0.5.13: gptq_marlin on CUDA only
        reading = out["reading"] = record_replace(reading, gptq_marlin_cuda_only=True)
    if has(CHANGES.QUANT_REGISTRY_HUMMING):
        # ``BASE_QUANTIZATION_METHODS``: qoq and fbgemm_fp8 removed, humming added after
        # quark_int4fp8_moe; mxfp4 also on NPU (``Mxfp4W4A4Config``); fbgemm_fp8 leaves the ROCm
        # list; ``--quantization humming`` claims the checkpoint (humming.py).
        base = (*(m for m in base if m not in ("qoq", "fbgemm_fp8", "mxfp_w4a8")), "humming", "mxfp_w4a8")
        mxfp4 = (*mxfp4, "npu")
        reading = record_replace(reading, humming=True)
        out.update(rocm=ROCM_METHODS - {"fbgemm_fp8"}, reading=reading)
    if has(CHANGES.QUANT_REQUANTIZE):
        out["requantize"] = REQUANTIZATION_METHODS
    if has(CHANGES.QUANT_MODELOPT_EXACT):
        # ``compatible_quantization_methods``: modelopt_fp4 may serve an fp8 checkpoint (its MoE
        # experts are requantized online), nvfp4_online a modelopt_fp8 one. The checkpoint is
        # read with the exact FP8/MXFP8 ModelOpt parser and override; requantization keeps the
        # user's method (every override skipped); the ModelOpt override leaves nvfp4_online alone.
        out["compatible"] = {
            **COMPATIBLE,
            "modelopt_fp4": ("modelopt", "fp8"),
            "nvfp4_online": ("fp8", "modelopt_fp8"),
        }
        reading = out["reading"] = record_replace(
            reading,
            exact_fp8=True,
            modelopt_user_algos="exact_fp8",
            keep_user=REQUANTIZATION_METHODS,
            modelopt_keeps=("nvfp4_online", *REQUANTIZATION_METHODS),
        )
    if has(CHANGES.QUANT_MODELOPT_ALLOWLIST):  # ``--quantization modelopt``: an exact allowlist
        reading = out["reading"] = record_replace(reading, modelopt_user_algos="allowlist")
    if has(CHANGES.QUANT_GPTQ_PLATFORMS):
        # plain ``gptq`` leaves the base dict (``GPTQConfig`` is gone; gptq_marlin stays) and the
        # ROCm list; only the NPU, CPU-engine and XPU updates append it; mxfp4 on XPU too; flat
        # and nested ModelOpt objects are read (config.json and hf_quant_config.json).
        base = tuple(m for m in base if m != "gptq")
        mxfp4, gptq = ("cuda", "cpu", "gfx95", "xpu", "npu"), ("cpu", "xpu", "npu")
        out["rocm"] = out.get("rocm", ROCM_METHODS) - {"gptq"}
        reading = out["reading"] = record_replace(reading, unwrap=True)
    if has(CHANGES.QUANT_MINIMAX_M3_NVFP4):
        # ``minimax_m3_nvfp4`` (MiniMax-M3.1 NVFP4 experts) right after mxfp8; declared by the
        # MiniMax-M3 override, it serves the mxfp8 checkpoint.
        at = base.index("mxfp8") + 1
        base = (*base[:at], "minimax_m3_nvfp4", *base[at:])
        out["compatible"] = {**out.get("compatible", COMPATIBLE), "minimax_m3_nvfp4": ("mxfp8",)}
    out["methods"] = QuantRegistry(base, mxfp4=mxfp4, gptq=gptq, npu_only=npu_only)
    return out


@registry.rule("device")
def verify_quantization(ctx):
    """``ModelConfig._verify_quantization``: checkpoint vs ``--quantization``, the release's
    registry, ROCm (``release_arguments``: ``QUANT_REGISTRY_BNB_MODELSLIM`` 0.5.8, ``QUANT_MXFP8``
    0.5.9, ``QUANT_MODELOPT_IN_CONFIG_JSON`` 0.5.10, ``GPTQ_MARLIN_OFF_CUDA`` 0.5.13, ``QUANT_MXFP4_ON_CPU`` 0.5.14, ``QUANT_REGISTRY_HUMMING`` 0.5.16,
    ``QUANT_REQUANTIZE`` 0.5.17, ``QUANT_MODELOPT_EXACT`` 0.5.18, ``QUANT_MODELOPT_ALLOWLIST``
    0.5.19, ``QUANT_GPTQ_PLATFORMS`` 0.5.20, ``QUANT_MINIMAX_M3_NVFP4`` 0.5.23)."""
    return _verify_quantization(ctx, **ctx.release.derive(release_arguments))


def _verify_quantization(
    ctx,
    methods: QuantRegistry,
    *,
    requantize: tuple[str, ...] = (),
    compatible: dict[str, tuple[str, ...]] = COMPATIBLE,
    rocm: frozenset[str] = ROCM_METHODS,
    reading: QuantReading | None = None,
) -> dict:
    """``ModelConfig._verify_quantization`` shared by every release: ``methods`` is the release's
    registry; a ``--quantization`` in ``requantize`` is accepted over a checkpoint of another
    method; ``compatible`` and ``rocm`` are its ``compatible_quantization_methods`` and ROCm
    list; ``reading`` how it reads the checkpoint (``facts.QuantReading``, 0.5.15's when None)."""
    args, platform = ctx.args, ctx.platform
    user = args.quantization
    quantization, method = model_quantization(user, ctx.hf, platform, reading)
    user_norm = user.lower() if user is not None else None
    if (
        user_norm is not None
        and method is not None
        and quantization != method
        and method not in compatible.get(quantization, ())
        and quantization not in requantize
    ):
        raise ConflictError(
            f"Quantization method specified in the model config ({method}) does not match the "
            f"quantization method specified in the `quantization` argument ({quantization}).",
            fields=("quantization",),
            fix=Fix.any_of(
                Fix(drop=("quantization",)),
                Fix(set={"quantization": method}),
                text=f"drop --quantization (the checkpoint is {method}) or pass --quantization {method}",
            ),
        )
    if quantization is None:
        return {}
    supported = methods.methods(platform)
    if quantization not in supported:
        if quantization == "mxfp4":
            fix = "use a bf16 checkpoint of this model here, or run it on CUDA or gfx95 (MI350/MI355)"
        elif quantization == "gptq" and methods.gptq:
            marlin = "gptq_marlin converts a symmetric 4/8-bit GPTQ checkpoint with desc_act set, on SM80+"
            fix = (
                f"drop --quantization gptq ({marlin}), or serve it on {_names(methods.gptq)}"
                if user is not None
                else f"this checkpoint does not convert ({marlin}): serve it on {_names(methods.gptq)}"
            )
        else:
            fix = Fix(
                set={"quantization": supported[0]},
                text=f"pass a registered --quantization, e.g. {supported[0]}, or none for this checkpoint",
            )
        raise ConflictError(
            f"Unknown quantization method: {quantization}. Must be one of {supported}."
            f"{methods.where(quantization, platform)}",
            fields=("quantization",) if user is not None else (),  # else: the checkpoint says so
            fix=fix,
        )
    if platform.is_hip and quantization not in rocm:
        raise ConflictError(
            f"{quantization} quantization is currently not supported in ROCm.",
            fields=("quantization",) if user is not None else (),
            fix=Fix.any_of(
                *(Fix(set={"quantization": q}) for q in sorted(rocm)),
                text=f"use a checkpoint/--quantization among {sorted(rocm)} on ROCm",
            ),
        )
    return {}
