"""sglang 0.5.8 → 0.5.9: one golden case per modelled change (docs/releases/0.5.9.md).

Each case resolves the same input with 0.5.8 (the oldest resolved release on this branch) and
with 0.5.9 and asserts both answers. The 0.5.8 answers follow the 0.5.8 wheel's
``server_args.py`` / ``configs/model_config.py`` / ``utils/hf_transformers_utils.py`` and were
measured against the real sglang 0.5.8 ``ServerArgs`` (tools/agreement/compare_step.py, oracle
venv-0.5.8). 0.5.8.post1 changes no ServerArgs decision (docs/releases/0.5.8.post1.md), so it
resolves as 0.5.8.
"""

from __future__ import annotations

import pytest
from release_helpers import SIX, refusal_at, resolve_at

from resolvable import Platform
from resolvable.errors import InvalidArgumentError
from resolvable.sglang import resolve_server_args
from resolvable.sglang._base import registry
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.8", "0.5.9"


def test_the_changes_of_0_5_9_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "DSA_FP8_SCALED_CELL",  # memory (h34m)
        "SYMM_MEM_PREALLOC_POOL",  # memory (h34m)
        "QUANT_MXFP8",
        "CHOICES_MXFP8_MORI_FLASHINFER_A2A",
        "MAMBA_RADIX_HANDLER",
        "DSA_DEFAULT_KERNELS",
        "GPT_OSS_SPEC_KEEPS_HYBRID_SWA",
        "GPT_OSS_MOE_RUNNER_AITER_ARMS",
        "DLLM_LORA_PD_MIXED_OFF",
        "STEP3P5_BRANCH",
    }


def test_0_5_8_post1_resolves_as_0_5_8():
    assert registry.release("0.5.8.post1") == OLD
    assert load_table("0.5.8.post1").by_option.keys() == load_table(OLD).by_option.keys()
    post = resolve_at("llama-3.1-8b", "h200", "0.5.8.post1")
    assert {k: post[k] for k in SIX} == {k: resolve_at("llama-3.1-8b", "h200", OLD)[k] for k in SIX}


def test_mxfp8_and_the_new_a2a_backends_are_choices_from_0_5_9():
    for flags in ({"quantization": "mxfp8"}, {"moe_a2a_backend": "mori"}, {"moe_a2a_backend": "flashinfer"}):
        with pytest.raises(InvalidArgumentError, match="invalid choice"):
            resolve_at("llama-3.1-8b", "h200", OLD, **flags)
    assert resolve_at("llama-3.1-8b", "h200", NEW, quantization="mxfp8")["quantization"] == "mxfp8"


def test_mxfp8_joins_the_quantization_registry_in_0_5_9():
    """The registry list in the "Unknown quantization method" refusal (mxfp4 on the CPU engine)."""
    old = refusal_at("llama-3.1-8b", "cpu", OLD, quantization="mxfp4")
    new = refusal_at("llama-3.1-8b", "cpu", NEW, quantization="mxfp4")
    assert "Must be one of ['fp8', 'blockwise_int8'," in old and "'mxfp8'" not in old
    assert "Must be one of ['fp8', 'mxfp8', 'blockwise_int8'," in new


def test_mxfp4_on_the_cpu_engine_from_0_5_14():
    """QUANT_MXFP4_ON_CPU (0.5.14): the CPU engine registers mxfp4 (0.5.13 refuses it there)."""
    assert "registers mxfp4 only on CUDA and gfx95 ROCm" in refusal_at(
        "llama-3.1-8b", "cpu", "0.5.13", quantization="mxfp4"
    )
    assert resolve_at("llama-3.1-8b", "cpu", "0.5.14", quantization="mxfp4")["quantization"] == "mxfp4"


def test_mamba_radix_handler_is_new_in_0_5_9():
    """0.5.8: Qwen3-Next kept the overlap schedule (the no_buffer block sat in the GLM-4 MoE
    branch, which turned it off instead); 0.5.9's handler turns it off for Qwen3-Next only."""
    assert resolve_at("qwen3-next-80b-a3b", "h200", OLD)["disable_overlap_schedule"] is False
    assert resolve_at("qwen3-next-80b-a3b", "h200", NEW)["disable_overlap_schedule"] is True
    assert resolve_at("glm-4.5", "h200", OLD)["disable_overlap_schedule"] is True
    assert resolve_at("glm-4.5", "h200", NEW)["disable_overlap_schedule"] is False
    # 0.5.8 Falcon-H1 under speculation: overlap off, radix cache kept
    old = resolve_at("falcon-h1-7b", "h200", OLD, speculative_algorithm="EAGLE")
    assert (old["disable_overlap_schedule"], old["disable_radix_cache"]) == (True, False)


def test_granite_hybrid_branch_is_new_in_0_5_9():
    """0.5.8 has no Granite-4.0-H branch: SM100's generic default, no mamba radix handling."""
    old = resolve_at("granite-4.0-h-small", "b300", OLD)
    assert (old["attention_backend"], old["disable_overlap_schedule"]) == ("trtllm_mha", False)
    new = resolve_at("granite-4.0-h-small", "b300", NEW)
    assert (new["attention_backend"], new["disable_overlap_schedule"]) == ("triton", True)


def test_glm5_joins_the_deepseek_branch_in_0_5_9():
    """GlmMoeDsaForCausalLM: not DeepSeek, DSA or MLA before 0.5.9 (flashinfer on an RTX 4090)."""
    old = resolve_at("glm-5", "rtx4090", OLD)
    assert (old["attention_backend"], old["page_size"]) == ("flashinfer", 1)
    # 0.5.9's MLA branch reads rope_scaling, which the bundled config lacks (transformers 4.57.1
    # loads glm_moe_dsa as a generic config: passes/model_config.mla_shape_rope_scaling)
    assert "rope_scaling" in refusal_at("glm-5", "h200", NEW)
    with_rope = {**load_model("glm-5").to_dict(), "rope_scaling": None}
    assert resolve_at(with_rope, "h200", NEW)["attention_backend"] == "nsa"


def test_exaone_branch_is_new_in_0_5_9():
    assert resolve_at("exaone-4.0-32b", "cpu", OLD)["attention_backend"] == "torch_native"
    assert "is required for Exaone4ForCausalLM" in refusal_at("exaone-4.0-32b", "cpu", NEW)


@pytest.mark.parametrize("model", ["kimi-k2.5", "qwen3.5-397b-a17b"])
def test_text_config_of_model_types_0_5_9_registered(model):
    """0.5.8 has no config class for kimi_k25 / qwen3_5_moe and transformers 4.57.1 none either:
    the text config stays a dict and get_hf_text_config's assertion fails."""
    assert 'hasattr(config.text_config, "num_attention_heads")' in refusal_at(model, "h200", OLD)
    assert resolve_at(model, "h200", NEW)["attention_backend"] is not None


def test_remote_config_class_loads_kimi_k25_on_0_5_8():
    """With --trust-remote-code the checkpoint's own config class (auto_map) loads instead."""
    config = load_model("kimi-k2.5").to_dict()
    assert config.get("auto_map")
    res = resolve_server_args(config, Platform.preset("h200"), sglang_version=OLD, trust_remote_code=True)
    assert res["attention_backend"] is not None


def test_dsa_kernels_are_defaults_from_0_5_9():
    """0.5.8: an FP8 DSA KV cache forces flashmla_auto/flashmla_kv over a named decode kernel;
    0.5.9 keeps the named one (a DeepseekV3ForCausalLM checkpoint with index_topk, on Hopper)."""
    config = load_model("deepseek-v3.2").to_dict()
    config["architectures"] = ["DeepseekV3ForCausalLM"]
    flags = {"kv_cache_dtype": "fp8_e4m3", "dsa_decode_backend": "flashmla_sparse"}
    old = resolve_at(config, "h200", OLD, **flags)
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("flashmla_auto", "flashmla_kv")
    new = resolve_at(config, "h200", NEW, **flags)
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("flashmla_auto", "flashmla_sparse")
    # bf16 on SM100 (B200 picks an FP8 cache by default, so name bf16): flashmla_sparse on both sides
    old = resolve_at(config, "b200", OLD, kv_cache_dtype="bfloat16")
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("flashmla_sparse", "flashmla_sparse")
    new = resolve_at(config, "b200", NEW, kv_cache_dtype="bfloat16")
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("flashmla_sparse", "trtllm")


def test_gpt_oss_speculation_keeps_the_swa_pool_from_0_5_9():
    flags = {"speculative_algorithm": "EAGLE3", "speculative_draft_model_path": "draft"}
    assert resolve_at("gpt-oss-20b", "h200", OLD, **flags)["disable_hybrid_swa_memory"] is True
    assert resolve_at("gpt-oss-20b", "h200", NEW, **flags)["disable_hybrid_swa_memory"] is False


def test_gpt_oss_moe_runner_aiter_arms_are_new_in_0_5_9():
    """ROCm with SGLANG_USE_AITER (a bf16 checkpoint stands in: mxfp4 cleared): triton from 0.5.9;
    before, the generic triton_kernel arm (triton_kernels assumed installed on the preset)."""
    config = load_model("gpt-oss-20b").to_dict()
    config.pop("quantization_config", None)
    mi = Platform.preset("mi300x")
    runner = {
        rel: resolve_server_args(config, mi, sglang_version=rel, env={"SGLANG_USE_AITER": "1"})[
            "moe_runner_backend"
        ]
        for rel in (OLD, NEW)
    }
    assert runner[NEW] == "triton" and runner[OLD] != "triton"


def test_dllm_turns_mixed_chunks_off_from_0_5_9():
    flags = {"dllm_algorithm": "LowConfidence", "enable_mixed_chunk": True, "disable_radix_cache": True}
    assert resolve_at("sdar-8b", "h200", OLD, **flags)["enable_mixed_chunk"] is True
    assert resolve_at("sdar-8b", "h200", NEW, **flags)["enable_mixed_chunk"] is False


def test_step3p5_branch_is_new_in_0_5_9():
    flags = {"enable_hierarchical_cache": True}
    assert resolve_at("step-3.5-flash", "h200", OLD, **flags)["disable_hybrid_swa_memory"] is False
    assert resolve_at("step-3.5-flash", "h200", NEW, **flags)["disable_hybrid_swa_memory"] is True
