"""Issue 32 item 0: a per-release table read by version hid a release dependence, so the releases
shown as sharing a declaration were wider than the truth. Through named changes they are not."""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable.vllm import resolve_vllm_args
from resolvable.vllm.config.batch_invariant_shapes import TUNED_SHAPE_CHANGES, TUNED_SHAPES
from resolvable.vllm.config.compilation import tuned_shapes
from resolvable.vllm.models import bundled

BATCH_INVARIANT = {"VLLM_BATCH_INVARIANT": "1"}


@pytest.mark.parametrize(
    "model, platform, release, shared",
    [
        ("llama-3.1-8b", "h100", "0.33.0", ("0.33.0", "0.34.0")),  # 8 Hopper shapes tuned in 0.33
        ("falcon-h1-7b", "rtxpro6000", "0.32.0", ("0.32.0", "0.34.0")),  # 41 SM120 shapes in 0.32
    ],
)
def test_the_batch_invariant_shapes_narrow_the_range(model, platform, release, shared):
    plat = Platform.preset(platform)
    res = resolve_vllm_args(bundled(model), plat, BATCH_INVARIANT, vllm_version=release, dtype="bfloat16")
    assert res["compilation_mode"] == "NONE"  # breakable CUDA graphs replace torch.compile
    decl = next(d for d in res.declarations if "compilation_mode" in d.fields)
    shown = res.releases_of(decl.rule, decl.location)
    assert shown.since == shared[0]
    # the release before the range really answers otherwise (the range is not too narrow either)
    before = {"0.33.0": "0.32.0", "0.32.0": "0.31.0"}[shared[0]]
    older = resolve_vllm_args(bundled(model), plat, BATCH_INVARIANT, vllm_version=before, dtype="bfloat16")
    assert older["compilation_mode"] == "VLLM_COMPILE"


def test_each_family_asks_only_its_own_shape_changes():
    from resolvable._changes import RecordingReleaseView
    from resolvable.vllm._base import registry

    for family in ("ada", "hopper", "blackwell", "sm120"):
        asked: list = []
        view = RecordingReleaseView(registry.release_view("0.34.0"), asked)
        shapes = tuned_shapes(view, family)
        assert {c.name for c in asked} == {c.name for c, of, _ in TUNED_SHAPE_CHANGES if of == family}
        assert shapes >= TUNED_SHAPES[family]
