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
