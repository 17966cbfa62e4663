"""Choices that exist only in some sglang releases (argparse, before ``ServerArgs``).

Invariant: the field choices in ``choices.py`` are the union over the supported releases; a
name a release added is refused by the releases before it, with argparse's wording, before any
other rule runs. The per-release names are data (``choices.ADDED_IN``); each release that
changes them has its rule here, ranged by release like any other rule.
"""

from __future__ import annotations

from ...errors import InvalidArgumentError
from .. import choices as C
from .._base import registry

#: The choices tuple of each field named in ADDED_IN.
_CHOICE_LISTS = {
    "attention_backend": "ATTENTION_BACKENDS",
    "prefill_attention_backend": "ATTENTION_BACKENDS",
    "decode_attention_backend": "ATTENTION_BACKENDS",
    "dsa_prefill_backend": "DSA_BACKENDS",
    "dsa_decode_backend": "DSA_BACKENDS",
    "moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "speculative_moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_moe_a2a_backend": "MOE_A2A_BACKENDS",
}


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _refuse_choices(ctx, names: dict[str, tuple[str, ...]], release_note: str) -> dict:
    """Refuse a user value listed in ``names`` (field -> values) as sglang's parser would."""
    for field, values in names.items():
        value = ctx.args[field]
        if value is None or value not in values:
            continue
        valid = [c for c in getattr(C, _CHOICE_LISTS[field]) if c not in values]
        listed = ", ".join(repr(c) for c in valid)
        raise InvalidArgumentError(
            f"argument {_flag(field)}: invalid choice: {value!r} (choose from {listed}) ({release_note})"
        )
    return {}


@registry.rule("device", until="0.5.17")
def choices_added_in_0_5_17(ctx):
    """``server_args.py`` choice lists (releases before 0.5.17): the names 0.5.17 added
    (attention backend ``hpc_ops``, DSA kernel ``flashinfer_sparse_mla``, MoE runner
    ``hpc_ops``, MoE A2A ``pplx``) are unknown."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.17"], "added in sglang 0.5.17")
