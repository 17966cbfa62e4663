"""The case builder of tools/agreement_vllm_config/real_launches.py (issue 32 item 3): a published
command of tests/vllm/vllm_serve_corpus.py in, the config oracle's case out. No oracle runs here;
this keeps the harness from rotting as the corpus, the paste reader or the flag tables move."""

from __future__ import annotations

from harness_tools import load_tool

real_launches = load_tool("vllm_real_launches", "tools/agreement_vllm_config/real_launches.py")
from vllm_serve_corpus import CORPUS  # noqa: E402


def _entry(needle: str):
    (entry,) = [c for c in CORPUS if needle in c.command]
    return entry


def test_a_prefixed_serve_line_drops_the_api_server_flags():
    entry = _entry("--served-model-name dspy")
    case, why = real_launches.build_case(14, entry, "0.34.0")
    assert why is None
    assert (case["model"], case["sample"], case["platform"]) == (
        "meta-llama/Llama-3.1-8B-Instruct",
        "llama-3.1-8b",
        "h100",
    )
    assert case["env"] == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "0"}
    assert case["dropped"] == ["--port", "4090"]  # the Frontend group: not AsyncEngineArgs's
    assert case["argv"][:4] == ["--served-model-name", "dspy", "--dtype", "bfloat16"]
    assert case["config"]["architectures"] == ["LlamaForCausalLM"] and case["install"] is None


def test_a_model_flag_and_a_boolean_frontend_flag_before_a_valued_one():
    entry = _entry("--model MiniMaxAI/MiniMax-M2")
    case, why = real_launches.build_case(32, entry, "0.34.0")
    assert why is None and case["sample"] == "minimax-m2"
    assert "--model" not in case["argv"] and "MiniMaxAI/MiniMax-M2" not in case["argv"]
    # --enable-auto-tool-choice takes no value: it must not swallow --tool-call-parser
    assert case["dropped"] == ["--enable-auto-tool-choice", "--tool-call-parser", "minimax_m2"]
    assert case["env"] == {"SAFETENSORS_FAST_GPU": "1", "VLLM_USE_V1": "0"}


def test_a_model_without_a_sample_is_not_measured():
    fake = type(CORPUS[0])(
        "https://example.org", "h100", "vllm serve nobody/not-a-sample --tensor-parallel-size 2"
    )
    case, why = real_launches.build_case(99, fake, "0.34.0")
    assert case is None and why == "no bundled sample for nobody/not-a-sample"
