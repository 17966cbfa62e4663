"""Choices sglang 0.5.19 added to the fields this pack models (argparse, before ``ServerArgs``).

Invariant: the choice tuples of ``choices.py`` are the union over the supported releases; a
name 0.5.19 added (``choices.ADDED_IN_0_5_19``) is refused by the earlier releases with
argparse's wording, before any other rule of the ``device`` stage runs (this module is
imported first).
"""

from __future__ import annotations

from ...errors import InvalidArgumentError
from .. import choices as C
from .._base import registry

#: The choices tuple each field of ``ADDED_IN_0_5_19`` draws from.
_CHOICE_LISTS = {
    "attention_backend": C.ATTENTION_BACKENDS,
    "prefill_attention_backend": C.ATTENTION_BACKENDS,
    "decode_attention_backend": C.ATTENTION_BACKENDS,
    "moe_runner_backend": C.MOE_RUNNER_BACKENDS,
    "speculative_moe_runner_backend": C.MOE_RUNNER_BACKENDS,
    "moe_a2a_backend": C.MOE_A2A_BACKENDS,
    "speculative_moe_a2a_backend": C.MOE_A2A_BACKENDS,
}


def refuse_added_choices(args, added: dict[str, tuple[str, ...]], release: str) -> None:
    """Refuse a value of ``added`` (field -> names) as the argparse of a release before
    ``release`` does: "invalid choice", listing the names that release knows."""
    for field, names in added.items():
        value = args[field]
        if value is None or value not in names:
            continue
        known = ", ".join(repr(c) for c in _CHOICE_LISTS[field] if c not in names)
        raise InvalidArgumentError(
            f"argument --{field.replace('_', '-')}: invalid choice: {value!r} (choose from {known}) "
            f"(added in sglang {release})"
        )


@registry.rule("device", until="0.5.19")
def choices_added_in_0_5_19(ctx):
    """``server_args.py`` choice lists (releases before 0.5.19): ``minicpm_flashattn`` and
    ``minicpm_flashinfer`` (attention), ``intel_xpu`` (MoE runner), ``deepep_v2`` (MoE A2A) are
    unknown names."""
    refuse_added_choices(ctx.args, C.ADDED_IN_0_5_19, "0.5.19")
    return {}
