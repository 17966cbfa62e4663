"""vLLM 0.21.0's engine configuration (issue 32): the configuration changes 0.22.0 brought
(``vllm/config/changes.py``, block "0.21.0 -> 0.22.0"), one test per change, 0.21.0 against
0.22.0. Facts from the two wheels' diff (``config/{vllm,model}.py``, ``model_executor/models/config.py``,
``model_executor/layers/quantization/{__init__,gptq_marlin,gptq}.py``, ``platforms/cpu.py``;
``docs/releases/vllm-0.22.0-config.md``)."""

from __future__ import annotations

import pytest
from test_config_operators import BGE_M3
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model, registry
from resolvable.vllm.changes import CHANGES
from resolvable.vllm.config.quantization import checkpoint_quantization, quantization_methods

NEW_IN_0_22 = {
    "V2_RUNNER_DEFAULT_LIST",
    "AUTO_GPTQ",
    "CPU_AMX_LINEAR_ATTENTION_OFF",
    "MAMBA_ALL_WITH_SPEC",
    "RUNNER_FROM_CONVERT",
    "EMBEDDING_RUNNER_GENERATE_REFUSED",
}

#: ``QuantizationMethods`` of the 0.21.0 wheel (``model_executor/layers/quantization/__init__.py``).
WHEEL_0_21 = (
    *("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8"),
    *("modelopt_mixed", "gguf", "gptq_marlin", "awq_marlin", "gptq", "humming"),
    *("compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc"),
    *("mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "cpu_awq", "online", "fp8_per_tensor"),
    *("fp8_per_block", "int8_per_channel_weight_only", "mxfp8"),
)


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.21.0", "0.22.0")]


def _gptq(model: str, **quant) -> HFConfig:
    cfg = load_model(model).to_dict()
    cfg["quantization_config"] = {
        **{"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False},
        **quant,
    }
    return HFConfig(cfg, source=f"{model} (GPTQ)")


def test_the_0_22_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.22.0")} >= NEW_IN_0_22


def test_no_default_v2_runner_on_0_21():
    """0.21's ``VllmConfig`` has no ``use_v2_model_runner`` property: the V2 runner runs only under
    VLLM_USE_V2_MODEL_RUNNER=1 (config-3117 dev, 0.21.0 oracle: 372 Qwen3 launches on V1 once the
    oracle read the variable); 0.22 defaults Qwen3 to V2."""
    assert [r["use_v2_model_runner"] for r in both("qwen3-8b", "h100")] == [False, True]
    env = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100", env)] == [True, True]


def test_quantization_methods_of_0_21_and_0_22():
    """0.22 adds ``auto_gptq`` (and moves ``gptq`` before ``gptq_marlin``); both list ``cpu_awq``,
    which 0.23 drops (``CPU_AWQ_REMOVED``)."""
    assert registry.release_view("0.21.0").derive(quantization_methods) == WHEEL_0_21
    v22 = registry.release_view("0.22.1").derive(quantization_methods)
    assert v22[v22.index("gguf") : v22.index("humming")] == (
        "gguf",
        "auto_gptq",
        "gptq",
        "gptq_marlin",
        "awq_marlin",
    )
    assert v22[v22.index("deepseek_v4_fp8") + 1] == "cpu_awq"
    assert "cpu_awq" not in registry.release_view("0.23.0").derive(quantization_methods)


def test_gptq_checkpoints_become_gptq_marlin_before_auto_gptq():
    """``GPTQMarlinConfig.override_quantization_method`` (0.21): a symmetric 4/8-bit GPTQ
    checkpoint naming bits, group_size, sym and desc_act with a Marlin group size becomes
    ``gptq_marlin`` where Marlin runs (CUDA >= 7.5, CPU 4-bit only) and the user asked for nothing,
    ``marlin`` or ``gptq_marlin``; else it stays ``gptq``. 0.22's AutoGPTQConfig claims it."""
    hf = _gptq("llama-3.1-8b")
    assert checkpoint_quantization(hf, False, None, (9, 0), gptq_marlin=True) == ("gptq_marlin", True)
    assert checkpoint_quantization(hf, False, "gptq", (9, 0), gptq_marlin=True) == ("gptq", False)
    assert checkpoint_quantization(hf, False, None, (7, 0), gptq_marlin=False) == ("gptq", False)
    assert checkpoint_quantization(hf, False, None, (9, 0)) == ("auto_gptq", True)
    for odd in ({"sym": False}, {"bits": 3}, {"group_size": 256}, {"desc_act": None}):
        cfg = HFConfig(
            {**hf.to_dict(), "quantization_config": {**hf.to_dict()["quantization_config"], **odd}}
        )
        assert checkpoint_quantization(cfg, False, None, (9, 0), gptq_marlin=True) == ("gptq", False)
    eight = _gptq("llama-3.1-8b", bits=8)
    assert checkpoint_quantization(eight, True, None, None, gptq_marlin=True) == ("gptq", False)


def test_gptq_through_the_rule_on_0_21():
    """Through the rule: a GPTQ Llama is ``gptq_marlin`` on 0.21 (H100, CPU) and ``gptq`` on MI300X
    (``is_gptq_marlin_compatible`` is CUDA/CPU only) and on T4 (capability 7.5 minimum for Marlin is
    met there: ``gptq_marlin``); 0.22 says ``auto_gptq`` everywhere. ``gptq`` serves float16 only
    (``GPTQConfig.get_supported_act_dtypes``; config-3117 dev: "torch.bfloat16 is not supported for
    quantization method gptq")."""
    assert [r["quantization"] for r in both(_gptq("llama-3.1-8b"), "h100")] == ["gptq_marlin", "auto_gptq"]
    assert [r["quantization"] for r in both(_gptq("llama-3.1-8b"), "t4")] == ["gptq_marlin", "auto_gptq"]
    with pytest.raises(ConflictError, match=r"torch.bfloat16 is not supported for quantization method gptq"):
        res(_gptq("llama-3.1-8b"), "mi300x", vllm_version="0.21.0")
    assert (
        res(_gptq("llama-3.1-8b"), "mi300x", vllm_version="0.21.0", dtype="float16")["quantization"] == "gptq"
    )


def test_mamba_cache_mode_align_with_spec_decoding_on_0_21():
    """``MambaModelConfig.verify_and_update_config`` (0.21): with prefix caching and a speculative
    config, a SupportsMambaPrefixCaching class gets mode ``align`` (config-3117-00270, 0.21 oracle:
    Granite-4.0-H with n-gram); 0.22 keeps ``all``. Without speculation both say ``all``."""
    spec = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
    flags = dict(enable_prefix_caching=True, speculative_config=spec)
    assert [r["mamba_cache_mode"] for r in both("granite-4.0-h-small", "h200", **flags)] == ["align", "all"]
    plain = both("granite-4.0-h-small", "h200", enable_prefix_caching=True)
    assert [r["mamba_cache_mode"] for r in plain] == ["all", "all"]


def test_convert_picks_the_pooling_runner_from_0_22():
    """``ModelConfig._get_runner_type``: 0.22 resolves ``--runner auto --convert embed`` to the
    pooling runner; 0.21 keeps the architecture's default (generate for Llama)."""
    assert [r["runner_type"] for r in both("llama-3.1-8b", "h100", convert="embed")] == [
        "generate",
        "pooling",
    ]


def test_embedding_model_under_runner_generate():
    """0.22 refuses an embedding-only class under ``--runner generate`` with "Embedding models do
    not support"; 0.21 with "This model does not support `--runner generate`."."""
    bge = HFConfig(BGE_M3, source="https://huggingface.co/BAAI/bge-m3/blob/main/config.json")
    with pytest.raises(ConflictError, match=r"This model does not support `--runner generate`"):
        res(bge, "h100", vllm_version="0.21.0", runner="generate")
    with pytest.raises(ConflictError, match=r"Embedding models do not support `--runner generate`"):
        res(bge, "h100", vllm_version="0.22.0", runner="generate")


def test_amx_cpu_keeps_caching_for_linear_attention_on_0_21():
    """``CpuPlatform.check_and_update_config``: 0.22-0.24 turn chunked prefill (and prefix
    caching) off on an AMX CPU for a model with linear-attention layers; 0.21 keeps them."""
    old, new = both("qwen3-next-80b-a3b", "cpu-amx")
    assert (old["enable_chunked_prefill"], new["enable_chunked_prefill"]) == (True, False)


def test_amx_cpu_ssm_dtype_reset_from_0_26():
    """``CpuPlatform.check_and_update_config``: the float32 reset of the SSM cache on AMX CPUs
    arrived in 0.26 (``CPU_AMX_SSM_FLOAT32``, read from the 0.24-0.26 wheels' ``platforms/cpu.py``)."""
    dtypes = [
        res("llama-3.1-8b", "cpu-amx", vllm_version=v)["mamba_ssm_cache_dtype"]
        for v in ("0.21.0", "0.25.1", "0.26.0")
    ]
    assert dtypes == ["auto", "auto", "float32"]


def test_mtp_on_an_embedding_model_on_0_21():
    """The draft ``ModelConfig`` (runner ``draft``) of a pooling-only target: 0.22 refuses it
    ("Embedding models do not support `--runner draft`"); 0.21 builds it and
    ``SpeculativeConfig.__post_init__`` refuses the method (operators-5528-00051, 0.21 oracle:
    bge-m3 with MTP: "Unsupported speculative method: 'mtp'")."""
    bge = HFConfig(BGE_M3, source="https://huggingface.co/BAAI/bge-m3/blob/main/config.json")
    spec = '{"method": "mtp", "num_speculative_tokens": 1}'
    with pytest.raises(ConflictError, match=r"Unsupported speculative method: 'mtp'"):
        res(bge, "a100", vllm_version="0.21.0", speculative_config=spec)
    with pytest.raises(ConflictError, match=r"Embedding models do not support `--runner draft`"):
        res(bge, "a100", vllm_version="0.22.0", speculative_config=spec)


def test_eagle3_needs_an_aux_hidden_states_target_on_0_21():
    """``SpeculativeConfig._verify_args`` (0.21): EAGLE3 on a target whose text model type is not in
    the auxiliary-hidden-states list is refused (operators-8002 dev, 0.21 oracle: OLMo-2, LFM2,
    Granite-4.0-H, bge-m3 with EAGLE3 drafts); 0.22 dropped the check. A Llama target passes."""
    spec = (
        '{"method": "eagle3", "model": "tests/vllm/drafts/llama3.1-8b-eagle3", "num_speculative_tokens": 2}'
    )
    with pytest.raises(ConflictError, match=r"eagle3 is only supported for \['llama', 'qwen'"):
        res("olmo-2-7b", "h100", vllm_version="0.21.0", speculative_config=spec)
    assert (
        res("olmo-2-7b", "h100", vllm_version="0.22.0", speculative_config=spec)["speculative_method"]
        == "eagle3"
    )
    assert (
        res("llama-3.1-8b", "h100", vllm_version="0.21.0", speculative_config=spec)["speculative_method"]
        == "eagle3"
    )


def test_the_draft_pp_check_comes_before_the_target_type_check_on_0_21():
    """``_verify_args`` runs the draft's ``verify_with_parallel_config`` before the target-type check:
    GLM-5 with an EAGLE3 head and PP 2 is refused for PP (dev operators-8002, 0.21 oracle:
    "Pipeline parallelism is not supported for this model")."""
    spec = '{"method": "eagle3", "model": "tests/vllm/drafts/qwen3-8b-eagle3", "num_speculative_tokens": 4}'
    with pytest.raises(ConflictError, match="Pipeline parallelism is not supported for this model"):
        res("glm-5", "h100", vllm_version="0.21.0", pipeline_parallel_size=2, speculative_config=spec)
    with pytest.raises(ConflictError, match="eagle3 is only supported for"):
        res("glm-5", "h100", vllm_version="0.21.0", speculative_config=spec)
