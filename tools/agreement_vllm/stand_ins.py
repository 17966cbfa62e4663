"""Platforms the vLLM agreement harnesses draw that are not product presets.

``dgx-spark`` is the stand-in the selector and configuration harnesses were measured with (drawn
at TP 2, ``generate.py : OPERATOR_PLATFORMS``): a GB10's name and SM 12.1 with 128 GiB and the
preset defaults of the time (CUDA 12.9, driver 575, eight GPUs a node). The product's own preset
for the chip is ``gb10`` (one GPU, 121.69 GiB, CUDA 13.0; ``resolvable._platform``); the stand-in
stays here, as measured, so the stored reports stay reproducible.

``platform(name)`` is the harness's preset lookup: a stand-in by name, else the product's preset
(or ``detect``).
"""

from __future__ import annotations

from resolvable import Platform

STAND_INS: dict[str, Platform] = {
    "dgx-spark": Platform(
        vendor="cuda",
        name="dgx-spark",
        capability=(12, 1),
        cuda_version=(12, 9),
        device_name="NVIDIA GB10",
        memory_gib=128,
        device_count=8,
        driver_version=(575, 57),
        kernels=frozenset({"flashinfer", "triton_kernels"}),
        detected_by="preset",
    ),
}


def platform(name: str) -> Platform:
    """A harness stand-in by name, else the product's preset (``detect``: this machine)."""
    key = str(name).strip().lower().replace("_", "-")
    if key in STAND_INS:
        return STAND_INS[key]
    from resolvable.vllm.platforms import platform as product_platform

    return product_platform(name)
