"""MOSS-VL (spec §3.10).

Invariant: the prefill backend must be flashinfer (custom cross-attention masks); with nothing
chosen only prefill is set, so decode keeps the platform default (a hybrid backend). Since
0.5.11 (the branch did not exist before).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..facts import backends_not_set, effective_backends

ARCH = "MossVLForConditionalGeneration"
#: The MOSS-VL arm of ``_handle_model_specific_adjustments`` arrived in 0.5.11.
ARCHS = ArchList((ARCH, "0.5.11"), what="the MOSS-VL branch")


@registry.rule("model", archs=ARCHS)
def moss_vl_prefill(ctx):
    """§3.10: ``P`` := flashinfer when A, P, D are all unset."""
    if backends_not_set(ctx.args):
        return {"prefill_attention_backend": "flashinfer"}
    return {}


@registry.rule("model_checks", archs=ARCHS)
def moss_vl_prefill_check(ctx):
    """§3.10: the effective prefill backend must be flashinfer."""
    if effective_backends(ctx.args)[0] != "flashinfer":
        raise ConflictError(
            "MossVLForConditionalGeneration requires flashinfer prefill attention backend for cross-attention "
            "custom mask support.",
            fields=("attention_backend", "prefill_attention_backend"),
            fix=Fix(set={"prefill_attention_backend": "flashinfer"}),
            upstream="AssertionError",
        )
    return {}
