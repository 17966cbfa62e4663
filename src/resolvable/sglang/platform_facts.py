"""The platform predicates SGLang gates on that are its own, not hardware facts (issue 16 item 3).

Invariant: each is defined once, here, with ``define_platform_fact``, from the engine's neutral
facts; a rule reads it as ``ctx.platform.is_sm90`` (cached per platform value, traced under that
name), so moving it out of the engine changed no answer and no explanation. ``facts`` is what
``resolvable platforms`` shows of them (through ``Pack.platform_facts``: the CLI imports no pack
module).
"""

from __future__ import annotations

from ..rules import Platform, define_platform_fact

#: sglang gates its Blackwell kernels on a torch CUDA build of at least 12.8 (the first with SM100
#: and SM120 code), as well as on the capability major.
_BLACKWELL_CUDA = (12, 8)


def is_sm90(platform: Platform) -> bool:
    """Hopper (capability major 9) with a torch CUDA build >= 12.3: sglang's
    ``is_sm90_supported`` / ``is_hopper_with_cuda_12_3`` (``sglang/srt/utils/common.py``) — the
    gate of FA3, the Hopper default backends and the sm90 kernels."""
    return platform.cuda_major_in((9,), (12, 3))


def is_sm100(platform: Platform) -> bool:
    """SM100/SM103 (B200, GB200, B300: capability major 10) with a torch CUDA build >= 12.8:
    sglang's ``is_sm100_supported`` (``sglang/srt/utils/common.py``)."""
    return platform.cuda_major_in((10,), _BLACKWELL_CUDA)


def is_sm100_or_sm110(platform: Platform) -> bool:
    """Capability major 10 or 11 with a torch CUDA build >= 12.8: sglang 0.5.17's
    ``is_sm100_or_sm110_supported`` (``sglang/srt/utils/common.py``)."""
    return platform.cuda_major_in((10, 11), _BLACKWELL_CUDA)


def is_sm120(platform: Platform) -> bool:
    """SM120/SM121 (RTX 50xx, RTX PRO 6000, GB10: capability major 12) with a torch CUDA build
    >= 12.8: sglang's ``is_sm120_supported`` (``sglang/srt/utils/common.py``)."""
    return platform.cuda_major_in((12,), _BLACKWELL_CUDA)


def is_blackwell(platform: Platform) -> bool:
    """Capability majors 10, 11, 12 with a torch CUDA build >= 12.8: sglang's
    ``is_blackwell_supported`` (``sglang/srt/utils/common.py``); SM11x is Blackwell but neither
    ``is_sm100`` nor ``is_sm120``."""
    return platform.cuda_major_in((10, 11, 12), _BLACKWELL_CUDA)


def is_blackwell_cc(platform: Platform) -> bool:
    """Capability major 10 or 12, any CUDA build: sglang 0.5.6.post2's ``is_blackwell()``
    (``sglang/srt/utils/common.py``), the gate of its MHA trtllm_mha default (0.5.7 asks
    ``is_sm100_supported`` there instead: ``TRTLLM_MHA_DEFAULT_SM100_ONLY``)."""
    return platform.cuda_major_in((10, 12), (0, 0))


define_platform_fact("is_sm90", is_sm90)
define_platform_fact("is_blackwell_cc", is_blackwell_cc)
define_platform_fact("is_sm100", is_sm100)
define_platform_fact("is_sm100_or_sm110", is_sm100_or_sm110)
define_platform_fact("is_sm120", is_sm120)
define_platform_fact("is_blackwell", is_blackwell)


def facts(platform: Platform) -> dict[str, bool]:
    """The generation predicates ``resolvable platforms`` shows, by column name, in this order."""
    return {
        "sm90": platform.is_sm90,
        "sm100": platform.is_sm100,
        "sm120": platform.is_sm120,
        "blackwell": platform.is_blackwell,
    }
