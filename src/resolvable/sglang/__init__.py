"""The SGLang rule pack: how sglang 0.5.15 resolves the attention backend and its fields.

``resolve_server_args(hf_config, platform, **flags)`` answers for any config and platform;
``ServerArgs(...)`` resolves from ``__post_init__``; ``registry`` is the only global.
The rule modules are imported from ``RULE_MODULES``, in sglang's registration order
(spec §3), which decides the order of rules for the same architecture and stage.
"""

from __future__ import annotations

from ._base import SGLANG_RELEASES, SGLANG_VERSION, registry

#: Rule modules in registration order: the one place that orders rules inside a stage (stages
#: order the passes); rules for the same architecture run in this order (e.g. Qwen3.5: hybrid
#: provider, then the MoE family). ``registry.freeze(order=...)`` below checks it.
RULE_MODULES = (
    "passes.release_choices",
    "passes.device",
    "passes.model_config",
    "passes.quantization",
    "passes.memory",
    "families.deepseek",
    "families.mimo_v2",
    "families.minimax_m2",
    "families.minimax_m3",
    "families.gemma2_3",
    "families.exaone",
    "families.gpt_oss",
    "families.llama4",
    "families.gemma4",
    "families.embedding_gemma2",
    "families.ernie45_vl",
    "families.moss_vl",
    "families.inkling",
    "families.hybrid_mamba",
    "families.kimi_k3",
    "families.deepseek_v4",
    # 0.5.21: its attention-stage rule runs before the default backend (next);
    # tests/sglang/test_release_0_5_21.py checks the order.
    "passes.nvfp4_prefill",
    # Before Qwen3.5, whose hybrid rule asks what the default would be (spec §3.12).
    "passes.default_backend",
    "families.qwen3_5",
    "families.qwen3_vl",
    "families.qwen3_moe",
    "families.glm4_moe",
    "families.olmo2",
    "families.step3p",
    "families.cohere2_moe",
    "families.minicpm",
    "families.granite_swa",
    "families.iquest_q1",  # since 0.5.21
    "families.beam",
    "families.muse_spark",
    "families.mamba_radix",
    "passes.model_tail",
    "passes.sampling",
    "passes.deterministic",
    "passes.compatibility",
    "passes.page_constraints",
    "passes.backend_checks",
    "passes.mamba_backend",
    "passes.kv4",
    "passes.page_size",
    "passes.validation",
    "passes.hicache",  # before 0.5.14
    "passes.parallelism",
    "passes.moe_kernels",
    "passes.lora_moe",
    "passes.speculative",
    "passes.cache_checks",
    "passes.dcp",
    "passes.dllm",
    "passes.startup",  # the start-up check phase, after every ServerArgs stage
)
for _module in RULE_MODULES:
    # __import__, not importlib.import_module: the importlib package (and warnings) is not
    # loaded at all then (import time), and -X importtime reports each rule module.
    __import__(f"{__name__}.{_module}")
# The order above is the order the rules registered in (an import side effect that registers a
# module early is refused), and the release chains are valid: both are checked by the test suite
# (tests/engine/test_pack_registration.py), not on every import (check=False: import cost that
# grows with the release count); no rule registers later.
registry.freeze(order=[f"{__name__}.{m}" for m in RULE_MODULES], check=False)

from .api import check_startup, resolve_server_args  # noqa: E402
from .args import ServerArgs  # noqa: E402
from .families.hrm_text import apply_load_time_adjustments  # noqa: E402
from .models import catalog, load_model  # noqa: E402


def __getattr__(name: str):  # argparse integration is loaded on first use (import time matters)
    if name in ("add_cli_args", "from_cli_args"):
        from . import cli_args

        return getattr(cli_args, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SGLANG_RELEASES",
    "SGLANG_VERSION",
    "ServerArgs",
    "add_cli_args",
    "apply_load_time_adjustments",
    "catalog",
    "check_startup",
    "from_cli_args",
    "load_model",
    "registry",
    "resolve_server_args",
]
