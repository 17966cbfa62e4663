"""`resolvable lint` for every registered pack (issue 26, item 1: lint of EVERY pack): one parser,
``--engine`` names the pack, whose own cases (``Pack.lint_attempts``) and architectures
(``Pack.lint_architectures``) are linted, every modelled release."""

from __future__ import annotations

import json

import pytest

from resolvable import packs
from resolvable.cli import main


def test_lint_takes_engine_and_lints_that_packs_registry(capsys):
    vllm = next(n for n in packs.names() if packs.get(n).frontend != packs.get(packs.names()[0]).frontend)
    pack = packs.get(vllm)
    code = main(["lint", "--engine", vllm, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "resolvable.lint/1"
    cases = len(pack.catalog()) * len(pack.lint_attempts(pack.releases[-1])) // len(pack.catalog())
    assert data["stats"]["resolutions"] + data["stats"]["refusals"] == cases * len(pack.releases)
    assert data["stats"]["resolutions"] > data["stats"]["refusals"]
    # a finding is about this pack's rules, never another pack's modules
    others = [f"resolvable.{n}." for n in packs.names() if n != vllm]
    others += [f"resolvable/{n}/" for n in packs.names() if n != vllm]
    assert not [f for f in data["findings"] if any(o in json.dumps(f) for o in others)], data["findings"]
    assert code == (1 if data["findings"] else 0)
    code = main(["lint", "--engine", vllm])
    out = capsys.readouterr().out
    assert f"in {len(pack.releases)} {vllm} releases" in out


def test_every_pack_answers_the_lint_members():
    for name in packs.names():
        pack = packs.get(name)
        attempts = pack.lint_attempts(pack.releases[-1])
        assert attempts and all(isinstance(label, str) and callable(thunk) for label, thunk in attempts)
        assert pack.lint_architectures()


@pytest.mark.parametrize("name", packs.names())
def test_lint_is_clean_for_every_registered_pack(name, capsys):
    """``resolvable lint --engine X`` finds nothing in any registered pack, every modelled release."""
    code = main(["lint", "--engine", name])
    out = capsys.readouterr().out
    assert "no findings" in out, out
    assert code == 0
