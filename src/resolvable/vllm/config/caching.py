"""Chunked prefill, prefix caching and the Mamba cache mode (vllm-config-spec.md §3.6, §3.7).

Order (spec §2): ``_set_default_chunked_prefill_and_prefix_caching_args`` in
``create_engine_config`` (stage "engine_args"), the encoder-decoder switch of
``SchedulerConfig.__post_init__``, then ``MambaModelConfig.verify_and_update_config`` in
``VllmConfig.try_verify_and_update_config`` (stage "vllm_config"). Invariants: ``None`` means
"decide by model" and is replaced here; a user's explicit value is kept (vLLM only warns) except
where vLLM itself overrides it (then ``Force`` with vLLM's reason).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from .facts import derived_fact, is_hybrid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``CacheConfig.DEFAULT_BLOCK_SIZE`` (the block size at config time; spec §3.4): 16, and 64 with
#: ``CHANGES.DEFAULT_BLOCK_SIZE_64`` (0.34).
CONFIG_BLOCK_SIZE = 16
CONFIG_BLOCK_SIZE_64 = 64
#: The classes implementing ``SupportsMambaPrefixCaching`` in 0.27.1 (``models/interfaces.py``; read
#: off the 0.27.1 registry, ``_ModelInfo.supports_mamba_prefix_caching``, by
#: ``tools/extract_vllm_model_info.py``): before ``CHANGES.MAMBA_ALIGN_BY_DEFAULT`` (0.28) prefix
#: caching gives them mode ``all``, the other hybrid classes ``align``. ``BambaForCausalLM`` is
#: one of them in 0.20.0-0.23.0, the releases that register it (``model_registry_history.json``).
MAMBA_PREFIX_CACHING_ARCHS = frozenset(
    {
        "BambaForCausalLM",
        *("FalconH1ForCausalLM", "FalconMambaForCausalLM", "GraniteMoeHybridForCausalLM"),
        *("JambaForCausalLM", "JambaForSequenceClassification", "Mamba2ForCausalLM", "MambaForCausalLM"),
        *("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "Zamba2ForCausalLM"),
    }
)


def chunked_prefill_supported(runner: str, attn_type: str) -> bool:
    """``ModelConfig.is_chunked_prefill_supported`` (``config/model.py`` 2193): generative models
    except encoder-decoder; pooling models unless bidirectional (CLS/MEAN pooling is not in config.json:
    causal pooling models count as supported)."""
    if runner == "pooling":
        return attn_type not in ("encoder_only", "encoder_decoder")
    return attn_type != "encoder_decoder"


def prefix_caching_supported(runner: str, attn_type: str) -> bool:
    """``ModelConfig.is_prefix_caching_supported`` (``config/model.py`` 2239): generative ``decoder``
    and ``hybrid`` models; not ``attention_free`` nor ``encoder_decoder``; pooling: causal only."""
    if runner == "pooling":
        return attn_type == "decoder"
    return attn_type in ("decoder", "hybrid")


@registry.rule("engine_args")
def chunked_prefill_and_prefix_caching(ctx: Any) -> dict[str, Any]:
    """§3.6 step 1, §3.7 step 1: ``EngineArgs._set_default_chunked_prefill_and_prefix_caching_args``
    (``engine/arg_utils.py`` 3041): unset switches take the model's support (vLLM warns when a user
    turns chunked prefill off on a generative model that supports it; before
    ``CHANGES.HYBRID_PREFIX_CACHING_BY_DEFAULT``, 0.28, a hybrid model keeps prefix caching off:
    ``ModelConfig.is_hybrid``; 0.25, before ``CHANGES.HYBRID_POOLING_PREFIX_CACHING_OPT_IN``, a
    generating one only); the encoder-decoder switch of ``SchedulerConfig.__post_init__``
    forces chunked prefill off."""
    a = ctx.args
    runner, attn = a.runner_type, a.attn_type
    out: dict[str, Any] = {}
    if a.enable_chunked_prefill is None:
        out["enable_chunked_prefill"] = chunked_prefill_supported(runner, attn)
    if a.enable_prefix_caching is None:
        supported = prefix_caching_supported(runner, attn)
        if (
            supported
            and not ctx.release.has(CHANGES.HYBRID_PREFIX_CACHING_BY_DEFAULT)
            and derived_fact(ctx.hf, "vllm.is_hybrid", is_hybrid)
            and (ctx.release.has(CHANGES.HYBRID_POOLING_PREFIX_CACHING_OPT_IN) or attn == "hybrid")
        ):
            # "Hybrid models support prefix caching but keep it opt-in" (0.26-0.27); 0.25 asks
            # ModelConfig.is_prefix_caching_supported only, which says no for attn_type "hybrid" and
            # judges a hybrid pooling model (attn_type "decoder") by its pooling type
            supported = False
        out["enable_prefix_caching"] = supported
    # SchedulerConfig.__post_init__ reads ModelConfig.is_encoder_decoder, the HF flag (config's or its
    # text config's), not attn_type: Whisper under a pooler (attn_type "decoder") is still switched off
    t = ctx.hf.text_config
    enc_dec = attn == "encoder_decoder" or bool(
        ctx.hf.get("is_encoder_decoder") or t.get("is_encoder_decoder")
    )
    if enc_dec and (out.get("enable_chunked_prefill", a.enable_chunked_prefill)):
        out["enable_chunked_prefill"] = Force(
            False, "SchedulerConfig: encoder-decoder models run without chunked prefill"
        )
    return out


def scheduler_encoder_decoder(ctx: Any) -> bool:
    """``SchedulerConfig.__post_init__``'s ``is_encoder_decoder`` (``ModelConfig.is_encoder_decoder``:
    the HF flag of the config or its text config, or an ``encoder_decoder`` attention)."""
    t = ctx.hf.text_config
    return ctx.args.attn_type == "encoder_decoder" or bool(
        ctx.hf.get("is_encoder_decoder") or t.get("is_encoder_decoder")
    )


def engine_args_chunked_prefill(ctx: Any) -> bool:
    """Chunked prefill as ``EngineArgs`` holds it when it sizes the token budget — the user's value,
    else ``is_chunked_prefill_supported`` — i.e. before ``SchedulerConfig.__post_init__`` switches
    it off for an encoder-decoder model (which then leaves the budget as it was)."""
    a = ctx.args
    if ctx.user_set("enable_chunked_prefill"):
        return bool(a.enable_chunked_prefill)
    return chunked_prefill_supported(a.runner_type, a.attn_type)


@registry.rule("vllm_config")
def mm_encoder_only_prefix_caching(ctx: Any) -> dict[str, Any]:
    """§3.7 step 4: ``VllmConfig._resolve_mm_encoder_only``: an instance that runs only the
    multimodal encoder turns prefix caching off ("Disabling prefix caching: this instance runs the
    multi-modal encoder only.")."""
    if ctx.args.mm_encoder_only and ctx.args.enable_prefix_caching:
        return {"enable_prefix_caching": Force(False, "this instance runs the multi-modal encoder only")}
    return {}


@registry.rule("vllm_config")
def mamba_cache_mode(ctx: Any) -> dict[str, Any]:
    """§3.7 step 7: ``MambaModelConfig.verify_and_update_config`` (``model_executor/models/config.py``
    750; called by ``HybridAttentionMambaModelConfig`` for every hybrid model): prefix caching on →
    mode ``align`` (chunked prefill required; before ``CHANGES.MAMBA_ALIGN_BY_DEFAULT``, 0.28, mode
    ``all`` for a ``SupportsMambaPrefixCaching`` class; 0.21, before ``CHANGES.MAMBA_ALL_WITH_SPEC``,
    not with speculative decoding), ``mamba_block_size`` = the block size; off →
    mode ``none``, ``mamba_block_size`` = ``max_model_len``."""
    a = ctx.args
    # keyed by the class (MODELS_CONFIG_MAP), not by attn_type: a hybrid model under a pooler
    # (attn_type decoder) still goes through it
    hybrid_class = derived_fact(ctx.hf, "vllm.is_hybrid", is_hybrid)
    if a.attn_type not in ("hybrid", "attention_free") and not hybrid_class:
        return {}
    out: dict[str, Any] = {}
    if a.enable_prefix_caching:
        mode = a.mamba_cache_mode
        if mode == "none":
            mode = "align"
            if (
                not ctx.release.has(CHANGES.MAMBA_ALIGN_BY_DEFAULT)
                and ctx.hf.architecture in MAMBA_PREFIX_CACHING_ARCHS
                and (a.speculative_method is None or ctx.release.has(CHANGES.MAMBA_ALL_WITH_SPEC))
            ):  # 0.21: align when speculative decoding is on too
                mode = "all"
            out["mamba_cache_mode"] = mode
        any_mode = ctx.release.has(CHANGES.MAMBA_PREFIX_CACHING_WORDING)  # 0.33: every mode
        if (any_mode or mode == "align") and not a.enable_chunked_prefill:
            wording = (
                "Chunked prefill is required for Mamba prefix caching."
                if any_mode
                else "Chunked prefill is required for mamba cache mode 'align'."
            )
            raise ConflictError(
                wording,
                fields=("enable_chunked_prefill", "enable_prefix_caching"),
                fix=Fix(drop=("enable_chunked_prefill",), note="(vLLM turns it on for this model)"),
                upstream="AssertionError",
            )
        if a.mamba_block_size is None:
            default = (
                CONFIG_BLOCK_SIZE_64 if ctx.release.has(CHANGES.DEFAULT_BLOCK_SIZE_64) else CONFIG_BLOCK_SIZE
            )
            out["mamba_block_size"] = a.block_size if ctx.user_set("block_size") else default
    else:
        if a.mamba_cache_mode != "none":
            out["mamba_cache_mode"] = Force(
                "none", "Mamba cache mode is set to 'none' when prefix caching is disabled"
            )
        if a.mamba_block_size is None:
            out["mamba_block_size"] = a.max_model_len
    return out


@registry.rule("vllm_config")
def validate_mamba_block_size(ctx: Any) -> dict[str, Any]:
    """§3.8: ``VllmConfig.validate_mamba_block_size`` (pydantic validator): an explicit
    ``--mamba-block-size`` needs prefix caching."""
    a = ctx.args
    if (
        ctx.user_set("mamba_block_size")
        and not a.enable_prefix_caching
        and a.mamba_block_size != a.max_model_len
    ):
        raise ConflictError(
            "--mamba-block-size can only be set with --enable-prefix-caching",
            fields=("mamba_block_size", "enable_prefix_caching"),
            fix=Fix.any_of(
                Fix(drop=("mamba_block_size",)),
                Fix(set={"enable_prefix_caching": True}),
                text="drop --mamba-block-size (or pass --enable-prefix-caching)",
            ),
        )
    return {}
