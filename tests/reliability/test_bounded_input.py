"""Issue 29 item 3: every local file through the guarded read (the weight index, the vLLM
``--config`` YAML), and work bounded in the input size (argument counts, YAML keys, guesses)."""

from __future__ import annotations

import json
import os
import time

import pytest

from resolvable.cli import main
from resolvable.memory import checkpoint_total_size

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "vocab_size": 1000,
    "max_position_embeddings": 2048,
    "torch_dtype": "bfloat16",
}
VLLM = [
    "explain",
    "--platform",
    "h100",
    "--engine",
    "vllm",
    "--",
    "vllm",
    "serve",
    "meta-llama/Llama-3.1-8B-Instruct",
]
SGLANG = ["explain", "--platform", "h100", "--", "python", "-m", "sglang.launch_server", "--model-path",
          "meta-llama/Llama-3.1-8B-Instruct"]  # fmt: skip


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_an_index_that_is_a_fifo_does_not_block(model_dir, capsys):
    os.mkfifo(model_dir / "model.safetensors.index.json")
    start = time.monotonic()
    assert checkpoint_total_size(str(model_dir)) is None
    assert main(["fit", str(model_dir), "--platform", "h100"]) in (0, 2)
    assert time.monotonic() - start < 20
    capsys.readouterr()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_an_index_that_is_dev_zero_is_not_read(model_dir, capsys):
    os.symlink("/dev/zero", model_dir / "model.safetensors.index.json")
    assert checkpoint_total_size(str(model_dir)) is None
    assert main(["fit", str(model_dir), "--platform", "h100", "--engine", "vllm"]) in (0, 2)
    capsys.readouterr()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_yaml_flag_file_that_is_a_fifo_does_not_block(tmp_path, capsys):
    fifo = tmp_path / "flags.yaml"
    os.mkfifo(fifo)
    assert main([*VLLM, "--config", str(fifo)]) == 2
    assert "not a regular file" in one_error_line(capsys)


def test_a_yaml_of_many_unknown_keys_is_refused_at_once(tmp_path, capsys):
    path = tmp_path / "flags.yaml"
    path.write_text("".join(f"unknown-key-number-{i}: {i}\n" for i in range(5000)))
    start = time.monotonic()
    assert main([*VLLM, "--config", str(path)]) == 2
    assert time.monotonic() - start < 30  # was minutes: one difflib guess per key
    assert "1,024" in one_error_line(capsys)


def test_unknown_options_get_a_bounded_message(capsys):
    start = time.monotonic()
    assert main([*VLLM, *(f"--bogus-{i}" for i in range(1000))]) == 1  # vLLM refuses them (issue 26)
    assert time.monotonic() - start < 30
    err = one_error_line(capsys)
    assert "more)" in err and len(err) < 4000


@pytest.mark.parametrize("command", [VLLM, SGLANG], ids=["vllm", "sglang"])
def test_a_pasted_command_of_40000_flags_is_refused_at_once(capsys, command):
    start = time.monotonic()
    assert main([*command, *(["--enforce-eager"] * 40000)]) == 2
    assert time.monotonic() - start < 10  # argparse is quadratic: this took minutes
    assert "4,096" in one_error_line(capsys)


def test_a_pasted_string_of_40000_flags_is_refused_at_once(capsys):
    start = time.monotonic()
    text = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct" + " --bogus" * 40000
    assert main(["explain", "--platform", "h100", "--", text]) == 2
    assert time.monotonic() - start < 10
    one_error_line(capsys)
