"""Checked fixes (resolvable._fixes): reading flags out of a fix text, and the search.

The search is generic: these tests use the fake schema of conftest, not the SGLang pack, so
they show that any rule's refusal is checked from its fix text alone.
"""

from __future__ import annotations

from resolvable import resolve
from resolvable._fixes import UNSET, check_fix, parse_fix, render
from resolvable._schema import schema_of
from resolvable.errors import ConflictError


def _alts(text, fake_args):
    return [changes for changes, _ in parse_fix(text, schema_of(fake_args))[0]]


def test_parse_reads_values_alternatives_and_drops(fake_args):
    alts = _alts("pass --resolved-by-model fa3 (or triton, not 'dsv4') or drop --plain", fake_args)
    assert alts == [
        (("arg", "resolved_by_model", "fa3"),),
        (("arg", "resolved_by_model", "triton"),),
        (("arg", "plain", UNSET),),
    ]


def test_parse_joins_flags_named_together(fake_args):
    # "--a x --b y" and "--a x and --b y" must be passed together; ", or" separates
    together = _alts("pass --resolved-by-model triton --also-resolved 16", fake_args)
    assert together == [(("arg", "resolved_by_model", "triton"), ("arg", "also_resolved", 16))]
    apart = _alts("pass --also-resolved 16, or --metadata-but-not-resolvable", fake_args)
    assert apart == [(("arg", "also_resolved", 16),), (("arg", "metadata_but_not_resolvable", True),)]


def test_parse_expands_a_bare_flag_with_choices_and_reads_inequalities(fake_args):
    parsed = parse_fix("choose another --resolved-by-model", schema_of(fake_args))[0]
    assert [c[0][2] for c, _ in parsed] == ["auto", "fa3", "flashinfer", "triton", "dsv4"]
    assert all(expanded for _, expanded in parsed)
    assert _alts("pass --also-resolved > 1", fake_args) == [(("arg", "also_resolved", 2),)]
    assert _alts("use a bf16 checkpoint, or set FAKE_ENV=1", fake_args) == [(("env", "FAKE_ENV", "1"),)]
    assert parse_fix("pass --no-such-flag 3", schema_of(fake_args)) == ([], ["--no-such-flag"])


def test_render_is_command_line_text():
    assert render([("arg", "page_size", 1), ("arg", "disable_x", True)]) == "--page-size 1 --disable-x"
    assert render([("arg", "a_b", 2), ("arg", "c", UNSET)]) == "--a-b 2 and drop --c"


def _refusing(registry, arch):
    """flashinfer needs also_resolved=16, which needs plain=1 (each refusal names the next flag)."""

    @registry.rule("passes")
    def needs_pages(ctx):
        a = ctx.args
        if a.resolved_by_model == "flashinfer" and a.also_resolved != 16:
            raise ConflictError(
                "flashinfer needs 16", fields=("also_resolved",), fix="pass --also-resolved 16"
            )
        if a.also_resolved == 16 and a.plain != 1:
            raise ConflictError("16 needs plain 1", fields=("plain",), fix="pass --plain 1")
        if a.resolved_by_model == "dsv4":
            raise ConflictError(
                "dsv4 is not here", fix="pass --resolved-by-model flashinfer (or --resolved-by-model triton)"
            )
        return {}

    return registry


def _check(registry, hf, platform, user):
    try:
        resolve(registry, user, hf, platform)
    except ConflictError as exc:
        return check_fix(exc, lambda u, e: resolve(registry, u, hf, platform, e), user, {}, registry.schema)
    raise AssertionError("expected a refusal")


def test_a_refused_fix_is_completed_from_the_next_refusal(registry, arch, hf, h100):
    reg = _refusing(registry, arch)
    check = _check(reg, hf, h100, {"resolved_by_model": "flashinfer"})
    assert check.status == "corrected"
    assert check.accepted == ((("arg", "also_resolved", 16), ("arg", "plain", 1)),)
    assert "--also-resolved 16 --plain 1" in check.text and "alone is refused too" in check.text
    resolve(reg, {"resolved_by_model": "flashinfer", "also_resolved": 16, "plain": 1}, hf, h100)


def test_no_detour_is_offered_when_another_alternative_holds(registry, arch, hf, h100):
    check = _check(_refusing(registry, arch), hf, h100, {"resolved_by_model": "dsv4"})
    # triton holds as-is; flashinfer holds once the two flags its refusals name are added
    assert check.status == "corrected"
    assert [render(a) for a in check.accepted] == [
        "--resolved-by-model triton",
    ]  # flashinfer would need two more changes: a detour when triton already works
    assert "--resolved-by-model flashinfer is refused here" in check.text


def test_a_fix_that_cannot_be_met_says_so(registry, arch, hf, h100):
    @registry.rule("passes")
    def never(ctx):
        raise ConflictError("never here", fix="pass --also-resolved 8")

    check = _check(registry, hf, h100, {})
    assert check.status == "none" and check.accepted == ()
    assert check.text.startswith("none on this platform")


def test_a_fix_that_holds_is_verified_and_one_without_flags_is_unchecked(registry, arch, hf, h100):
    @registry.rule("passes")
    def eight(ctx):
        if ctx.args.also_resolved == 4:
            raise ConflictError("4 is too small", fix="pass --also-resolved 8")
        if ctx.args.plain == 5:
            raise ConflictError("5 is odd", fix="use another checkpoint")
        return {}

    check = _check(registry, hf, h100, {"also_resolved": 4})
    assert (check.status, check.text) == ("verified", "pass --also-resolved 8")
    assert check.to_dict()["accepted"][0]["set"] == {"also_resolved": 8}
    assert _check(registry, hf, h100, {"plain": 5}).status == "unchecked"


# -- a fix as a value (resolvable.rules.Fix) ----------------------------------------------------


def test_a_structured_fix_renders_the_authors_text_or_its_changes():
    from resolvable.rules import Fix

    written = Fix(set={"page_size": 1}, text="pass --page-size 1 (sglang's default for this backend)")
    assert written.render() == "pass --page-size 1 (sglang's default for this backend)"
    assert Fix(set={"page_size": 1, "disable_x": True}).render() == "pass --page-size 1 --disable-x"
    assert Fix(drop=("page_size",), env={"K": "1"}).render() == "pass --env K=1 and drop --page-size"
    either = Fix(set={"a": "x"}) | Fix(another=("b",))
    assert either == Fix.any_of(Fix(set={"a": "x"}), Fix(another=("b",)))
    assert either.render() == "pass --a x, or choose another --b"
    assert (either | Fix(drop=("c",))).options()[2] == Fix(drop=("c",))  # flattened, in order
    assert either.fields() == ("a", "b")
    assert hash(either) == hash(Fix(set={"a": "x"}) | Fix(another=("b",)))


def test_a_structured_fix_is_frozen_and_checked_when_built():
    import pytest

    from resolvable.rules import Fix

    fix = Fix(set={"a": 1})
    with pytest.raises(AttributeError, match="immutable"):
        fix.set = ()
    with pytest.raises(TypeError, match="field names"):
        Fix(drop="page_size")
    with pytest.raises(TypeError, match="not both"):
        Fix(set={"a": 1}, alternatives=(Fix(set={"b": 2}),))
    with pytest.raises(TypeError, match="takes a Fix or a str"):
        ConflictError("no", fix=42)


def test_conflict_error_keeps_the_text_and_the_value():
    from resolvable.rules import Fix

    value = Fix(set={"also_resolved": 16}, text="pass --also-resolved 16")
    exc = ConflictError("no", fix=value)
    assert exc.fix == "pass --also-resolved 16" and exc.fix_value is value
    assert str(exc) == str(ConflictError("no", fix="pass --also-resolved 16"))
    assert ConflictError("no", fix="prose").fix_value is None


def test_the_checker_applies_a_structured_fix_without_reading_its_text(registry, arch, hf, h100):
    """The value is applied as it is: a text that names no flag does not matter."""
    from resolvable.rules import Fix

    @registry.rule("passes")
    def needs_sixteen(ctx):
        if ctx.args.resolved_by_model == "flashinfer" and ctx.args.also_resolved != 16:
            raise ConflictError(
                "flashinfer needs 16",
                fix=Fix(set={"also_resolved": 16}, text="use the page size the kernel was built for")
                | Fix(another=("resolved_by_model",)),
            )
        return {}

    check = _check(registry, hf, h100, {"resolved_by_model": "flashinfer"})
    assert check.status == "verified"
    assert check.accepted[0] == (("arg", "also_resolved", 16),)
    # the "another" alternative expands to the field's choices; flashinfer itself stays refused
    assert ("arg", "resolved_by_model", "fa3") in {c for alt in check.accepted for c in alt}
    assert check.text == "use the page size the kernel was built for, or choose another --resolved-by-model"


def test_a_structured_fix_naming_an_unknown_field_is_unchecked(registry, arch, hf, h100):
    from resolvable._fixes import fix_alternatives
    from resolvable.rules import Fix

    assert fix_alternatives(Fix(set={"no_such_field": 1}), registry.schema) == ([], ["no_such_field"])

    @registry.rule("passes")
    def refuses(ctx):
        if ctx.args.plain == 3:
            raise ConflictError("no", fix=Fix(set={"no_such_field": 1}))
        return {}

    assert _check(registry, hf, h100, {"plain": 3}).status == "unchecked"
