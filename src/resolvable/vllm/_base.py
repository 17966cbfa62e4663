"""The vLLM registry object and its stages, with nothing else.

Invariant: this module depends on no rule module, so every rule module can import it;
``resolvable.vllm`` imports the rule modules in order after it.
"""

from __future__ import annotations

from ..rules import Registry, Stage
from .args import VllmArgs
from .changes import CHANGES

#: vLLM releases whose behaviour this pack reproduces, oldest first (one flag table each, in
#: ``flags/``; what changed between them is named in ``changes.py``).
VLLM_RELEASES = (
    "0.20.0",
    "0.20.1",
    "0.20.2",
    "0.21.0",
    "0.22.0",
    "0.22.1",
    "0.23.0",
    "0.24.0",
    "0.25.0",
    "0.25.1",
    "0.26.0",
    "0.27.0",
    "0.27.1",
    "0.28.0",
    "0.29.0",
    "0.30.0",
    "0.31.0",
    "0.32.0",
    "0.33.0",
    "0.34.0",
)
#: The release resolved when none is named: the newest supported (a user who names none most
#: likely runs, or is about to install, the current vLLM).
VLLM_VERSION = VLLM_RELEASES[-1]
RULESET_VERSION = "2"

STAGES = (
    Stage("platform", doc="spec §1.3: installed optional kernels (standard install, then --kernels)"),
    Stage("model", doc="spec §1.1, §5: use_mla, model dtype, kv-cache dtype from the checkpoint"),
    # Engine configuration (vllm-config-spec.md §2 B/C): resolvable.vllm.config.
    Stage(
        "model_config",
        doc="config spec §2 B.3: ModelConfig.__post_init__ (dtype, max_model_len, quantization)",
    ),
    Stage(
        "engine_args",
        doc="config spec §2 B.4-10: create_engine_config (parallel, speculative, batch defaults)",
    ),
    Stage(
        "model_hooks",
        doc="config spec §5: VllmConfig.try_verify_and_update_config (MODELS_CONFIG_MAP hooks), "
        "which VllmConfig.__post_init__ runs first",
    ),
    Stage(
        "vllm_config",
        doc="config spec §2 C: VllmConfig.__post_init__ (async scheduling, compilation, graphs)",
    ),
    Stage("platform_config", doc="config spec §4: current_platform.check_and_update_config"),
    Stage("model_overrides", doc="spec §2: model_executor/models/config.py verify_and_update_config"),
    Stage("attention", doc="spec §1, §3: per-layer-kind backend selection (candidates and their checks)"),
    Stage("attention_late", doc="spec §5: sparse-MLA kv-cache dtype canonicalisation"),
    Stage("block_size", doc="spec §4: block size from the chosen backends"),
    Stage("hybrid_alignment", doc="config spec §3.8: hybrid/Mamba page alignment of the block size"),
    Stage("flash_attn", doc="spec §3.1: FlashAttention version of the FLASH_ATTN layers"),
    Stage("mla_prefill", doc="spec §6: MLA prefill backend (a second selection)"),
    Stage("cudagraph", doc="spec §7: CUDA-graph mode from the chosen backends"),
    Stage(
        "engine_start", phase="startup", doc="config spec §6: refusals at engine start (workers, profiling)"
    ),
)

registry = Registry(
    VllmArgs,
    STAGES,
    model_stage="model",
    name="vllm",
    version=RULESET_VERSION,
    releases=VLLM_RELEASES,
    default_release=VLLM_VERSION,
    changes=CHANGES,
)
