"""Issue 27, final round (h27e): the profile run's top-k/top-p sampler path in vLLM's V1 engine.

Read in the wheels (``v1/sample/ops/topk_topp_sampler.py : TopKTopPSampler.__init__``,
``forward_native`` / ``forward_cuda`` → ``flashinfer_sample``; ``v1/sample/sampler.py``;
``v1/worker/gpu_model_runner.py : _dummy_sampler_run``, 0.10.1.1 and 0.11.0): with FlashInfer
importable on CUDA and ``VLLM_USE_FLASHINFER_SAMPLER`` unset, 0.8–0.11.0 sample with
``flashinfer.sampling.top_k_top_p_sampling_from_logits`` (no sort); from 0.11.1 only with
``VLLM_USE_FLASHINFER_SAMPLER=1``. The wheel lists flashinfer-python as an extra, and the log says
which path ran. Golden figures written out by hand for Qwen2-7B-Instruct (vocab 152,064, hidden
3584, MLP 18,944) on an A100-80GB (the profile batch: 2048 tokens, 256 sequences).
"""

from __future__ import annotations

from resolvable import Platform
from resolvable._hfconfig import HFConfig
from resolvable.memory import GIB
from resolvable.startup_log import check_log
from resolvable.vllm.memory import capacity
from resolvable.vllm.startup_log import read

QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "vocab_size": 152064,
    "max_position_embeddings": 32768,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def _peak(version: str, preset: str = "a100", **values) -> float:
    platform = Platform.preset(preset)
    rep = capacity(
        {"max_model_len": 16384, "gpu_memory_utilization": 0.25, **values},
        HFConfig(QWEN2_7B, source="test"),
        device_name=platform.device_name,
        memory_gib=platform.memory_gib,
        version=version,
    )
    return rep.estimates["activation_peak"].value, rep


def test_flashinfer_sampler_holds_14_bytes_a_logit_the_sort_path_36():
    # forward: 2048 × 2 × (2 × 18944 + 6 × 3584) = 243,269,632 B, below either sampler
    native, rep = _peak("0.10")
    assert native == 256 * 152064 * 36 + 0.1 * GIB  # 1,401,432,064 B + 0.1 GiB
    assert rep.inputs["sampler_path"] == "pytorch sort"
    # bf16 logits held by _dummy_sampler_run (2) + fp32 copy, top-k masked logits, softmax (4 each)
    fi, rep = _peak("0.10", flashinfer_sampler=True)
    assert fi == 256 * 152064 * 14 + 0.1 * GIB  # 545,001,472 B + 0.1 GiB
    assert rep.inputs["sampler_path"].startswith("flashinfer")
    # the switch as the environment gives it: "1" on, "0" off
    assert _peak("0.12", flashinfer_sampler="1")[0] == fi
    # Model Runner V2 (the default from 0.29) samples with its own pipeline, not TopKTopPSampler
    mrv2 = _peak("0.31", flashinfer_sampler="1")[1]
    assert mrv2.inputs["model_runner_v2"] and mrv2.inputs["sampler_path"].startswith("model runner v2")
    assert _peak("0.12", flashinfer_sampler="0")[0] == native
    # V0 (< 0.8) has its own sampler; ROCm takes the native path
    assert _peak("0.7", flashinfer_sampler=True)[0] != fi
    assert _peak("0.10", "mi300x", flashinfer_sampler=True)[0] == _peak("0.10", "mi300x")[0]


def test_the_kv_budget_grows_by_what_the_sort_path_held():
    _, native = _peak("0.10")
    _, fi = _peak("0.10", flashinfer_sampler=True)
    grown = fi.inputs["available_kv_bytes"] - native.inputs["available_kv_bytes"]
    assert abs(grown - 256 * 152064 * (36 - 14)) < 1024


def test_the_log_line_names_the_sampler_and_check_log_uses_it():
    head = (
        "INFO 09-04 01:02:21 [api_server.py:1805] vLLM API server version 0.10.1.1\n"
        "INFO 09-04 01:02:21 [utils.py:326] non-default args: {'model': 'Qwen2-7B-Instruct', "
        "'max_model_len': 16384, 'gpu_memory_utilization': 0.25}\n"
    )
    fi_line = "INFO 09-04 01:02:57 [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n"
    na_line = (
        "WARNING 08-18 19:56:55 [topk_topp_sampler.py:59] FlashInfer is not available. Falling back to the "
        "PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.\n"
    )
    tail = "INFO [gpu_model_runner.py:2007] Model loading took 14.2488 GiB and 4.4 seconds\n"
    assert read(head + fi_line + tail).flags["flashinfer_sampler"] is True
    assert read(head + na_line + tail).flags["flashinfer_sampler"] is False
    assert "flashinfer_sampler" not in read(head + tail).flags
    assert "FlashInfer" in read(head + fi_line + tail).lines["sampler"]
    hf = HFConfig(QWEN2_7B, source="test")
    with_fi = check_log(head + fi_line + tail, hf=hf, platform=Platform.preset("a100"))
    without = check_log(head + na_line + tail, hf=hf, platform=Platform.preset("a100"))
    assert with_fi.report is not None and without.report is not None
    assert with_fi.report.kv_tokens > without.report.kv_tokens


def test_fit_reads_the_switch_from_env(capsys):
    """``--env VLLM_USE_FLASHINFER_SAMPLER=1`` reaches the memory model (vllm/launch.py)."""
    import json

    from resolvable.cli import main

    args = [
        "fit",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "a100",
        "--vllm-version",
        "0.28.0",
        "--json",
    ]
    env = ["--env", "VLLM_USE_V2_MODEL_RUNNER=0"]
    main(args + env)
    off = json.loads(capsys.readouterr().out)["memory"]
    main(args + env + ["--env", "VLLM_USE_FLASHINFER_SAMPLER=1"])
    on = json.loads(capsys.readouterr().out)["memory"]
    assert off["inputs"]["sampler_path"] == "pytorch sort"
    assert on["inputs"]["sampler_path"].startswith("flashinfer") and on["kv_tokens"] > off["kv_tokens"]
