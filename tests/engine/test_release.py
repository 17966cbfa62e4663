"""Release ranges: parsing, plans per release, resolution records, lint checks, properties."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvable import Platform, Registry, Stage, arg, resolve
from resolvable._lint import lint, release_findings
from resolvable._release import ReleaseRange, base_release, release_key
from resolvable._resolution import Resolution
from resolvable.errors import InvalidArgumentError, RegistrationError

H100 = Platform.preset("h100")
RELEASES = ("0.5.14", "0.5.15", "0.5.16", "0.5.17", "0.5.18")
ARCH = {"architectures": ["XForCausalLM"]}


@dataclasses.dataclass
class Args:
    backend: str | None = arg(None, resolvable=True, choices=("a", "b", "c"))
    page: int | None = arg(None, resolvable=True)


def _registry(**kw) -> Registry:
    return Registry(Args, [Stage("model", isolated=True), "fill", Stage("late", since="0.5.17")], **kw)


def _short(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


# -- versions and ranges ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "base"),
    [
        ("0.5.15", "0.5.15"),
        ("0.5.15.post1", "0.5.15"),
        ("0.5.16rc0", "0.5.16"),
        ("v0.5.9", "0.5.9"),
        ("0.5.15+cu129", "0.5.15"),
        (" 0.5.23 ", "0.5.23"),
    ],
)
def test_base_release(text, base):
    assert base_release(text) == base


@pytest.mark.parametrize("bad", ["", "latest", "5", "x.1", None, 515])
def test_base_release_refuses_non_versions(bad):
    with pytest.raises(InvalidArgumentError, match="release"):
        base_release(bad)


def test_release_order_is_numeric():
    assert release_key("0.5.9") < release_key("0.5.15") < release_key("0.6.0")


def test_a_post_release_sorts_between_its_base_and_the_next():
    """A ``.postN`` with behaviour of its own is a release of its own (sglang 0.5.6.post1)."""
    from resolvable._release import check_release, release_name

    assert (
        release_key("0.5.6") < release_key("0.5.6.post1") < release_key("0.5.6.post2") < release_key("0.5.7")
    )
    assert release_key("0.5.16rc0") == release_key("0.5.16")
    assert release_name("v0.5.6.post1") == "0.5.6.post1" and release_name("0.5.15+cu129") == "0.5.15"
    assert ReleaseRange("0.5.6.post1").contains("0.5.6.post1") and not ReleaseRange("0.5.6.post1").contains(
        "0.5.6"
    )
    listed = ("0.5.6", "0.5.6.post1", "0.5.10")
    assert check_release("0.5.6.post1", listed, "x") == "0.5.6.post1"
    assert check_release("0.5.10.post1", listed, "x") == "0.5.10"  # unlisted: resolves as its base


def test_range_is_half_open():
    r = ReleaseRange("0.5.15", "0.5.18")
    assert [x for x in RELEASES if r.contains(x)] == ["0.5.15", "0.5.16", "0.5.17"]
    assert ReleaseRange().contains("0.5.14")
    assert ReleaseRange(until="0.5.15").contains("0.5.14")
    assert not ReleaseRange(until="0.5.15").contains("0.5.15")


def test_range_describe_uses_supported_releases():
    assert ReleaseRange().describe(RELEASES) == "all releases"
    assert ReleaseRange("0.5.17").describe(RELEASES) == "since 0.5.17"
    assert ReleaseRange(until="0.5.17").describe(RELEASES) == "up to 0.5.16"
    assert ReleaseRange("0.5.15", "0.5.17").describe(RELEASES) == "0.5.15 to 0.5.16"
    assert ReleaseRange(until="0.5.14").describe(RELEASES) == "before 0.5.14"


def test_empty_or_malformed_ranges_are_refused_at_registration():
    reg = _registry(releases=RELEASES)
    with pytest.raises(RegistrationError, match="empty release range"):

        @reg.rule("fill", since="0.5.17", until="0.5.16")
        def backwards(ctx):
            return {}

    with pytest.raises(RegistrationError, match="not a release version"):

        @reg.rule("fill", since="soon")
        def malformed(ctx):
            return {}

    with pytest.raises(RegistrationError, match="stage 'late'"):
        Registry(Args, [Stage("late", since="0.5.18", until="0.5.18")], releases=RELEASES)


# -- plans and resolution per release --------------------------------------------------------


def _versioned_registry() -> Registry:
    reg = _registry(releases=RELEASES)

    @reg.rule("fill", until="0.5.16", series="backend_default")
    def backend_old(ctx):
        """The old default."""
        return {"backend": "a"}

    @reg.rule("fill", since="0.5.16", series="backend_default")
    def backend_new(ctx):
        """The new default."""
        return {"backend": "b"}

    @reg.rule("late")
    def late_page(ctx):
        return {"page": 64}

    reg.constant("XForCausalLM", {"page": 16}, stage="model", since="0.5.18")
    return reg


def test_each_release_gets_its_own_plan():
    reg = _versioned_registry()
    names = {
        r: [_short(rule.name) for _, rules in reg.plan("XForCausalLM", r) for rule in rules] for r in RELEASES
    }
    assert names["0.5.14"] == names["0.5.15"] == ["backend_old"]
    assert names["0.5.16"] == ["backend_new"]
    # the 'late' stage only exists from 0.5.17; the constant only from 0.5.18
    assert names["0.5.17"] == ["backend_new", "late_page"]
    assert names["0.5.18"] == ["constant[XForCausalLM]", "backend_new", "late_page"]
    assert reg.compiled("XForCausalLM", "0.5.15") is reg.compiled("XForCausalLM", "0.5.15")


def test_resolution_records_release_and_default_is_newest():
    reg = _versioned_registry()
    old = resolve(reg, {}, ARCH, H100, release="0.5.15")
    new = resolve(reg, {}, ARCH, H100)
    assert (old.release, old["backend"], old["page"]) == ("0.5.15", "a", None)
    assert (new.release, new["backend"], new["page"]) == ("0.5.18", "b", 64)
    assert reg.default_release == "0.5.18"


def test_post_release_maps_to_its_base():
    reg = _versioned_registry()
    assert resolve(reg, {}, ARCH, H100, release="0.5.15.post2").release == "0.5.15"


def test_unknown_release_is_a_clear_error():
    reg = _versioned_registry()
    with pytest.raises(InvalidArgumentError, match=r"0\.5\.19.*supported releases: 0\.5\.14"):
        resolve(reg, {}, ARCH, H100, release="0.5.19")


def test_registry_without_releases_refuses_a_release():
    reg = _registry()
    assert reg.release(None) is None
    with pytest.raises(RegistrationError, match="not release-aware"):
        resolve(reg, {}, ARCH, H100, release="0.5.15")


def test_default_release_must_be_supported():
    with pytest.raises(RegistrationError, match="default_release"):
        _registry(releases=RELEASES, default_release="0.6.0")
    assert _registry(releases=RELEASES, default_release="0.5.15").default_release == "0.5.15"


def test_fingerprint_and_round_trip_carry_the_release():
    reg = _versioned_registry()
    a = resolve(reg, {"backend": "c"}, ARCH, H100, release="0.5.16")
    b = resolve(reg, {"backend": "c"}, ARCH, H100, release="0.5.17")
    assert a["backend"] == b["backend"] == "c"
    assert a.fingerprint() != b.fingerprint()  # same values of resolvable fields but one page differs
    c = resolve(reg, {"backend": "c", "page": 8}, ARCH, H100, release="0.5.16")
    d = resolve(reg, {"backend": "c", "page": 8}, ARCH, H100, release="0.5.15")
    assert dict(c) == dict(d) and c.fingerprint() != d.fingerprint()
    again = Resolution.from_dict(c.to_dict())
    assert again.release == "0.5.16" and again.fingerprint() == c.fingerprint()


def test_registry_without_releases_keeps_its_fingerprint_payload():
    reg = _registry()
    res = resolve(reg, {}, ARCH, H100)
    assert res.release is None and res.to_dict()["release"] is None


# -- lint ------------------------------------------------------------------------------------


def test_clean_series_has_no_release_findings():
    assert release_findings(_versioned_registry()) == []


def test_overlap_in_a_series_is_found():
    reg = _registry(releases=RELEASES)

    @reg.rule("fill", until="0.5.17", series="s")
    def first(ctx):
        return {}

    @reg.rule("fill", since="0.5.16", series="s")
    def second(ctx):
        return {}

    findings = release_findings(reg)
    assert [f.check for f in findings] == ["release-overlap"]
    assert "first" in findings[0].message and _short(findings[0].rule) == "second"


def test_gap_in_a_series_is_found():
    reg = _registry(releases=RELEASES)

    @reg.rule("fill", until="0.5.15", series="s")
    def first(ctx):
        return {}

    @reg.rule("fill", since="0.5.17", series="s")
    def second(ctx):
        return {}

    findings = release_findings(reg)
    assert [f.check for f in findings] == ["release-gap"]
    assert "0.5.15, 0.5.16" in findings[0].message


def test_unknown_bound_and_dead_range_are_found():
    reg = _registry(releases=RELEASES)

    @reg.rule("fill", since="0.5.1")  # meant 0.5.17: a bound no supported release has
    def typo(ctx):
        return {}

    @reg.rule("fill", until="0.5.10")
    def dead(ctx):
        return {}

    checks = sorted((f.check, _short(f.rule), f.message.split(" (")[0]) for f in release_findings(reg))
    assert checks == [
        ("release-bound", "dead", "its range"),
        ("release-bound", "dead", "range bound '0.5.10' is not a supported release"),
        ("release-bound", "typo", "range bound '0.5.1' is not a supported release"),
    ]


def test_lint_reports_release_findings():
    reg = _registry(releases=RELEASES)

    @reg.rule("fill", until="0.5.17", series="s")
    def first(ctx):
        return {"backend": "a"}

    @reg.rule("fill", since="0.5.16", series="s")
    def second(ctx):
        return {"backend": "b"}

    findings, _ = lint(reg, [("x", lambda: resolve(reg, {}, ARCH, H100))], ["XForCausalLM"])
    assert "release-overlap" in {f.check for f in findings}


# -- property: adjacent ranges partition the releases -----------------------------------------


@given(st.lists(st.sampled_from(RELEASES[1:]), unique=True).map(sorted))
def test_adjacent_ranges_cover_each_release_exactly_once(cuts):
    bounds = [None, *cuts, None]
    ranges = [ReleaseRange(lo, hi) for lo, hi in itertools.pairwise(bounds)]
    for release in RELEASES:
        assert sum(r.contains(release) for r in ranges) == 1
    reg = _registry(releases=RELEASES)
    for i, r in enumerate(ranges):
        reg.rule("fill", since=r.since, until=r.until, series="s")(lambda ctx, i=i: {"page": i})
    assert release_findings(reg) == []
    pages = [resolve(reg, {}, ARCH, H100, release=rel)["page"] for rel in RELEASES]
    assert pages == sorted(pages) and pages[0] == 0 and pages[-1] == len(ranges) - 1
