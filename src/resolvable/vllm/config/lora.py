"""``--enable-lora``: the checks of ``config/lora.py : LoRAConfig`` that ``create_engine_config``
runs (vllm-config-spec.md §3; 0.30.0-0.34.0 wheels, ``LoRAConfig._validate_lora_config``).

vLLM builds a ``LoRAConfig`` only with ``--enable-lora`` (``EngineArgs.create_engine_config``);
its validator fills ``max_cpu_loras`` with ``max_loras`` when unset and refuses a smaller one
(pydantic ValidationError wrapping the ValueError; ``late_args.lora_limits``, registered after
the speculative and scheduler configs as vLLM builds them). Whether the model class supports LoRA is
checked when the model is loaded (``lora_model_runner_mixin.load_lora_model``) before 0.33; from
0.33 ``LoRAConfig.verify_with_model_config`` refuses it in ``VllmConfig.__post_init__``
(``model_info.ArchInfo.lora``, from the wheels). With a speculative config, the batch must hold
``max_num_seqs × (k + 1)`` tokens (``EngineArgs.create_engine_config``, 0.30-0.34).

Invariants: messages are vLLM's, word for word; nothing is derived without ``--enable-lora``.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from .model_info import normalized

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@registry.rule("vllm_config")
def lora_model_support(ctx: Any) -> dict[str, Any]:
    """``LoRAConfig.verify_with_model_config`` (0.33+): the model class must implement
    ``SupportsLoRA``; and ``create_engine_config``'s check that a LoRA batch with speculative
    decoding holds ``max_num_seqs × (num_speculative_tokens + 1)`` tokens."""
    a = ctx.args
    if not a.enable_lora:
        return {}
    k = a.num_speculative_tokens or 0
    if a.speculative_method is not None and a.max_num_batched_tokens < a.max_num_seqs * (k + 1):
        raise ConflictError(
            "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens",
            fields=("max_num_batched_tokens", "speculative_config"),
            fix=Fix(set={"max_num_batched_tokens": a.max_num_seqs * (k + 1)}),
        )
    if ctx.release.has(CHANGES.LORA_MODEL_SUPPORT_CHECK):
        arch = ctx.hf.architecture or ""
        found = normalized(arch, release=ctx.release)  # SupportsLoRA per release (model_info)
        if found is not None and not found[1].lora:
            raise ConflictError(
                f"LoRA is not supported for {arch} ({ctx.hf.source}). Supported models implement the "
                "`SupportsLoRA` interface. Run this model without `enable_lora`.",
                fields=("enable_lora",),
                fix=Fix(drop=("enable_lora",)),
            )
    return {}
