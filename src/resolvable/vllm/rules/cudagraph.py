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
from ..config.compilation import eager
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
    if eager(ctx) or ctx.platform.vendor == "cpu":
        return _declare(
            ctx, "NONE", "no CUDA graphs on CPU" if ctx.platform.vendor == "cpu" else "--enforce-eager"
        )
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


#: ``CUDAGraphMode.decode_mode() == FULL``.
_FULL_DECODE = frozenset({"FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"})


@registry.rule("cudagraph")
def v1_capture_sizes_for_spec_decode(ctx: Any) -> dict[str, Any]:
    """Config spec §3.11 step 4: ``CompilationConfig.adjust_cudagraph_sizes_for_spec_decode``
    (``config/compilation.py``, called from ``resolve_cudagraph_mode_and_sizes`` at model-runner
    start, 0.30-0.33): on the V1 runner with FULL decode graphs and ``q = 1 + num_speculative_tokens
    > 1``, every capture size is rounded up to a multiple of ``q`` (those past the largest size are
    dropped; ``q`` alone if nothing else fits), and the largest size follows. The V2 runner (the
    only one in 0.34) sizes decode graphs itself. Not a configuration-time value: the engine
    configuration ``create_engine_config`` returns keeps the unrounded sizes."""
    a = ctx.args
    q = 1 + max(0, int(a.num_speculative_tokens or 0))
    sizes = a.cudagraph_capture_sizes
    if a.use_v2_model_runner or a.cudagraph_mode not in _FULL_DECODE or q <= 1 or not sizes:
        return {}
    largest = a.max_cudagraph_capture_size
    rounded = sorted({-(-s // q) * q for s in sizes if -(-s // q) * q <= largest})
    if not rounded and q <= largest:
        rounded = [q]
    if not rounded:
        raise ConflictError(
            f"No valid cudagraph sizes after rounding to multiple of {q} (num_speculative_tokens + 1) "
            f"please adjust num_speculative_tokens ({q - 1}) or max_cudagraph_capture_size ({largest}) "
            f"or cudagraph_capture_sizes ({list(sizes)})",
            fields=("num_speculative_tokens", "max_cudagraph_capture_size"),
            fix=f"pass --max-cudagraph-capture-size {q}",
        )
    out: dict[str, Any] = {}
    if rounded != list(sizes):
        out["cudagraph_capture_sizes"] = rounded
    if rounded[-1] != largest:
        out["max_cudagraph_capture_size"] = rounded[-1]
    return out
