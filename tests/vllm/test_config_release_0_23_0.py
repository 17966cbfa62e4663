"""vLLM 0.23.0's engine configuration (issue 32): the configuration changes 0.24.0 brought
(``vllm/config/changes.py``, block "0.23.0 -> 0.24.0"), one test per change, 0.23.0 against
0.24.0. Facts from the two wheels' diff (``model_executor/layers/quantization/
__init__.py : QuantizationMethods``, ``awq_marlin.py : AWQMarlinConfig.override_quantization_method``,
``auto_awq.py``; ``docs/releases/vllm-0.24.0-config.md``)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm._base import registry
from resolvable.vllm.changes import CHANGES
from resolvable.vllm.config.quantization import checkpoint_quantization, quantization_methods

#: ``QuantizationMethods`` of the 0.23.0 wheel, in its order
WHEEL_0_23 = (
    *("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8"),
    *("modelopt_mixed", "gguf", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming"),
    *("compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc"),
    *("mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block"),
    *("int8_per_channel_weight_only", "mxfp8"),
)


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.23.0", "0.24.0")]


def _as(model: str, arch: str) -> HFConfig:
    cfg = load_model(model).to_dict()
    cfg["architectures"] = [arch]
    return HFConfig(cfg, source=f"{model} as {arch}")


def _awq(model: str, **quant) -> HFConfig:
    cfg = load_model(model).to_dict()
    cfg["quantization_config"] = {
        **{"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
        **quant,
    }
    return HFConfig(cfg, source=f"{model} (AWQ)")


def test_the_0_24_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.24.0")} >= {
        "V2_DEFAULT_LISTED_MOE_QUANTIZED",
        "BREAKABLE_GRAPHS_MINIMAX_M3",
        "V2_RUNNER_DFLASH",
        "V2_RUNNER_PP_EXTERNAL_LAUNCHER_UNSUPPORTED",
        "QUANTIZATION_METHODS_AUTO_AWQ",
    }


def test_quantization_methods_of_0_23_and_0_24():
    """0.24 inserts auto_awq after awq and fp8_per_channel after fp8_per_block, and drops gguf;
    0.26 inserts nvfp4_per_token (``QUANTIZATION_NVFP4_PER_TOKEN``)."""
    assert registry.release_view("0.23.0").derive(quantization_methods) == WHEEL_0_23
    v24 = registry.release_view("0.24.0").derive(quantization_methods)
    assert v24[:3] == ("awq", "auto_awq", "fp8") and "gguf" not in v24
    assert v24[v24.index("fp8_per_block") + 1] == "fp8_per_channel"
    assert "nvfp4_per_token" not in v24
    v26 = registry.release_view("0.26.0").derive(quantization_methods)
    assert v26[v26.index("int8_per_channel_weight_only") + 1] == "nvfp4_per_token"


def test_awq_checkpoints_become_awq_marlin_before_auto_awq():
    """0.23 has no AutoAWQConfig: ``AWQMarlinConfig.override_quantization_method`` claims a 4-bit
    AWQ checkpoint with a zero point and a Marlin group size where Marlin runs (``awq_marlin``
    True); else the checkpoint stays ``awq``; from 0.24 (``awq_marlin`` None) ``auto_awq`` claims it."""
    quant = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
    hf = HFConfig(
        {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "quantization_config": quant}
    )
    assert checkpoint_quantization(hf, False, None, (9, 0), awq_marlin=True) == ("awq_marlin", True)
    assert checkpoint_quantization(hf, False, "awq", (9, 0), awq_marlin=True) == ("awq", False)
    assert checkpoint_quantization(hf, False, None, (7, 0), awq_marlin=False) == ("awq", False)
    assert checkpoint_quantization(hf, False, None, (9, 0)) == ("auto_awq", True)
    no_zp = HFConfig({**hf.to_dict(), "quantization_config": {**quant, "zero_point": False}})
    assert checkpoint_quantization(no_zp, False, None, (9, 0), awq_marlin=True) == ("awq", False)


def test_awq_checkpoints_become_awq_marlin_on_0_23():
    """Through the rule: an AWQ Llama is ``awq_marlin`` on 0.23 (H100, MI300X, T4) and ``auto_awq``
    on 0.24 (under VLLM_BATCH_INVARIANT, no Marlin, 0.23 keeps ``awq``: below)."""
    for preset in ("h100", "mi300x", "t4"):
        assert [r["quantization"] for r in both(_awq("llama-3.1-8b"), preset)] == ["awq_marlin", "auto_awq"]


def test_v2_default_list_grows_and_takes_moe_and_quantized_models_from_0_24():
    """``_is_default_v2_model_runner_model``: 0.23 lists Llama, Mistral and Qwen3 and wants neither
    MoE nor a quantization_config; 0.24 adds DeepSeek-V2 (MoE) and drops both conditions."""
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100")] == [True, True]
    assert [r["use_v2_model_runner"] for r in both("deepseek-v2-lite", "h100")] == [False, True]
    assert [r["use_v2_model_runner"] for r in both(_awq("llama-3.1-8b"), "h100")] == [False, True]
    assert [r["use_v2_model_runner"] for r in both("qwen3-30b-a3b", "h100")] == [False, False]


def test_minimax_m3_breakable_graphs_from_0_24():
    """The breakable-CUDA-graph list of ``VllmConfig.__post_init__``: DeepSeek-V4 only in 0.23.
    0.23's model registry has no MiniMax-M3 class (``model_registry_history.json``: from 0.24.0),
    so 0.23 refuses the architecture before the list is read."""
    minimax = _as("qwen3-30b-a3b", "MiniMaxM3SparseForCausalLM")
    with pytest.raises(ConflictError, match=r"registered in vLLM from 0\.24\.0 on"):
        res(minimax, "h100", vllm_version="0.23.0")
    assert res(minimax, "h100", vllm_version="0.24.0")["compilation_mode"] == "NONE"


def test_dflash_runs_on_v1_in_0_23():
    """``_get_v2_model_runner_unsupported_features``: 0.23 lists every method but EAGLE/EAGLE3/MTP
    (and any parallel drafting, which DFlash uses); 0.24 runs DFlash on V2."""
    spec = '{"method": "dflash", "model": "z-lab/Qwen3-8B-DFlash-b16", "num_speculative_tokens": 4}'
    assert [r["use_v2_model_runner"] for r in both("qwen3-8b", "h100", speculative_config=spec)] == [
        False,
        True,
    ]


def test_pp_with_the_external_launcher_stays_on_v2_in_0_23():
    """0.24 lists "pipeline parallelism with external_launcher" as V2-unsupported; 0.23 does not."""
    flags = dict(pipeline_parallel_size=2, distributed_executor_backend="external_launcher")
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100", **flags)] == [True, False]


def test_plain_awq_serves_float16_only_on_0_23():
    """0.23's ``AWQConfig.get_supported_act_dtypes`` is [float16]: an AWQ checkpoint that stays
    ``awq`` (no Marlin under VLLM_BATCH_INVARIANT) refuses a bfloat16 model (config-3117-00129,
    0.23 oracle: DeepSeek-R1 as AWQ on RTX 4090); 0.24's ``AutoAWQConfig`` serves both."""
    env = {"VLLM_BATCH_INVARIANT": "1"}
    with pytest.raises(ConflictError, match=r"torch.bfloat16 is not supported for quantization method awq"):
        res(_awq("llama-3.1-8b"), "h100", env, vllm_version="0.23.0")
    assert (
        res(_awq("llama-3.1-8b"), "h100", env, vllm_version="0.23.0", dtype="float16")["quantization"]
        == "awq"
    )
    assert res(_awq("llama-3.1-8b"), "h100", env, vllm_version="0.24.0")["quantization"] == "auto_awq"
