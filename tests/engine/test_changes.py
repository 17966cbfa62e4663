"""Named changes (``ctx.release.has``), the ``previous`` chain and chain validation at build time.

Everything here goes through the public pack-author API, ``resolvable.rules``.
"""

from __future__ import annotations

import dataclasses

import pytest

from resolvable.rules import (
    RELEASE_READ,
    ArchList,
    Change,
    ChangeTable,
    Platform,
    RegistrationError,
    Registry,
    RuleFailure,
    Stage,
    UnknownChangeError,
    arg,
    check,
    resolve,
)

H100 = Platform.preset("h100")
RELEASES = ("0.5.14", "0.5.15", "0.5.16", "0.5.17", "0.5.18")
ARCH = {"architectures": ["XForCausalLM"]}

CHANGES = ChangeTable(
    "eng",
    [
        Change("B_BACKEND", "0.5.16", upstream="overrides._pick", summary="b instead of a"),
        Change(
            "PAGE_64", "0.5.15", "0.5.17", upstream="hook.page", summary="64-token pages for two releases"
        ),
    ],
)


@dataclasses.dataclass
class Args:
    backend: str | None = arg(None, resolvable=True, choices=("a", "b", "c"))
    page: int | None = arg(None, resolvable=True)


def _registry(**kw) -> Registry:
    kw.setdefault("releases", RELEASES)
    return Registry(Args, [Stage("model", isolated=True), "fill", Stage("check", phase="startup")], **kw)


# -- the change table ---------------------------------------------------------------------------


def test_table_gives_changes_by_attribute_and_refuses_typos():
    assert CHANGES.B_BACKEND.since == "0.5.16"
    assert CHANGES.PAGE_64.until == "0.5.17"
    assert [c.name for c in CHANGES] == ["PAGE_64", "B_BACKEND"]  # by release
    assert "B_BACKEND" in CHANGES and CHANGES.B_BACKEND in CHANGES and "NOPE" not in CHANGES
    with pytest.raises(AttributeError, match="did you mean 'B_BACKEND'"):
        _ = CHANGES.B_BACKND
    with pytest.raises(AttributeError, match="immutable"):
        CHANGES.X = 1
    assert CHANGES.introduced("0.5.16") == (CHANGES.B_BACKEND,)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ([Change("lower", "0.5.15")], "UPPER_CASE"),
        ([Change("A", "0.5.15"), Change("A", "0.5.16")], "declared twice"),
        ([Change("A", None)], "since"),
        ([Change("A", "0.5.16", "0.5.15")], "empty release range"),
        ([Change("A", "latest")], "not a release version"),
        (["A"], "not a Change"),
    ],
)
def test_table_validates_when_built(changes, message):
    with pytest.raises(RegistrationError, match=message):
        ChangeTable("eng", changes)


def test_a_change_table_needs_releases():
    with pytest.raises(RegistrationError, match="release-aware"):
        _registry(releases=(), changes=CHANGES)


# -- asking in a rule -----------------------------------------------------------------------------


def _asking_registry() -> Registry:
    registry = _registry(changes=CHANGES)

    @registry.rule("fill")
    def pick(ctx):
        """Fill the backend; the page size while PAGE_64 holds."""
        out = {"backend": "b" if ctx.release.has(CHANGES.B_BACKEND) else "a"}
        if ctx.release.has("PAGE_64"):
            out["page"] = 64
        return out

    return registry


@pytest.mark.parametrize(
    ("release", "backend", "page"),
    [
        ("0.5.14", "a", None),
        ("0.5.15", "a", 64),
        ("0.5.16", "b", 64),
        ("0.5.17", "b", None),
        ("0.5.18", "b", None),
    ],
)
def test_one_body_answers_every_release(release, backend, page):
    res = resolve(_asking_registry(), hf=ARCH, platform=H100, release=release)
    assert (res["backend"], res["page"], res.release) == (backend, page, release)


def test_the_ask_is_traced_with_its_bound_and_upstream_function():
    res = resolve(_asking_registry(), hf=ARCH, platform=H100, release="0.5.17", trace=True)
    (decl,) = res.declarations
    reads = dict(decl.inputs)
    assert reads[RELEASE_READ + "eng ≥ 0.5.16 (B_BACKEND, overrides._pick)"] is True
    assert reads[RELEASE_READ + "eng < 0.5.15 or ≥ 0.5.17 (PAGE_64, hook.page)"] is False
    old = resolve(_asking_registry(), hf=ARCH, platform=H100, release="0.5.15", trace=True)
    assert (
        dict(old.declarations[0].inputs)[RELEASE_READ + "eng < 0.5.16 (B_BACKEND, overrides._pick)"] is False
    )
    assert RELEASE_READ + "0.5.15 ≤ eng < 0.5.17 (PAGE_64, hook.page)" in dict(old.declarations[0].inputs)


def test_release_version_is_exposed_and_traced():
    registry = _registry(changes=CHANGES)

    @registry.rule("fill")
    def by_version(ctx):
        return {"backend": "c" if ctx.release.version == "0.5.14" else "a"}

    assert resolve(registry, hf=ARCH, platform=H100, release="0.5.14")["backend"] == "c"
    res = resolve(registry, hf=ARCH, platform=H100, release="0.5.18", trace=True)
    assert ("release", "0.5.18") in res.declarations[0].inputs
    assert str(registry.release_view("0.5.18")) == "0.5.18"


def test_an_unknown_change_is_an_error_naming_the_rule():
    registry = _registry(changes=CHANGES)

    @registry.rule("fill")
    def typo(ctx):
        return {"backend": "b"} if ctx.release.has("B_BACKEDN") else {}

    for trace in (False, True):
        with pytest.raises(
            UnknownChangeError, match=r"rule .*typo \(.*test_changes.py:\d+\).*'B_BACKEDN'.*B_BACKEND"
        ):
            resolve(registry, hf=ARCH, platform=H100, trace=trace)
    assert not isinstance(UnknownChangeError("x"), RuleFailure)


def test_a_change_of_another_table_is_unknown():
    other = ChangeTable("other", [Change("B_BACKEND", "0.5.18")])
    registry = _registry(changes=CHANGES)

    @registry.rule("fill")
    def foreign(ctx):
        return {"backend": "b"} if ctx.release.has(other.B_BACKEND) else {}

    with pytest.raises(UnknownChangeError, match="foreign"):
        resolve(registry, hf=ARCH, platform=H100, release="0.5.17")


def test_check_rules_ask_too():
    registry = _registry(changes=CHANGES)

    @registry.rule("check")
    def refuse_new(ctx):
        if ctx.release.has(CHANGES.B_BACKEND):
            from resolvable.rules import ConflictError

            raise ConflictError("refused since B_BACKEND", fields=("backend",))
        return {}

    check(registry, resolve(registry, hf=ARCH, platform=H100, release="0.5.15"), phase="startup")
    with pytest.raises(Exception, match="refused since B_BACKEND"):
        check(registry, resolve(registry, hf=ARCH, platform=H100, release="0.5.16"), phase="startup")


def test_release_view_is_read_only():
    view = _asking_registry().release_view("0.5.16")
    with pytest.raises(AttributeError):
        view.version = "0.5.18"


# -- the previous chain ----------------------------------------------------------------------------


def _chain_registry() -> tuple[Registry, object]:
    registry = _registry()

    @registry.rule("fill", archs=("XForCausalLM",))
    def page(ctx):
        return {"page": 16}

    return registry, page


def test_extends_runs_the_predecessor_and_ends_its_range():
    registry, page = _chain_registry()

    @registry.rule("fill", archs=("XForCausalLM",), since="0.5.17", extends=page)
    def page_0_5_17(ctx, previous):
        return {**previous(ctx), "backend": "c"}

    old = resolve(registry, hf=ARCH, platform=H100, release="0.5.16")
    new = resolve(registry, hf=ARCH, platform=H100, release="0.5.18")
    assert (old["page"], old["backend"]) == (16, None)
    assert (new["page"], new["backend"]) == (16, "c")
    assert [d.rule for d in new.declarations] == [page_0_5_17.__qualname__]
    rules = {r.name.rsplit(".", 1)[-1]: r for r in registry.rules}
    assert rules["page"].releases.until == "0.5.17"
    assert rules["page_0_5_17"].series == rules["page"].series
    assert rules["page_0_5_17"].extends == rules["page"].name
    registry.freeze()  # a valid chain passes the build-time check

    # a chain of three: each link extends the one before
    registry2, page2 = _chain_registry()

    @registry2.rule("fill", archs=("XForCausalLM",), since="0.5.16", extends=page2)
    def double(ctx, previous):
        return {"page": previous(ctx)["page"] * 2}

    @registry2.rule("fill", archs=("XForCausalLM",), since="0.5.18", extends=double)
    def triple(ctx, previous):
        return {"page": previous(ctx)["page"] * 3}

    pages = [resolve(registry2, hf=ARCH, platform=H100, release=r)["page"] for r in RELEASES]
    assert pages == [16, 16, 32, 32, 96]
    registry2.freeze()


def test_two_heads_are_refused_naming_both():
    registry, page = _chain_registry()

    @registry.rule("fill", archs=("XForCausalLM",), since="0.5.17", extends=page)
    def first(ctx, previous):
        return previous(ctx)

    with pytest.raises(RegistrationError, match=r"second.*first.*both extend .*page: two heads"):

        @registry.rule("fill", archs=("XForCausalLM",), since="0.5.18", extends=page)
        def second(ctx, previous):
            return previous(ctx)


@pytest.mark.parametrize(("until", "kind"), [("0.5.16", "gap"), ("0.5.18", "overlap")])
def test_a_predecessor_ending_elsewhere_is_a_gap_or_overlap(until, kind):
    registry = _registry()

    @registry.rule("fill", until=until)
    def old(ctx):
        return {}

    with pytest.raises(RegistrationError, match=rf"new .*old .*ends at {until}: a {kind}"):

        @registry.rule("fill", since="0.5.17", extends=old)
        def new(ctx, previous):
            return previous(ctx)


def test_extension_mistakes_name_the_culprit():
    registry, page = _chain_registry()

    def unregistered(ctx):
        return {}

    with pytest.raises(RegistrationError, match="not a rule registered in stage 'fill'"):
        registry.rule("fill", since="0.5.17", extends=unregistered)(lambda ctx, previous: {})
    with pytest.raises(RegistrationError, match="not a rule registered in stage 'model'"):
        registry.rule("model", archs=("XForCausalLM",), since="0.5.17", extends=page)(
            lambda ctx, previous: {}
        )
    with pytest.raises(RegistrationError, match="applies to every architecture, not XForCausalLM"):
        registry.rule("fill", since="0.5.17", extends=page)(lambda ctx, previous: {})
    with pytest.raises(RegistrationError, match="give since="):
        registry.rule("fill", archs=("XForCausalLM",), extends=page)(lambda ctx, previous: {})
    with pytest.raises(RegistrationError, match=r"exactly two arguments"):

        @registry.rule("fill", archs=("XForCausalLM",), since="0.5.17", extends=page)
        def no_previous(ctx):
            return {}


def test_extending_from_an_earlier_release_overlaps():
    registry = _registry()

    @registry.rule("fill", since="0.5.16")
    def old(ctx):
        return {}

    with pytest.raises(RegistrationError, match=r"starts at 0\.5\.16: the chain overlaps"):
        registry.rule("fill", since="0.5.15", extends=old)(lambda ctx, previous: {})


# -- series validated at build time (not only by lint) -----------------------------------------


def test_freeze_refuses_a_series_with_an_overlap():
    registry = _registry()

    @registry.rule("fill", until="0.5.17", series="pick")
    def pick(ctx):
        return {}

    @registry.rule("fill", since="0.5.16", series="pick")
    def pick_new(ctx):
        return {}

    with pytest.raises(RegistrationError, match=r"series 'pick'.*pick .*pick_new .*both apply"):
        registry.freeze()
    registry.rule("fill")(lambda ctx: {})  # still open: freeze refused


def test_freeze_refuses_a_series_with_a_gap_and_two_heads():
    gap = _registry()
    gap.rule("fill", until="0.5.16", series="s")(lambda ctx: {})
    gap.rule("fill", since="0.5.17", series="s")(lambda ctx: {})
    with pytest.raises(RegistrationError, match=r"but not in 0\.5\.16 \(a gap\)"):
        gap.freeze()
    heads = _registry()
    heads.rule("fill", since="0.5.15", series="s")(lambda ctx: {})
    heads.rule("fill", since="0.5.17", series="s")(lambda ctx: {})
    with pytest.raises(RegistrationError, match="two heads"):
        heads.validate()


# -- architecture lists with release ranges ----------------------------------------------------


def test_an_arch_list_keys_one_rule_per_release():
    family = ArchList("XForCausalLM", ("YForCausalLM", "0.5.16"), ("ZForCausalLM", None, "0.5.17"))
    assert list(family) == ["XForCausalLM", "YForCausalLM", "ZForCausalLM"] and "YForCausalLM" in family
    assert family.at("0.5.15") == {"XForCausalLM", "ZForCausalLM"}
    assert family.at("0.5.18") == {"XForCausalLM", "YForCausalLM"}
    assert family.contains("YForCausalLM", "0.5.16") and not family.contains("YForCausalLM", "0.5.15")
    registry = _registry()

    @registry.rule("fill", archs=family)
    def fam(ctx):
        return {"page": 7}

    rule = next(r for r in registry.rules if r.name.endswith("fam"))
    assert "YForCausalLM (since 0.5.16)" in rule.selector()
    for arch, release, page in [
        ("XForCausalLM", "0.5.14", 7),
        ("YForCausalLM", "0.5.15", None),
        ("YForCausalLM", "0.5.16", 7),
        ("ZForCausalLM", "0.5.16", 7),
        ("ZForCausalLM", "0.5.17", None),
    ]:
        res = resolve(registry, hf={"architectures": [arch]}, platform=H100, release=release)
        assert res["page"] == page, (arch, release)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ((("A", "0.5.16", "0.5.15"),), "empty release range"),
        (("A", "A"), "listed twice"),
        ((3,), "not a name"),
    ],
)
def test_an_arch_list_validates_its_entries(entries, message):
    with pytest.raises(RegistrationError, match=message):
        ArchList(*entries)
