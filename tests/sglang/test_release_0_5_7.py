"""sglang 0.5.6.post2 → 0.5.7: one golden case per modelled change (docs/releases/0.5.7.md).

Each case resolves the same input with 0.5.6.post2 (a ``.postN`` resolved as a release of its
own) and with 0.5.7 and asserts both answers. The 0.5.6.post2 answers follow that wheel's
``server_args.py`` and were measured against the real sglang 0.5.6.post2 ``ServerArgs``
(tools/agreement/compare_step.py, oracle venv-0.5.6.post2). The steps above 0.5.7 (0.5.8-0.5.10)
are modelled on other branches: the 0.5.7 side here asserts only what 0.5.7 brought.
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.rules import release_key
from resolvable.sglang.api import sglang_release
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table

OLD, NEW = "0.5.6.post2", "0.5.7"


def test_the_changes_of_0_5_7_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "PIECEWISE_GRAPH_RESERVE_EIGHTH",  # memory (h34m)
        "TRTLLM_MHA_DEFAULT_SM100_ONLY",
        "TRTLLM_MOE_BF16_COMPRESSED",
        "NEMOTRON_H_SM100_FLASHINFER",
        "TRTLLM_MLA_BF16_KV",
        "DETERMINISTIC_ROCM_KEEPS_CUSTOM_AR",
        "SPEC_MOE_RUNNER_FILLED",
        "SPEC_V2_EAGLE3_TOPK_ONE",
        "SWA_RATIO_RANGE_CHECKED",
    }


def test_the_post_release_is_a_release_of_its_own():
    assert sglang_release("0.5.6.post2") == OLD and sglang_release("v0.5.7") == NEW
    assert release_key("0.5.6") < release_key("0.5.6.post1") < release_key(OLD) < release_key(NEW)
    assert "--mamba-scheduler-strategy" in load_table(NEW).by_option
    assert "--mamba-scheduler-strategy" not in load_table(OLD).by_option


def test_mha_default_trtllm_needs_sm100_since_0_5_7():
    """0.5.6.post2 gives trtllm_mha to any Blackwell (``is_blackwell()``: capability 10 or 12),
    and the trtllm_mha check then refuses it on SM120; 0.5.7 falls back to flashinfer there."""
    assert "TRTLLM MHA backend" in refusal_at("llama-3.1-8b", "rtx5090", OLD)
    assert resolve_at("llama-3.1-8b", "rtx5090", NEW)["attention_backend"] == "flashinfer"
    assert resolve_at("llama-3.1-8b", "b200", OLD)["attention_backend"] == "trtllm_mha"
    assert resolve_at("llama-3.1-8b", "b200", NEW)["attention_backend"] == "trtllm_mha"


def test_trtllm_moe_runner_takes_unquantized_models_since_0_5_7():
    flags = {"moe_runner_backend": "flashinfer_trtllm"}
    assert "modelopt_fp4, modelopt_fp8 or fp8 quantization is required" in refusal_at(
        "qwen3-30b-a3b", "b200", OLD, **flags
    )
    assert resolve_at("qwen3-30b-a3b", "b200", NEW, **flags)["moe_runner_backend"] == "flashinfer_trtllm"


def test_fp4_kv_cache_checks_are_new_in_0_5_7():
    flags = {"kv_cache_dtype": "fp4_e2m1", "attention_backend": "flashinfer"}
    assert resolve_at("llama-3.1-8b", "b200", OLD, **flags)["kv_cache_dtype"] == "fp4_e2m1"
    assert "FP4 KV cache needs an attention backend" in refusal_at("llama-3.1-8b", "b200", NEW, **flags)


def test_nemotron_h_and_falcon_h1_sm100_defaults_are_new_in_0_5_7():
    assert resolve_at("nemotron-h-8b", "b200", OLD)["attention_backend"] == "trtllm_mha"
    assert resolve_at("nemotron-h-8b", "b200", NEW)["attention_backend"] == "flashinfer"
    assert resolve_at("falcon-h1-7b", "b200", OLD)["attention_backend"] == "trtllm_mha"
    assert resolve_at("falcon-h1-7b", "b200", NEW)["attention_backend"] == "triton"
    triton = {"attention_backend": "triton"}
    assert resolve_at("nemotron-h-8b", "h100", OLD, **triton)["attention_backend"] == "triton"
    assert "does not support triton" in refusal_at("nemotron-h-8b", "h100", NEW, **triton)


def test_trtllm_mla_takes_a_bf16_kv_cache_since_0_5_7():
    flags = {"attention_backend": "trtllm_mla", "kv_cache_dtype": "bf16", "tp_size": 8}
    text = refusal_at("deepseek-v3", "b200", OLD, **flags)
    assert "fp8_e4m3, fp4_e2m1, or auto" in text and "bf16 (not" not in text
    assert resolve_at("deepseek-v3", "b200", NEW, **flags)["kv_cache_dtype"] == "bf16"


def test_deterministic_tp_keeps_rocm_custom_all_reduce_since_0_5_7():
    flags = {"enable_deterministic_inference": True, "tp_size": 2, "attention_backend": "triton"}
    assert resolve_at("llama-3.1-8b", "mi300x", OLD, **flags)["disable_custom_all_reduce"] is True
    assert resolve_at("llama-3.1-8b", "mi300x", NEW, **flags)["disable_custom_all_reduce"] is False
    assert resolve_at("llama-3.1-8b", "h100", NEW, **flags)["disable_custom_all_reduce"] is True


def test_draft_moe_runner_is_filled_since_0_5_7():
    eagle = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 3, "speculative_eagle_topk": 1}
    flags = {**eagle, "moe_runner_backend": "triton"}
    assert resolve_at("qwen3-30b-a3b", "h100", OLD, **flags)["speculative_moe_runner_backend"] is None
    assert resolve_at("qwen3-30b-a3b", "h100", NEW, **flags)["speculative_moe_runner_backend"] == "triton"


def test_spec_v2_covers_eagle3_and_checks_topk_since_0_5_7():
    v2 = {"SGLANG_ENABLE_SPEC_V2": "1"}
    wide = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 3, "speculative_eagle_topk": 4}
    assert resolve_at("qwen3-8b", "h200", OLD, env=v2, **wide)["speculative_eagle_topk"] == 4
    assert "only supports topk = 1" in refusal_at("qwen3-8b", "h200", NEW, env=v2, **wide)
    eagle3 = {"speculative_algorithm": "EAGLE3", "speculative_num_steps": 3, "speculative_eagle_topk": 1}
    kept = {**eagle3, "disable_overlap_schedule": True}
    assert resolve_at("qwen3-8b", "h200", OLD, env=v2, **kept)["disable_overlap_schedule"] is True
    assert resolve_at("qwen3-8b", "h200", NEW, env=v2, **kept)["disable_overlap_schedule"] is False


def test_swa_full_tokens_ratio_is_range_checked_since_0_5_7():
    flags = {"swa_full_tokens_ratio": 1.5}
    assert resolve_at("llama-3.1-8b", "h100", OLD, **flags)["swa_full_tokens_ratio"] == 1.5
    assert "should be in range (0, 1.0]" in refusal_at("llama-3.1-8b", "h100", NEW, **flags)


def test_an_image_tag_names_a_listed_post_release():
    from resolvable.cli.paste import tag_release
    from resolvable.sglang import registry

    assert tag_release("v0.5.6.post2-cu126", registry.releases, "SGLang") == ("0.5.6.post2", None)
    assert tag_release("v0.5.7-cu129-amd64", registry.releases, "SGLang") == ("0.5.7", None)
