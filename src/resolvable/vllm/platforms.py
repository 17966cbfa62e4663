"""The platforms the vLLM pack resolves on: the engine's one preset table (``Platform.presets()``,
``resolvable._platform``), which every pack shares, or the detected machine.

Invariant: the pack keeps no presets of its own, so a preset name means the same GPU, memory and
node for every engine. (The config harness's DGX Spark stand-in lives in the harness,
``tools/agreement_vllm/stand_ins.py``.)
"""

from __future__ import annotations

from ..rules import Platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def presets() -> Mapping[str, Platform]:
    """Every preset the vLLM pack accepts: the engine's."""
    return Platform.presets()


def platform(name: str) -> Platform:
    """A preset by name, or ``detect`` for this machine."""
    key = str(name).strip().lower().replace("_", "-")
    if key == "detect":
        return Platform.detect()
    return Platform.preset(name)
