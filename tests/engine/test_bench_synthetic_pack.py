"""The synthetic pack of ``benchmarks/bench_import_instructions.py --releases`` declares what it
says it declares (per release: a release row, ten named changes, two list members, two delta-list
entries), with and without the release machinery, and resolves like a pack."""

from __future__ import annotations

import os
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from bench_import_instructions import (  # noqa: E402
    ARCHS_PER_RELEASE,
    CHANGES_PER_RELEASE,
    synthetic_pack,
)

from resolvable.rules import ArchList, ChangeTable, resolve  # noqa: E402


def _load(source: str) -> types.ModuleType:
    module = types.ModuleType("synthetic_under_test")
    exec(compile(source, "<synthetic>", "exec"), module.__dict__)  # our own generated source
    return module


@pytest.mark.parametrize("releases", [1, 5])
def test_synthetic_pack_declares_its_releases(releases):
    pack = _load(synthetic_pack(releases))
    assert isinstance(pack.CHANGES, ChangeTable) and isinstance(pack.ARCHS, ArchList)
    assert pack.registry.releases == pack.RELEASES and len(pack.RELEASES) == releases
    assert len(pack.CHANGES) == releases * CHANGES_PER_RELEASE
    assert len(pack.ARCHS.ranges) == releases * ARCHS_PER_RELEASE
    assert len(pack.DELTA) == 1 + 2 * releases
    newest = pack.RELEASES[-1]
    ended = [c for c in pack.CHANGES if c.until is not None]
    assert len(ended) == releases - 1  # one change a release ends, except in the newest
    res = resolve(pack.registry, {}, {"architectures": ["Arch0V0ForCausalLM"]}, release=newest)
    assert res["backend"] == "b" and res["page"] == 64


def test_declarations_alone_hold_the_same_records():
    with_machinery = _load(synthetic_pack(3))
    alone = _load(synthetic_pack(3, machinery=False))
    assert not isinstance(alone.CHANGES, ChangeTable) and not isinstance(alone.ARCHS, ArchList)
    assert sorted(vars(alone.CHANGES).values()) == sorted(with_machinery.CHANGES)
    assert len(alone.ARCHS) == len(with_machinery.ARCHS)
    assert alone.registry.releases == with_machinery.RELEASES[:1]
