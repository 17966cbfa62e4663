"""Installed optional kernels: explicit, overridable facts with the defaults of a standard install.

vLLM's choice depends on what the install can import (spec §1.3): the FA2/FA3 ``.so`` files, the
FA4 cute path, ``_flashmla_C``, ``flashinfer`` and its cubins (or, without them, the NVIDIA
artifactory over the network), ``tokenspeed_mla``, the cute-DSL, ``aiter`` on ROCm. These are
facts about the install, not the GPU, so they are not ``Platform`` fields (the SGLang pack's
platform fingerprints stay unchanged): the vLLM pack declares them as the resolvable field
``installed_kernels`` (visible in ``explain``), starting from ``standard_install(platform)`` and
applying the user's ``--kernels name=0|1,...`` overrides.

Standard install (the ``vllm==0.33.0`` CUDA wheel with its pinned dependencies
``flashinfer-python``, ``nvidia-cutlass-dsl``, ``tokenspeed-mla``): every CUDA kernel listed
below is present, and FlashInfer's cubins are reachable (``flashinfer_cubin``: the
``flashinfer-cubin`` package or ``VLLM_HAS_FLASHINFER_CUBIN=1``; ``nvidia_artifactory``: the
download host answers). ROCm images ship ``aiter``. CPU: ``amx`` follows the platform,
``avx512`` is assumed on x86_64 hosts.

Invariant: pure functions of their arguments; an unknown kernel name or a malformed override
is an ``InvalidArgumentError`` naming the valid names.
"""

from __future__ import annotations

from ..errors import InvalidArgumentError, closest
from ..rules import Platform

#: Every fact, with what it stands for (shown by `resolvable explain` and the docs).
KERNELS = {
    "fa2": "vllm_flash_attn._vllm_fa2_C imports (FlashAttention 2 build)",
    "fa3": "vllm_flash_attn._vllm_fa3_C imports (FlashAttention 3 build)",
    "fa4": "the FlashAttention 4 cute path exists (vllm_flash_attn/cute)",
    "flashmla": "vllm._flashmla_C and vllm._flashmla_extension_C import",
    "flashinfer": "the flashinfer package imports",
    "flashinfer_cubin": "flashinfer-cubin is installed (or VLLM_HAS_FLASHINFER_CUBIN=1, or nvcc+ninja for JIT)",
    "nvidia_artifactory": "NVIDIA's cubin artifactory is reachable (network; only read without flashinfer_cubin)",
    "flashinfer_sparse_mla": "FlashInfer has the SM90/SM120 sparse-MLA decode APIs (FlashInfer >= 0.6.18)",
    "tokenspeed_mla": "the tokenspeed_mla package imports",
    "cute_dsl": "vllm_flash_attn.cute.interface imports (nvidia-cutlass-dsl)",
    "aiter": "the aiter package imports (ROCm)",
    "amx": "the CPU has AMX tiles (torch.cpu._is_amx_tile_supported)",
    "avx512": "the CPU has AVX-512 (torch.cpu._is_avx512_supported)",
}

_CUDA = ("fa2", "fa3", "fa4", "flashmla", "flashinfer", "flashinfer_cubin", "nvidia_artifactory")
_CUDA += ("flashinfer_sparse_mla", "tokenspeed_mla", "cute_dsl")


def standard_install(platform: Platform) -> frozenset[str]:
    """The kernels a standard vLLM 0.33.0 install has on ``platform``."""
    if platform.vendor == "cuda":
        return frozenset(_CUDA)
    if platform.vendor == "hip":
        return frozenset({"aiter"})
    if platform.vendor == "cpu":
        out = set()
        if platform.cpu_amx:
            out.add("amx")
        if not platform.is_arm64_host:
            out.add("avx512")
        return frozenset(out)
    return frozenset()


def parse_overrides(text: str | None) -> dict[str, bool]:
    """``"flashinfer=0,fa3=1"`` → ``{"flashinfer": False, "fa3": True}`` (also ``-name``/``+name``)."""
    if not text:
        return {}
    out: dict[str, bool] = {}
    for raw in str(text).split(","):
        item = raw.strip()
        if not item:
            continue
        if item[0] in "+-":
            name, value = item[1:], item[0] == "+"
        else:
            name, sep, flag = item.partition("=")
            if not sep:
                name, flag = item, "1"
            if flag.strip().lower() not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
                raise InvalidArgumentError(f"--kernels {item!r}: use NAME=0 or NAME=1 (e.g. flashinfer=0)")
            value = flag.strip().lower() in ("1", "true", "yes", "on")
        name = name.strip().lower()
        if name not in KERNELS:
            hint = closest(name, KERNELS)
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise InvalidArgumentError(
                f"--kernels: unknown kernel {name!r}{extra}; known: {', '.join(KERNELS)}"
            )
        out[name] = value
    return out


def installed(platform: Platform, overrides: str | None) -> list[str]:
    """Sorted installed kernels: the standard install of ``platform`` with ``overrides`` applied."""
    present = set(standard_install(platform))
    for name, value in parse_overrides(overrides).items():
        (present.add if value else present.discard)(name)
    return sorted(present)
