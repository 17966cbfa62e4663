"""GPU-memory defaults: ``ServerArgs._handle_gpu_memory_settings`` (sglang 0.5.15 server_args.py:3469).

sglang reads the device's total memory (``get_device_memory_capacity``: nvidia-smi's
``memory.total`` in MiB on CUDA, the vendor's query elsewhere, host memory on the CPU engine)
right after the device handlers and, before any per-model rule, fills ``chunked_prefill_size``
and the decode CUDA-graph ``max_bs`` from it. Here the memory is the platform's ``memory_gib``
(a preset's, or the detected one); unknown memory takes sglang's fallback branch.

Invariants: only unset values are filled (a user's ``--chunked-prefill-size`` is kept); the
bands are sglang's, in MiB, with its strict ``<`` boundaries.
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from ...rules import Platform

#: (upper bound in MiB (exclusive), chunked_prefill_size, decode max_bs for tp < 4, for tp >= 4)
MEMORY_BANDS = (
    (20 * 1024, 2048, 8, 8),  # T4, RTX 4080
    (35 * 1024, 2048, 24, 80),  # A10, L4, RTX 4090/5090
    (60 * 1024, 4096, 32, 160),  # A100 40GB, L40S
    (90 * 1024, 8192, 256, 512),  # H100, A100 80GB
    (160 * 1024, 8192, 256, 512),  # H20, H200
    (float("inf"), 16384, 512, 512),  # B200, MI300X
)
#: ``gpu_mem is None``: chunked prefill 4096, decode max_bs 160.
FALLBACK = (4096, 160)


def gpu_memory_mib(platform: Platform) -> float | None:
    """``get_device_memory_capacity`` for a platform: None where sglang has no query (MPS) or the
    memory is unknown (a CPU preset: host memory is not a preset fact)."""
    if platform.vendor == "mps" or platform.memory_gib is None:
        return None
    return platform.memory_gib * 1024


def _band(mem_mib: float | None) -> tuple[int, int, int] | None:
    if mem_mib is None:
        return None
    for limit, chunk, small_tp, large_tp in MEMORY_BANDS:
        if mem_mib < limit:
            return chunk, small_tp, large_tp
    return None  # unreachable: the last band is unbounded


def chunked_prefill_default(mem_mib: float | None) -> int:
    band = _band(mem_mib)
    return FALLBACK[0] if band is None else band[0]


def in_small_gpu_band(mem_mib: float | None) -> bool:
    """The 20-35 GiB band (A10, L4, RTX 4090/5090), whose defaults 0.5.20 raised."""
    return mem_mib is not None and MEMORY_BANDS[0][0] <= mem_mib < MEMORY_BANDS[1][0]


def decode_cuda_graph_max_bs(mem_mib: float | None, tp_size: int) -> int:
    """The decode CUDA-graph ``max_bs`` sglang picks when ``--cuda-graph-max-bs`` is unset."""
    band = _band(mem_mib)
    if band is None:
        return FALLBACK[1]
    return band[1] if tp_size < 4 else band[2]


@registry.rule("memory")
def chunked_prefill_from_memory(ctx):
    """server_args.py:3496-3554: an unset ``chunked_prefill_size`` follows the GPU memory
    (2048 below 35 GiB, 4096 below 60 GiB, 8192 below 160 GiB, else 16384; 4096 when unknown);
    ``SMALL_GPU_CHUNKED_PREFILL_4K`` (0.5.20): 4096 on 20-35 GiB GPUs too."""
    if ctx.args.chunked_prefill_size is not None:
        return {}
    mem_mib = gpu_memory_mib(ctx.platform)
    if in_small_gpu_band(mem_mib) and ctx.release.has(CHANGES.SMALL_GPU_CHUNKED_PREFILL_4K):
        return {"chunked_prefill_size": 4096}
    return {"chunked_prefill_size": chunked_prefill_default(mem_mib)}
