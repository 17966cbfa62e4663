"""The corpus of published `vllm serve` launches (issue 17 acceptance): every one parses and gets an
answer — accepted, or refused by a rule with vLLM's message — never a tool error."""

from __future__ import annotations

import json

import pytest
from vllm_serve_corpus import CORPUS

from resolvable.cli import main


def test_the_corpus_is_large_enough_and_sourced():
    assert len(CORPUS) >= 30
    assert all(case.source.startswith("https://") for case in CORPUS)
    assert len({case.command for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[f"{i:02d}" for i in range(len(CORPUS))])
def test_each_published_command_gets_an_answer(capsys, case):
    code = main(["explain", "--platform", case.platform, "--json", "--", case.command])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    data = json.loads(out)
    if case.outcome == "accepted":  # the rules accept it; on this preset the memory may not fit
        assert data["startup"]["would_start"], err
        assert code == 0 or (code == 1 and data["verdict"]["status"] == "does-not-fit"), err
        assert data["engine"] == "vllm" and data["vllm_version"] in (
            "0.30.0",
            "0.31.0",
            "0.32.0",
            "0.33.0",
            "0.34.0",
        )
        assert data["arch"]
    else:
        assert code == 1, out  # would not start
        assert err.startswith("error: refused:"), err
        assert case.needle in err
        assert data["refused"] if "refused" in data else data.get("rule")
