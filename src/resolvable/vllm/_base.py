"""The vLLM registry object and its stages, with nothing else.

Invariant: this module depends on no rule module, so every rule module can import it;
``resolvable.vllm`` imports the rule modules in order after it.
"""

from __future__ import annotations

from .._registry import Registry, Stage
from .args import VllmArgs
from .config.changes import CHANGES, VLLM_RELEASES

#: vLLM release whose behaviour this pack reproduces.
VLLM_VERSION = "0.33.0"
RULESET_VERSION = "1"

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
    name=f"vllm-{VLLM_VERSION}",
    version=RULESET_VERSION,
    releases=VLLM_RELEASES,
    default_release=VLLM_VERSION,  # the attention rules model 0.33.0
    changes=CHANGES,
)
