"""The public API for rule-pack authors: everything a pack (``resolvable.sglang``,
``resolvable.vllm``, the next engine) needs from the engine, in one module.

A pack imports from here (or from ``resolvable`` / ``resolvable.errors``), never from a private
engine module (``resolvable._x``); ``tests/engine/test_layers.py`` checks it. A pack:

* builds its registry with its release list and its change table::

      CHANGES = ChangeTable("sglang", [
          Change("DSA_TRITON_ON_ROCM", "0.5.20", upstream="overrides._dsa_split_backend_resolution",
                 summary="ROCm fills the triton DSA kernels per unset side"),
      ])
      registry = Registry(ServerArgs, STAGES, releases=RELEASES, changes=CHANGES)

* writes each rule once and asks the release: ``if ctx.release.has(CHANGES.DSA_TRITON_ON_ROCM)``
  (traced: explain says "because sglang ≥ 0.5.20 (DSA_TRITON_ON_ROCM, overrides._…)");
* keys a rule on upstream's architecture list with release ranges: ``archs=ArchList("A",
  ("B", "0.5.16"))`` puts the rule in B's plan from 0.5.16 on (one rule, no per-arch copy);
* when a release rewrites a rule wholesale, extends it: ``@registry.rule(stage, since="0.5.24",
  extends=old_rule)`` on ``def new_rule(ctx, previous)``; ``previous(ctx)`` runs the old body.

Invariant: importing this module stays light (standard library only); the helpers that only
some commands use (capability tables, fix checks, text tables, sample sets, the facade)
are loaded on first access.
"""

from __future__ import annotations

from ._changes import RELEASE_READ, Change, ChangeTable, ReleaseView
from ._choose import Candidate, Check, Choice, Chosen, choose, validate
from ._declaration import Declaration, Force, Outcome
from ._fix import Fix
from ._hfconfig import HFConfig, find_in_hub_cache, load_hf_config
from ._hfconfig import _looks_like_repo_id as looks_like_repo_id
from ._platform import Platform
from ._platform import define_fact as define_platform_fact
from ._record import field, record, record_replace, record_tuple
from ._registry import Registry, Rule, Stage, caller_location, location_of
from ._release import ArchList, ReleaseRange, base_release, check_release, release_key
from ._resolution import Resolution
from ._resolve import RuleContext, View, check, resolve
from ._schema import Arg, arg, has_kind, record_arg, resolvable_fields, schema_of
from .errors import (
    ConfigError,
    ConflictError,
    DeclarationError,
    InvalidArgumentError,
    RegistrationError,
    ResolvableError,
    RuleFailure,
    UnknownChangeError,
    closest,
)

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

    from ._bundled import Samples
    from ._captable import CapabilityTable, Column, Entry, Probe, Row
    from ._facade import resolve_into
    from ._files import read_bounded
    from ._fixes import FixCheck, check_fix
    from ._hfvalues import check_config_values
    from ._text import short, table

__all__ = [
    "check_config_values",
    "read_bounded",
    "RELEASE_READ",
    "Arg",
    "ArchList",
    "CapabilityTable",
    "Candidate",
    "Change",
    "ChangeTable",
    "Check",
    "Choice",
    "Chosen",
    "Column",
    "ConfigError",
    "ConflictError",
    "Declaration",
    "DeclarationError",
    "Entry",
    "Fix",
    "FixCheck",
    "Force",
    "HFConfig",
    "InvalidArgumentError",
    "Outcome",
    "Platform",
    "Probe",
    "RegistrationError",
    "ReleaseRange",
    "ReleaseView",
    "Registry",
    "Resolution",
    "ResolvableError",
    "Row",
    "Rule",
    "Samples",
    "RuleContext",
    "RuleFailure",
    "Stage",
    "UnknownChangeError",
    "View",
    "arg",
    "base_release",
    "caller_location",
    "check",
    "check_fix",
    "check_release",
    "choose",
    "closest",
    "define_platform_fact",
    "field",
    "find_in_hub_cache",
    "has_kind",
    "load_hf_config",
    "location_of",
    "looks_like_repo_id",
    "record",
    "record_arg",
    "record_replace",
    "record_tuple",
    "release_key",
    "resolvable_fields",
    "resolve",
    "resolve_into",
    "schema_of",
    "short",
    "table",
    "validate",
]

#: name -> module of the helpers loaded on first access (PEP 562), to keep this import light.
_LAZY = {
    "CapabilityTable": "_captable",
    "Column": "_captable",
    "Entry": "_captable",
    "Probe": "_captable",
    "Row": "_captable",
    "FixCheck": "_fixes",
    "check_fix": "_fixes",
    "short": "_text",
    "table": "_text",
    "resolve_into": "_facade",
    "Samples": "_bundled",
    "read_bounded": "_files",
    "check_config_values": "_hfvalues",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        if name[:2] == "__":  # ``from resolvable.rules import X`` asks for __path__ (each import)
            raise AttributeError(name)
        raise AttributeError(f"module 'resolvable.rules' has no attribute {name!r}")
    import sys

    # __import__, not importlib.import_module: the importlib package (and warnings) stays unloaded
    __import__(f"resolvable.{module}")
    value = getattr(sys.modules[f"resolvable.{module}"], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
