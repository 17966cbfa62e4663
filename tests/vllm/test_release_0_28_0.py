"""vLLM 0.28.0 (issue 32 item 1): resolved with the rules of 0.29-0.34 minus the changes 0.29.0
brought (`vllm/config/changes.py`), one test per change, on 0.28.0 and 0.29.0. Facts from the two
wheels' diff (docs/releases/vllm-0.29.0.md); measured against the 0.28.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

EAGLE3 = '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 2}'


def test_0_28_0_is_resolved():
    i = registry.releases.index("0.28.0")
    assert registry.releases[i : i + 2] == ("0.28.0", "0.29.0")
    assert {c.name for c in CHANGES.introduced("0.29.0")} == {
        "V2_RUNNER_BY_DEFAULT",
        "BREAKABLE_GRAPHS_DSA_MODELS",
        "SPEC_DECODE_CAPTURE_SIZES",
        "CPU_AMX_MLA",  # tests/vllm/test_config_cpu_amx_mla.py
        "FA4_HD256_KERNEL",  # tests/vllm/test_release_0_27_1.py
    }


@pytest.mark.parametrize(
    ("model", "v2_on_0_28"),
    [
        ("llama-3.1-8b", True),  # dense, not hybrid
        ("qwen3-30b-a3b", False),  # MoE, not a listed class
        ("nemotron-h-8b", False),  # hybrid
        ("deepseek-v2-lite", True),  # DeepseekV2ForCausalLM is listed
    ],
)
def test_v2_runner_default_before_0_29(model, v2_on_0_28):
    """VllmConfig._is_default_v2_model_runner_model (0.28): dense non-hybrid generating models and
    DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES; 0.29 defaults every model to V2."""
    assert res(model, "h100", vllm_version="0.28.0")["use_v2_model_runner"] is v2_on_0_28
    assert res(model, "h100", vllm_version="0.29.0")["use_v2_model_runner"] is True


def test_deepseek_v32_compiles_on_0_28():
    """default_breakable_cudagraph_architectures: DeepSeek-V3.2 turns torch.compile off from 0.29."""
    assert res("deepseek-v3.2", "h100", vllm_version="0.28.0", tensor_parallel_size=8)[
        "compilation_mode"
    ] == ("VLLM_COMPILE")
    assert (
        res("deepseek-v3.2", "h100", vllm_version="0.29.0", tensor_parallel_size=8)["compilation_mode"]
        == "NONE"
    )


def test_uniform_decode_capture_sizes_from_0_29():
    """_set_cudagraph_sizes: with k=2 draft tokens 0.29 appends 3, 6, 12, ... (request counts x 3)."""
    old = res("llama-3.1-8b", "h100", vllm_version="0.28.0", speculative_config=EAGLE3)[
        "cudagraph_capture_sizes"
    ]
    new = res("llama-3.1-8b", "h100", vllm_version="0.29.0", speculative_config=EAGLE3)[
        "cudagraph_capture_sizes"
    ]
    assert 3 not in old and 6 not in old and old[:4] == [1, 2, 4, 8]
    assert new[:7] == [1, 2, 3, 4, 6, 8, 12]
