"""vLLM 0.26.0's engine configuration (issue 32 item 1): the configuration changes 0.27.0 brought
(``vllm/config/changes.py``, block "0.26.0 -> 0.27.0"), one test per change, 0.26.0 against
0.27.0. Facts from the two wheels' diff (docs/releases/vllm-0.27.0-config.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm.changes import CHANGES


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.26.0", "0.27.0")]


def test_the_0_27_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.27.0")} >= {
        "BREAKABLE_GRAPHS_KIMI",
        "V2_DEFAULT_LISTED_HYBRID",
        "MODELOPT_FP8_SM80",
    }


def _as(model: str, arch: str) -> HFConfig:
    cfg = load_model(model).to_dict()
    cfg["architectures"] = [arch]
    return HFConfig(cfg, source=f"{model} as {arch}")


def test_kimi_linear_breakable_graphs_from_0_27():
    """VllmConfig.__post_init__: 0.27 turns breakable CUDA graphs on (torch.compile off) for
    Kimi-Linear; 0.26 compiles it."""
    kimi = _as("qwen3-next-80b-a3b", "KimiLinearForCausalLM")
    old, new = both(kimi, "h100", tensor_parallel_size=4)
    assert (old["compilation_mode"], new["compilation_mode"]) == ("VLLM_COMPILE", "NONE")


def test_listed_hybrid_default_v2_from_0_27():
    """_is_default_v2_model_runner_model: 0.26 sends every hybrid model to V1 first; 0.27 lets a
    listed class through (Kimi-K3, hybrid, is listed from 0.27). A dense model is V2 in both.
    0.26's model registry has no Kimi-K3 class (``model_registry_history.json``: from 0.27.0):
    0.26 refuses it first; a listed hybrid model 0.26 does register is not there to compare."""
    k3 = _as("qwen3-next-80b-a3b", "KimiK3ForConditionalGeneration")
    with pytest.raises(ConflictError, match=r"registered in vLLM from 0\.27\.0 on"):
        res(k3, "h100", vllm_version="0.26.0", tensor_parallel_size=4)
    assert res(k3, "h100", vllm_version="0.27.0", tensor_parallel_size=4)["use_v2_model_runner"] is True
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100")] == [True, True]


def test_modelopt_fp8_on_ampere_from_0_27():
    """ModelOptFp8Config.get_min_capability: 89 in 0.26 (refused on A100), 80 from 0.27
    (operators-5528-00141)."""
    cfg = load_model("llama-3.1-8b").to_dict()
    cfg["quantization_config"] = {
        "quant_method": "modelopt",
        "producer": {"name": "modelopt", "version": "0.29.0"},
        "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None},
    }
    fp8 = HFConfig(cfg, source="modelopt-fp8 test config")
    with pytest.raises(ConflictError, match=r"Minimum capability: 89\. Current capability: 80"):
        res(fp8, "a100", vllm_version="0.26.0")
    assert res(fp8, "a100", vllm_version="0.27.0")["quantization"] == "modelopt"
