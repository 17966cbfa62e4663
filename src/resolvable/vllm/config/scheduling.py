"""Model runner V1/V2 and async scheduling (vllm-config-spec.md §3.9, §3.13).

``VllmConfig.use_v2_model_runner`` (``config/vllm.py`` 731) and the async-scheduling block of
``VllmConfig.__post_init__`` (1668); stage "vllm_config". Invariants: a standard install has
Triton, so the V2 runner is the default unless ``VLLM_USE_V2_MODEL_RUNNER`` says otherwise or a
feature V2 lacks is used; every in-tree executor (``uni``, ``mp``, ``ray``, external launcher)
supports async scheduling; the CPU platform turns it off later (``config.platform``).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from .facts import derived_fact, is_hybrid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Speculative methods the V2 runner lacks (``_get_v2_model_runner_unsupported_features``), 0.33;
#: 0.30-0.32 also Medusa and MLP speculators, 0.30-0.31 n-gram, 0.30 draft models.
V2_UNSUPPORTED_SPEC = frozenset({"suffix", "custom_class", "medusa", "mlp_speculator"})
#: ``ROCM_DEFAULT_MRV1_ARCHITECTURES`` (0.30-0.31).
ROCM_V1_ARCHS = frozenset({"DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "GlmMoeDsaForCausalLM"})


#: ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` (0.28: the classes that default to the V2 runner even
#: when MoE or hybrid; ROCm drops DeepSeek-V4. 0.27.1, ``CHANGES.V2_DEFAULT_DEEPSEEK_V4``: without
#: DeepSeek-V4, and ROCm drops Kimi-K3).
V2_DEFAULT_ARCHS = frozenset(
    {
        *("DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM"),
        *("InklingForConditionalGeneration", "KimiK3ForConditionalGeneration"),
        *("LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"),
    }
)


#: ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` of 0.24 (before ``CHANGES.V2_DEFAULT_DENSE_MODELS``): the
#: only classes that default to the V2 runner; 0.25 drops the dense ones (every dense model is V2).
V2_DEFAULT_ARCHS_LISTED_ONLY = frozenset(
    {
        *("DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "LlamaForCausalLM", "MistralForCausalLM"),
        *("Qwen2MoeForCausalLM", "Qwen3ForCausalLM"),
    }
)


#: the same list in 0.23 (``CHANGES.V2_DEFAULT_LISTED_MOE_QUANTIZED``), for dense unquantized models only
V2_DEFAULT_ARCHS_DENSE_UNQUANTIZED = frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"})


def v2_by_model(ctx: Any) -> bool:
    """0.24-0.28 ``VllmConfig.use_v2_model_runner`` before the feature checks: forced for PCP, DSpark and
    diffusion models (``canvas_length``), else ``_is_default_v2_model_runner_model``: a generating
    model that is a listed class, or (0.25+) neither hybrid, attention-free nor MoE."""
    from .facts import is_moe

    if not ctx.release.has(CHANGES.V2_RUNNER_DEFAULT_LIST):  # 0.21: V2 only by the variable
        return False
    a = ctx.args
    if a.speculative_method == "dspark":
        return True
    if a.prefill_context_parallel_size > 1:
        # 0.25: PCP is a V2-unsupported feature (→ V1), MLA or not (CHANGES.V2_RUNNER_PCP_MLA)
        return ctx.release.has(CHANGES.V2_RUNNER_PCP_MLA)
    if ctx.hf.get("canvas_length") is not None:
        return True
    if a.runner_type != "generate":
        return False
    hybrid = derived_fact(ctx.hf, "vllm.is_hybrid", is_hybrid)
    if not ctx.release.has(CHANGES.V2_DEFAULT_LISTED_HYBRID):  # 0.26: hybrid → V1; no Kimi-K3
        if hybrid or a.attn_type == "attention_free":
            return False
        listed = V2_DEFAULT_ARCHS - {"DeepseekV4ForCausalLM", "KimiK3ForConditionalGeneration"}
        if not ctx.release.has(CHANGES.V2_DEFAULT_INKLING_LONGCAT_NGRAM):  # 0.25
            listed -= {
                "InklingForCausalLM",
                "InklingForConditionalGeneration",
                "LongcatFlashNgramForCausalLM",
            }
        if not ctx.release.has(CHANGES.V2_RUNNER_RAW_LOGPROBS) and a.logprobs_mode in (
            "raw_logits",
            "processed_logits",
        ):  # 0.24-0.25: _get_v2_model_runner_unsupported_features lists these logprobs modes
            return False
        if not ctx.release.has(CHANGES.V2_DEFAULT_DENSE_MODELS):  # 0.24: the listed classes only
            if not ctx.release.has(CHANGES.V2_DEFAULT_LISTED_MOE_QUANTIZED):
                # 0.23: Llama, Mistral, Qwen3 only, and neither MoE nor quantized (quantization_config)
                listed = V2_DEFAULT_ARCHS_DENSE_UNQUANTIZED
                if not ctx.release.has(CHANGES.V2_DEFAULT_LLAMA_MISTRAL):  # 0.22: Qwen3 only
                    listed = listed - {"LlamaForCausalLM", "MistralForCausalLM"}
                if (
                    derived_fact(ctx.hf, "vllm.is_moe", is_moe)
                    or ctx.hf.get("quantization_config") is not None
                ):
                    return False
            else:
                listed = V2_DEFAULT_ARCHS_LISTED_ONLY
            return bool(set(ctx.hf.architectures or ()) & listed)
        return bool(set(ctx.hf.architectures or ()) & listed) or not derived_fact(
            ctx.hf, "vllm.is_moe", is_moe
        )
    if ctx.release.has(CHANGES.V2_DEFAULT_DEEPSEEK_V4):
        listed = V2_DEFAULT_ARCHS - ({"DeepseekV4ForCausalLM"} if ctx.platform.vendor == "hip" else set())
    else:  # 0.27.1: no DeepSeek-V4; ROCM_EXCLUDED_V2_MODEL_RUNNER_ARCHITECTURES = {Kimi-K3}
        listed = V2_DEFAULT_ARCHS - {"DeepseekV4ForCausalLM"}
        listed -= {"KimiK3ForConditionalGeneration"} if ctx.platform.vendor == "hip" else set()
    if set(ctx.hf.architectures or ()) & listed:
        return True
    moe = derived_fact(ctx.hf, "vllm.is_moe", is_moe)
    return not hybrid and a.attn_type != "attention_free" and not moe


#: ``IsHybrid`` classes that are not ``HasInnerState`` (the 0.24 registry, read by
#: ``tools/extract_vllm_model_info.py``): the Qwen3.5 and LFM2-VL multimodal classes (operators-5528-00165)
HYBRID_WITHOUT_INNER_STATE = frozenset(
    {
        *("ColQwen3_5", "InternS2PreviewForConditionalGeneration", "Lfm2VlForConditionalGeneration"),
        *("Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"),
    }
)


def _has_inner_state(hf: Any) -> bool:
    """``ModelConfig.has_inner_state`` (``_ModelInfo.has_inner_state``: the registered class is
    ``HasInnerState``) for a hybrid model: every hybrid class but ``HYBRID_WITHOUT_INNER_STATE``."""
    from .model_info import normalized

    if not is_hybrid(hf):
        return False
    arch = hf.architecture or ""
    found = normalized(arch)
    return (found[0] if found is not None else arch) not in HYBRID_WITHOUT_INNER_STATE


def v2_unsupported_spec(ctx: Any) -> frozenset[str]:
    """The speculative methods that send this release to the V1 runner."""
    out = set(V2_UNSUPPORTED_SPEC)
    if not ctx.release.has(CHANGES.V2_RUNNER_NGRAM):
        out |= {"ngram", "ngram_gpu"}
    if not ctx.release.has(CHANGES.V2_RUNNER_DRAFT_MODEL):
        out.add("draft_model")
    if not ctx.release.has(CHANGES.V2_RUNNER_DFLASH):  # 0.23: DFlash (and any parallel drafting)
        out.add("dflash")
    return frozenset(out)


def _pp_external_launcher_v1(ctx: Any) -> bool:
    """PP with the external launcher: a V2-unsupported feature from 0.24."""
    a = ctx.args
    return (
        a.pipeline_parallel_size > 1
        and a.distributed_executor_backend == "external_launcher"
        and ctx.release.has(CHANGES.V2_RUNNER_PP_EXTERNAL_LAUNCHER_UNSUPPORTED)
    )


#: ``EagleModelTypes`` + ``NgramGPUTypes`` + draft model/DSpark: the speculative methods async
#: scheduling supports (0.30-0.32 for every runner, 0.33 on V1); DFlash from 0.31.
#: drafters that read the target model's hidden states: 0.30-0.33 ``SpeculativeConfig.use_eagle()``
#: (``config/speculative.py``), 0.34 ``SpeculativeConfig.uses_target_hidden_states`` (the
#: ``SpeculatorConfig`` classes of ``v1/worker/gpu/spec_decode/{eagle,mtp,dflash,dspark}/config.py``):
#: the same five methods in every modelled release
TARGET_HIDDEN_STATES_SPEC = frozenset({"eagle", "eagle3", "mtp", "dflash", "dspark"})
ASYNC_SPEC = frozenset({"eagle", "eagle3", "mtp", "ngram_gpu", "draft_model", "dspark"})
_IN_TREE_EXECUTORS = frozenset({"uni", "mp", "ray", "external_launcher", None})


@registry.rule("vllm_config")
def model_runner(ctx: Any) -> dict[str, Any]:
    """§3.13: ``VllmConfig.use_v2_model_runner`` (``config/vllm.py`` 731): ``VLLM_USE_V2_MODEL_RUNNER``
    decides when set; else V1 for features V2 does not support yet (PP with the external launcher,
    the ``suffix``/``custom_class`` speculative methods; 0.30-0.31 also n-gram and stock
    torch.compile and mamba cache mode ``all`` (config-3117-00158), 0.30 draft models; ROCm's V1 list for DeepSeek-V3.2/V4 and GLM-MoE-DSA before
    0.32), else V2. 0.34 removed V1
    (``Platform.validate_environ`` refuses the variable unless it is 1)."""
    env = ctx.env.get("VLLM_USE_V2_MODEL_RUNNER")
    if ctx.release.has(CHANGES.MODEL_RUNNER_V1_REMOVED):
        if env is not None and env != "1":
            raise ConflictError(
                f"VLLM_USE_V2_MODEL_RUNNER={env} is no longer supported: Model Runner V1 has been removed. "
                "Unset this variable.",
                fields=(),
                fix="drop VLLM_USE_V2_MODEL_RUNNER from the environment",
            )
        v2 = True
        a = ctx.args
        if (
            ctx.release.has(CHANGES.GPU_RUNNER_PP_EXTERNAL_LAUNCHER_REFUSED)
            and a.pipeline_parallel_size > 1
            and a.distributed_executor_backend == "external_launcher"
        ):  # VllmConfig._get_model_runner_unsupported_features (0.34)
            raise ConflictError(
                "The GPU model runner does not support: pipeline parallelism with external_launcher",
                fields=("pipeline_parallel_size", "distributed_executor_backend"),
                fix=Fix.any_of(
                    Fix(set={"distributed_executor_backend": "mp"}),
                    Fix(set={"pipeline_parallel_size": 1}),
                    text="pass --distributed-executor-backend mp (or --pipeline-parallel-size 1)",
                ),
            )
    elif env is not None:
        v2 = str(env).strip().lower() in ("1", "true")
        a = ctx.args
        unsupported = []
        if _pp_external_launcher_v1(ctx):
            unsupported.append("pipeline parallelism with external_launcher")
        if a.speculative_method in v2_unsupported_spec(ctx):
            unsupported.append(f"speculative method '{a.speculative_method}'")
        inner_state = a.attn_type == "attention_free" or derived_fact(
            ctx.hf, "vllm.has_inner_state", _has_inner_state
        )
        if not ctx.release.has(CHANGES.V2_RUNNER_HYBRID_ALIGN_ONLY) and inner_state:
            # 0.21-0.22: every ModelConfig.has_inner_state model, whatever the cache mode
            unsupported.insert(0, "hybrid/mamba models")
        elif (
            not ctx.release.has(CHANGES.V2_RUNNER_MAMBA_ALIGN)
            and a.mamba_cache_mode == "align"
            and inner_state
        ):
            # 0.23-0.24: ModelConfig.has_inner_state in align mode, listed first
            unsupported.insert(0, "hybrid/mamba models with align cache mode")
        if v2 and unsupported:  # VllmConfig._validate_v2_model_runner: V2 forced by env
            runner = (
                "Model Runner V2"
                if ctx.release.has(CHANGES.V2_RUNNER_REFUSAL_NAMES_RUNNER)
                else "VLLM_USE_V2_MODEL_RUNNER"
            )
            raise ConflictError(
                f"{runner} does not yet support: {', '.join(unsupported)}",
                fields=("use_v2_model_runner",),
                fix="unset VLLM_USE_V2_MODEL_RUNNER (vLLM then picks the V1 runner for these features)",
            )
    else:
        a = ctx.args
        v2 = (ctx.release.has(CHANGES.V2_RUNNER_BY_DEFAULT) or v2_by_model(ctx)) and not (
            _pp_external_launcher_v1(ctx)
            or a.speculative_method in v2_unsupported_spec(ctx)
            or (a.mamba_cache_mode == "all" and not ctx.release.has(CHANGES.V2_RUNNER_MAMBA_CACHE_ALL))
            or (
                a.compilation_mode == "STOCK_TORCH_COMPILE"
                and not ctx.release.has(CHANGES.STOCK_COMPILE_V2_NO_GRAPHS)
            )
            or (
                not ctx.release.has(CHANGES.ROCM_V1_RUNNER_DEFAULT_REMOVED)
                and ctx.platform.vendor == "hip"
                and bool(set(ctx.hf.architectures or ()) & ROCM_V1_ARCHS)
            )
        )
    return {"use_v2_model_runner": v2}  # always a step: upgrade names the release reads behind it


def _spec_incompatibility(ctx: Any) -> str | None:
    """A speculative method async scheduling does not support (0.30-0.32: any runner; 0.33: V1;
    0.34: none), or pipeline parallelism on V1 (0.31-0.33)."""
    a = ctx.args
    if ctx.release.has(CHANGES.MODEL_RUNNER_V1_REMOVED):
        return None
    v1_only = ctx.release.has(CHANGES.ASYNC_SCHED_SPEC_RULES_V1_ONLY)
    if v1_only and a.use_v2_model_runner:
        return None
    allowed = ASYNC_SPEC | ({"dflash"} if ctx.release.has(CHANGES.ASYNC_SCHED_DFLASH) else set())
    if a.speculative_method is not None and a.speculative_method not in allowed:
        return f"{a.speculative_method}-based speculative decoding"
    if (
        a.pipeline_parallel_size > 1
        and not a.use_v2_model_runner
        and ctx.release.has(CHANGES.ASYNC_SCHED_OFF_FOR_PP_ON_V1)
    ):
        return "pipeline parallelism"
    return None


@registry.rule("vllm_config")
def async_scheduling(ctx: Any) -> dict[str, Any]:
    """§3.9: the async-scheduling block of ``VllmConfig.__post_init__`` (``config/vllm.py`` 1668): an
    explicit ``--async-scheduling`` is refused with a custom executor or an unsupported speculative
    method (0.33: on the V1 runner, also PP); unset → off for pooling models and those cases (and,
    before ``CHANGES.ASYNC_SCHED_DRAFT_MODEL_DEFAULT``, 0.28, for draft-model speculation), else
    **on**. (The CPU platform hook turns it off afterwards.)"""
    a = ctx.args
    incompat = _spec_incompatibility(ctx)
    supported = a.distributed_executor_backend in _IN_TREE_EXECUTORS
    if a.async_scheduling:
        if incompat is not None:
            if ctx.release.has(CHANGES.ASYNC_SCHED_SPEC_RULES_V1_ONLY):
                message = f"Async scheduling is not supported by the V1 model runner with {incompat}."
            elif incompat == "pipeline parallelism":
                message = None  # 0.31-0.32 only default it off (no refusal)
            else:
                kinds = "EAGLE/MTP/Draft Model/NGram GPU/DSpark" + (
                    "/DFlash" if ctx.release.has(CHANGES.ASYNC_SCHED_DFLASH) else ""
                )
                message = (
                    f"Currently, async scheduling is only supported with {kinds} kind of speculative decoding"
                )
            if message is not None:
                raise ConflictError(message, fields=("async_scheduling",), fix="pass --no-async-scheduling")
        if not supported:
            raise ConflictError(
                f"`{a.distributed_executor_backend}` does not support async scheduling yet.",
                fields=("async_scheduling", "distributed_executor_backend"),
                fix="pass --no-async-scheduling",
            )
        return {}
    if a.async_scheduling is None:
        on = a.runner_type != "pooling" and supported and incompat is None
        if a.speculative_method == "draft_model" and not ctx.release.has(
            CHANGES.ASYNC_SCHED_DRAFT_MODEL_DEFAULT
        ):
            on = False  # 0.21-0.27: accepted when asked for, not turned on by default
        return {"async_scheduling": on}
    return {}


@registry.rule("vllm_config")
def v1_runner_features(ctx: Any) -> dict[str, Any]:
    """§3.13, §6: ``VllmConfig._validate_v1_model_runner`` (``config/vllm.py``, end of
    ``__post_init__``, 0.30-0.33): on the V1 runner, ``_get_v1_model_runner_unsupported_features``
    — prefill context parallelism (config-3117-00117: n-gram speculation sends 0.30-0.31 to V1,
    then ``-pcp 2`` is refused), DSpark, and from 0.31 PP with async scheduling — is refused,
    "Model Runner V1 does not support: …"."""
    a = ctx.args
    if a.use_v2_model_runner or ctx.release.has(CHANGES.MODEL_RUNNER_V1_REMOVED):
        return {}
    unsupported = []
    if a.prefill_context_parallel_size > 1 and ctx.release.has(CHANGES.V2_RUNNER_PCP_MLA):
        unsupported.append("prefill context parallel")  # 0.25 runs PCP on V1 (no V1 check)
    if (
        ctx.release.has(CHANGES.ASYNC_SCHED_OFF_FOR_PP_ON_V1)
        and a.pipeline_parallel_size > 1
        and a.async_scheduling
    ):
        unsupported.append("pipeline parallelism with async scheduling")
    if a.speculative_method == "dspark":
        unsupported.append("dspark speculative decoding")
    if unsupported:
        raise ConflictError(
            f"Model Runner V1 does not support: {', '.join(unsupported)}",
            fields=("use_v2_model_runner",),
            fix="drop the feature that needs Model Runner V2, or what sends this engine to V1",
        )
    return {}


#: ``transformers_utils/model_arch_config_convertor.py : _strip_mimo_v2_attention_chunk_size`` (the
#: MiMo-V2 convertors, 0.26-0.34): MiMo-V2's config.json sets ``attention_chunk_size`` 128 though the
#: model has no chunked-local attention; vLLM deletes it before ``ModelConfig`` reads it
#: (config-3117-01499 and operators 7004:433/726: MiMo-V2-Flash with MTP, operators-8001-00395 with
#: EAGLE3, keep the hybrid KV-cache manager).
MIMO_V2_MODEL_TYPES = frozenset({"mimo_v2", "mimo_v2_flash", "mimo_v2_mtp", "mimo_v2_omni_mtp"})


@registry.rule("vllm_config")
def hybrid_kv_cache_manager(ctx: Any) -> dict[str, Any]:
    """§3.19: ``disable_hybrid_kv_cache_manager`` (``VllmConfig.__post_init__``, after the platform
    hook): needed off for chunked-local attention (HF ``attention_chunk_size``, which vLLM strips from
    MiMo-V2's config: ``MIMO_V2_MODEL_TYPES``) with a drafter that reads
    the target's hidden states (``TARGET_HIDDEN_STATES_SPEC``) or with
    ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0`` (its default is 1); unset → on otherwise (every in-tree
    platform supports it); explicitly enabled where it must be off → refused."""
    a = ctx.args
    model_type = str(ctx.hf.text_config.get("model_type") or ctx.hf.get("model_type") or "")
    chunked_local = (
        ctx.hf.text_config.get("attention_chunk_size") is not None and model_type not in MIMO_V2_MODEL_TYPES
    )
    needs_off = chunked_local and (
        a.speculative_method in TARGET_HIDDEN_STATES_SPEC
        or ctx.env.get("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", "1") in ("0", "false", "False")
    )
    if a.disable_hybrid_kv_cache_manager is None:
        return {"disable_hybrid_kv_cache_manager": needs_off}
    if a.disable_hybrid_kv_cache_manager is False and needs_off:
        raise ConflictError(
            "Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. "
            "Consider omitting the --enable-hybrid-kv-cache-manager flag to let vLLM decide automatically.",
            fields=("disable_hybrid_kv_cache_manager",),
            fix="drop --enable-hybrid-kv-cache-manager (or pass --env VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1)",
        )
    return {}
