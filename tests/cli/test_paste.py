"""Pasting a whole sglang launch command after `--` (issue 9 item 2), through main()."""

from __future__ import annotations

import json

import pytest

from golden import golden_argv
from resolvable.cli import main
from resolvable.sglang.launch import LaunchError, parse_launch

# golden cases of sglang 0.5.15 (spec): pinned (``run`` names the release)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` for sglang 0.5.15 (``golden_argv``: unless ``argv`` names a release)."""
    code = main(golden_argv(argv))
    out, err = capsys.readouterr()
    return code, out, err


def explain_json(capsys, *pasted: str, platform: str = "b200") -> dict:
    code, out, err = run(capsys, "explain", "--platform", platform, "--json", "--", *pasted)
    assert code == 0, err
    return json.loads(out)


LAUNCHERS = [
    ["python", "-m", "sglang.launch_server"],
    ["python3", "-m", "sglang.launch_server"],
    ["/opt/venv/bin/python3.11", "-u", "-m", "sglang.launch_server"],
    ["sglang", "serve"],
    ["sglang.launch_server"],
    [],  # the flags alone
]


@pytest.mark.parametrize("launcher", LAUNCHERS, ids=lambda w: " ".join(w) or "flags")
def test_each_pasted_form_gives_the_same_resolution(capsys, launcher):
    data = explain_json(
        capsys, *launcher, "--model-path", "deepseek-v3", "--tp", "8", "--enable-torch-compile"
    )
    assert data["model"] == "deepseek-v3" and data["arch"] == "DeepseekV3ForCausalLM"
    assert data["user_args"] == {"tp_size": 8, "model_path": "deepseek-v3"}
    assert data["fields"]["attention_backend"]["value"] == "trtllm_mla"
    assert data["not_modelled"] == {
        "flags": ["--enable-torch-compile"],
        "values": {"enable_torch_compile": True},
        "env": {},  # the launch's environment assignments that no rule reads (none here)
    }


def test_text_output_names_the_command_and_the_not_modelled_flags(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--",
        "python",
        "-m",
        "sglang.launch_server",
        "--model",
        "llama-3.1-8b",
        "--enable-torch-compile",
        "--cuda-graph-max-bs",
        "256",
    )
    assert code == 0
    assert out.startswith(
        "command   python -m sglang.launch_server\nmodel     llama-3.1-8b  [LlamaForCausalLM]"
    )
    assert (
        "not modelled  --enable-torch-compile, --cuda-graph-max-bs 256: accepted, does not affect the "
        "resolved fields in this pack"
    ) in out


def test_one_pasted_string_with_backslash_continuations(capsys):
    command = (
        "SGLANG_EMBEDDINGS_SPARSE_HEAD=1 python -m sglang.launch_server \\\n"
        "  --model-path llama-3.1-8b \\\n"
        "  --speculative-algorithm eagle --tp 2"
    )
    data = explain_json(capsys, command, platform="h100")
    assert data["user_args"] == {"tp_size": 2, "speculative_algorithm": "EAGLE", "model_path": "llama-3.1-8b"}
    assert any("upper-cases" in n for n in data["input_notes"])
    # the assignment is the environment the rules see: the sparse-head pass disables overlap
    assert data["fields"]["disable_overlap_schedule"]["value"] is True


def test_env_assignments_reach_the_rules_and_env_flag_wins(capsys):
    base = ["python", "-m", "sglang.launch_server", "--model-path", "llama-3.1-8b"]
    assert "disable_overlap_schedule" not in explain_json(capsys, *base, platform="h100")["fields"]
    data = explain_json(capsys, "env", "SGLANG_EMBEDDINGS_SPARSE_HEAD=1", *base, platform="h100")
    assert data["fields"]["disable_overlap_schedule"]["value"] is True


def test_resolvable_options_may_follow_the_pasted_command(capsys):
    code, out, _ = run(
        capsys, "explain", "--", "sglang", "serve", "--model-path", "gpt-oss-120b", "--platform", "b200",
        "--field", "attention_backend",
    )  # fmt: skip
    assert code == 0 and "attention_backend = 'trtllm_mha'" in out and "page_size =" not in out


def test_hub_id_resolves_to_the_bundled_sample(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))  # an empty hub cache
    data = explain_json(capsys, "sglang", "serve", "--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "8")
    assert data["model"] == "deepseek-ai/DeepSeek-V3" and data["arch"] == "DeepseekV3ForCausalLM"


def test_resolve_and_diff_take_a_pasted_command(capsys):
    code, out, err = run(
        capsys, "resolve", "--platform", "b200", "--json", "--", "sglang", "serve", "--model-path",
        "deepseek-v3", "--tp", "8", "--disaggregation-transfer-backend", "nixl",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["values"]["attention_backend"] == "trtllm_mla"
    assert data["not_modelled"]["flags"] == ["--disaggregation-transfer-backend nixl"]
    code, out, err = run(
        capsys, "diff", "--platform", "h100", "--vs-platform", "b200", "--", "python", "-m",
        "sglang.launch_server", "--model-path", "deepseek-v3", "--tp", "8",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("deepseek-v3: h100  vs  b200") and "trtllm_mla" in out


def test_pasted_command_without_a_model_is_a_usage_error(capsys):
    code, out, err = run(
        capsys, "explain", "--platform", "h100", "--", "python", "-m", "sglang.launch_server", "--tp", "8"
    )
    assert code == 2 and out == ""
    # the pack's words, as for every engine (the SGLang front-end had its own, issue 26)
    assert err.startswith("error: no model: pass MODEL, or paste the launch command after `--`")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("pasted", "needle"),
    [
        (["python", "train.py"], "not an sglang server"),
        (["python", "-m", "vllm.entrypoints.openai.api_server"], "would serve its default, Qwen/Qwen3-0.6B"),
        (
            ["python", "-m", "vllm.entrypoints.api_server"],
            "-m vllm.entrypoints.api_server, not a vLLM server",
        ),
        (["sglang", "generate"], "only `sglang serve` launches a server"),
        (["torchrun", "x.py"], "starts with 'torchrun'"),
        (["sglang", "serve", "--model-path", "x", "--model-type", "diffusion"], "diffusion server"),
        (["sglang", "serve", "--model-path", "llama-3.1-8b", "--enable-torch-compille"], "did you mean"),
        (["sglang", "serve", "--model-path", "llama-3.1-8b", "--no-such-flag-at-all"], "has no such flag"),
        (["sglang", "serve", "--model-path", "llama-3.1-8b", "--pp", "2"], "ambiguous option: --pp"),
        (
            ["sglang", "serve", "--model-path", "llama-3.1-8b", "--mamba-backend", "trion"],
            "did you mean 'triton'",
        ),
    ],
)
def test_bad_pasted_commands_are_one_line_errors(capsys, pasted, needle):
    code, _, err = run(capsys, "explain", "--platform", "h100", "--", *pasted)
    # sglang's parser refuses the flag or its value: it would not start
    engine_refusal = needle in ("did you mean", "has no such flag", "did you mean 'triton'")
    assert code == (1 if engine_refusal else 2) and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_two_models_are_refused(capsys):
    code, _, err = run(capsys, "explain", "llama-3.1-8b", "--", "sglang", "serve", "--model-path", "qwen3-8b")
    assert code == 2 and "two models" in err


def test_sglang_serve_model_type_is_dropped():
    launch = parse_launch(["sglang", "serve", "--model-type", "llm", "--model-path", "m"])
    assert launch.argv == ["--model-path", "m"] and launch.launcher == "sglang serve"


def test_launch_parser_env_and_quoting():
    launch = parse_launch(["A=1 B='x y' python3 -m sglang.launch_server --model-path m \\\n --tp 2"])
    assert launch.env == {"A": "1", "B": "x y"}
    assert launch.argv == ["--model-path", "m", "--tp", "2"]
    with pytest.raises(LaunchError, match="cannot split"):
        parse_launch(["python -m sglang.launch_server --model-path 'unterminated"])
