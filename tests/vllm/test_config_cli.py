"""`resolvable explain|resolve|matrix --engine vllm` with the engine-configuration values."""

from __future__ import annotations

import json

from resolvable.cli import main


def run(capsys, *argv):
    """Run the CLI; the spec's examples are 0.33.0's, so that release unless the test names one."""
    argv = list(argv)
    if (
        argv[0] in ("explain", "resolve", "matrix")
        and "--vllm-version" not in argv
        and "--fields" not in argv[-1:]
    ):
        argv += ["--vllm-version", "0.33.0"]
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_explain_shows_the_config_values_in_pipeline_order(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100")
    assert code == 0
    assert "node      8 × NVIDIA H100 80GB HBM3, 79.19 GiB each" in out  # as torch reports it
    fields = [line.split(" = ")[0] for line in out.splitlines() if " = " in line and not line.startswith(" ")]
    assert fields.index("dtype") < fields.index("max_num_seqs") < fields.index("async_scheduling")
    assert fields.index("async_scheduling") < fields.index("cudagraph_mode") < fields.index("block_size")
    assert (
        "max_num_seqs = 1024" in out and "[engine_args] batch_limits  resolvable/vllm/config/batch.py:" in out
    )
    assert "would it start (vLLM engine start): accepted by create_engine_config, and would start" in out
    assert "not known offline" in out and "KV-cache memory left after profiling" in out


def test_gpus_flag_and_checked_fix(capsys):
    code, out, err = run(
        capsys, "explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--gpus", "2", "-tp", "4"
    )
    assert code == 1
    assert "World size (4) is larger than the number of available GPUs (2) in this node." in out
    assert "fix: pass --tensor-parallel-size 2" in out
    assert err.count("\n") == 1 and err.startswith("error: refused: World size (4)")
    code, out, _ = run(
        capsys,
        "resolve",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--gpus",
        "2",
        "-tp",
        "2",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["platform"]["device_count"] == 2
    assert data["values"]["distributed_executor_backend"] == "mp" and data["values"]["world_size"] == 2


def test_startup_refusal_exit_2_with_checked_fix(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "gemma-2-9b",
        "--engine",
        "vllm",
        "--platform",
        "t4",
        "--dtype",
        "bfloat16",
        "--json",
    )
    data = json.loads(out)
    assert code == 1
    assert data["startup"]["would_start"] is False
    assert data["startup"]["refusal"]["message"].startswith("Bfloat16 is only supported on GPUs")
    assert data["startup"]["refusal"]["fix"].startswith("pass --dtype float32")
    assert data["startup"]["not_known_offline"]


def test_resolve_json_carries_every_config_value_and_release(capsys):
    code, out, _ = run(
        capsys,
        "resolve",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "b200",
        "--vllm-version",
        "0.34.0",
        "--json",
    )
    data = json.loads(out)
    values = data["values"]
    assert code == 0 and data["release"] == "0.34.0"
    assert (values["max_num_batched_tokens"], values["max_num_seqs"], values["block_size"]) == (
        16384,
        1024,
        64,
    )
    assert len(values["cudagraph_capture_sizes"]) == 91 and values["gpu_memory_utilization"] == 1.0
    for key in (
        "enable_chunked_prefill",
        "enable_prefix_caching",
        "async_scheduling",
        "compilation_mode",
        "cudagraph_mode",
        "max_model_len",
        "dtype",
        "kv_cache_dtype",
    ):
        assert key in values
    assert data["context"]["scheduler"]["max_num_seqs"] == 1024


def test_config_flags(capsys):
    code, out, _ = run(
        capsys,
        "resolve",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--no-enable-chunked-prefill",
        "--max-model-len",
        "32768",
        "-O",
        "1",
        "--json",
    )
    assert code == 0
    values = json.loads(out)["values"]
    assert (values["enable_chunked_prefill"], values["max_num_batched_tokens"], values["cudagraph_mode"]) == (
        False,
        32768,
        "PIECEWISE",
    )


def test_matrix_with_gpus_and_version(capsys):
    code, out, _ = run(
        capsys,
        "matrix",
        "--engine",
        "vllm",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "h100,cpu",
        "--vllm-version",
        "0.34.0",
        "--format",
        "json",
    )
    cells = {c["platform"]: c for c in json.loads(out)["cells"]}
    assert code == 0 and cells["h100"]["block_size"] == 64 and cells["cpu"]["block_size"] == 128
    code, out, _ = run(
        capsys,
        "matrix",
        "--engine",
        "vllm",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "h100",
        "--gpus",
        "1",
        "--set",
        "tensor-parallel-size=2",
        "--format",
        "json",
    )
    assert json.loads(out)["cells"][0]["refused"].startswith("World size (2) is larger")


def test_matrix_fields(capsys):
    code, out, _ = run(
        capsys,
        "matrix",
        "--engine",
        "vllm",
        "--models",
        "llama-3.1-8b",
        "--platforms",
        "a100,h100,b200",
        "--fields",
        "max_num_seqs,async_scheduling",
        "--format",
        "json",
    )
    cells = {c["platform"]: c["values"] for c in json.loads(out)["cells"]}
    assert code == 0
    assert [cells[p]["max_num_seqs"] for p in ("a100", "h100", "b200")] == [256, 1024, 1024]
    code, _, err = run(capsys, "matrix", "--engine", "vllm", "--fields", "max_num_sequences")
    assert code == 2 and "is not a vLLM field" in err


def test_resolve_json_engine_config_at_config_time_and_final(capsys):
    code, out, _ = run(
        capsys, "resolve", "deepseek-v3", "--engine", "vllm", "--platform", "b200", "-tp", "8", "--json"
    )
    ec = json.loads(out)["engine_config"]
    assert code == 0
    # create_engine_config returns DEFAULT_BLOCK_SIZE; FLASHINFER_MLA's preference (32) comes at engine start
    assert ec["cache_config.block_size"] == {"field": "block_size", "config": 16, "final": 32}
    assert ec["scheduler_config.max_num_seqs"]["config"] == 1024
    assert ec["model_config.quantization"]["final"] == "fp8"
