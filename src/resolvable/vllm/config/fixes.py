"""Checked fixes for the vLLM pack: a refusal's ``fix`` is tried by resolving again.

Invariant: the same inputs the refusal saw (config, platform with its GPU count, env, user flags,
release), changed only by what the fix names; vLLM's short options (``-tp``, ``-pp``, ``-dcp`` …)
are understood in fix texts. A refusal at engine start is checked with the engine-start checks
on. The search itself is the engine's (``resolvable._fixes``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import ConflictError
from ...rules import FixCheck, check_fix, schema_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: vLLM's short options of the modelled flags (``engine/arg_utils.py`` aliases, spec §1.4).
ALIASES = {
    "tensor_parallel_size": ("--tensor-parallel-size", "-tp"),
    "pipeline_parallel_size": ("--pipeline-parallel-size", "-pp"),
    "data_parallel_size": ("--data-parallel-size", "-dp"),
    "decode_context_parallel_size": ("--decode-context-parallel-size", "-dcp"),
    "prefill_context_parallel_size": ("--prefill-context-parallel-size", "-pcp"),
    "enable_expert_parallel": ("--enable-expert-parallel", "-ep"),
    "quantization": ("--quantization", "-q"),
    "optimization_level": ("--optimization-level", "-O"),
    "gpu_memory_utilization": ("--gpu-memory-utilization", "--device-memory-utilization"),
}


def check_refusal(
    exc: ConflictError,
    hf: Any,
    platform: Any,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
    *,
    vllm_version: str | None = None,
) -> FixCheck:
    """Check ``exc.fix`` for the inputs ``exc`` refused (``user``: the flags as field → value)."""
    from ..api import resolve_vllm_args
    from ..args import VllmArgs
    from .startup import check_startup

    startup = getattr(exc, "phase", None) == "startup"

    def attempt(u: Mapping[str, Any], e: Mapping[str, str]) -> Any:
        res = resolve_vllm_args(hf, platform, e, vllm_version=vllm_version, **u)
        if startup:
            check_startup(res, hf, e)
        return res

    return check_fix(exc, attempt, dict(user or {}), env, schema_of(VllmArgs), aliases=ALIASES)


def with_checked_fix(
    exc: ConflictError,
    hf: Any,
    platform: Any,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
    *,
    vllm_version: str | None = None,
) -> ConflictError:
    """``exc`` with ``fix`` replaced by the checked fix and ``fix_check`` set (returned for ``raise``)."""
    if exc.fix_check is None:
        check = check_refusal(exc, hf, platform, env, user, vllm_version=vllm_version)
        exc.fix_check = check
        exc.fix = check.text
    return exc
