"""Registry lint: each check fires on a registry built to trip it, and stays quiet otherwise."""

from __future__ import annotations

import dataclasses

from resolvable import Force, Platform, Registry, Stage, arg, resolve
from resolvable._lint import lint

H100 = Platform.preset("h100")


@dataclasses.dataclass
class Args:
    backend: str | None = arg(None, resolvable=True, choices=("a", "b", "c"))
    page: int | None = arg(None, resolvable=True)
    plain: int = arg(0)


def _registry() -> Registry:
    return Registry(Args, [Stage("model", isolated=True), "fill", "late"])


def _attempts(registry, archs=("XForCausalLM",), users=({},)):
    return [
        (f"{a}:{u}", lambda a=a, u=u: resolve(registry, u, {"architectures": [a]}, H100))
        for a in archs
        for u in users
    ]


def _checks(findings):
    return {f.check for f in findings}


def test_clean_registry_has_no_findings():
    reg = _registry()

    @reg.rule("fill")
    def fill(ctx):
        return {"backend": "a"} if ctx.args.backend is None else {}

    findings, stats = lint(reg, _attempts(reg, users=({}, {"backend": "b"})), ["XForCausalLM"])
    assert findings == [] and stats["resolutions"] == 2


def test_invalid_declaration_is_reported_with_rule():
    reg = _registry()

    @reg.rule("fill")
    def bad_value(ctx):
        return {"backend": "zzz"}

    findings, _ = lint(reg, _attempts(reg), ["XForCausalLM"])
    assert [(f.check, f.rule) for f in findings] == [
        ("invalid-declaration", "test_invalid_declaration_is_reported_with_rule.<locals>.bad_value")
    ]
    assert findings[0].location.endswith(".py:" + findings[0].location.rsplit(":", 1)[1])


def test_always_shadowed_and_silent_override_and_dead_predicate():
    reg = _registry()

    @reg.rule("fill")
    def early(ctx):
        return {"page": 1}

    @reg.rule("late")
    def late(ctx):
        return {"page": 2, "backend": "c"}

    @reg.for_arch_matching(lambda arch: arch.startswith("Nothing"), label="Nothing*")
    def never(ctx):
        return {"page": 3}

    findings, _ = lint(reg, _attempts(reg, users=({}, {"backend": "a"})), ["XForCausalLM"])
    by_check = {f.check: f for f in findings}
    assert by_check["always-shadowed"].rule.endswith("early")
    assert by_check["silent-override"].rule.endswith("late")
    assert by_check["dead-predicate"].rule.endswith("never")


def test_forced_override_is_not_silent():
    reg = _registry()

    @reg.rule("late")
    def forced(ctx):
        return {"backend": Force("c", "kernel c only")}

    findings, _ = lint(reg, _attempts(reg, users=({"backend": "a"},)), ["XForCausalLM"])
    assert "silent-override" not in _checks(findings)


def test_duplicate_family_owning_one_field():
    reg = _registry()
    # two rule "families" in different modules declaring the same field for one arch
    first = lambda ctx: {"page": 8}  # noqa: E731
    second = lambda ctx: {"page": 8}  # noqa: E731
    first.__module__, second.__module__ = "fam_one", "fam_two"
    reg.for_arch("XForCausalLM")(first)
    reg.for_arch("XForCausalLM")(second)
    findings, _ = lint(reg, _attempts(reg), ["XForCausalLM"])
    dup = [f for f in findings if f.check == "duplicate-family"]
    assert dup and "fam_one" in dup[0].message and "fam_two" in dup[0].message


def test_crash_is_reported():
    reg = _registry()

    @reg.rule("fill")
    def crashes(ctx):
        return {"page": ctx.hf["no_such_key"]}

    findings, _ = lint(reg, _attempts(reg), ["XForCausalLM"])
    assert _checks(findings) == {"crash"} and "crashes" in findings[0].message
