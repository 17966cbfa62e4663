"""``EngineArgs.create_engine_config``'s checks after the speculative and scheduler configs
(vllm-config-spec.md §2 B.9-B.10; ``engine/arg_utils.py`` 0.30-0.34, e.g. 0.30.0:
``SpeculativeConfig`` at 2406, ``SchedulerConfig`` 2429, ``LoRAConfig`` 2459, the capture-size
spellings 2602-2609, ``VllmConfig`` 2647).

Invariants: these rules are registered after ``config.batch`` (``resolvable.vllm.RULE_MODULES``),
so a launch both refuse is refused for the speculative config's reason first, as vLLM does
(issue 28, h28f: the held-out seed 1796443318's "Unsupported speculative method: 'mtp'" against
the pack's capture-size refusal; reproduced on dev 7025:120, 7012:142 on 0.30). Messages are
vLLM's, word for word.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@registry.rule("engine_args")
def lora_limits(ctx: Any) -> dict[str, Any]:
    """``LoRAConfig._validate_lora_config``: ``--max-cpu-loras`` must be at least ``--max-loras``
    (the ``LoRAConfig`` is built after the speculative and scheduler configs)."""
    a = ctx.args
    if not a.enable_lora or a.max_cpu_loras is None:
        return {}
    if a.max_cpu_loras < a.max_loras:
        raise ConflictError(
            f"max_cpu_loras ({a.max_cpu_loras}) must be >= max_loras ({a.max_loras}).",
            fields=("max_cpu_loras", "max_loras"),
            fix=Fix.any_of(
                Fix(set={"max_cpu_loras": a.max_loras}),
                Fix(drop=("max_cpu_loras",)),
                text=f"pass --max-cpu-loras {a.max_loras} or more (or drop --max-cpu-loras)",
            ),
        )
    return {}


@registry.rule("engine_args")
def capture_size_spellings(ctx: Any) -> dict[str, Any]:
    """A capture-size flag and the same ``-cc`` key, both given, are refused (``ValueError``), not
    merged; the command-line reader records the key (``capture_size_conflict``)."""
    key = ctx.args.capture_size_conflict
    if not key:
        return {}
    raise ConflictError(
        f"{key} and compilation_config.{key} are mutually exclusive",
        fields=(key, "compilation_config"),
        fix=Fix(drop=(key,)),
        upstream="ValueError",
    )
