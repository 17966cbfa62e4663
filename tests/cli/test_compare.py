"""``resolvable compare`` (issue 31): for each engine, the values and the verdict that ``explain``
gives for that engine's form of the launch, over both engines' real-command corpora
(tests/cli/data/sglang_launch_corpus.json, tests/vllm/vllm_serve_corpus.py); the published
two-engine comparison of the memory corpus (vllm-project/vllm#21348)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from hubserver import HubServer
from resolvable.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vllm"))
from vllm_serve_corpus import CORPUS as VLLM_CORPUS

DATA = json.loads((Path(__file__).parent / "data" / "sglang_launch_corpus.json").read_text())
SAMPLES = Path(__file__).resolve().parents[2] / "src" / "resolvable" / "sglang" / "models"
#: the sglang corpus's explain cases that compare takes as they are (no --config: a local
#: directory stands for the model there, which compare does not take)
SGLANG_CASES = [
    c for c in DATA["commands"] if c.get("mode", "explain") == "explain" and "--config" not in c["resolvable"]
]


@pytest.fixture(scope="module")
def hub():
    with HubServer() as server:
        for repo, sample in DATA["repos"].items():
            server.add(repo, {"config.json": (SAMPLES / f"{sample}.json").read_text()})
        yield server


@pytest.fixture
def online(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return hub


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return code, out, err


def _explain(capsys, side, platform, engine, gpus=None):
    """``explain --json`` run on its own for one side's command, as a user would."""
    option = "--sglang-version" if engine == "sglang" else "--vllm-version"
    extra = ["--gpus", str(gpus)] if gpus and engine == "vllm" else []
    code, out, _err = _run(
        capsys,
        [
            "explain",
            "--json",
            "--platform",
            platform,
            option,
            side["release"],
            *extra,
            "--",
            *side["command"],
        ],
    )
    return code, (json.loads(out) if out.strip() else None)


def _check_sides(capsys, doc, platform, gpus=None):
    from resolvable.compare import Side, verdict_of

    for engine, side in doc["sides"].items():
        code, explained = _explain(capsys, side, platform, engine, gpus)
        assert code == side["exit_code"], (engine, side["command"])
        assert side["explain"] == explained, (engine, side["command"])
        ownside = Side(engine, side["release"], tuple(side["command"]), explained, None, code)
        assert verdict_of(ownside).to_dict() == side["verdict"]
        if explained and "fingerprint" in explained:  # the same resolution: the same values
            assert side["explain"]["fingerprint"] == explained["fingerprint"]


@pytest.mark.parametrize("case", SGLANG_CASES, ids=[c["id"] for c in SGLANG_CASES])
def test_compare_matches_explain_on_the_sglang_corpus(online, capsys, case):
    own = case["resolvable"]
    code, out, err = _run(capsys, ["compare", "--json", *own, "--", *shlex.split(case["command"])])
    if not out.strip():  # the launch itself is refused or not read: explain's one error line
        assert case["expect"] in ("error", "refused"), err
        assert code == 2 and err.strip().splitlines()[-1].startswith("error: "), err
        assert case["says"] in err
        return
    doc = json.loads(out)
    assert doc["source"] == "sglang" and doc["target"] == "vllm"
    platform = own[own.index("--platform") + 1]
    _check_sides(capsys, doc, platform)
    if case["expect"] == "accepted":
        assert doc["sides"]["sglang"]["verdict"]["outcome"] in ("starts", "does-not-fit")
    elif case["expect"] in ("refused", "startup"):
        assert doc["sides"]["sglang"]["verdict"]["outcome"] == "refused"


@pytest.mark.parametrize("case", VLLM_CORPUS, ids=[f"{i:02d}" for i in range(len(VLLM_CORPUS))])
def test_compare_matches_explain_on_the_vllm_corpus(capsys, case):
    _, out, _ = _run(capsys, ["compare", "--json", "--platform", case.platform, "--", case.command])
    doc = json.loads(out)
    assert doc["source"] == "vllm" and doc["target"] == "sglang"
    _check_sides(capsys, doc, case.platform)
    expected = "refused" if case.outcome == "refused" else None
    if expected:
        assert doc["sides"]["vllm"]["verdict"]["outcome"] == "refused"
    else:
        assert doc["sides"]["vllm"]["verdict"]["outcome"] in ("starts", "does-not-fit")
