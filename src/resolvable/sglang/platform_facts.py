"""The platform predicates SGLang gates on that are its own, not hardware facts (issue 16 item 3).

Invariant: each is defined once, here, with ``define_platform_fact``, from the engine's neutral
facts; a rule reads it as ``ctx.platform.is_sm90`` (cached per platform value, traced under that
name), so moving it out of the engine changed no answer and no explanation.
"""

from __future__ import annotations

from ..rules import Platform, define_platform_fact


def is_sm90(platform: Platform) -> bool:
    """Hopper (capability major 9) with a torch CUDA build >= 12.3: sglang's
    ``is_sm90_supported`` / ``is_hopper_with_cuda_12_3`` (``sglang/srt/utils/common.py``) — the
    gate of FA3, the Hopper default backends and the sm90 kernels."""
    return platform.cuda_major_in((9,), (12, 3))


define_platform_fact("is_sm90", is_sm90)
