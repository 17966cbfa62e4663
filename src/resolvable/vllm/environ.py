"""The environment of a vLLM launch, variable by variable, for one release (spec Appendix B).

``classify(env, release)`` sorts every variable of the launch into: *modelled* (a ``VLLM_*``
variable the rules read), *known* (one ``vllm/envs.py`` of that release knows, not modelled),
*unknown* (a ``VLLM_*`` name the release does not know: vLLM warns "Unknown vLLM environment
variable detected", or refuses it with ``--fail-on-environ-validation``), *removed* (the release
refuses it: ``removed_environment_variables``, 0.34+, with vLLM's hint) and *other* (not a vLLM
variable: listed as not modelled). A name that an older vLLM read and this release no longer has
(``VLLM_ATTENTION_BACKEND``, ``VLLM_USE_V1``) is called out with what replaced it.

Invariants: pure (the environment is an input); nothing is dropped silently — every variable
lands in exactly one group; the lists of known and removed names come from the release's flag
table (extracted from its ``vllm/envs.py``), the replacements of retired names are kept here with
their source.
"""

from __future__ import annotations

from collections.abc import Mapping

from .flags import load_table

#: Variables the rules read (the pack's inputs; ``api.ENV_VARS``), by what reads them.
MODELLED = (
    "VLLM_BATCH_INVARIANT",
    "VLLM_MLA_DISABLE",
    "VLLM_ROCM_USE_AITER",
    "VLLM_ROCM_USE_AITER_MLA",
    "VLLM_ROCM_USE_AITER_MHA",
    "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION",
)

#: Retired names a pasted command still carries, and what replaced them (vLLM's own
#: deprecation notes of the release that removed each; none of 0.30–0.34 reads them).
RETIRED = {
    "VLLM_ATTENTION_BACKEND": "the attention backend is a flag now: --attention-backend NAME "
    "(or --attention-config.backend NAME); the variable is ignored",
    "VLLM_USE_V1": "the V1 engine is the only engine; the variable is ignored (unset it)",
    "VLLM_FLASH_ATTN_VERSION": "--attention-config.flash_attn_version N; the variable is ignored",
    "VLLM_USE_TRTLLM_ATTENTION": "--attention-config.use_trtllm_attention true|false; the variable is ignored",
}

#: platforms/interface.py : Platform.validate_environ (0.34): the V1 model runner is gone; the
#: variable is refused unless it is "1" (then vLLM only warns that it is redundant).
V2_RUNNER = "VLLM_USE_V2_MODEL_RUNNER"


class EnvReport:
    """The variables of one launch by group (each a dict name → value; ``retired`` name → note;
    ``removed`` name → vLLM's refusal message)."""

    def __init__(self) -> None:
        self.modelled: dict[str, str] = {}
        self.known: dict[str, str] = {}
        self.unknown: dict[str, str] = {}
        self.removed: dict[str, str] = {}
        self.retired: dict[str, str] = {}
        self.other: dict[str, str] = {}

    def not_modelled(self) -> dict[str, str]:
        return {**self.known, **self.unknown, **self.other}

    def lines(self) -> list[str]:
        """One line per group that has variables (for explain's header)."""
        out = []
        if self.modelled:
            out.append("read by the rules: " + _pairs(self.modelled))
        if self.retired:
            out += [f"{name}: not a variable of this release; {note}" for name, note in self.retired.items()]
        if self.unknown:
            out.append(
                'unknown to this vLLM release (vLLM warns "Unknown vLLM environment variable detected"): '
                + _pairs(self.unknown)
            )
        if self.known or self.other:
            out.append("not modelled: " + _pairs({**self.known, **self.other}))
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "modelled": dict(self.modelled),
            "not_modelled": self.not_modelled(),
            "unknown": dict(self.unknown),
            "retired": dict(self.retired),
            "removed": dict(self.removed),
        }


def _pairs(env: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items())


def classify(env: Mapping[str, str], release: str | None = None) -> EnvReport:
    """Sort the launch's variables for vLLM ``release`` (default: the newest table)."""
    table = load_table(release)
    report = EnvReport()
    for name, value in env.items():
        if name in table.removed_environment:
            report.removed[name] = f"{name} has been removed. {table.removed_environment[name]}"
        elif name == V2_RUNNER and name not in table.environment:
            if value != "1":
                report.removed[name] = (
                    f"{name}={value} is no longer supported: Model Runner V1 has been removed. Unset this variable."
                )
            else:
                report.retired[name] = "redundant: Model Runner V1 has been removed (vLLM warns; unset it)"
                report.known[name] = value
        elif name in MODELLED and (name in table.environment or name == "VLLM_USE_V2_MODEL_RUNNER"):
            report.modelled[name] = value
        elif name in table.environment:
            report.known[name] = value
        elif name.startswith("VLLM_"):
            note = RETIRED.get(name)
            if note:
                report.retired[name] = note
            report.unknown[name] = value
        else:
            report.other[name] = value
    return report
