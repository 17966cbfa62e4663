"""``--enable-lora``: the checks of ``config/lora.py : LoRAConfig`` that ``create_engine_config``
runs (vllm-config-spec.md §3; 0.30.0-0.34.0 wheels, ``LoRAConfig._validate_lora_config``).

vLLM builds a ``LoRAConfig`` only with ``--enable-lora`` (``EngineArgs.create_engine_config``);
its validator fills ``max_cpu_loras`` with ``max_loras`` when unset and refuses a smaller one
(pydantic ValidationError wrapping the ValueError). Whether the model class supports LoRA is
checked when the model is loaded (``lora_model_runner_mixin.load_lora_model``), after
``create_engine_config``: not a configuration rule (``model_info.ArchInfo.lora`` has the fact).

Invariants: messages are vLLM's, word for word; nothing is derived without ``--enable-lora``.
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
    """``LoRAConfig._validate_lora_config``: ``--max-cpu-loras`` must be at least ``--max-loras``."""
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
