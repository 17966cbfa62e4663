"""The SGLang pack's change table (``changes.py``) and the rule structure it replaces.

Every named change is asked by a rule, names a supported release and an upstream function; no
rule exists only to call a helper with release arguments (one rule per upstream concern).
"""

from __future__ import annotations

import ast
import glob
import os
import re
from collections import defaultdict

import pytest

import resolvable.sglang as S
from resolvable.sglang import SGLANG_RELEASES, registry
from resolvable.sglang.changes import CHANGES

PACK = os.path.dirname(S.__file__)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


SOURCES = {
    path: _read(path)
    for path in glob.glob(os.path.join(PACK, "**", "*.py"), recursive=True)
    if not path.endswith("changes.py")
}


def test_the_registry_is_built_with_the_table():
    assert registry.changes is CHANGES
    assert len(CHANGES) > 50


@pytest.mark.parametrize("change", list(CHANGES), ids=[c.name for c in CHANGES])
def test_every_change_is_asked_and_documented(change):
    asked = [p for p, text in SOURCES.items() if f"CHANGES.{change.name}" in text]
    assert asked, f"{change.name} is asked by no rule"
    assert change.since in SGLANG_RELEASES[1:], change
    assert change.until is None or change.until in SGLANG_RELEASES, change
    assert change.upstream and change.summary, change


def test_each_release_after_the_first_brings_changes():
    """Each resolved release whose predecessor (by flag tables) is resolved too (itself, or its
    base for a ``.postN`` resolved as its base) names what it changed. A release whose predecessor
    is still parse-only here (a step modelled on a sibling branch) is skipped by construction."""
    from resolvable.rules import base_release
    from resolvable.sglang.flags import all_releases

    every = all_releases()
    checked = []
    for release in SGLANG_RELEASES[1:]:
        before = every[every.index(release) - 1]
        if before in SGLANG_RELEASES or base_release(before) in SGLANG_RELEASES:
            checked.append(release)
            assert CHANGES.introduced(release), release
    assert len(checked) >= len(SGLANG_RELEASES) - 2, checked


def test_series_are_valid_at_build_time():
    registry.validate()  # gaps, overlaps, two heads


def test_one_rule_per_series_except_replaced_functions():
    """A series with several rules is a rule replaced by another upstream function in a release
    (``deepseek_v4_sm120_moe`` → ``deepseek_v4_fp4_moe``)."""
    series = defaultdict(list)
    for rule in registry.rules:
        series[(rule.stage, rule.series)].append(rule.name)
    multi = sorted(name for (_, name), rules in series.items() if len(rules) > 1)
    assert multi == ["deepseek_v4_sm120_moe"]


def _is_release_wrapper(fn: ast.FunctionDef) -> bool:
    """``return _helper(ctx, <release arguments>)``: a rule that only picks a release's arguments."""
    body = [b for b in fn.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return False
    call = body[0].value
    text = ast.unparse(call)
    helper = isinstance(call.func, ast.Name) and call.func.id.startswith("_")
    return helper and ("0_5_" in text or re.search(r"release\w*=", text) is not None)


def test_no_rule_only_calls_a_helper_with_release_arguments():
    wrappers = []
    for path, text in SOURCES.items():
        for node in ast.parse(text).body:
            registered = isinstance(node, ast.FunctionDef) and any(
                "registry" in ast.unparse(d) for d in node.decorator_list
            )
            if registered and _is_release_wrapper(node):
                wrappers.append(f"{os.path.relpath(path, PACK)}:{node.lineno} {node.name}")
    assert wrappers == []
