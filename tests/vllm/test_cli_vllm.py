"""The vLLM commands through ``resolvable.cli.main`` (``--engine vllm``)."""

from __future__ import annotations

import json

from resolvable.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_acceptance_example_explains_triton_mla_and_the_rejected_candidates(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "deepseek-v3",
        "--engine",
        "vllm",
        "--platform",
        "b200",
        "--tensor-parallel-size",
        "8",
        "--block-size",
        "16",
        "--vllm-version",
        "0.33.0",
    )
    assert code == 0
    assert "attn_backend_mla = 'TRITON_MLA'" in out
    assert "✗ FLASHINFER_MLA: block_size not supported" in out
    assert "✗ CUTLASS_MLA: block_size not supported" in out
    assert "✓ TRITON_MLA (chosen)" in out
    assert "precluded higher-priority backend(s) FLASHINFER_MLA, CUTLASS_MLA" in out
    assert "rules     vllm 0.33.0" in out


def test_explain_json_carries_the_candidates(capsys):
    code, out, _ = run(capsys, "explain", "gpt-oss-120b", "--engine=vllm", "--platform", "a100", "--json")
    data = json.loads(out)
    assert code == 0 and data["engine"] == "vllm"
    choice = data["fields"]["attn_backend_full"]["steps"][0]["choice"]
    assert choice["chosen"] == "TRITON_ATTN"
    flash = next(c for c in choice["candidates"] if c["name"] == "FLASH_ATTN")
    assert "attention sinks not supported" in flash["reasons"]


def test_explain_refusal_is_one_error_line_and_exit_2(capsys):
    code, out, err = run(capsys, "explain", "deepseek-v3.2", "--engine", "vllm", "--platform", "a100")
    assert code == 1
    assert err.startswith("error: refused: No valid attention backend found")
    assert err.count("\n") == 1
    assert "refused by select_backends" in out


def test_resolve_table_and_json(capsys):
    code, out, _ = run(capsys, "resolve", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100")
    assert code == 0 and "attn.backends.full" in out and "FLASH_ATTN" in out
    code, out, _ = run(capsys, "resolve", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--json")
    data = json.loads(out)
    assert data["context"]["attn"]["backends"]["full"] == "FLASH_ATTN"
    assert data["values"]["flash_attn_version"] == 3


def test_kernels_flag_and_attention_config(capsys):
    code, out, _ = run(
        capsys,
        "resolve",
        "gpt-oss-120b",
        "--engine",
        "vllm",
        "--platform",
        "b200",
        "--kernels",
        "flashinfer=0",
        "--attention-config",
        '{"backend_per_kind": {"sliding_window": "TRITON_ATTN"}}',
        "--json",
    )
    values = json.loads(out)["values"]
    assert code == 0
    assert "flashinfer" not in values["installed_kernels"]
    assert (values["attn_backend_full"], values["attn_backend_sliding_window"]) == (
        "FLASH_ATTN",
        "TRITON_ATTN",
    )


def test_bad_inputs_are_one_error_line(capsys):
    for argv in (
        [
            "explain",
            "llama-3.1-8b",
            "--engine",
            "vllm",
            "--platform",
            "h100",
            "--attention-backend",
            "FLASHINFERR",
        ],
        ["explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--kernels", "nope=1"],
        ["explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h1000"],
        ["explain", "no-such-model", "--engine", "vllm", "--platform", "h100"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2, argv
        assert err.startswith("error:") and "Traceback" not in err, argv


def test_a_value_the_engines_parser_refuses_is_a_refusal_in_every_input_form(capsys):
    """Issue 26: vLLM's parser refusing a flag's value is ``refused`` (exit 1), as ``fit`` says,
    whether the flag is given to the tool or in a pasted command (it was exit 2 before the tool's
    flags went through the front door)."""
    for argv in (
        ["explain", "llama-3.1-8b", "--engine", "vllm", "--attention-config", "{bad json"],
        ["explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--dtype", "bogus"],
        ["resolve", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--tensor-parallel-size", "x"],
        ["explain", "--platform", "h100", "--", "vllm", "serve", "llama-3.1-8b", "--dtype", "bogus"],
        ["fit", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--dtype", "bogus"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 1, argv
        assert "--dtype" in err or "--attention-config" in err or "--tensor-parallel-size" in err, err
        assert "Traceback" not in err, argv


def test_matrix_models_and_backends(capsys):
    code, out, _ = run(
        capsys,
        "matrix",
        "--engine",
        "vllm",
        "--models",
        "llama-3.1-8b,deepseek-v3",
        "--platforms",
        "t4,h100,b200,cpu",
        "--format",
        "md",
        "--vllm-version",
        "0.33.0",
    )
    assert code == 0
    assert "| llama-3.1-8b | TRITON_ATTN bs16 | FLASH_ATTN bs16 | FLASHINFER bs16 | CPU_ATTN bs128 |" in out
    assert (
        "| deepseek-v3 | TRITON_MLA bs16 | FLASH_ATTN_MLA bs16 | FLASHINFER_MLA bs32 | CPU_MLA bs16 |" in out
    )
    code, out, _ = run(capsys, "models", "--engine", "vllm")
    assert code == 0 and "gpt-oss-120b" in out and "full, sliding_window" in out
    code, out, _ = run(capsys, "backends", "--engine", "vllm", "--format", "json")
    rows = json.loads(out)["backends"]
    assert {r["backend"] for r in rows} >= {"FLASH_ATTN", "FLASHINFER_MLA", "ROCM_ATTN", "CPU_ATTN"}


def test_sglang_stays_the_default_engine(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100")
    assert code == 0 and "rules     sglang" in out
    code, out2, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--engine", "sglang")
    assert code == 0 and out2 == out
