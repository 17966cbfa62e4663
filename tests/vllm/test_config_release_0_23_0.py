"""vLLM 0.23.0's engine configuration, prepared before its release row exists (issue 32): the
configuration changes 0.24.0 brought (``vllm/config/changes.py``, block "0.23.0 -> 0.24.0"),
tested on the functions that ask them with a release view older than every named change (what
0.23.0 will be). Facts from the two wheels' diff (``model_executor/layers/quantization/
__init__.py : QuantizationMethods``, ``awq_marlin.py : AWQMarlinConfig.override_quantization_method``,
``auto_awq.py``; ``docs/releases/vllm-0.24.0-config.md``)."""

from __future__ import annotations

from resolvable.rules import HFConfig
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


class _Before:
    """A release view older than every named change (0.23.0 until its row exists)."""

    def has(self, change):
        return False


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
    assert quantization_methods(_Before()) == WHEEL_0_23
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
