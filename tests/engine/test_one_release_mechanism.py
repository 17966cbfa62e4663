"""One release mechanism (issue 32 item 0): rule code learns its release only through the traced
release view — ``ctx.release.has(CHANGES.X)``, ``pick``, ``derive``, ``holds`` — never by reading
the version, comparing releases, or keeping a copy of a table per release.

An AST scan of both packs fails on (1) a read of ``<…>.release.version``, (2) a call of
``release_key`` (a release comparison), (3) a module-level name that carries a release
(``REGISTRY_0_5_16``, ``CONFIG_BLOCK_SIZE_034``), (4) a subscript by a release
(``TABLE[ctx.release.version]``). The release view does not record such reads, so the release
ranges explain, upgrade and matrix show would be wider than the truth. Outside the scan: the flag
and environment tables generated per release from the wheels (``flags/``: choosing a release's
table is what a table per release is for, and the parser reads them, not a rule), and the one
entry of ``ALLOWED`` below, with its reason.
"""

from __future__ import annotations

import ast
import os
import re

import pytest

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src", "resolvable")
PACKS = ("sglang", "vllm")
#: Packages of a pack that are not rule code: the per-release tables generated from the wheels.
NOT_RULE_CODE = ("flags",)
#: (pack-relative path, what) -> why it may stay.
ALLOWED = {
    ("vllm/rules/model.py", "version read"): (
        "the release's environment table (generated from its wheel, like a flag table) is looked up "
        "by release; the rule only refuses, so no declaration's range depends on it"
    ),
    ("vllm/since.py", "release_key"): (
        "not rule code: `upgrade`'s report names the named change that arrived between its two "
        "releases (moved from cli/vllm.py, issue 26); no rule or declaration reads it"
    ),
}
_RELEASE_NAME = re.compile(r"_\d+_\d+(_\d+)?$|_0\d\d$")


def _files():
    for pack in PACKS:
        root = os.path.join(SRC, pack)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in NOT_RULE_CODE and d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, SRC).replace(os.sep, "/"), path


def findings(rel: str, text: str) -> list[tuple[str, int]]:
    """(what, line) of every side-mechanism use in one module's source."""
    out = []
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "version"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "release"
        ):
            out.append(("version read", node.lineno))
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name == "release_key":
                out.append(("release_key", node.lineno))
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and _RELEASE_NAME.search(target.id):
                out.append((f"release-named constant {target.id}", node.lineno))
    return out


def _scan() -> list[str]:
    found = []
    for rel, path in _files():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        found += [f"{rel}:{line} {what}" for what, line in findings(rel, text) if (rel, what) not in ALLOWED]
    return found


def test_rule_code_reads_its_release_only_through_the_release_view():
    assert _scan() == []


@pytest.mark.parametrize(
    "source, what",
    [
        ("def r(ctx):\n    return ctx.release.version\n", "version read"),
        ("def r(ctx):\n    return T[ctx.release.version]\n", "version read"),
        ("from x import release_key\nok = release_key('0.5.16') < release_key('0.5.17')\n", "release_key"),
        ("REGISTRY_0_5_16 = 1\n", "release-named constant REGISTRY_0_5_16"),
        ("CONFIG_BLOCK_SIZE_034: int = 64\n", "release-named constant CONFIG_BLOCK_SIZE_034"),
    ],
)
def test_the_scan_catches_each_side_mechanism(source, what):
    assert what in [w for w, _ in findings("sglang/x.py", source)]


def test_the_scan_passes_the_release_view():
    source = (
        "def r(ctx):\n"
        "    return ctx.release.has(CHANGES.X) or ctx.release.holds(ARCHS, ctx.arch)\n"
        "BLOCK_SIZE_64 = 64\n"
    )
    assert findings("sglang/x.py", source) == []


def test_the_allowed_entries_are_still_needed():
    """An allowance whose reason went away is removed, not kept."""
    seen = set()
    for rel, path in _files():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        seen |= {(rel, what) for what, _ in findings(rel, text)} & set(ALLOWED)
    assert seen == set(ALLOWED)


def test_holds_asks_the_members_range_only_when_it_is_bounded():
    from resolvable._changes import RecordingReleaseView, ReleaseView
    from resolvable.rules import ArchList, Change, ChangeTable

    table = ChangeTable("engine", [Change("X", "0.2.0")])
    members = ArchList("Always", ("Later", "0.2.0"), ("Gone", None, "0.2.0"), what="a list")
    for release, later, gone in (("0.1.0", False, True), ("0.2.0", True, False)):
        asked: list = []
        view = RecordingReleaseView(ReleaseView(release, table), asked)
        assert view.holds(members, "Always") and asked == []
        assert not view.holds(members, "Never") and asked == []
        assert view.holds(members, "Later") is later
        assert view.holds(members, "Gone") is gone
        assert [c.name for c in asked] == ["Later", "Gone"]
        assert [c.range.contains(release) for c in asked] == [later, gone]
