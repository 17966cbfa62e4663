"""Issue 32 acceptance line: `upgrade --from 0.20.0 --to 0.34.0` (vLLM) on the real published
launches of tests/vllm/vllm_serve_corpus.py attributes every value that changes to a named
change (vllm/since.py: the changes the deciding rule read that arrived after 0.20.0)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from resolvable.cli import main
from resolvable.vllm.changes import CHANGES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vllm"))
from vllm_serve_corpus import CORPUS


def _upgrade(capsys, case):
    argv = ["upgrade", "--from", "0.20.0", "--to", "0.34.0", "--platform", case.platform, "--json"]
    code = main([*argv, "--", case.command])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, json.loads(out)


def test_every_changed_value_from_0_20_0_names_its_change(capsys):
    changed = 0
    for case in CORPUS:
        code, doc = _upgrade(capsys, case)
        assert code in (0, 1), (case.command, code)
        assert (doc["from"], doc["to"]) == ("0.20.0", "0.34.0")
        for c in doc["changes"]:
            changed += 1
            assert c["named"], (case.command, c["field"])
            names = re.findall(r"\(([A-Z][A-Z0-9_]+)\)", c["named_by"])
            assert names, (case.command, c["field"], c["named_by"])
            assert all(n in CHANGES and CHANGES.get(n).since != "0.20.0" for n in names), c["since"]
    assert changed >= 100  # measured 2026-12-05: 186 changed values on 33 launches, all named


def test_the_0_20_1_capture_size_change_is_named(capsys):
    """A launch whose token budget is off the capture grid: 0.20.0 stops at 288, later releases
    capture the budget (CHANGES.CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET, 0.20.1)."""
    argv = ["upgrade", "--from", "0.20.0", "--to", "0.34.0", "--platform", "h100", "--json", "--"]
    code = main([*argv, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-batched-tokens 300"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    sizes = {c["field"]: c for c in doc["changes"]}["max_cudagraph_capture_size"]
    assert (sizes["before"], sizes["after"]) == (288, 300)
    assert "0.20.1 (CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET)" in sizes["named_by"]
