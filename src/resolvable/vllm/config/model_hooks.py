"""Model hooks of ``model_executor/models/config.py : MODELS_CONFIG_MAP`` that change a derived
value of vllm-config-spec.md §3 (§5), beyond the attention ones (``resolvable.vllm.rules.overrides``)
and the Mamba hook (``config.caching``).

Each rule is one hook class, registered for its architectures in stage "model_hooks", the stage
just before "vllm_config" — as ``VllmConfig.try_verify_and_update_config`` runs the hooks first in
``VllmConfig.__post_init__``. A hook's value is an input of the later ``__post_init__`` steps (GPT-OSS's
``max_cudagraph_capture_size`` of 1024 is what ``_set_cudagraph_sizes`` then starts from), so the
hooks are their own stage, not a second writer in "vllm_config". Invariant: a hook only writes what vLLM's hook writes,
only when vLLM's would (an explicit user value wins unless vLLM overrides it).
"""

from __future__ import annotations

from .._base import registry
from ..changes import CHANGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The 0.34 GPT-OSS prefill token grid below 1024 (``GptOssForCausalLMConfig``).
_GPT_OSS_PREFILL = frozenset({1, 2, 4, *range(8, 256, 8), *range(256, 1024, 16)})


def _hook_for(*names: str):
    """``VllmConfig.try_verify_and_update_config``: the hook of ``model_config.architecture``, or of
    the class it names under another suffix (``ModelRegistry._normalize_arch``, 0.25-0.34), so a
    pooling name (``GptOssForSequenceClassification``) runs the ``…ForCausalLM`` hook."""
    from . import model_info

    def matches(arch: str) -> bool:
        found = (arch, None) if arch in names else model_info.normalized(arch)
        return found is not None and found[0] in names

    label = " / ".join(names) + " (or another suffix of the same model)"
    return registry.for_arch_matching(matches, stage="model_hooks", label=label)


def _not_looked_up(ctx: Any, *names: str) -> bool:
    """0.24 (before ``CHANGES.MODEL_HOOKS_NORMALIZED_ARCH``): ``MODELS_CONFIG_MAP`` is looked up under
    ``model_config.architecture`` only, so another suffix of the model (a ``--hf-overrides``
    ``…ForSequenceClassification``) runs no hook."""
    return ctx.hf.architecture not in names and not ctx.release.has(CHANGES.MODEL_HOOKS_NORMALIZED_ARCH)


@_hook_for("GptOssForCausalLM")
def gpt_oss_capture_sizes(ctx: Any) -> dict[str, Any]:
    """§5: ``GptOssForCausalLMConfig.verify_and_update_config`` (``models/config.py`` 544): an empty
    reasoning parser becomes ``openai_gptoss`` (§3.20); with no capture size set, 0.30-0.33 raise
    ``max_cudagraph_capture_size`` to 1024 ("for performance"); 0.34 (off the SM10x family) sets the
    prefill token sizes up to ``min(max_num_batched_tokens, 1024)`` and at most ``1024 // q``
    decode requests."""
    if _not_looked_up(ctx, "GptOssForCausalLM"):
        return {}
    a = ctx.args
    out: dict[str, Any] = {} if a.reasoning_parser else {"reasoning_parser": "openai_gptoss"}
    if a.cudagraph_capture_sizes is not None or a.max_cudagraph_capture_size is not None:
        return out
    if not ctx.release.has(CHANGES.SPLIT_CUDAGRAPH_CAPTURE_SIZES):
        return {**out, "max_cudagraph_capture_size": 1024}
    cap = ctx.platform.capability
    if (
        a.prefill_cudagraph_capture_token_sizes is not None
        or a.max_decode_cudagraph_capture_requests is not None
    ):
        return out
    if ctx.platform.vendor == "cuda" and cap is not None and cap[0] == 10:
        return out
    tokens = min(a.max_num_batched_tokens, 1024)
    q = 1 + max(0, int(a.num_speculative_tokens or 0))
    return {
        **out,
        "prefill_cudagraph_capture_token_sizes": sorted(
            {s for s in _GPT_OSS_PREFILL if s < tokens} | {tokens}
        ),
        "max_decode_cudagraph_capture_requests": 1024 // q,
    }


@_hook_for("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Nano_VL_V2")
def nemotron_h_ssm_cache_dtype(ctx: Any) -> dict[str, Any]:
    """§3.8: ``NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype`` (``models/config.py``; the
    Nano-VL-V2 hook reads the text config): ``auto`` → the HF ``mamba_ssm_cache_dtype``, else
    float32 ("only float32 is known to have no accuracy issues")."""
    if _not_looked_up(ctx, "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Nano_VL_V2"):
        return {}
    if ctx.args.mamba_ssm_cache_dtype != "auto":
        return {}
    value = ctx.hf.text_config.get("mamba_ssm_cache_dtype") or "float32"
    return {"mamba_ssm_cache_dtype": str(value)}


_QWEN3_5 = (
    "Qwen3_5ForCausalLM",
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
)


@_hook_for(*_QWEN3_5)
def qwen3_5_ssm_cache_dtype(ctx: Any) -> dict[str, Any]:
    """§3.8: ``Qwen3_5ForConditionalGenerationConfig.verify_and_update_config`` (``models/config.py``
    955): ``auto`` → the HF ``mamba_ssm_dtype`` when the config names one (vLLM warns when the user
    overrides it)."""
    if _not_looked_up(ctx, *_QWEN3_5):
        return {}
    value = ctx.hf.text_config.get("mamba_ssm_dtype")
    if ctx.args.mamba_ssm_cache_dtype != "auto" or value is None:
        return {}
    return {"mamba_ssm_cache_dtype": str(value)}


@_hook_for("EmbeddingGemma2Model")
def embedding_gemma2_max_model_len(ctx: Any) -> dict[str, Any]:
    """§3.2 step 10: ``EmbeddingGemma2ModelConfig.verify_and_update_config`` (0.32+): a derived
    ``max_model_len`` above 8192 is capped at 8192 (a user's value is kept)."""
    if _not_looked_up(ctx, "EmbeddingGemma2Model"):
        return {}
    if not ctx.release.has(CHANGES.EMBEDDING_GEMMA2_HOOK):
        return {}
    if ctx.args.max_model_len > 8192 and not (ctx.user_set("max_model_len") and ctx.args.max_model_len != -1):
        return {"max_model_len": 8192}
    return {}


@_hook_for("LongcatFlashNgramForCausalLM")
def longcat_flash_ngram_compilation(ctx: Any) -> dict[str, Any]:
    """§3.10: ``LongcatFlashNgramForCausalLMConfig.verify_and_update_config`` (``models/config.py``
    1196): compilation mode NONE and CUDA-graph mode FULL when unset (0.26+,
    ``CHANGES.LONGCAT_NGRAM_HOOK``)."""
    if _not_looked_up(ctx, "LongcatFlashNgramForCausalLM"):
        return {}
    if not ctx.release.has(CHANGES.LONGCAT_NGRAM_HOOK):
        return {}
    out: dict[str, Any] = {}
    if ctx.args.compilation_mode is None:
        out["compilation_mode"] = "NONE"
    if ctx.args.cudagraph_mode is None:
        out["cudagraph_mode"] = "FULL"
    return out


@_hook_for("UnlimitedOCRForCausalLM")
def unlimited_ocr_prefix_caching(ctx: Any) -> dict[str, Any]:
    """§3.7 step 5: ``UnlimitedOCRForCausalLMConfig.verify_and_update_config``: prefix caching off
    (R-SWA decode KV is not a pure causal function of the prefix); 0.25+ (``CHANGES.UNLIMITED_OCR_HOOK``:
    0.24 registers no Unlimited-OCR class)."""
    if not ctx.release.has(CHANGES.UNLIMITED_OCR_HOOK) or _not_looked_up(ctx, "UnlimitedOCRForCausalLM"):
        return {}
    from ...rules import Force

    if ctx.args.enable_prefix_caching is False:
        return {}
    return {
        "enable_prefix_caching": Force(False, "UnlimitedOCR: R-SWA decode KV cannot hit the prefix cache")
    }


@_hook_for("DeepseekV32ForCausalLM")
def deepseek_v32_config(ctx: Any) -> dict[str, Any]:
    """§5, §6: ``DeepseekV32ForCausalLM.verify_and_update_config`` (``models/config.py``), run by
    ``VllmConfig.try_verify_and_update_config`` before the other checks of ``__post_init__``:
    asserts ``hasattr(hf_config, "index_topk")`` (the sparse indexer of DeepSeek-V3.2), so a config
    without it fails VllmConfig's validation with a bare assertion (config-3117-00361, 00465); then
    serves a bfloat16 KV cache as ``auto`` — before ``_reject_mismatched_float_kv_cache`` looks at
    it (config-3117-01089: float16 model, ``--kv-cache-dtype bfloat16`` accepted on 0.33+)."""
    if _not_looked_up(ctx, "DeepseekV32ForCausalLM"):
        return {}
    from ...errors import ConflictError
    from ...rules import Force

    if ctx.hf.text_config.get("index_topk") is None and "index_topk" not in ctx.hf:
        raise ConflictError(
            "VllmConfig validation error: assertion failed (DeepseekV32ForCausalLM needs index_topk in config.json).",
            fields=(),
            fix="use the checkpoint's config.json with its index_topk (DeepSeek-V3.2 sparse attention)",
            upstream="AssertionError",
        )
    if ctx.args.kv_cache_dtype == "bfloat16":
        return {"kv_cache_dtype": Force("auto", "vLLM serves DeepSeek-V3.2's bfloat16 kv-cache as 'auto'")}
    return {}
