"""The SGLang rule pack: how sglang 0.5.15 resolves the attention backend and its fields.

``resolve_server_args(hf_config, platform, **flags)`` answers for any config and platform;
``ServerArgs(...)`` resolves from ``__post_init__``; ``registry`` is the only global.
Rule modules are imported below in sglang's registration order (spec §3), which decides
the order of rules for the same architecture.
"""

from __future__ import annotations

from ._base import SGLANG_VERSION, registry

# Registration order matters (spec §3 "Registration order in the file"): keep it.
from .passes import device, quantization  # noqa: F401  (device stage)
from .families import (  # noqa: F401
    deepseek, mimo_v2, minimax_m2, gemma2_3, exaone, gpt_oss, llama4, gemma4, moss_vl, hybrid_mamba,
    deepseek_v4, qwen3_5, qwen3_vl, qwen3_moe, glm4_moe, olmo2, step3p, mamba_radix,
)
from .passes import (  # noqa: F401
    model_tail, sampling, deterministic, default_backend, compatibility, page_constraints,
    backend_checks, kv4, page_size, validation, dllm,
)
from .api import resolve_server_args  # noqa: E402
from .args import ServerArgs  # noqa: E402
from .cli_args import add_cli_args, from_cli_args  # noqa: E402
from .families.hrm_text import apply_load_time_adjustments  # noqa: E402
from .models import catalog, load_model  # noqa: E402

__all__ = [
    "SGLANG_VERSION",
    "ServerArgs",
    "add_cli_args",
    "apply_load_time_adjustments",
    "catalog",
    "from_cli_args",
    "load_model",
    "registry",
    "resolve_server_args",
]
