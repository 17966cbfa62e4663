"""Issue 32 acceptance line: `upgrade --from 0.5.5 --to 0.5.23` (SGLang) on the real published
launches of tests/cli/data/sglang_launch_corpus.json: every value that changes is attributed to
a named change of sglang/changes.py that arrived after the oldest resolved release, and a flag
0.5.23 no longer has is named in the refusal with its replacement. The oldest release is read
from the pack (``SGLANG_RELEASES[0]``), so the test follows the boundary if it moves."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from resolvable.cli import main
from resolvable.flag_history import version_key
from resolvable.sglang import SGLANG_RELEASES
from resolvable.sglang.changes import CHANGES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_upgrade_across import SGLANG, SGLANG_ERRORS, _tool_options

OLDEST = SGLANG_RELEASES[0]
#: entries 0.5.5's own parser refuses (flags it does not have yet, or the command's own typo),
#: and local model paths not on this machine: input errors (exit 2), named in one line
INPUT_ERRORS = {
    **{k: v for k, v in SGLANG_ERRORS.items() if k.endswith("-local")},
    "recall-24-config": "--disable-custom-all-reduce,",
}


def _upgrade(capsys, case) -> tuple[int, str, str]:
    words = shlex.split(case["command"])
    argv = ["upgrade", "--from", OLDEST, "--to", "0.5.23", "--json", *_tool_options(case["resolvable"])]
    code = main([*argv, "--", *words])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.mark.parametrize("case", SGLANG["commands"], ids=[c["id"] for c in SGLANG["commands"]])
def test_every_changed_value_from_the_oldest_release_names_its_change(sglang_corpus_online, capsys, case):
    code, out, err = _upgrade(capsys, case)
    if code == 2:
        assert len([line for line in err.splitlines() if line.startswith("error: ")]) == 1, err
        expected = INPUT_ERRORS.get(case["id"])
        assert expected is None or expected in err, err
        assert "is not a flag of sglang" in err or "is not on this machine" in err or expected, err
        return
    assert code in (0, 1), (case["id"], code, err)
    doc = json.loads(out)
    assert (doc["from"], doc["to"]) == (OLDEST, "0.5.23")
    for c in doc["changes"]:
        assert c["named"], (case["id"], c["field"])
        names = re.findall(r"\b([A-Z][A-Z0-9_]{3,})\b", c["named_by"])
        if not names:  # a rule whose registered range starts after OLDEST decided the new value
            since = re.fullmatch(r"since (\S+)", c["named_by"])
            assert since and c["decided_after"] not in ("default", None), (case["id"], c)
            assert version_key(since.group(1)) > version_key(OLDEST), (case["id"], c)
        for name in names:
            assert name in CHANGES, (case["id"], name)
            assert version_key(CHANGES.get(name).since) > version_key(OLDEST), (case["id"], name)
    refusal = doc.get("refusal") or {}
    text = json.dumps(refusal)
    if "is not a flag of sglang 0.5.23" in text:  # a removed flag is named with its replacement
        assert "it was removed in" in text, text
