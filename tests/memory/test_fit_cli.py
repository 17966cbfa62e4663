"""`resolvable fit` and the memory section of `explain` (both engines)."""

from __future__ import annotations

import json

from resolvable.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_fit_sglang_fits(capsys):
    code, out, _ = run(capsys, "fit", "llama-3.1-8b", "--platform", "h100")
    assert code == 0
    assert "KV/token  131,072 bytes per rank" in out
    assert "smallest TP that fits one full-context request: 1" in out
    assert "estimate  pre_load_context" in out  # profiling-only figures are said to be estimates


def test_fit_sglang_refuses_with_engine_message_and_checked_fix(capsys):
    code, out, err = run(capsys, "fit", "llama-3.3-70b", "--platform", "h100", "--json")
    assert code == 1  # would not start (exit codes: README)
    assert json.loads(out)["verdict"]["status"] == "does-not-fit"
    data = json.loads(out)
    assert data["memory"]["fits"] is False
    assert data["memory"]["refusal"].startswith("CUDA out of memory while loading the weights: 131.")
    assert data["smallest_tp"] == 4  # 70B bf16 over 2 ranks leaves no KV room at the default fraction
    assert data["fixes"][0].startswith("--tp-size 4 (checked:")
    assert err.startswith("error: refused at start-up (memory): CUDA out of memory while loading")
    code, out, _ = run(capsys, "fit", "llama-3.3-70b", "--platform", "h100", "--tp-size", "2", "--json")
    fixes = json.loads(out)["fixes"]
    assert json.loads(out)["memory"]["refusal"].startswith(
        "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.827. "
        "Raise --mem-fraction-static above 0.8"
    )
    # 0.85 leaves 4,936 tokens at the estimate but none at the low end of the estimates' range
    # (status "unknown", never a silent fit), so the first checked fraction is 0.88
    assert code == 1 and any(f.startswith("--mem-fraction-static 0.88 (checked:") for f in fixes)


def test_fit_vllm_refuses_and_names_the_smallest_tp(capsys):
    code, out, err = run(
        capsys,
        "fit",
        "qwen3-235b-a22b-fp8",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--tensor-parallel-size",
        "2",
        "--json",
    )
    assert code == 1
    data = json.loads(out)
    assert data["engine"] == "vllm" and data["smallest_tp"] == 4
    assert err.startswith("error: refused at start-up (memory): ")
    assert any(f.startswith("--tensor-parallel-size 4") for f in data["fixes"])


def test_fit_vllm_kv_needed_refusal_and_shorter_context_fix(capsys):
    code, out, _ = run(
        capsys,
        "fit",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "l4",
        "--max-model-len",
        "131072",
        "--json",
    )
    data = json.loads(out)
    assert code == 1
    assert (
        "KV cache is needed, which is larger than the available KV cache memory" in data["memory"]["refusal"]
    )
    assert any(f.startswith("--max-model-len ") for f in data["fixes"])


def test_explain_has_a_memory_section(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--json")
    assert code == 0
    memory = json.loads(out)["memory"]
    assert memory["kv_bytes_per_token_per_rank"] == 131072
    assert memory["weights_estimated"] is True
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100")
    assert "memory    weights 15.0 GiB/rank (estimate), KV cache" in out


def test_matrix_shows_kv_tokens_per_cell(capsys):
    code, out, _ = run(
        capsys,
        "matrix",
        "--models",
        "deepseek-v3",
        "--platforms",
        "h100,h200",
        "--fields",
        "kv_tokens",
        "--set",
        "tp_size=8",
        "--format",
        "json",
    )
    assert code == 0
    cells = {c["platform"]: c for c in json.loads(out)["cells"]}
    assert cells["h100"]["values"]["kv_tokens"] == "OOM"  # 671B in fp8 over 8 × 80 GB leaves no KV room
    assert (
        isinstance(cells["h200"]["values"]["kv_tokens"], int)
        and cells["h200"]["values"]["kv_tokens"] > 100_000
    )


def test_fit_reads_the_checkpoint_index_of_a_model_directory(capsys, tmp_path):
    from resolvable.sglang import load_model

    (tmp_path / "config.json").write_text(json.dumps(load_model("llama-3.1-8b").raw.to_dict()))
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": 16060522496}})
    )
    code, out, _ = run(capsys, "fit", str(tmp_path), "--platform", "h100", "--json")
    memory = json.loads(out)["memory"]
    assert code == 0
    assert memory["weights_estimated"] is False
    assert memory["weights_method"] == "model.safetensors.index.json metadata.total_size"
    assert memory["weights_gib_per_rank"] == round(16060522496 / 2**30, 2)


def test_checkpoint_total_size_ignores_a_bad_index(tmp_path):
    from resolvable.memory import checkpoint_total_size

    (tmp_path / "model.safetensors.index.json").write_text("{not json")
    assert checkpoint_total_size(tmp_path) is None
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": True}}))
    assert checkpoint_total_size(tmp_path) is None
    assert checkpoint_total_size("no-such-org/no-such-model") is None


def test_fit_takes_a_pasted_command_and_sglangs_unmodelled_memory_flags(capsys):
    code, out, _ = run(
        capsys,
        "fit",
        "--platform",
        "h100",
        "--json",
        "--",
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "llama-3.1-8b",
        "--tp",
        "2",
        "--mem-fraction-static",
        "0.9",
        "--max-total-tokens",
        "200000",
    )
    memory = json.loads(out)["memory"]
    assert code == 0
    assert memory["kv_tokens"] == 200000  # --max-total-tokens caps the pool
    assert memory["inputs"]["mem_fraction_static"] == 0.9 and memory["inputs"]["tp_size"] == 2
    assert memory["kv_bytes_per_token_per_rank"] == 65536  # 4 KV heads per rank


def test_fit_refuses_what_it_does_not_model_in_one_line(capsys):
    code, _, err = run(capsys, "fit", "whisper-large-v3", "--platform", "h100")
    assert code == 2 and err.startswith("error: whisper is an encoder-decoder model") and err.count("\n") == 1
    code, _, err = run(capsys, "fit", "llama-3.1-8b", "--platform", "cpu")
    assert code == 2 and "no device memory" in err and err.count("\n") == 1


def test_vllm_fit_uses_the_packs_resolved_kv_dtype_and_block_size(capsys):
    # GLM-MoE-DSA on CUDA SM10x: vLLM's model hook turns `auto` into fp8_e4m3 (spec §3.3), so a
    # token costs (576 MLA + 132 indexer) bytes × 78 layers = 55224; 0.34's block size is 64.
    code, out, _ = run(
        capsys,
        "fit",
        "glm-5",
        "--engine",
        "vllm",
        "--platform",
        "b200",
        "--tensor-parallel-size",
        "8",
        "--json",
    )
    memory = json.loads(out)["memory"]
    assert memory["inputs"]["kv_cache_dtype"] == "fp8_e4m3"
    assert memory["inputs"]["block_size"] == 64
    assert memory["kv_bytes_per_token_per_rank"] == 55224
    code, out, _ = run(
        capsys,
        "fit",
        "llama-3.1-8b",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--vllm-version",
        "0.33.0",
        "--json",
    )
    assert json.loads(out)["memory"]["inputs"]["block_size"] == 16 and code == 0


def test_explain_vllm_has_a_memory_section(capsys):
    """`explain --engine vllm` (and --json) shows the weights, the KV tokens and the concurrency
    at max_model_len for the resolved launch, like SGLang's memory line."""
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100")
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("memory "))
    assert "GiB/rank" in line and "KV cache" in line and "max_model_len" in line
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--json")
    mem = json.loads(out)["memory"]
    assert mem["engine"] == "vllm" and mem["fits"] and mem["kv_tokens"] > 100_000
    assert 14 < mem["weights_gib_per_rank"] < 16


def test_vllm_profile_run_sampler_and_release_defaults():
    """The profile run's sampler over max_num_seqs × vocab (sort-based top-k/top-p, ~36 B a
    logit) and the V0/V1 batch defaults: V0 profiles 256 sequences, V1 1024 on an H100."""
    from resolvable.vllm import load_model
    from resolvable.vllm.memory import SAMPLER_BYTES_PER_LOGIT, activation_peak, profile_batch

    assert profile_batch(79.19, "NVIDIA H100 80GB HBM3", 1, "0.6", 8192)[:2] == (8192, 256)
    assert profile_batch(79.19, "NVIDIA H100 80GB HBM3", 1, "0.11", 8192)[:2] == (8192, 1024)
    assert profile_batch(79.15, "NVIDIA A100-SXM4-80GB", 1, "0.11", 8192)[:2] == (2048, 256)
    hf = load_model("gpt-oss-120b")
    peak = activation_peak(hf, 1024, 1, 1024)
    assert peak.value == 1024 * 201088 * SAMPLER_BYTES_PER_LOGIT + 0.1 * (1 << 30)
    assert "sampler" in peak.why and peak.low < peak.value < peak.high
