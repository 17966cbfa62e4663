"""The cases ``resolvable lint --engine vllm`` resolves for the vLLM pack (``Pack.lint_attempts``).

For one release: every bundled model × every preset of vLLM's table (``GRID_PLATFORMS``, the
presets ``resolvable matrix --engine vllm`` shows), with no flags, the start-up checks run too
(a check that crashes is a finding; a start-up refusal is not). Invariants: standard library
only; an attempt is a ``(label, thunk)`` pair that resolves when called, never before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..errors import ConflictError

#: The presets of vLLM's tables (matrix, lint): the GPU and CPU presets vLLM's platforms model.
GRID_PLATFORMS = (
    "t4", "a100", "l40s", "h100", "b200", "b300", "thor", "rtx5090", "gb10",
    "mi300x", "mi355x", "xpu", "cpu", "cpu-amx",
)  # fmt: skip


def lint_attempts(pack: Any, release: str) -> list[tuple[str, Callable[[], Any]]]:
    """``(label, thunk)`` of every case of ``release`` (label ``model@preset@release``)."""

    def attempt(hf: Any, platform: Any) -> Any:
        res = pack.resolve(hf, platform, {}, release=release)
        with contextlib.suppress(ConflictError):
            pack.check_startup(res, hf, {})
        return res

    attempts: list[tuple[str, Callable[[], Any]]] = []
    for model in pack.catalog():
        hf = pack.load_model(model)
        for name in GRID_PLATFORMS:
            platform = pack.platform(name)
            attempts.append((f"{model}@{name}@{release}", lambda hf=hf, pl=platform: attempt(hf, pl)))
    return attempts


def lint_architectures(pack: Any) -> list[str]:
    """The architectures a rule predicate may name: the bundled models', the registry's own, and every
    architecture vLLM's ``ModelRegistry`` registers (``config/model_info.json``). A hook of
    ``MODELS_CONFIG_MAP`` for a model with no bundled sample (``LongcatFlashNgramForCausalLM``,
    ``UnlimitedOCRForCausalLM``) runs for anyone who serves that model, so it is not dead; a
    predicate naming an architecture vLLM does not register still is."""
    from .config import model_info

    bundled = {pack.load_model(m).architecture for m in pack.catalog()}
    return sorted(bundled | pack.registry.architectures() | model_info.architectures())
