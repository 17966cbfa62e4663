"""sglang 0.5.12 → 0.5.13: one golden case per modelled change (docs/releases/0.5.13.md).

Each case resolves the same input with 0.5.12 (the oldest resolved release; 0.5.12.post1 maps to
it) and with 0.5.13 and asserts both answers. The 0.5.12 answers were checked against the real
sglang 0.5.12.post1 ``ServerArgs`` (tools/agreement, oracle venv-0.5.12.post1).
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.flags.values import normalise
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.12", "0.5.13"


def test_the_changes_of_0_5_13_are_named():
    names = {c.name for c in CHANGES.introduced(NEW)}
    assert {
        "DSA_NAMING",
        "DSA_TBO_TOPK_SHARING_REFUSED",
        "GPT_OSS_CPU_AMX",
        "GEMMA4_BACKEND_POLICY",
        "GRANITE_HYBRID_SM100_FLASHINFER",
        "MAMBA_EXTRA_BUFFER_FALCON_GRANITE",
        "BAILING_V2_5_MAMBA_CACHE",
        "STEP3P_BACKEND_DEFAULT",
        "CHOICES_DSA_CUTEDSL_MLA_QUARK_MXFP4",
        "DETERMINISTIC_ASCEND",
        "EAGLE_PAGE_TREE_TRITON",
        "GPTQ_MARLIN_OFF_CUDA",
    } <= names


def test_dsa_backend_was_named_nsa():
    """_handle_model_specific_adjustments (DeepSeek branch): 0.5.12 sets ``nsa``, 0.5.13 ``dsa``."""
    assert resolve_at("deepseek-v3.2", "h200", OLD)["attention_backend"] == "nsa"
    assert resolve_at("deepseek-v3.2", "h200", NEW)["attention_backend"] == "dsa"


def test_nsa_flags_are_the_dsa_fields():
    """0.5.12's ``--nsa-prefill-backend`` / ``--nsa-decode-backend`` dests are 0.5.13's dsa fields."""
    table = load_table(OLD)
    assert table.by_option["--nsa-prefill-backend"].dest == "nsa_prefill_backend"
    assert "--dsa-prefill-backend" not in table.by_option
    out, _notes, consumed = normalise({"nsa_prefill_backend": "tilelang", "nsa_decode_backend": "fa3"}, {})
    assert out == {"dsa_prefill_backend": "tilelang", "dsa_decode_backend": "fa3"}
    assert consumed == {"nsa_prefill_backend", "nsa_decode_backend"}


def test_tbo_with_topk_sharing_is_refused_from_0_5_13():
    from resolvable.sglang.models import load_model

    config = load_model("deepseek-v3.2").to_dict()
    config["index_topk_freq"] = 2
    assert "index-topk sharing" in refusal_at(config, "h200", NEW, enable_two_batch_overlap=True)
    assert resolve_at(config, "h200", OLD, enable_two_batch_overlap=True)["attention_backend"] == "nsa"


def test_gpt_oss_on_an_amx_cpu():
    """GptOss branch: 0.5.13 accepts intel_amx (the CPU device default, ``_handle_cpu_backends``);
    0.5.12's list of sink-capable backends does not have it, so GPT-OSS on a CPU is refused. A
    bf16 checkpoint: before 0.5.14 (``QUANT_MXFP4_ON_CPU``) the CPU engine registers no mxfp4."""
    config = load_model("gpt-oss-20b").to_dict()
    config.pop("quantization_config", None)
    assert resolve_at(config, "cpu-amx", NEW)["attention_backend"] == "intel_amx"
    assert "sglang registers mxfp4 only on CUDA and gfx95 ROCm" in refusal_at("gpt-oss-20b", "cpu-amx", NEW)
    message = refusal_at(config, "cpu-amx", OLD)
    assert "GptOssForCausalLM requires one of" in message and "intel_amx" not in message.split("but got")[0]


def test_gemma4_policy_arrived_in_0_5_13():
    """Gemma4 branch: 0.5.12 has triton for Gemma4ForConditionalGeneration and no check."""
    assert resolve_at("gemma-4-31b", "b200", OLD)["attention_backend"] == "triton"
    assert resolve_at("gemma-4-31b", "b200", NEW)["attention_backend"] == "trtllm_mha"
    assert resolve_at("gemma-4-31b", "h100", OLD, attention_backend="fa3")["attention_backend"] == "fa3"
    assert "Gemma4 only supports" in refusal_at("gemma-4-31b", "h100", NEW, attention_backend="fa3")


def test_granite_hybrid_sm100_default():
    assert resolve_at("granite-4.0-h-small", "b200", OLD)["attention_backend"] == "triton"
    assert resolve_at("granite-4.0-h-small", "b200", NEW)["attention_backend"] == "flashinfer"


def test_falcon_extra_buffer_arrived_in_0_5_13():
    message = refusal_at("falcon-h1-7b", "h100", OLD, mamba_radix_cache_strategy="extra_buffer")
    assert "mamba extra_buffer is not supported for FalconH1ForCausalLM" in message
    new = resolve_at("falcon-h1-7b", "h100", NEW, mamba_radix_cache_strategy="extra_buffer")
    assert new["mamba_radix_cache_strategy"] == "extra_buffer"


def test_step3p5_backend_default_arrived_in_0_5_13():
    assert resolve_at("step-3.5-flash", "b200", NEW)["attention_backend"] == "fa4"
    assert resolve_at("step-3.5-flash", "b200", OLD)["attention_backend"] != "fa4"


def test_deterministic_ascend_arrived_in_0_5_13():
    """DETERMINISTIC_ATTENTION_BACKEND_CHOICES: 0.5.12 has flashinfer, fa3, triton."""
    message = refusal_at("llama-3.1-8b", "npu", OLD, enable_deterministic_inference=True)
    assert "Currently only ['flashinfer', 'fa3', 'triton'] attention backends" in message
    assert (
        resolve_at("llama-3.1-8b", "npu", NEW, enable_deterministic_inference=True)["attention_backend"]
        == "ascend"
    )


def test_eagle_tree_with_pages_on_triton_arrived_in_0_5_13():
    spec = {
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "draft",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 4,
        "speculative_num_draft_tokens": 8,
        "page_size": 16,
        "attention_backend": "triton",
    }
    assert "is unstable and produces incorrect results" in refusal_at("llama-3.1-8b", "h100", OLD, **spec)
    assert resolve_at("llama-3.1-8b", "h100", NEW, **spec)["attention_backend"] == "triton"


def test_gptq_converted_to_gptq_marlin_on_cuda_only_before_0_5_13():
    """gptq.py ``is_gptq_marlin_compatible``: 0.5.12 returns False off CUDA, so a symmetric 4-bit
    GPTQ checkpoint stays ``gptq`` on ROCm (accepted); 0.5.13 converts it and ROCm refuses
    gptq_marlin (found by the 0.5.12 held-out run)."""
    config = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
        "torch_dtype": "float16",
        "quantization_config": {
            "quant_method": "gptq",
            "bits": 4,
            "group_size": 128,
            "sym": True,
            "desc_act": False,
        },
    }
    old = resolve_at(config, "mi300x", OLD)  # accepted: the checkpoint stays gptq, on ROCm's list
    assert old["quantization"] is None and old["attention_backend"] == "aiter"
    assert "gptq_marlin quantization is currently not supported in ROCm" in refusal_at(config, "mi300x", NEW)
