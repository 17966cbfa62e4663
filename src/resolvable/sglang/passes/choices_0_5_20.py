"""Choices that sglang 0.5.20 added or removed (argparse, before ``ServerArgs``).

Invariant: the field choices in ``choices.py`` are the union over the supported releases. A
name 0.5.20 added is refused by the releases before it, a name 0.5.20 removed by 0.5.20 and
later, with argparse's wording, before any other rule runs (stage ``device``, first module).
The names are data (``ADDED`` / ``REMOVED`` below; facts from ``arg_groups/choices.py`` and
``arg_groups/fields/exec_.py`` of the 0.5.20 wheel against ``server_args.py`` of 0.5.19).
"""

from __future__ import annotations

from ...errors import InvalidArgumentError
from .. import choices as C
from .._base import registry

_ATTENTION = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")

#: Field -> names 0.5.20 added (``ATTENTION_BACKEND_CHOICES``, the DSA kernel choices,
#: ``MOE_RUNNER_BACKEND_CHOICES``, the A2A list, ``SpeculativeAlgorithm``).
ADDED = {
    **{f: ("qsa",) for f in _ATTENTION},
    "dsa_prefill_backend": ("triton",),
    "dsa_decode_backend": ("triton",),
    "moe_runner_backend": ("flashinfer_megamoe",),
    "speculative_moe_runner_backend": ("flashinfer_megamoe",),
    "moe_a2a_backend": ("flashinfer_megamoe",),
    "speculative_moe_a2a_backend": ("flashinfer_megamoe",),
    "speculative_algorithm": ("UNO",),
}
#: Field -> names 0.5.20 removed (the cutlass_mla and dual-chunk backends were deleted from
#: ``attention_registry.py``; ``marlin`` left ``QUANTIZATION_CHOICES``).
REMOVED = {
    **{f: ("cutlass_mla", "dual_chunk_flash_attn") for f in _ATTENTION},
    "quantization": ("marlin",),
}

#: The choices tuple each field's argparse list is built from.
_LISTS = {
    **{f: "ATTENTION_BACKENDS" for f in _ATTENTION},
    "dsa_prefill_backend": "DSA_BACKENDS",
    "dsa_decode_backend": "DSA_BACKENDS",
    "quantization": "QUANTIZATIONS",
    "moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "speculative_moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_moe_a2a_backend": "MOE_A2A_BACKENDS",
}


def _refuse(ctx, names: dict[str, tuple[str, ...]], note: str) -> dict:
    """Refuse a user value listed in ``names`` the way sglang's parser does."""
    for field, values in names.items():
        value = ctx.args[field]
        if value is None or value not in values:
            continue
        if field == "speculative_algorithm":
            # ``SpeculativeAlgorithm.from_string``, not an argparse choice list.
            raise InvalidArgumentError(f"Unknown speculative algorithm name: {value} ({note})")
        valid = ", ".join(repr(c) for c in getattr(C, _LISTS[field]) if c not in values)
        flag = "--" + field.replace("_", "-")
        raise InvalidArgumentError(
            f"argument {flag}: invalid choice: {value!r} (choose from {valid}) ({note})"
        )
    return {}


@registry.rule("device", until="0.5.20")
def choices_added_in_0_5_20(ctx):
    """Choice lists before 0.5.20: ``qsa``, the ``triton`` DSA kernel, ``flashinfer_megamoe``
    (MoE runner and A2A) and the ``UNO`` speculative algorithm do not exist yet."""
    return _refuse(ctx, ADDED, "added in sglang 0.5.20")


@registry.rule("device", since="0.5.20")
def choices_removed_in_0_5_20(ctx):
    """Choice lists since 0.5.20 (``arg_groups/choices.py``): ``cutlass_mla`` and
    ``dual_chunk_flash_attn`` are no attention backends any more; ``marlin`` is no
    ``--quantization`` choice."""
    return _refuse(ctx, REMOVED, "removed in sglang 0.5.20")


#: Names a rule may declare but sglang's parser never accepts from the user (0.5.20 declares
#: ``intel_xpu`` as the DSA kernel on XPU, ``overrides._dsa_split_backend_resolution``).
INTERNAL = {"dsa_prefill_backend": ("intel_xpu",), "dsa_decode_backend": ("intel_xpu",)}


@registry.rule("device")
def internal_choices(ctx):
    """Every release: a DSA kernel name that only sglang itself declares is no ``--dsa-*-backend``
    choice."""
    return _refuse(ctx, INTERNAL, "not a choice in any sglang release")
