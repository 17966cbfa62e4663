"""The oracle lock files (``tools/oracle_locks.py``; issue 32 item 3): one per release family.

Invariants checked on the committed files: every file names the releases it serves on
``# release:`` lines, a release is named by one file only, each named release is one the pack
knows (resolved, a resolved ``.postN``, or parse-only), every pin is ``name==version`` (a
rebuild from a lock never floats), and releases sharing a file share its pins by construction.
"""

from __future__ import annotations

import re

import pytest

from harness_tools import ROOT, load_tool
from resolvable import packs

LOCK_DIRS = {"sglang": ROOT / "tools/agreement/locks", "vllm": ROOT / "tools/agreement_vllm/locks"}


def _locks(engine: str) -> dict[str, list[str]]:
    out = {}
    for path in sorted(LOCK_DIRS[engine].glob(f"{engine}-*.txt")):
        out[path.name] = path.read_text(encoding="utf-8").splitlines()
    return out


@pytest.mark.parametrize("engine", sorted(LOCK_DIRS))
def test_each_release_has_one_family_and_every_pin_is_exact(engine: str) -> None:
    pack = packs.get(engine)
    known = set(pack.flag_releases()) | set(pack.parse_only_releases())
    seen: dict[str, str] = {}
    locks = _locks(engine)
    assert locks, f"no lock files in {LOCK_DIRS[engine]}"
    for name, lines in locks.items():
        releases = [m.group(1) for line in lines if (m := re.match(r"# release: (\S+)", line))]
        assert releases, f"{name} names no release"
        for release in releases:
            assert release in known, f"{name}: {release} is not a release the {engine} pack knows"
            assert release not in seen, f"{release} is in {seen.get(release)} and {name}"
            seen[release] = name
        pins = [line for line in lines if line and not line.startswith("#")]
        assert pins, f"{name} pins nothing"
        loose = [p for p in pins if not re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==\S+", p)]
        assert not loose, f"{name}: pins that are not name==version: {loose[:3]}"


@pytest.mark.parametrize("engine", sorted(LOCK_DIRS))
def test_the_newest_resolved_release_is_locked(engine: str) -> None:
    newest = packs.get(engine).releases[-1]
    named = {
        m.group(1)
        for lines in _locks(engine).values()
        for line in lines
        if (m := re.match(r"# release: (\S+)", line))
    }
    assert newest in named, f"{engine} {newest} has no lock file; run tools/oracle_locks.py {engine}"


def test_family_file_names_follow_the_release_order() -> None:
    tool = load_tool("oracle_locks", "tools/oracle_locks.py")
    releases = ["0.5.9", "0.5.10", "0.5.8.post1", "0.5.8"]
    assert sorted(releases, key=tool.release_key) == ["0.5.8", "0.5.8.post1", "0.5.9", "0.5.10"]
