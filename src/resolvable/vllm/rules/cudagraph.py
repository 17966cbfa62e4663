"""Stage "cudagraph": the CUDA-graph mode that the chosen backends allow (spec §7).

``v1/worker/gpu_model_runner.py : _check_and_update_cudagraph_mode`` →
``config/compilation.py : CompilationConfig.resolve_cudagraph_mode_and_sizes``: the minimum
``AttentionCGSupport`` over all layers decides. Defaults: FULL_AND_PIECEWISE (VLLM_COMPILE,
attention is a splitting op); NONE with ``--enforce-eager`` or on CPU. A user's mode is
downgraded too (vLLM warns), so such a change is a ``Force`` with the reason.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Force
from .._base import registry
from ..backends._spec import CG_LEVELS
from ..select import backend_entry
from ._inputs import chosen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ALWAYS = CG_LEVELS.index("ALWAYS")
_UNIFORM_BATCH = CG_LEVELS.index("UNIFORM_BATCH")


def _declare(ctx: Any, mode: str, reason: str) -> dict[str, Any]:
    if mode == ctx.args.cudagraph_mode:
        return {}
    if ctx.user_set("cudagraph_mode"):
        return {"cudagraph_mode": Force(mode, reason)}
    return {"cudagraph_mode": mode}


@registry.rule("cudagraph")
def cudagraph_mode_for_backends(ctx: Any) -> dict[str, Any]:
    """Spec §7: downgrade the CUDA-graph mode to what the least capable backend supports."""
    if ctx.args.enforce_eager or ctx.platform.vendor == "cpu":
        return _declare(ctx, "NONE", "--enforce-eager" if ctx.args.enforce_eager else "no CUDA graphs on CPU")
    mode = ctx.args.cudagraph_mode or "FULL_AND_PIECEWISE"
    levels = []
    for q, name in chosen(ctx):
        entry = backend_entry(name, ctx.platform.vendor)
        if entry is not None:
            levels.append((CG_LEVELS.index(entry.cg_support(q)), name))
    if not levels or mode in ("NONE", "PIECEWISE"):
        return _declare(ctx, mode, "no attention layer limits it")
    level, weakest = min(levels)
    reason = f"{weakest} supports {CG_LEVELS[level]} CUDA graphs"
    mixed = {"FULL_AND_PIECEWISE": "PIECEWISE", "FULL_DECODE_ONLY": "NONE"}.get(mode, mode)
    if mixed == "FULL" and level != _ALWAYS:
        if level == 0:
            raise ConflictError(
                f"CUDAGraphMode.{mode} is not supported with {weakest} backend (support: NEVER)",
                fields=("cudagraph_mode",),
                fix="use cudagraph_mode=PIECEWISE",
            )
        mode = "FULL_AND_PIECEWISE"
    if level == 0 or (
        1 + max(0, int(ctx.args.num_speculative_tokens)) > 1 and level < _UNIFORM_BATCH
    ):  # FULL decode with NEVER: piecewise compile keeps PIECEWISE
        mode = "PIECEWISE"
    return _declare(ctx, mode, reason)
