"""Speculative decoding from ``--speculative-config`` (vllm-config-spec.md §3.16).

``EngineArgs.create_speculative_config`` (``engine/arg_utils.py`` 2100) builds a
``SpeculativeConfig`` from the JSON; ``SpeculativeConfig.__post_init__`` (``config/speculative.py``
1226) infers the method and fills the n-gram lookup, ``_verify_args`` (1939) refuses. Invariants:
the JSON is parsed here and nowhere else; a draft model's own ``config.json`` is read only when
``model`` is a local directory (``draft.py``: its ``n_predict`` and the draft TP); a hub id is not
fetched, so its ``n_predict`` is unknown and ``num_speculative_tokens`` must be given, which is
what vLLM asks of EAGLE heads too.
"""

from __future__ import annotations

from ...errors import ConflictError, InvalidArgumentError
from ...rules import Fix, HFConfig
from .._base import registry
from ..changes import CHANGES
from . import model_info
from .draft import draft_n_predict, draft_tp_ok, load_draft_config
from .facts import is_moe
from .model_config import registry_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``MTPModelTypes``: method names vLLM renames to ``mtp`` (with a deprecation warning).
MTP_MODEL_TYPES = frozenset(
    {
        "deepseek_mtp",
        "mimo_mtp",
        "glm4_moe_mtp",
        "glm4_moe_lite_mtp",
        "glm_ocr_mtp",
        "ernie_mtp",
        "exaone_moe_mtp",
        "qwen3_next_mtp",
        "qwen3_5_mtp",
        "longcat_flash_mtp",
        "pangu_ultra_moe_mtp",
        "step3p5_mtp",
    }
)
#: Methods that need no draft model (a pseudo model is set).
_NO_MODEL = {
    "ngram": "ngram",
    "ngram_gpu": "ngram_gpu",
    "suffix": "suffix",
    "extract_hidden_states": "extract_hidden_states",
}
#: the same, for other modules (``draft_length``)
NO_MODEL_METHODS = frozenset(_NO_MODEL)


#: ``SpeculativeConfig.hf_config_override`` (0.30-0.33): target model types it rewrites into an
#: MTP draft model type (``MTPModelTypes``) ...
_MTP_TARGET_TYPES = frozenset(
    {
        *("dots3_note", "deepseek_v3", "deepseek_v32", "glm_moe_dsa", "deepseek_mtp", "deepseek_v4"),
        *("deepseek_v41", "pangu_ultra_moe", "pangu_ultra_moe_mtp", "kimi_k3", "ernie4_5_moe"),
        *("ernie_mtp", "nemotron_h_mtp", "qwen3_next", "qwen3_next_mtp", "qwen4_exp", "qwen4_exp_text"),
        *("exaone_moe", "exaone_moe_mtp", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"),
        *("intern_s2_preview", "interns2_mobius", "longcat_flash", "step3p5", "step3p7", "hy_v3"),
        *("hy_v4", "inkling_mm_model", "inkling_model", "gemma4_assistant", "gemma4_unified_assistant"),
        *("minimax_m3_vl", "minimax_m3_mtp", "glm5_next", "bailing_hybrid", "bailing_hybrid_mtp"),
        *MTP_MODEL_TYPES,
    }
)
#: ... and target architectures it rewrites so.
_MTP_TARGET_ARCHS = frozenset(
    {
        *("MiMoForCausalLM", "MiMoV2ForCausalLM", "MiMoV2OmniForCausalLM", "MiMoV2FlashForCausalLM"),
        *("Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM", "GlmOcrForConditionalGeneration"),
        *("Step3p5ForCausalLM", "Step3p7ForConditionalGeneration", "BailingMoeV3ForCausalLM"),
        *("BailingMoeV3VLForConditionalGeneration", "BailingMoeV2_5ForCausalLM"),
        *("MiniMaxM3SparseForConditionalGeneration", "MiniMaxM3MTP"),
    }
)


def has_mtp_draft(hf: Any) -> bool:
    """Whether ``SpeculativeConfig.hf_config_override`` (0.30-0.33) turns the target's config into
    an MTP draft config (nemotron_h: only with ``num_nextn_predict_layers`` > 0; exaone4_5 by name)."""
    model_type = str(hf.get("model_type") or "")
    archs = tuple(hf.get("architectures") or ())
    if model_type in _MTP_TARGET_TYPES or "exaone4_5" in model_type:
        return True
    if archs and archs[0] in _MTP_TARGET_ARCHS:
        return True
    t = hf.text_config
    nemotron = t if archs and archs[0].startswith("NemotronH_") else hf
    return str(nemotron.get("model_type") or "") in ("nemotron_h", "nemotron_h_puzzle") and (
        (nemotron.get("num_nextn_predict_layers") or 0) > 0
    )


#: targets whose MTP draft vLLM builds with one module whatever the config says
#: (``model_executor/models/mimo_v2_mtp.py : _MIMO_V2_FLASH_NUM_MTP_LAYERS``)
_ONE_MTP_MODULE_ARCHS = frozenset({"MiMoV2FlashForCausalLM"})


def mtp_n_predict(hf: Any) -> int | None:
    """The MTP draft config's ``n_predict`` (``SpeculativeConfig.hf_config_override``): the target's
    ``num_nextn_predict_layers`` (1 for MiMo-V2-Flash); None when the config names none."""
    archs = tuple(hf.get("architectures") or ())
    if archs and archs[0] in _ONE_MTP_MODULE_ARCHS:
        return 1
    value = hf.text_config.get("num_nextn_predict_layers")
    return value if isinstance(value, int) and value > 0 else None


def parse_speculative_config(text: Any) -> dict[str, Any]:
    """``--speculative-config`` JSON (or a mapping) → a dict; bad JSON is an input error."""
    if text is None:
        return {}
    if isinstance(text, str):
        import json  # lazily: `import resolvable.vllm` stays light

        try:
            value = json.loads(text)
        except ValueError as exc:
            raise InvalidArgumentError(f"--speculative-config is not valid JSON: {exc}") from None
    else:
        value = text
    if not isinstance(value, dict):
        raise InvalidArgumentError(
            '--speculative-config must be a JSON object, e.g. \'{"method": "ngram", "num_speculative_tokens": 3}\''
        )
    return dict(value)


def infer_method(method: str | None, model: str | None) -> str:
    """``SpeculativeConfig.__post_init__``: no method → ``ngram`` for the model ``ngram``, a draft
    detected from its name (EAGLE/EAGLE3/DFlash/DSpark heads), else ``draft_model``; MTP model
    types → ``mtp``."""
    if method is None:
        name = str(model or "").lower()
        if name in ("ngram", "[ngram]"):
            return "ngram"
        for marker, found in (
            ("eagle3", "eagle3"),
            ("eagle", "eagle"),
            ("dflash", "dflash"),
            ("dspark", "dspark"),
        ):
            if marker in name:
                return found
        return "draft_model"
    if method == "[ngram]":
        return "ngram"
    if method in MTP_MODEL_TYPES:
        return "mtp"
    return method


#: 0.21 ``SpeculativeConfig._verify_args``: the target model types (substrings of the text config's
#: ``model_type``) that EAGLE3, DFlash and hidden-state extraction accept; 0.22 dropped the check
#: (``CHANGES.EAGLE3_ANY_TARGET``).
AUX_HIDDEN_STATES_MODEL_TYPES = (
    *("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense", "afmoe", "nemotron_h"),
    *("deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25", "minimax_m2", "gemma4", "laguna"),
)


@registry.rule("engine_args")
def speculative_decoding(ctx: Any) -> dict[str, Any]:
    """§3.16: the method, ``num_speculative_tokens`` and the refusals of ``SpeculativeConfig``:
    ``num_speculative_tokens`` without a model for a draft method, a ``tensor_parallel_size`` key,
    none or a non-positive ``num_speculative_tokens``, ``prompt_lookup_min > prompt_lookup_max``;
    0.30-0.33: ``mtp`` without a draft model on a target that has no MTP draft (``has_mtp_draft``)."""
    spec = parse_speculative_config(ctx.args.speculative_config)
    if not spec:
        return {}
    model = spec.get("model")
    method = infer_method(spec.get("method"), model)
    num = spec.get("num_speculative_tokens")
    if num is None and ctx.user_set("num_speculative_tokens"):
        num = ctx.args.num_speculative_tokens
    if (
        model is None
        and num is not None
        and method not in _NO_MODEL
        and method not in ("mtp", "dspark", "custom_class")
    ):
        raise ConflictError(
            "num_speculative_tokens was provided but without speculative model.",
            fields=("speculative_config",),
            fix='add "model" to the speculative config (JSON), or use "method": "ngram"',
        )
    if method in ("ngram", "ngram_gpu"):
        low, high = spec.get("prompt_lookup_min"), spec.get("prompt_lookup_max")
        low, high = (low if low is not None else high) or 5, (high if high is not None else low) or 5
        if low > high:
            raise ConflictError(
                f"prompt_lookup_min={low} must be <= prompt_lookup_max={high}",
                fields=("speculative_config",),
                fix="set prompt_lookup_min <= prompt_lookup_max in the speculative config (JSON)",
            )
    draft_config = load_draft_config(model) if method not in _NO_MODEL else None
    n_draft = draft_n_predict(draft_config, method) if draft_config is not None else None
    if n_draft is not None:
        # the draft's own n_predict (draft.py): the default, and the divisor of a larger value
        if num is None:
            num = n_draft
        elif isinstance(num, int) and num > n_draft and num % n_draft != 0:
            raise ConflictError(
                f"num_speculative_tokens:{num} must be divisible by n_predict={n_draft}",
                fields=("speculative_config",),
                fix=f'set "num_speculative_tokens" to at most {n_draft} or a multiple of it in the speculative config (JSON)',
                upstream="ValueError",
            )
    if "tensor_parallel_size" in spec:
        raise ConflictError(
            "'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
            "'draft_tensor_parallel_size' instead.",
            fields=("speculative_config",),
            fix="rename tensor_parallel_size to draft_tensor_parallel_size in the speculative config (JSON)",
        )
    if num is None and draft_config is not None:
        # the draft was read and names no n_predict: the draft-model path refuses first
        # (0.28-0.33 SpeculativeConfig.__post_init__; 0.34 DraftModelSpeculatorConfig.configure)
        raise ConflictError(
            "A speculative model was provided, but `num_speculative_tokens` was not provided",
            fields=("speculative_config",),
            fix='add "num_speculative_tokens" to the speculative config (JSON)',
            upstream="ValueError",
        )
    if num is None:
        raise ConflictError(
            "num_speculative_tokens must be provided with speculative model unless the draft model "
            "config contains an n_predict parameter.",
            fields=("speculative_config",),
            fix='add "num_speculative_tokens" to the speculative config (JSON)',
        )
    if not isinstance(num, int) or num <= 0:
        raise ConflictError(
            f"Expected num_speculative_tokens to be greater than zero ({num}).",
            fields=("speculative_config",),
            fix='set "num_speculative_tokens" to 1 or more in the speculative config (JSON)',
        )
    if model is not None and method not in _NO_MODEL:
        draft_tp = spec.get("draft_tensor_parallel_size")
        if not draft_tp_ok(draft_tp, ctx.args.tensor_parallel_size):
            raise ConflictError(
                f"speculative_draft_tensor_parallel_size={draft_tp} cannot be other value than 1 "
                "or target model tensor_parallel_size",
                fields=("speculative_config", "tensor_parallel_size"),
                fix='set "draft_tensor_parallel_size" to 1 or the target\'s tensor_parallel_size in the speculative config (JSON)',
                upstream="ValueError",
            )
    if model is None and method not in _NO_MODEL:
        # the draft ModelConfig is the target's, built with runner "draft" (config/model.py :
        # ModelConfig.__post_init__ refuses a pooling-only class; 0.21, before
        # CHANGES.EMBEDDING_RUNNER_GENERATE_REFUSED, does not: the method checks below answer)
        generate, pooling, _, _ = registry_facts(ctx.hf, ctx.release)
        if pooling and not generate and ctx.release.has(CHANGES.EMBEDDING_RUNNER_GENERATE_REFUSED):
            raise ConflictError(
                "Embedding models do not support `--runner draft`. "
                "Use `--runner pooling` or `--runner auto` for embedding models.",
                fields=("speculative_config",),
                fix=Fix(drop=("speculative_config",)),
            )
    if (
        method == "mtp"
        and model is None
        and not ctx.release.has(CHANGES.MTP_ANY_TARGET)
        and not has_mtp_draft(ctx.hf)
    ):
        # config-3117-00042 (qwen3-8b, method mtp): the draft config keeps model type qwen3, not an
        # MTPModelTypes one, so SpeculativeConfig.__post_init__ raises NotImplementedError
        raise ConflictError(
            "Unsupported speculative method: 'mtp'",
            fields=("speculative_config",),
            fix="use a model with MTP layers, or another method (ngram, or a draft/EAGLE model)",
            upstream="NotImplementedError",
        )
    n_predict = mtp_n_predict(ctx.hf) if method == "mtp" and model is None else None
    if n_predict is not None and num > n_predict and num % n_predict != 0:
        # SpeculativeConfig.__post_init__ (0.30-0.33) / SpeculatorConfig.resolve_num_speculative_tokens
        # (0.34, v1/worker/gpu/spec_decode/speculator_config.py): MTP modules are reused in turn
        raise ConflictError(
            f"num_speculative_tokens:{num} must be divisible by n_predict={n_predict}",
            fields=("speculative_config",),
            fix=f'set "num_speculative_tokens" to at most {n_predict} or a multiple of it in the speculative config (JSON)',
            upstream="ValueError",
        )
    # _verify_args → draft_model_config.verify_with_parallel_config(draft_parallel_config): 0.30's
    # draft parallel config keeps the target's EP (dev operators-8002-00044, 0.30 oracle)
    if (
        draft_config is not None
        and ctx.args.enable_expert_parallel
        and ctx.release.has(CHANGES.DRAFT_INHERITS_EXPERT_PARALLEL)
        and not is_moe(HFConfig(draft_config, source=f"{model}/config.json"))
    ):
        raise ConflictError(
            "Number of experts in the model must be greater than 0 when expert parallelism is enabled.",
            fields=("enable_expert_parallel", "speculative_config"),
            fix=Fix(drop=("enable_expert_parallel",)),
            upstream="ValueError",
        )
    if method == "draft_model" and draft_config is not None and not spec.get("use_heterogeneous_vocab"):
        _verify_equal_vocab_size(ctx.hf, draft_config)
    out: dict[str, Any] = {"speculative_method": method}
    if num != ctx.args.num_speculative_tokens:
        out["num_speculative_tokens"] = num
    return out


def _verify_equal_vocab_size(hf: Any, draft_config: dict[str, Any]) -> None:
    """``SpeculativeConfig.verify_equal_vocab_size_if_draft_model`` (the last check of
    ``_verify_args``, every release): a plain draft model must have the target's vocabulary size
    (text config ``vocab_size``). 0.28-0.33 skip it under ``use_heterogeneous_vocab`` (0.34 has no
    such option; its stand-alone draft has ``draft_has_own_vocab``). A config naming no
    ``vocab_size`` gets its transformers class default, which is not known here: not refused."""
    text = (
        draft_config.get("text_config") if isinstance(draft_config.get("text_config"), dict) else draft_config
    )
    target, draft = hf.text_config.get("vocab_size"), text.get("vocab_size")
    if isinstance(target, int) and isinstance(draft, int) and target != draft:
        raise ConflictError(
            "Target and draft model should have the same vocabulary size. "
            f"Target model vocab_size={target}. Draft model vocab_size={draft}. "
            "Using models with different tokenizers can cause out-of-bounds errors during "
            "speculative decoding.",
            fields=("speculative_config",),
            fix="use a draft model with the target's tokenizer (same vocab_size)",
            upstream="ValueError",
        )


#: methods whose draft config is the target's own (``SpeculativeConfig.__post_init__`` 0.30-0.33;
#: 0.34 ``NgramSpeculatorConfig.configure`` and ``SpeculatorConfig.configure`` of custom classes)
DRAFT_IS_TARGET = frozenset({"ngram", "ngram_gpu", "custom_class"})


@registry.rule("engine_args")
def draft_is_the_target(ctx: Any) -> dict[str, Any]:
    """``SpeculativeConfig._verify_args``: ``draft_model_config.verify_with_parallel_config`` runs while
    ``create_engine_config`` builds the speculative config, before the scheduler's checks; for
    ngram the draft is the target with the target's parallel config, so the target's
    TP/EP/DCP/PP checks refuse there first (operators-6002-00548: PP on bge-m3 wins over the
    batch-size check)."""
    if ctx.args.speculative_method not in DRAFT_IS_TARGET:
        return {}
    from .parallel import check_with_parallel_config

    return check_with_parallel_config(ctx)


#: The MTP draft class ``SpeculativeConfig.hf_config_override`` builds for a target model type
#: (the common families; a target not listed here is not checked).
_MTP_DRAFT_ARCH_BY_TYPE = {
    "deepseek_v3": "DeepSeekMTPModel",
    "deepseek_mtp": "DeepSeekMTPModel",
    "deepseek_v32": "DeepseekV32MTPModel",
    "glm_moe_dsa": "DeepseekV32MTPModel",
    "qwen3_5": "Qwen3_5MTP",
    "qwen3_5_text": "Qwen3_5MTP",
    "qwen3_5_moe": "Qwen3_5MoeMTP",
    "qwen3_5_moe_text": "Qwen3_5MoeMTP",
    "qwen3_next": "Qwen3NextMTP",
    "ernie4_5_moe": "ErnieMTPModel",
    "step3p5": "Step3p5MTP",
    "longcat_flash": "LongCatFlashMTPModel",
}
#: ... and by target architecture.
_MTP_DRAFT_ARCH_BY_ARCH = {
    "Glm4MoeForCausalLM": "Glm4MoeMTPModel",
    "MiMoForCausalLM": "MiMoMTPModel",
    "MiMoV2FlashForCausalLM": "MiMoV2MTPModel",
}
#: MTP draft classes that implement ``SupportsPP`` only from 0.30 (``MTP_DRAFTS_SUPPORT_PP``;
#: the 0.29 registry, ``tools/extract_vllm_model_info.py``).
_MTP_DRAFTS_GAINING_PP = frozenset({"DeepSeekMTPModel", "DeepseekV32MTPModel", "Qwen3_5MTP", "Qwen3_5MoeMTP"})


def _draft_dir_arch(model: Any, method: str) -> str | None:
    """The draft directory's architecture as ``EAGLEConfig`` rewrites it (``transformers_utils/
    configs/eagle.py``, 0.28/0.29: ``eagle`` → ``Eagle{arch}``, ``eagle3`` → ``Eagle3{arch}`` unless
    already marked); a plain draft model keeps its own. None when the directory is not read."""
    config = load_draft_config(model)
    archs = (config or {}).get("architectures") or ()
    if not archs or not isinstance(archs[0], str):
        return None
    arch = archs[0]
    if method == "eagle" and not arch.startswith("Eagle"):
        return f"Eagle{arch}"
    if method == "eagle3" and not (arch.startswith("Eagle3") or arch.endswith("Eagle3")):
        return f"Eagle3{arch}"
    if method == "dflash" and not (arch.startswith("DFlash") or arch.endswith("DFlash")):
        return f"DFlash{arch}"
    return arch


def mtp_draft_arch(hf: Any) -> str | None:
    """The draft architecture of ``--speculative-config '{"method": "mtp"}'`` without a model."""
    archs = tuple(hf.get("architectures") or ())
    if archs and archs[0] in _MTP_DRAFT_ARCH_BY_ARCH:
        return _MTP_DRAFT_ARCH_BY_ARCH[archs[0]]
    return _MTP_DRAFT_ARCH_BY_TYPE.get(str(hf.get("model_type") or ""))


@registry.rule("engine_args")
def mtp_draft_supports_pp(ctx: Any) -> dict[str, Any]:
    """``SpeculativeConfig.__post_init__`` → ``draft_model_config.verify_with_parallel_config``: the
    draft (an MTP draft, or a draft directory's class after EAGLE's architecture rewrite) runs with
    the target's pipeline-parallel size, so a draft class without ``SupportsPP`` refuses PP > 1
    (dev operators-8002-00078/00092 on 0.28: the EAGLE3 head ``Eagle3LlamaForCausalLM``) (operators-5528-00106: DeepSeek-V3.2 with MTP and PP 2 on 0.29, whose
    ``DeepseekV32MTPModel`` had no ``SupportsPP``). 0.28/0.29 only: from 0.30
    ``create_draft_parallel_config`` gives the draft ``pipeline_parallel_size=1``
    (``DRAFT_PIPELINE_PARALLEL_ONE``; held-out 1796443318 showed the pack refusing on 0.30-0.34)."""
    a = ctx.args
    if a.speculative_method in (None, *_NO_MODEL) or a.pipeline_parallel_size <= 1:
        return {}
    if ctx.release.has(CHANGES.DRAFT_PIPELINE_PARALLEL_ONE):
        return {}
    model = parse_speculative_config(a.speculative_config).get("model")
    if model is not None:
        draft = _draft_dir_arch(model, a.speculative_method)
    elif a.speculative_method == "mtp":
        draft = mtp_draft_arch(ctx.hf)
    else:
        return {}
    info = model_info.registered(draft) if draft else None
    if info is None:
        return {}
    pp = info.pp and (draft not in _MTP_DRAFTS_GAINING_PP or ctx.release.has(CHANGES.MTP_DRAFTS_SUPPORT_PP))
    if pp:
        return {}
    raise ConflictError(
        "Pipeline parallelism is not supported for this model. "
        "Supported models implement the `SupportsPP` interface.",
        fields=("pipeline_parallel_size", "speculative_config"),
        fix=Fix(set={"pipeline_parallel_size": 1}),
        upstream="NotImplementedError",
    )


@registry.rule("engine_args")
def aux_hidden_states_target(ctx: Any) -> dict[str, Any]:
    """0.21 ``SpeculativeConfig._verify_args``, after the draft's ``verify_with_parallel_config``
    (``mtp_draft_supports_pp``; dev operators-8002, 0.21 oracle: GLM-5 with EAGLE3 and PP 2 is
    refused for PP first): EAGLE3, DFlash and hidden-state extraction need a target whose text
    model type contains one of ``AUX_HIDDEN_STATES_MODEL_TYPES``; 0.22 dropped the check
    (``CHANGES.EAGLE3_ANY_TARGET``)."""
    method = ctx.args.speculative_method
    if method not in ("eagle3", "extract_hidden_states", "dflash") or ctx.release.has(
        CHANGES.EAGLE3_ANY_TARGET
    ):
        return {}
    target_type = str(ctx.hf.text_config.get("model_type") or ctx.hf.get("model_type") or "")
    if any(name in target_type for name in AUX_HIDDEN_STATES_MODEL_TYPES):
        return {}
    raise ConflictError(
        f"{method} is only supported for {list(AUX_HIDDEN_STATES_MODEL_TYPES)} models. "
        f"Got self.target_model_config.hf_text_config.model_type='{target_type}'",
        fields=("speculative_config",),
        fix="use another speculative method (ngram, or a draft model) for this model",
        upstream="ValueError",
    )
