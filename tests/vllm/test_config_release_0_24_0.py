"""vLLM 0.24.0's engine configuration (issue 32): the configuration changes 0.25.0 brought
(``vllm/config/changes.py``, block "0.24.0 -> 0.25.0"), one test per change, 0.24.0 against
0.25.0. Facts from the two wheels' diff (``config/vllm.py``, ``platforms/cpu.py``; ``docs/releases/vllm-0.25.0-config.md``)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.vllm.changes import CHANGES

NEW_IN_0_25 = {
    "V2_DEFAULT_DENSE_MODELS",
    "V2_RUNNER_MAMBA_ALIGN",
    "CPU_AMX_LINEAR_ATTENTION_CACHING",
    "MODEL_HOOKS_NORMALIZED_ARCH",
    "UNLIMITED_OCR_HOOK",
}


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.24.0", "0.25.0")]


def test_the_0_25_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.25.0")} >= NEW_IN_0_25


@pytest.mark.parametrize(
    ("model", "v2_on_0_24"),
    [
        ("llama-3.1-8b", True),  # LlamaForCausalLM is listed in 0.24
        ("qwen3-8b", True),  # Qwen3ForCausalLM is listed in 0.24
        ("gemma-2-9b", False),  # dense, not listed: V1 in 0.24, V2 in 0.25
        ("qwen2.5-7b-instruct-1m", False),
        ("olmo-2-7b", False),
    ],
)
def test_dense_models_default_to_v2_from_0_25(model, v2_on_0_24):
    """``_is_default_v2_model_runner_model``: 0.24 answers by DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES
    alone (Qwen3, Llama, Mistral, DeepSeek-V2, Qwen2-MoE, Granite-MoE); 0.25 also by "not MoE"."""
    old, new = both(model, "h100")
    assert (old["use_v2_model_runner"], new["use_v2_model_runner"]) == (v2_on_0_24, True)


def test_moe_models_stay_on_v1_in_both():
    """An unlisted MoE class is V1 in 0.24 and 0.25."""
    assert [r["use_v2_model_runner"] for r in both("qwen3-30b-a3b", "h100")] == [False, False]


def test_v2_forced_with_mamba_align_is_refused_on_0_24():
    """``_get_v2_model_runner_unsupported_features`` (0.24) lists "hybrid/mamba models with align
    cache mode"; ``_validate_v2_model_runner`` refuses it when VLLM_USE_V2_MODEL_RUNNER=1 forces V2.
    0.25 runs it on V2."""
    env = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    flags = dict(enable_prefix_caching=True)
    with pytest.raises(ConflictError, match="Model Runner V2 does not yet support: hybrid/mamba models"):
        res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.24.0", **flags)
    new = res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.25.0", **flags)
    assert (new["mamba_cache_mode"], new["use_v2_model_runner"]) == ("align", True)


def test_v2_forced_with_align_on_a_hybrid_class_without_inner_state():
    """``has_inner_state`` is the registered class's ``HasInnerState``: Qwen3.5's multimodal class is
    ``IsHybrid`` without it, so 0.24 runs it on V2 in align mode (operators-5528-00165, 0.24 oracle:
    Qwen3.5-397B as a pooling model with LoRA on A100)."""
    env = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    r = res("qwen3.5-397b-a17b", "a100", env, vllm_version="0.24.0", runner="pooling")
    assert (r["mamba_cache_mode"], r["use_v2_model_runner"]) == ("align", True)


def test_amx_cpu_turns_caching_off_for_linear_attention_on_0_24():
    """``CpuPlatform.check_and_update_config`` (0.24): on an AMX CPU a model with linear-attention
    layers (Qwen3-Next's GDN layers) runs without chunked prefill (prefix caching is already off by
    default for a generating hybrid model); 0.25 dropped that. A model without them (Llama) keeps
    both in both releases, and so does a CPU without AMX."""
    old, new = both("qwen3-next-80b-a3b", "cpu-amx")
    assert (old["enable_chunked_prefill"], new["enable_chunked_prefill"]) == (False, True)
    assert [r["enable_chunked_prefill"] for r in both("llama-3.1-8b", "cpu-amx")] == [True, True]
    assert [r["enable_prefix_caching"] for r in both("llama-3.1-8b", "cpu-amx")] == [True, True]
    assert res("qwen3-next-80b-a3b", "cpu", vllm_version="0.24.0")["enable_chunked_prefill"] is True


def test_amx_cpu_refuses_a_hybrid_pooling_model_whose_mamba_block_size_was_set_on_0_24():
    """The Mamba hook sets ``mamba_block_size`` for prefix caching (on for a hybrid pooling model
    in 0.24-0.25); the AMX hook then turns prefix caching off, and ``validate_mamba_block_size``
    refuses (operators-8002-00114, 0.24 oracle: Qwen3.5 under --runner pooling on cpu-amx; the same
    for an explicit --enable-prefix-caching). The fix (prefix caching off from the start) is
    accepted; 0.25 accepts the launch."""
    with pytest.raises(ConflictError, match="--mamba-block-size can only be set"):
        res("qwen3-next-80b-a3b", "cpu-amx", vllm_version="0.24.0", enable_prefix_caching=True)
    with pytest.raises(
        ConflictError, match="--mamba-block-size can only be set with --enable-prefix-caching"
    ):
        res("qwen3.5-397b-a17b", "cpu-amx", vllm_version="0.24.0", runner="pooling")
    off = res(
        "qwen3.5-397b-a17b", "cpu-amx", vllm_version="0.24.0", runner="pooling", enable_prefix_caching=False
    )
    assert (off["enable_prefix_caching"], off["mamba_cache_mode"]) == (False, "none")
    assert res("qwen3.5-397b-a17b", "cpu-amx", vllm_version="0.25.0", runner="pooling")[
        "enable_prefix_caching"
    ]


def test_model_hooks_found_under_another_suffix_from_0_25():
    """``VllmConfig.try_verify_and_update_config``: 0.25 looks a hook up under the registered class
    another suffix names (``_normalize_arch``); 0.24 under ``model_config.architecture`` only, so
    GPT-OSS renamed ``…ForSequenceClassification`` keeps the default largest capture size (512)."""
    overrides = '{"architectures": ["GptOssForSequenceClassification"]}'
    old, new = both("gpt-oss-20b", "h100", hf_overrides=overrides)
    assert (old["max_cudagraph_capture_size"], new["max_cudagraph_capture_size"]) == (512, 1024)
    assert [r["max_cudagraph_capture_size"] for r in both("gpt-oss-20b", "h100")] == [1024, 1024]


def test_unlimited_ocr_hook_from_0_25():
    """``UnlimitedOCRForCausalLMConfig`` (new in 0.25) turns prefix caching off; 0.24 has no hook."""
    from resolvable.rules import HFConfig
    from resolvable.vllm import load_model

    cfg = load_model("deepseek-v2-lite").to_dict()
    cfg["architectures"] = ["UnlimitedOCRForCausalLM"]
    hf = HFConfig(cfg, source="deepseek-v2-lite as UnlimitedOCRForCausalLM")
    old, new = both(hf, "h100")
    assert (old["enable_prefix_caching"], new["enable_prefix_caching"]) == (True, False)
