"""vLLM 0.22.1's engine configuration (issue 32): the configuration changes 0.23.0 brought
(``vllm/config/changes.py``, block "0.22.1 -> 0.23.0"), one test per change, 0.22.1 against
0.23.0. Facts from the two wheels' ``config/vllm.py`` (``docs/releases/vllm-0.23.0-config.md``)."""

from __future__ import annotations

from vllm_cases import res

from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm.changes import CHANGES


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.22.1", "0.23.0")]


def test_the_0_23_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.23.0")} >= {
        "V2_DEFAULT_LLAMA_MISTRAL",
        "BREAKABLE_GRAPHS_DEEPSEEK_V4",
    }


def test_llama_defaults_to_v2_from_0_23():
    """``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES``: 0.22 lists Qwen3 only (config-3117 dev: 17 Llama
    launches on V1 in the 0.22.1 oracle); 0.23 adds Llama and Mistral."""
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100")] == [False, True]
    assert [r["use_v2_model_runner"] for r in both("qwen3-8b", "h100")] == [True, True]


def test_deepseek_v4_breakable_graphs_from_0_23():
    """``VllmConfig.__post_init__``: 0.23 auto-enables breakable CUDA graphs (torch.compile off) for
    DeepSeek-V4 (the architecture list is read; a dense config under DeepSeek-V4's class name keeps
    the pack's attention selection out of it); 0.22 compiles it."""
    cfg = load_model("qwen3-30b-a3b").to_dict()
    cfg["architectures"] = ["DeepseekV4ForCausalLM"]
    v4 = HFConfig(cfg, source="qwen3-30b-a3b as DeepseekV4ForCausalLM")
    assert [r["compilation_mode"] for r in both(v4, "h200")] == ["VLLM_COMPILE", "NONE"]
