"""Refusals at engine start, after ``create_engine_config`` (vllm-config-spec.md §6 "Engine start").

Check phase ``"startup"`` (stage "engine_start"): these rules only refuse; ``check_startup`` runs
them over a finished resolution. "Would it start" for vLLM covers what is decided when the engine
starts — the workers' device checks — as far as it can be known offline. What vLLM only learns by
profiling the GPU is listed in ``NOT_KNOWN_OFFLINE`` and shown by ``explain``; it is never guessed.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The check phase of the vLLM registry.
STARTUP_PHASE = "startup"
STARTUP_LABEL = "would it start (vLLM engine start)"

#: What vLLM decides only on the GPU, after profiling (spec §3.14, §3.8, §3.2 step 10).
NOT_KNOWN_OFFLINE = (
    "KV-cache memory left after profiling, hence the number of KV blocks: 'No available memory for the "
    "cache blocks' and 'To serve at least one request with the model's max seq len …' (§3.14)",
    "max_model_len -1 / auto: the length auto-fitted to that KV memory (§3.2)",
    "the Mamba block count: 'max_num_seqs (…) exceeds available Mamba cache blocks (…)' with FULL "
    "CUDA graphs on hybrid models (§3.8)",
)


@registry.rule("engine_start")
def bfloat16_needs_sm80(ctx: Any) -> dict[str, Any]:
    """§3.1 step 7: the CUDA/ROCm worker refuses bfloat16 below compute capability 8.0
    (``platforms/cuda.py : check_if_supports_dtype`` 638, ``rocm.py`` 1344, called by the GPU worker); only an
    explicit ``--dtype bfloat16`` reaches it, since ``auto`` already falls back."""
    p = ctx.platform
    if ctx.args.dtype != "bfloat16" or p.vendor not in ("cuda", "hip") or p.capability is None:
        return {}
    if tuple(p.capability) >= (8, 0):
        return {}
    major, minor = p.capability
    raise ConflictError(
        "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
        f"{p.device_name or p.name} GPU has compute capability {major}.{minor}. You can use float16 "
        "instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half.",
        fields=("dtype",),
        fix=Fix.any_of(
            Fix(set={"dtype": "half"}),
            Fix(set={"dtype": "float32"}),
            text="pass --dtype half (or --dtype float32)",
        ),
    )


def check_startup(res: Any, hf_config: Any, env: Any = None) -> tuple[Any, ...]:
    """The engine-start checks of a vLLM resolution: the rules that passed ("would start"), or a
    ``ConflictError`` with ``phase == "startup"`` (accepted by ``create_engine_config``, refused when
    the engine starts)."""
    from ...rules import check

    return check(registry, res, hf_config, env, phase=STARTUP_PHASE)
