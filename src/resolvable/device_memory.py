"""Device memory as the engines see it, and the start-up overheads only profiling measures.

Both engines size the KV cache from what ``torch.cuda.mem_get_info`` reports, not from the
marketing capacity: an "80 GB" H100 reports 79.19 GiB to torch (nvidia-smi: 81559 MiB). The
table below holds that figure per device (from public start-up logs: vLLM's
``total_gpu_memory=…GiB`` and sglang's first ``avail mem=…GB``); other devices fall back to the
platform's ``memory_gib``.

What only a profiling run knows is modelled here as an estimate with a range (``Estimate``):
the CUDA context and communication buffers present before the weights load, and the runtime
reserve. The ranges are the spread seen in the corpus (``tests/memory/corpus``); docs/memory.md
gives the figures.

Invariants: standard library only; every figure in bytes; an ``Estimate`` always carries
``low <= value <= high`` and the words that say where it comes from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Estimate", "context_overhead", "device_total_bytes", "require_device_bytes"]

GIB = 1 << 30

#: device-name fragment → GiB torch reports as total memory (lower-case match at the start of a
#: word, first hit wins: "gb200" is not read as "b200", nor "gh200" as "h200"). A device with a
#: platform preset has the preset's ``memory_gib`` here (its source is cited in
#: ``_platform._preset_values``; tests/engine/test_platform.py keeps the two equal).
_TORCH_TOTAL_GIB = (
    # GB200: "GPU 3 has a total capacity of 184.00 GiB" (torch's OOM message in
    # NVIDIA/srt-slurm issue 172, sglang DeepSeek-R1 FP4 on GB200)
    ("gb200", 184.0),
    ("a100-sxm4-40gb", 39.39),
    ("a100-pcie-40gb", 39.39),
    ("a100", 79.15),
    ("h100 nvl", 93.1),
    ("h100", 79.19),
    ("h200", 139.8),
    ("h20-3e", 139.8),
    ("h20 141", 139.8),
    ("h20", 95.0),
    ("b200", 178.4),
    ("b300", 268.0),
    ("l40s", 44.4),
    ("l40", 44.4),
    ("l4", 22.05),
    ("a10g", 22.0),
    ("a10", 22.0),
    ("t4", 14.56),
    ("v100-sxm2-16gb", 15.77),
    ("v100", 31.74),
    ("rtx 4090", 23.65),
    ("rtx 3090", 23.58),
    ("rtx 5090", 31.37),
    ("rtx pro 6000", 94.97),
    ("mi300x", 191.98),
    ("mi355x", 287.98),
)


def device_total_bytes(device_name: str | None, memory_gib: float | None) -> int | None:
    """What torch reports as the device's total memory, in bytes (None when unknown)."""
    name = (device_name or "").lower()
    for fragment, gib in _TORCH_TOTAL_GIB:
        if re.search(r"(?<![a-z0-9])" + re.escape(fragment), name):
            return int(gib * GIB)
    if memory_gib is None:
        return None
    return int(memory_gib * GIB)


def require_device_bytes(device_name: str | None, memory_gib: float | None) -> int:
    """``device_total_bytes``, refused with the fix when the platform has no device memory (the
    CPU presets: their KV cache lives in host memory, which neither engine's capacity model here
    covers)."""
    from .memory import MemoryModelError  # memory.py is the heavier module; only this path needs it

    total = device_total_bytes(device_name, memory_gib)
    if total is None:
        raise MemoryModelError(
            "the platform has no device memory (a CPU preset: the KV cache lives in host memory, "
            "which the memory model does not cover): pick a GPU preset with --platform "
            "(`resolvable platforms` lists them)"
        )
    return total


@dataclass(frozen=True)
class Estimate:
    """A quantity only a profiling run measures: the value used, its range, and why."""

    value: float
    low: float
    high: float
    why: str

    def __post_init__(self) -> None:
        if not self.low <= self.value <= self.high:
            raise ValueError(f"estimate {self.value} outside its range [{self.low}, {self.high}]")

    def to_dict(self) -> dict[str, object]:
        return {"bytes": int(self.value), "low": int(self.low), "high": int(self.high), "why": self.why}


def context_overhead(world_size: int) -> Estimate:
    """Device memory in use before the weights load: the CUDA context (~0.5 GiB), plus NCCL and
    custom all-reduce buffers when more than one GPU takes part."""
    base = 0.55 * GIB
    comm = 0.0 if world_size <= 1 else 0.45 * GIB
    value = base + comm
    return Estimate(
        value,
        value - 0.25 * GIB,
        value + 0.75 * GIB,
        "CUDA context and communication buffers before the weights load (estimated from public start-up logs)",
    )
