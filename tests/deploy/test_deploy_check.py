"""``resolvable launches`` and ``resolvable check`` on deployment files: text, JSON, SARIF 2.1.0
(validated against the vendored OASIS schema), exit codes, assumed values, and ``--against REV``
on a git repository made here (a tag bump 0.33.0 → 0.34.0 shows block size 16 → 64)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import jsonschema
import pytest

from resolvable.cli import main

HERE = os.path.dirname(__file__)
SCHEMA = os.path.join(HERE, "data", "sarif-schema-2.1.0.json")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
      - name: vllm
        image: vllm/vllm-openai:{tag}
        args:
        - qwen3-8b
        - --max-model-len
        - "8192"{extra}
        resources:
          limits:
            nvidia.com/gpu: "{gpus}"
"""


def _write(tmp_path, tag="v0.34.0", extra="", gpus=1, name="deploy.yaml"):
    path = tmp_path / name
    path.write_text(DEPLOYMENT.format(tag=tag, extra=extra, gpus=gpus))
    return str(path)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_launches_json_lists_the_record(tmp_path, capsys):
    path = _write(tmp_path)
    code, out, _ = _run(capsys, "launches", "--json", path)
    assert code == 0
    (launch,) = json.loads(out)
    assert launch["engine"] == "vllm" and launch["release"] == "0.34.0"
    assert launch["argv"] == ["vllm", "serve", "qwen3-8b", "--max-model-len", "8192"]
    assert launch["gpus_per_node"] == 1 and launch["gpu"] == "NVIDIA-H100-80GB-HBM3"
    assert launch["line"] == 12 and launch["file"] == path


def test_check_a_launch_that_starts(tmp_path, capsys):
    code, out, _ = _run(capsys, "check", _write(tmp_path))
    assert code == 0
    assert "would start" in out and "assumed" not in out  # platform and GPUs came from the file


def test_check_a_refused_launch_points_at_the_argument(tmp_path, capsys):
    path = _write(tmp_path, extra='\n        - --tensor-parallel-size\n        - "3"', gpus=4)
    code, out, _ = _run(capsys, "check", "--json", path)
    assert code == 1
    (result,) = json.loads(out)["launches"]
    assert result["verdict"]["status"] == "refused"
    assert "divisible by tensor parallel size (3)" in result["verdict"]["message"]
    assert result["verdict"]["line"] == 17  # the --tensor-parallel-size line


def test_check_sarif_validates_against_the_2_1_0_schema(tmp_path, capsys):
    path = _write(tmp_path, extra='\n        - --tensor-parallel-size\n        - "3"', gpus=4)
    code, out, _ = _run(capsys, "check", "--format", "sarif", path)
    assert code == 1
    sarif = json.loads(out)
    with open(SCHEMA, encoding="utf-8") as fh:
        jsonschema.validate(sarif, json.load(fh))
    (result,) = sarif["runs"][0]["results"]
    assert result["level"] == "error" and result["ruleId"].startswith("refused/")
    region = result["locations"][0]["physicalLocation"]
    assert region["region"]["startLine"] == 17 and region["artifactLocation"]["uri"].endswith("deploy.yaml")
    assert sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"] == result["ruleId"]


def test_check_fills_in_and_names_assumed_values(tmp_path, capsys):
    path = tmp_path / "run.sh"
    path.write_text("vllm serve qwen3-8b --max-model-len 8192\n")
    code, _, _ = _run(capsys, "check", str(path))
    assert code == 2  # no platform in the file and none given: unchecked, the tool's input is missing
    code, out, _ = _run(capsys, "check", "--json", "--platform", "h100", "--gpus", "2", str(path))
    assert code == 0
    (result,) = json.loads(out)["launches"]
    assert result["assumed"]["platform"] == "h100 (--platform)"
    assert result["assumed"]["gpus_per_node"] == "2 (--gpus)"
    assert "release" in result["assumed"]  # no image: the default release, said so


def test_a_release_outside_the_range_is_said_and_answered_only_when_asked(tmp_path, capsys):
    path = _write(tmp_path, tag="v0.9.1")
    code, out, _ = _run(capsys, "check", "--json", path)
    assert code == 2
    (result,) = json.loads(out)["launches"]
    assert "outside the modelled range" in result["verdict"]["message"]
    code, out, _ = _run(capsys, "check", "--json", "--nearest", path)
    (result,) = json.loads(out)["launches"]
    assert result["verdict"]["status"] == "starts" and "nearest" in result["assumed"]["release"]


def test_hostile_file_is_one_line_error(tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi")
    ))  # fmt: skip
    code, out, err = _run(capsys, "check", "--platform", "h100", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "aliases" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_a_git_revision_reports_the_upgrade(tmp_path, capsys):
    repo = tmp_path / "ops"
    repo.mkdir()

    def git(*args):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                            "GIT_COMMITTER_EMAIL": "t@t"})  # fmt: skip

    git("init", "-q")
    path = _write(repo, tag="v0.33.0")
    git("add", ".")
    git("commit", "-qm", "0.33")
    _write(repo, tag="v0.34.0")
    code, out, _ = _run(capsys, "check", path, "--against", "HEAD")
    assert code == 0
    assert "vllm/vllm-openai:v0.33.0` → `vllm/vllm-openai:v0.34.0" in out
    assert "**vLLM 0.33.0 → 0.34.0**" in out
    assert "| block_size | 16 | 64 | 0.34.0 (DEFAULT_BLOCK_SIZE_64) |" in out
    git("commit", "-qam", "0.34")
    code, out, _ = _run(capsys, "check", path, "--against", "HEAD")
    assert code == 0 and "No launch changed" in out
