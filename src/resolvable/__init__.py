"""resolvable: declarative, explainable resolution of LLM-serving server arguments.

Rules keyed on the model architecture and on platform facts *declare* values for resolvable
fields; ordered stages run them; the last writer wins; explicit user choices are protected;
every decision is recorded with its rule and ``file:line``; the result is published into a
frozen runtime context. The engine is standard-library only. The SGLang rule pack lives in
``resolvable.sglang``; errors live in ``resolvable.errors``.
"""

from __future__ import annotations

from ._declaration import Declaration, Force, Outcome
from ._facade import RecordingArgs, procedural, publish_args, refresh_declared_fields, resolve_into
from ._hfconfig import HFConfig, load_hf_config
from ._platform import Platform
from ._publish import ContextSlot, RuntimeContext, publish
from ._registry import Registry, Stage
from ._resolution import Resolution
from ._resolve import RuleContext, check, resolve
from ._schema import Arg, arg, resolvable_fields
from .errors import ConflictError, ResolvableError

__version__ = "0.1.0"


def __getattr__(name: str):  # the parity check (legacy code vs the rules) loads on first use
    if name in ("ParityReport", "check_parity"):
        from . import _parity

        return getattr(_parity, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Arg",
    "ConflictError",
    "ContextSlot",
    "Declaration",
    "Force",
    "HFConfig",
    "Outcome",
    "ParityReport",
    "Platform",
    "RecordingArgs",
    "Registry",
    "Resolution",
    "ResolvableError",
    "RuleContext",
    "RuntimeContext",
    "Stage",
    "arg",
    "check",
    "check_parity",
    "load_hf_config",
    "procedural",
    "publish",
    "publish_args",
    "refresh_declared_fields",
    "resolvable_fields",
    "resolve",
    "resolve_into",
]
