"""Fixtures shared by the CLI tests.

``sglang_corpus_online``: the published sglang launches of tests/cli/data/sglang_launch_corpus.json
read through the hub path: each hub id the corpus names is served by a local stand-in of the hub
(127.0.0.1, ``HF_ENDPOINT``) with the bundled sample its entry names, into an empty cache per test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hubserver import HubServer

SGLANG_CORPUS = json.loads((Path(__file__).parent / "data" / "sglang_launch_corpus.json").read_text())
SAMPLES = Path(__file__).resolve().parents[2] / "src" / "resolvable" / "sglang" / "models"


@pytest.fixture(scope="module")
def sglang_corpus_hub():
    with HubServer() as server:
        for repo, sample in SGLANG_CORPUS["repos"].items():
            server.add(repo, {"config.json": (SAMPLES / f"{sample}.json").read_text()})
        yield server


@pytest.fixture
def sglang_corpus_online(sglang_corpus_hub, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", sglang_corpus_hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return sglang_corpus_hub
