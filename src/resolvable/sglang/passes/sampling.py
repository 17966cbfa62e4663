"""Sampling backend default (spec §2.2 step 11).

Invariant: only fills an unset ``sampling_backend``; flashinfer when it is usable here.
"""

from __future__ import annotations

from .._base import registry
from ..facts import flashinfer_available


@registry.rule("sampling")
def sampling_backend_default(ctx):
    """Step 11: ``flashinfer`` if available (CUDA, installed, not disabled by env), else ``pytorch``."""
    if ctx.args.sampling_backend is None:
        return {"sampling_backend": "flashinfer" if flashinfer_available(ctx) else "pytorch"}
    return {}
