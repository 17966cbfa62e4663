"""The SGLang registry object and its stages (spec §2.2), with nothing else.

Invariant: this module depends on no rule module, so every family and pass can import it;
``resolvable.sglang`` imports the rule modules in registration order after it. The last stage,
``startup``, is a check phase: it is not part of what ServerArgs does (see passes/startup.py).
"""

from __future__ import annotations

from ..rules import Registry, Stage
from . import platform_facts  # noqa: F401  (defines platform.is_sm90 before any rule reads it)
from .args import ServerArgs
from .changes import CHANGES

#: sglang releases whose behaviour this pack reproduces, oldest first. A release is listed only
#: once every behaviour change it brought is modelled (docs/sglang-releases.md); a rule that
#: changed in a release asks for the named change (``changes.py``, ``ctx.release.has``).
SGLANG_RELEASES = (
    "0.5.5",
    "0.5.5.post1",
    "0.5.5.post2",
    "0.5.5.post3",
    "0.5.6",
    "0.5.6.post1",
    "0.5.6.post2",
    "0.5.7",
    "0.5.8",
    "0.5.9",
    "0.5.10",
    "0.5.11",
    "0.5.12",
    "0.5.13",
    "0.5.14",
    "0.5.15",
    "0.5.16",
    "0.5.17",
    "0.5.18",
    "0.5.19",
    "0.5.20",
    "0.5.21",
    "0.5.22",
    "0.5.23",
)
#: The release resolved when none is named: the newest supported one, because a user who names
#: no release most likely runs (or is about to install) the current sglang, and an answer for an
#: older release would be a wrong answer for them. It moves with every release added above; the
#: tests that state 0.5.15's behaviour (the spec's reference) name it (``tests/golden.py``).
SGLANG_VERSION = SGLANG_RELEASES[-1]
RULESET_VERSION = "2"
#: The check phase of sglang's start-up (``ModelRunner`` building the attention backends).
STARTUP_PHASE = "startup"
#: How explain and the matrix name that phase.
STARTUP_LABEL = "start-up check (after ServerArgs)"

# A stage guard only skips work: every rule in a guarded stage also checks its own condition.
STAGES = (
    Stage(
        "device",
        doc="§2.2 steps 3-6: device string, CUDA-graph defaults, device handlers, quantization registry",
    ),
    Stage(
        "memory",
        doc="§2.2 after the device handlers: server_args._handle_gpu_memory_settings (GPU memory defaults)",
    ),
    Stage(
        "model",
        isolated=True,
        doc="§3 step 10c: constants and per-architecture providers (read the pristine input)",
    ),
    Stage("model_checks", doc="§3 step 10f: per-architecture assertions and passes (read the view)"),
    Stage("model_tail", doc="§3.11 step 10h-10i: mamba radix cache, sparse-head overlap"),
    Stage("sampling", doc="§2.2 step 11: sampling backend default"),
    Stage(
        "deterministic",
        doc="§4.3 step 12: deterministic inference (only when enabled)",
        when=lambda a: a.enable_deterministic_inference or a.rl_on_policy_target is not None,
    ),
    Stage("attention", doc="§4.1 step 13: default attention backend"),
    Stage("attention_compat", doc="§4.2 C1-C3, C15, C17-C19, C22-C23: compatibility fallbacks"),
    Stage("attention_pages", doc="§4.2 C4-C9, C16, C21: page-size constraints of the chosen kernels"),
    Stage("attention_checks", doc="§4.2 C10-C14, C20: kernel/platform checks"),
    Stage("attention_late", doc="§4.2 C24 step 14: DeepSeek trtllm_mla prefill graph"),
    Stage(
        "kv4",
        doc="§4.6 step 16: FP4 KV cache checks (fp4_e2m1; since 0.5.16 nvfp4, fp4_mx_block16), MXFP8 KV check",
        when=lambda a: a.kv_cache_dtype in ("fp4_e2m1", "nvfp4", "fp4_mx_block16", "mxfp8"),
    ),
    Stage("page_size", doc="§4.5 step 17: page-size default"),
    Stage(
        "features",
        doc="§4.7 steps 19-20: multi-item scoring, prefill-only (only when enabled)",
        when=lambda a: a.enable_mis or a.prefill_only_disable_kv_cache,
    ),
    Stage(
        "parallelism", doc="§2.2 step 21: data parallelism, MoE runner and A2A checks, pipeline parallelism"
    ),
    Stage(
        "speculative",
        doc="§4.7 step 22: speculative-decoding checks, DFLASH draft backend (only with speculation)",
        when=lambda a: a.speculative_algorithm is not None,
    ),
    Stage("cache_compat", doc="§2.2 step 23: cache compatibility (hierarchical cache, SWA ratio)"),
    Stage(
        "deterministic_late",
        doc="§4.3 before 0.5.12: deterministic inference after the cache checks (only when enabled)",
        when=lambda a: a.enable_deterministic_inference or a.rl_on_policy_target is not None,
    ),
    Stage(
        "memory_layout",
        doc="§4.7 step 23: page-major KV layout (only with unified memory)",
        when=lambda a: a.enable_unified_memory,
    ),
    Stage(
        "dllm",
        doc="§4.4 step 24: diffusion LLM constraints (only with --dllm-algorithm)",
        when=lambda a: a.dllm_algorithm is not None,
    ),
    Stage("post_init", doc="§2.2 post: check_server_args"),
    # Not ServerArgs: ModelRunner builds the attention backends after __post_init__ and the
    # load-time adjustments; these checks only refuse (check phase, run by resolvable.check).
    Stage(
        "startup",
        doc="start-up check (after ServerArgs): ModelRunner.init_attention_backend, the attention "
        "registry's creators, the backends' constructors and attn_backend_wrapper; refusals only",
        phase="startup",
    ),
)

registry = Registry(
    ServerArgs,
    STAGES,
    model_stage="model",
    name="sglang",
    version=RULESET_VERSION,
    releases=SGLANG_RELEASES,
    default_release=SGLANG_VERSION,
    changes=CHANGES,
)
