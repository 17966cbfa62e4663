"""Model hooks of ``model_executor/models/config.py : MODELS_CONFIG_MAP`` that change a derived
value of vllm-config-spec.md §3 (§5), beyond the attention ones (``resolvable.vllm.rules.overrides``)
and the Mamba hook (``config.caching``).

Each rule is one hook class, registered for its architectures in stage "vllm_config", where the
registry runs architecture rules first — as ``VllmConfig.try_verify_and_update_config`` runs the
hooks first in ``VllmConfig.__post_init__``. Invariant: a hook only writes what vLLM's hook writes,
only when vLLM's would (an explicit user value wins unless vLLM overrides it).
"""

from __future__ import annotations

from .._base import registry
from .changes import CHANGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The 0.34 GPT-OSS prefill token grid below 1024 (``GptOssForCausalLMConfig``).
_GPT_OSS_PREFILL = frozenset({1, 2, 4, *range(8, 256, 8), *range(256, 1024, 16)})


@registry.for_arch("GptOssForCausalLM", stage="vllm_config")
def gpt_oss_capture_sizes(ctx: Any) -> dict[str, Any]:
    """§5: ``GptOssForCausalLMConfig.verify_and_update_config`` (``models/config.py`` 544): with no
    capture size set, 0.30-0.33 raise ``max_cudagraph_capture_size`` to 1024 ("for performance");
    0.34 (off the SM10x family) sets the prefill token sizes up to ``min(max_num_batched_tokens,
    1024)`` and at most ``1024 // q`` decode requests."""
    a = ctx.args
    if a.cudagraph_capture_sizes is not None or a.max_cudagraph_capture_size is not None:
        return {}
    if not ctx.release.has(CHANGES.SPLIT_CUDAGRAPH_CAPTURE_SIZES):
        return {"max_cudagraph_capture_size": 1024}
    cap = ctx.platform.capability
    if (
        a.prefill_cudagraph_capture_token_sizes is not None
        or a.max_decode_cudagraph_capture_requests is not None
    ):
        return {}
    if ctx.platform.vendor == "cuda" and cap is not None and cap[0] == 10:
        return {}
    tokens = min(a.max_num_batched_tokens, 1024)
    q = 1 + max(0, int(a.num_speculative_tokens or 0))
    return {
        "prefill_cudagraph_capture_token_sizes": sorted(
            {s for s in _GPT_OSS_PREFILL if s < tokens} | {tokens}
        ),
        "max_decode_cudagraph_capture_requests": 1024 // q,
    }
