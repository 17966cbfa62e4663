"""Extra platform presets the vLLM pack needs (CUDA SM75 … SM121), without touching the engine's.

The engine's presets (``Platform.presets()``) stay as they are, so the SGLang pack's outputs and
fingerprints do not change; ``platform(name)`` looks here first, then at the engine's presets.
"""

from __future__ import annotations

from ..rules import Platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def _nvidia(name: str, device: str, cc: tuple[int, int], mem: float) -> Platform:
    return Platform(
        vendor="cuda",
        name=name,
        capability=cc,
        cuda_version=(12, 9),
        device_name=device,
        memory_gib=mem,
        device_count=8,
        driver_version=(575, 57),
        kernels=frozenset({"flashinfer", "triton_kernels"}),
        detected_by="preset",
    )


EXTRA_PRESETS: dict[str, Platform] = {
    "t4": _nvidia("t4", "Tesla T4", (7, 5), 16),
    "a10g": _nvidia("a10g", "NVIDIA A10G", (8, 6), 24),
    "thor": _nvidia("thor", "NVIDIA Jetson AGX Thor", (11, 0), 128),
    # "gb10" (the DGX Spark's chip: one GPU, 121.69 GiB unified memory) is the engine's preset;
    # "dgx-spark" is the stand-in the config harness draws at TP 2 (two GPUs a node, 128 GiB),
    # kept as it was measured (tools/agreement_vllm/generate.py OPERATOR_PLATFORMS).
    "dgx-spark": _nvidia("dgx-spark", "NVIDIA GB10", (12, 1), 128),
    # MI325X: the MI300X's gfx942 with 256 GB HBM3e (vLLM names it by PCI id 0x74a5,
    # ``platforms/rocm.py : _ROCM_DEVICE_ID_NAME_MAP``)
    "mi325x": Platform(
        vendor="hip",
        name="mi325x",
        capability=(9, 4),
        gcn_arch="gfx942",
        device_name="AMD Instinct MI325X",
        memory_gib=256,
        device_count=8,
        detected_by="preset",
    ),
}


def presets() -> Mapping[str, Platform]:
    """Every preset the vLLM pack accepts: the engine's and the extra ones."""
    return {**Platform.presets(), **EXTRA_PRESETS}


def platform(name: str) -> Platform:
    """A preset by name (extra presets first), or ``detect`` for this machine."""
    key = str(name).strip().lower().replace("_", "-")
    if key == "detect":
        return Platform.detect()
    if key in EXTRA_PRESETS:
        return EXTRA_PRESETS[key]
    return Platform.preset(name)
