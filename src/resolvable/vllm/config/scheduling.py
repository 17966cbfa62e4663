"""Model runner V1/V2 and async scheduling (vllm-config-spec.md §3.9, §3.13).

``VllmConfig.use_v2_model_runner`` (``config/vllm.py`` 731) and the async-scheduling block of
``VllmConfig.__post_init__`` (1668); stage "vllm_config". Invariants: a standard install has
Triton, so the V2 runner is the default unless ``VLLM_USE_V2_MODEL_RUNNER`` says otherwise or a
feature V2 lacks is used; every in-tree executor (``uni``, ``mp``, ``ray``, external launcher)
supports async scheduling; the CPU platform turns it off later (``config.platform``).
"""

from __future__ import annotations

from ...errors import ConflictError
from .._base import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Speculative methods the V2 runner lacks in 0.33 (``_get_v2_model_runner_unsupported_features``).
V2_UNSUPPORTED_SPEC = frozenset({"suffix", "custom_class"})
#: Speculative methods async scheduling supports on the V1 runner.
V1_ASYNC_SPEC = frozenset({"eagle", "eagle3", "mtp", "dflash", "ngram_gpu", "draft_model", "dspark"})
_IN_TREE_EXECUTORS = frozenset({"uni", "mp", "ray", "external_launcher", None})


@registry.rule("vllm_config")
def model_runner(ctx: Any) -> dict[str, Any]:
    """§3.13: ``VllmConfig.use_v2_model_runner``: ``VLLM_USE_V2_MODEL_RUNNER`` decides when set; else
    V1 for features V2 does not support yet (PP with the external launcher, the ``suffix`` and
    ``custom_class`` speculative methods), else V2."""
    env = ctx.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if env is not None:
        v2 = str(env).strip().lower() in ("1", "true")
    else:
        a = ctx.args
        v2 = not (
            (a.pipeline_parallel_size > 1 and a.distributed_executor_backend == "external_launcher")
            or a.speculative_method in V2_UNSUPPORTED_SPEC
        )
    return {"use_v2_model_runner": v2} if v2 != ctx.args.use_v2_model_runner else {}


def _v1_async_incompatibility(a: Any) -> str | None:
    """What the V1 runner cannot combine with async scheduling (0.33: only on V1)."""
    if a.use_v2_model_runner:
        return None
    if a.speculative_method is not None and a.speculative_method not in V1_ASYNC_SPEC:
        return f"speculative method {a.speculative_method!r}"
    if a.pipeline_parallel_size > 1:
        return "pipeline parallelism"
    return None


@registry.rule("vllm_config")
def async_scheduling(ctx: Any) -> dict[str, Any]:
    """§3.9: explicit ``--async-scheduling`` is refused with a custom executor or what V1 cannot
    combine with it; unset → off for pooling models and those cases, else **on**."""
    a = ctx.args
    incompat = _v1_async_incompatibility(a)
    supported = a.distributed_executor_backend in _IN_TREE_EXECUTORS
    if a.async_scheduling:
        if incompat is not None:
            raise ConflictError(
                f"Async scheduling is not supported by the V1 model runner with {incompat}.",
                fields=("async_scheduling",),
                fix="pass --no-async-scheduling",
            )
        if not supported:
            raise ConflictError(
                f"`{a.distributed_executor_backend}` does not support async scheduling yet.",
                fields=("async_scheduling", "distributed_executor_backend"),
                fix="pass --no-async-scheduling",
            )
        return {}
    if a.async_scheduling is None:
        on = a.runner_type != "pooling" and supported and incompat is None
        return {"async_scheduling": on}
    return {}


@registry.rule("vllm_config")
def hybrid_kv_cache_manager(ctx: Any) -> dict[str, Any]:
    """§3.19: ``disable_hybrid_kv_cache_manager`` (``VllmConfig.__post_init__``, after the platform
    hook): needed off for chunked-local attention (HF ``attention_chunk_size``) with EAGLE or without
    ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1``; unset → on otherwise (every in-tree
    platform supports it); explicitly enabled where it must be off → refused."""
    a = ctx.args
    chunked_local = ctx.hf.text_config.get("attention_chunk_size") is not None
    needs_off = chunked_local and (
        a.speculative_method in ("eagle", "eagle3")
        or ctx.env.get("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE") not in ("1", "true", "True")
    )
    if a.disable_hybrid_kv_cache_manager is None:
        return {"disable_hybrid_kv_cache_manager": needs_off}
    if a.disable_hybrid_kv_cache_manager is False and needs_off:
        raise ConflictError(
            "Hybrid KV cache manager was explicitly enabled but is not supported in this configuration.",
            fields=("disable_hybrid_kv_cache_manager",),
            fix="drop --enable-hybrid-kv-cache-manager (or pass --env VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1)",
        )
    return {}
