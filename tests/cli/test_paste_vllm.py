"""Pasted vLLM launches (issue 17 items 3-5): `vllm serve`, the api_server module, ENV=VALUE prefixes,
backslash continuations, docker images whose tag names the release, the engine read from the
command, every flag accepted (modelled or listed), the environment sorted per release."""

from __future__ import annotations

import json

import pytest

from resolvable.cli import main
from resolvable.cli.paste import read, tag_release, words_of


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def explain_json(capsys, *pasted: str, own: tuple[str, ...] = ("--platform", "h100")) -> dict:
    code, out, err = run(capsys, "explain", *own, "--json", "--", *pasted)
    data = json.loads(out)
    assert code == data["verdict"]["exit_code"] and code in (0, 1), err  # 1: memory (one GPU)
    assert data["startup"]["would_start"], err
    return data


def test_the_issue_command_gets_an_answer(capsys):
    """The issue's example: `vllm serve` with everyday flags, no --engine."""
    code, out, err = run(
        capsys,
        "explain",
        "--platform",
        "h200",
        "--",
        "vllm",
        "serve",
        "deepseek-ai/DeepSeek-R1",
        "--trust-remote-code",
        "--tensor-parallel-size",
        "8",
        "--enable-expert-parallel",
    )
    assert code == 0, err
    assert "command   vllm serve" in out
    assert "flags     --tensor-parallel-size 8 --enable-expert-parallel" in out
    assert "not modelled (accepted, not read by the rules): --trust-remote-code" in out
    assert "release   vLLM 0.34.0" in out


def test_one_string_with_continuations_env_prefixes_and_shell_noise(capsys):
    data = explain_json(
        capsys,
        "VLLM_MLA_DISABLE=1 CUDA_VISIBLE_DEVICES=0,1 nohup vllm serve deepseek-ai/DeepSeek-V3 \\\n"
        "  --tensor_parallel_size=2 \\\n  --dtype half --port 8001 > serve.log 2>&1 &",
    )
    assert data["launcher"] == "vllm serve"
    assert data["flags"] == {"tensor_parallel_size": 2, "dtype": "float16"}
    assert data["not_modelled"] == {"port": 8001}
    assert data["environment"]["modelled"] == {"VLLM_MLA_DISABLE": "1"}
    assert data["environment"]["not_modelled"] == {"CUDA_VISIBLE_DEVICES": "0,1"}
    assert data["user_args"]["dtype"] == "float16"


def test_api_server_module_reads_model_option(capsys):
    data = explain_json(
        capsys, "python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "openai/gpt-oss-20b"
    )
    assert (
        data["model"] == "openai/gpt-oss-20b"
        and data["launcher"] == "python -m vllm.entrypoints.openai.api_server"
    )


def test_docker_tag_names_the_release(capsys):
    data = explain_json(
        capsys,
        "docker run --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface -e HF_TOKEN=x "
        "-p 8000:8000 --ipc=host vllm/vllm-openai:v0.32.0 --model Qwen/Qwen3-8B --max-model-len 8192",
    )
    assert data["vllm_version"] == "0.32.0"
    assert data["environment"]["not_modelled"] == {"HF_TOKEN": "x"}
    assert data["not_modelled"] == {}
    assert data["flags"]["max_model_len"] == 8192  # read by the engine-configuration rules


def test_docker_latest_is_the_newest_and_explain_says_so(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--",
        "docker",
        "run",
        "vllm/vllm-openai:latest",
        "Qwen/Qwen3-8B",
    )
    assert code == 0
    assert (
        "release   vLLM 0.34.0  (the image tag 'latest' names no release: read as the newest supported vLLM 0.34.0)"
        in out
    )


def test_sglang_docker_image_tag_names_the_sglang_release(capsys):
    code, out, err = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--",
        "docker run --gpus all --shm-size 32g lmsysorg/sglang:v0.5.16-cu129 "
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000",
    )
    assert code == 0, err
    assert "rules     sglang 0.5.16" in out


def test_engine_is_read_from_the_command(capsys):
    code, _, err = run(capsys, "explain", "--engine", "sglang", "--", "vllm", "serve", "Qwen/Qwen3-8B")
    assert code == 2 and "the pasted command starts vllm" in err


def test_model_flags_form_accepts_every_vllm_flag(capsys):
    code, out, err = run(
        capsys,
        "explain",
        "qwen3-30b-a3b",  # an MoE model: vLLM refuses --enable-expert-parallel on dense ones
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--max-model-len",
        "32768",
        "--trust-remote-code",
        "--gpu-memory-utilization",
        "0.9",
        "--enable-expert-parallel",
        "--data-parallel-size",
        "2",
        "--async-scheduling",
        "--enable-prefix-caching",
        "--speculative-config",
        '{"method": "ngram", "num_speculative_tokens": 3}',
        "--port",
        "8000",
        "--dtype",
        "half",
    )
    assert code == 0, err
    assert "--dtype half is read as float16" in out
    assert "--max-model-len 32768" in out and "--port 8000" in out
    assert "not modelled: --speculative-config" not in out  # every key is read now
    assert "speculative_method = 'ngram'" in out


def test_typo_and_other_release_flags(capsys):
    code, _, err = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--",
        "vllm",
        "serve",
        "Qwen/Qwen3-8B",
        "--max-modle-len",
        "4",
    )
    assert code == 1 and "did you mean --max-model-len?" in err  # vLLM's parser refuses: no start
    code, _, err = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--vllm-version",
        "0.32.0",
        "--",
        "vllm",
        "serve",
        "Qwen/Qwen3-8B",
        "--disable-prefix-caching",
    )
    assert code == 1
    assert "--disable-prefix-caching is not a flag of vLLM 0.32.0; it was added in vLLM 0.33.0" in err


def test_retired_variables_are_called_out_with_their_replacement(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--",
        "VLLM_ATTENTION_BACKEND=FLASHINFER VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B",
    )
    assert code == 0
    assert (
        "VLLM_ATTENTION_BACKEND: not a variable of this release; the attention backend is a flag now: --attention-backend"
        in out
    )
    assert "VLLM_USE_V1: not a variable of this release; the V1 engine is the only engine" in out


def test_removed_variable_is_refused_by_0_34_only(capsys):
    code, _, err = run(
        capsys, "explain", "--platform", "h100", "--", "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3-8B"
    )
    assert code == 1 and "Model Runner V1 has been removed" in err
    code, _, _ = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--vllm-version",
        "0.33.0",
        "--",
        "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3-8B",
    )
    assert code == 0


def test_vllm_version_auto_needs_an_installed_vllm(capsys):
    code, _, err = run(capsys, "explain", "qwen3-8b", "--engine", "vllm", "--vllm-version", "auto")
    assert code == 2 and "vllm is not installed" in err


def test_release_in_header_fingerprint_and_json(capsys):
    a = explain_json(
        capsys, "vllm", "serve", "Qwen/Qwen3-8B", own=("--platform", "h100", "--vllm-version", "0.33.0")
    )
    b = explain_json(
        capsys, "vllm", "serve", "Qwen/Qwen3-8B", own=("--platform", "h100", "--vllm-version", "0.34.0")
    )
    assert (a["vllm_version"], b["vllm_version"]) == ("0.33.0", "0.34.0")
    assert a["fingerprint"] != b["fingerprint"]


def test_diff_upgrade_matrix_across_releases(capsys):
    code, out, _ = run(
        capsys,
        "diff",
        "qwen3-8b",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--vllm-version",
        "0.33.0",
        "--vs-vllm-version",
        "0.34.0",
    )
    assert code == 0 and "@ vllm 0.33.0" in out and "@ vllm 0.34.0" in out
    code, out, _ = run(
        capsys,
        "upgrade",
        "--platform",
        "h100",
        "--from",
        "0.33.0",
        "--to",
        "0.34.0",
        "--",
        "vllm",
        "serve",
        "Qwen/Qwen3-8B",
    )
    assert code == 0 and "upgrade   vllm 0.33.0 → 0.34.0" in out
    code, out, _ = run(
        capsys,
        "matrix",
        "--engine",
        "vllm",
        "--models",
        "qwen3-8b",
        "--platforms",
        "h100",
        "--vllm-version",
        "0.33.0",
        "--vs-vllm-version",
        "0.34.0",
    )
    assert code == 0 and "vLLM 0.33.0 → 0.34.0" in out


# -- the paste reader ----------------------------------------------------------------------------


def test_words_drop_shell_noise():
    assert words_of(["vllm serve m --port 1 2>&1 | tee log.txt"]) == ["vllm", "serve", "m", "--port", "1"]
    assert words_of(["vllm serve m > out.log &"]) == ["vllm", "serve", "m"]


def test_docker_options_with_values_are_skipped():
    cmd = read(
        [
            "docker run --runtime nvidia --gpus all --env HF_TOKEN=t -e X=1 --name v vllm/vllm-openai:v0.30.0 m -tp 2"
        ]
    )
    assert (cmd.engine, cmd.tag, cmd.env) == ("vllm", "v0.30.0", {"HF_TOKEN": "t", "X": "1"})
    assert cmd.words == ["vllm", "serve", "m", "-tp", "2"]
    assert read(
        ["docker run -it lmsysorg/sglang bash -c 'python3 -m sglang.launch_server --model-path m'"]
    ).words[:3] == ["python3", "-m", "sglang.launch_server"]


@pytest.mark.parametrize(
    ("tag", "release", "note"),
    [
        ("v0.34.0", "0.34.0", False),
        ("v0.33.0-cu130", "0.33.0", False),
        ("latest", "0.34.0", True),
        ("nightly", "0.34.0", True),
    ],
)
def test_tag_release(tag, release, note):
    got, text = tag_release(tag, ["0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0"], "vLLM")
    assert got == release and (text is not None) == note


def test_unsupported_tag_is_refused():
    with pytest.raises(ValueError, match=r"vLLM 0\.11\.0, which resolvable does not model"):
        tag_release("v0.11.0", ["0.30.0", "0.34.0"], "vLLM")


def test_unknown_image_is_refused():
    with pytest.raises(ValueError, match="is not an image of SGLang or vLLM"):
        read(["docker run nginx:latest"])


def test_sglang_launch_env_is_listed_when_not_modelled(capsys):
    code, out, _ = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--sglang-version",
        "0.5.23",
        "--",
        "CUDA_VISIBLE_DEVICES=0 SGLANG_USE_AITER=0 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
    )
    assert code == 0
    assert "env       not modelled (not read by the rules): CUDA_VISIBLE_DEVICES=0" in out
    assert "SGLANG_USE_AITER=0" not in out.split("env       not modelled")[1].split("\n")[0]
