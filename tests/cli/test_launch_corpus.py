"""Issue 20 acceptance: real, published sglang launch commands (tests/cli/data/sglang_launch_corpus.json,
each with its source) run as pasted, through the hub path: every hub id is fetched from a local
stand-in of the hub (127.0.0.1, ``HF_ENDPOINT``) into an empty cache. Every command gets an answer
(accepted, refused with the reason, or a one-line input error naming the fix); none a tool error."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from resolvable.cli import main

DATA = json.loads((Path(__file__).parent / "data" / "sglang_launch_corpus.json").read_text())


def test_the_corpus_is_real_and_large_enough():
    commands = DATA["commands"]
    assert len(commands) >= 30
    assert len({c["id"] for c in commands}) == len(commands)
    for c in commands:
        assert c["source"].startswith("https://"), c["id"]
        assert "sglang.launch_server" in c["command"], c["id"]


@pytest.mark.parametrize("case", DATA["commands"], ids=[c["id"] for c in DATA["commands"]])
def test_every_published_command_gets_an_answer(sglang_corpus_online, capsys, case):
    mode = case.get("mode", "explain")
    argv = [mode, *case["resolvable"], "--", *shlex.split(case["command"])]
    code = main(argv)
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    # 0 would start, 1 would not start, 2 an input error, 3 memory unknown offline (or parse-only)
    assert code in (0, 1, 2, 3), (code, err)
    text = out + err
    assert case["says"] in text, text[-2000:]
    expect = case["expect"]
    if code in (1, 2, 3):  # an answer, not a crash: one error line with the reason (and the fix)
        assert err.strip().splitlines()[-1].startswith("error: "), err
        assert len([line for line in err.splitlines() if line.startswith("error: ")]) == 1
    if expect == "accepted":  # the rules accept it; memory may still say it does not fit
        assert "accepted, and would start" in out, text[-2000:]
        assert (
            code == 0
            or (code == 1 and "does not fit" in out)
            or (code == 3 and "verdict   unknown: may not fit" in out)
        ), text[-2000:]
    elif expect == "startup":
        assert code == 1 and "refused at start-up" in err
    elif expect == "refused":
        assert code == 1 and ("refused" in err or "is not a flag of sglang" in err), err
    elif expect == "error":  # the tool's input error (2), or a flag sglang's parser refuses (1)
        assert code == 2 or (code == 1 and "unknown flag" in err), err
        assert "refused" not in err.split("\n")[0][:20], err
    # every hub id of the command came through the hub path (fetched from the stand-in), unless
    # the flags were refused before any model was read
    parsed = "is not a flag of sglang" not in err and "unknown flag" not in err
    repos = [w for w in shlex.split(case["command"]) if w in DATA["repos"]]
    for repo in repos:
        if "--config" not in case["resolvable"] and parsed and "--model" in case["command"]:
            assert any(path.startswith(f"/{repo}/resolve/") for _, path in sglang_corpus_online.requests), (
                repo
            )
