"""The GitHub Action and the pre-commit hook run ``resolvable check`` with options it has."""

from __future__ import annotations

import os

import yaml

from resolvable.cli.deploy import build_parser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))


def _options() -> set[str]:
    return {o for action in build_parser("check")._actions for o in action.option_strings}


def test_action_runs_check_with_sarif_and_uploads_it():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as fh:
        action = yaml.safe_load(fh)
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    script = next(s["run"] for s in steps if s.get("id") == "check")
    assert "resolvable check" in script and "--format sarif -o resolvable.sarif" in script
    for option in ("--platform", "--gpus", "--format", "-o"):
        assert option in _options()
    upload = next(s for s in steps if "upload-sarif" in str(s.get("uses", "")))
    assert upload["with"]["sarif_file"] == "resolvable.sarif"


def test_pre_commit_hook_entry():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as fh:
        (hook,) = yaml.safe_load(fh)
    assert hook["id"] == "resolvable-check" and hook["entry"] == "resolvable check"
    assert hook["language"] == "python"
