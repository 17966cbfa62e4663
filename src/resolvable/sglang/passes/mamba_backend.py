"""``--mamba-backend`` availability (sglang ``ServerArgs._handle_mamba_backend``; since 0.5.20
``arg_groups/mamba_hook.handle_mamba_backend``), right after the attention backend is final.
The spec does not cover this check (it is outside the attention fields); the wheels are its
source, and ``tests/sglang/test_model_config.py`` its golden cases (0.5.14, 0.5.15, 0.5.23).

Invariant: these rules only refuse. ``flashinfer`` needs FlashInfer (CUDA, installed, not
disabled by ``SGLANG_IS_FLASHINFER_AVAILABLE``); the pack takes an installed FlashInfer to carry
its ``mamba`` module. The stochastic-rounding checks of the same function read flags the pack
does not model.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from ..facts import flashinfer_available


@registry.rule("attention_late", only_if_set=("mamba_backend",))
def mamba_backend_available(ctx):
    """``_handle_mamba_backend``: ``--mamba-backend flashinfer`` without FlashInfer is refused
    (reworded in 0.5.15: ``MAMBA_FLASHINFER_REWORDED``)."""
    if ctx.args.mamba_backend == "flashinfer" and not flashinfer_available(ctx):
        install = "the FlashInfer" if ctx.release.has(CHANGES.MAMBA_FLASHINFER_REWORDED) else "flashinfer"
        raise ConflictError(
            f"FlashInfer mamba module not available, please check {install} installation.",
            fields=("mamba_backend",),
            fix=Fix(
                drop=("mamba_backend",),
                text="drop --mamba-backend flashinfer (triton is the default), or run where FlashInfer is installed (CUDA)",
            ),
        )
    return {}
