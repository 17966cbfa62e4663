"""sglang 0.5.5.post3 → 0.5.6: one golden case per modelled change (docs/releases/0.5.6.md).

Each case resolves the same input with 0.5.5.post3 (the oldest resolved release on this branch)
and with 0.5.6 and asserts both answers. The 0.5.5.post3 answers follow that wheel's
``server_args.py`` (``_handle_model_specific_adjustments``, ``_handle_speculative_decoding``,
``_handle_moe_kernel_config``).
"""

from __future__ import annotations

import re

import pytest
from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.5.post3", "0.5.6"


def test_the_changes_of_0_5_6_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "LLAMA4_PLATFORM_DEFAULT",
        "QWEN3_NEXT_SM100_TRITON",
        "DSA_IN_DEEPSEEK_BRANCH",
        "DSA_DP_SIZE_KEPT",
        "EAGLE_PAGE_TREE_FA3",
        "FLASHINFER_CUTLASS_MOE_FP8_BF16",
        "CHOICES_ASCEND_FUSEEP",
        "QWEN3_MOE_SM100_ARM",
        "NEMOTRON_H_MODELOPT_ARM",
    }


def test_dllm_flags_are_new_in_0_5_6():
    assert "--dllm-algorithm" not in load_table(OLD).by_option
    assert "--dllm-algorithm" in load_table(NEW).by_option


def test_llama4_gets_a_platform_default_from_0_5_6():
    """0.5.5.post3 asserted the supported list before filling, so an unset backend was refused."""
    assert "but got None" in refusal_at("llama-4-scout", "h100", OLD)
    assert resolve_at("llama-4-scout", "h100", NEW)["attention_backend"] == "fa3"
    assert (
        resolve_at("llama-4-scout", "h100", OLD, attention_backend="triton")["attention_backend"] == "triton"
    )


def test_qwen3_next_on_sm100_runs_triton_from_0_5_6():
    assert resolve_at("qwen3-next-80b-a3b", "b200", OLD)["attention_backend"] == "flashinfer"
    assert resolve_at("qwen3-next-80b-a3b", "b200", NEW)["attention_backend"] == "triton"


def test_deepseek_v32_sparse_attention_arm_before_0_5_6():
    """0.5.5.post3 ran the NSA arm for every is_deepseek_nsa architecture; 0.5.6 only inside the
    DeepseekV3ForCausalLM branch (DeepSeek-V3.2's own architecture joined it in 0.5.12)."""
    old = resolve_at("deepseek-v3.2", "h200", OLD, tp_size=8)
    assert (old["attention_backend"], old["page_size"], old["kv_cache_dtype"]) == ("nsa", 64, "bfloat16")
    new = resolve_at("deepseek-v3.2", "h200", NEW, tp_size=8)
    assert (new["attention_backend"], new["page_size"]) == ("fa3", 1)


EAGLE_TREE = {
    "speculative_algorithm": "EAGLE",
    "speculative_draft_model_path": "draft",
    "speculative_eagle_topk": 4,
    "speculative_num_steps": 3,
    "speculative_num_draft_tokens": 8,
    "page_size": 16,
    "attention_backend": "fa3",
}


def test_eagle_tree_with_pages_accepts_fa3_from_0_5_6():
    text = refusal_at("llama-3.1-8b", "h100", OLD, **EAGLE_TREE)
    assert "only supported for the 'flashinfer' backend" in text
    assert resolve_at("llama-3.1-8b", "h100", NEW, **EAGLE_TREE)["attention_backend"] == "fa3"


def test_flashinfer_cutlass_moe_takes_unquantized_models_from_0_5_6():
    flags = {"moe_runner_backend": "flashinfer_cutlass"}
    with pytest.raises(
        Exception, match=re.escape("modelopt_fp4 quantization is required for Flashinfer Cutlass MOE")
    ):
        resolve_at("qwen3-30b-a3b", "b200", OLD, **flags)
    assert resolve_at("qwen3-30b-a3b", "b200", NEW, **flags)["moe_runner_backend"] == "flashinfer_cutlass"


def test_ascend_fuseep_is_an_a2a_choice_from_0_5_6():
    from resolvable.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="invalid choice: 'ascend_fuseep'"):
        resolve_at("qwen3-30b-a3b", "npu", OLD, moe_a2a_backend="ascend_fuseep")
    assert "ascend_fuseep" in load_table(NEW).by_option["--moe-a2a-backend"].choices


def test_qwen3_moe_sm100_arm_is_new_in_0_5_6():
    assert resolve_at("qwen3-30b-a3b", "b200", OLD, quantization="fp8")["moe_runner_backend"] == "auto"
    assert (
        resolve_at("qwen3-30b-a3b", "b200", NEW, quantization="fp8")["moe_runner_backend"]
        == "flashinfer_trtllm"
    )


def test_nemotron_h_modelopt_arm_is_new_in_0_5_6():
    from resolvable.sglang.models import load_model

    config = load_model("nemotron-h-8b").to_dict()
    config.update(
        quantization_config={"quant_method": "modelopt", "quant_algo": "FP8"}, mlp_hidden_act="relu2"
    )
    old = resolve_at(config, "h100", OLD)
    assert (old["quantization"], old["moe_runner_backend"]) == (None, "auto")
    new = resolve_at(config, "h100", NEW)
    assert (new["quantization"], new["moe_runner_backend"]) == ("modelopt_fp8", "flashinfer_cutlass")


def test_dsa_keeps_the_dp_size_from_0_5_6():
    """0.5.5.post3's NSA arm set ``dp_size = tp_size`` beside DP attention (``--dp 8`` with the
    default ``--tp 1`` became dp 1, and DP attention went off again); 0.5.6 keeps ``--dp-size``."""
    old = resolve_at("deepseek-v3.2", "mi325x", OLD, dp_size=8, enable_mixed_chunk=True)
    assert (old["dp_size"], old["enable_dp_attention"]) == (1, False)
    config = load_model("deepseek-v3.2").to_dict()
    config["architectures"] = ["DeepseekV3ForCausalLM"]  # with index_topk: the NSA arm in both
    old, new = (resolve_at(config, "h200", v, tp_size=8, dp_size=2) for v in (OLD, NEW))
    assert (old["dp_size"], old["enable_dp_attention"]) == (8, True)
    assert (new["dp_size"], new["enable_dp_attention"]) == (2, True)
