"""Choices that sglang 0.5.23 added (argparse, before ``ServerArgs``).

Invariant: the field choices in ``choices.py`` are the union over the supported releases; a
name 0.5.23 added is refused by the releases before it with argparse's wording, before any
other rule runs (stage ``device``, first module). The names are data (``ADDED`` below, from
``arg_groups/choices.py`` ``MOE_RUNNER_BACKEND_CHOICES`` of the 0.5.23 wheel against 0.5.22).
0.5.23 removed no choice of a pack field (``tokenspeed_mla`` stays, as an alias:
``passes/device.py``). ``minimax_m3_nvfp4`` is a quantization sglang declares itself (the
MiniMax-M3 override), never a ``--quantization`` choice: refused as input in every release.
"""

from __future__ import annotations

from .._base import registry
from .release_choices import _refuse_choices

#: The LoRA MoE runners (``lora_hook.check_lora_moe_runner_args``; passes/lora_moe.py).
LORA_MOE_RUNNERS = ("lora_cutedsl", "lora_triton", "lora_marlin")

#: Field -> names 0.5.23 added.
ADDED = {
    "moe_runner_backend": LORA_MOE_RUNNERS,
    "speculative_moe_runner_backend": LORA_MOE_RUNNERS,
}


@registry.rule("device", until="0.5.23")
def choices_added_in_0_5_23(ctx):
    """``arg_groups/choices.py`` (releases before 0.5.23): the LoRA MoE runners
    ``lora_cutedsl``, ``lora_triton``, ``lora_marlin`` are unknown choices."""
    return _refuse_choices(ctx, ADDED, "added in sglang 0.5.23")


#: Field -> names only sglang itself declares (``model_overrides/minimax_m3.py``).
INTERNAL = {"quantization": ("minimax_m3_nvfp4",)}


@registry.rule("device")
def internal_quantization_choices(ctx):
    """Every release: ``minimax_m3_nvfp4`` (resolved from a MiniMax-M3.1 checkpoint by
    ``_resolve_quant_method`` since 0.5.23) is no ``--quantization`` choice."""
    return _refuse_choices(ctx, INTERNAL, "not a choice in any sglang release")
