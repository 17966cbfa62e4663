"""Check phases: stages with ``phase=...`` run only in ``check`` (after ``resolve``) and only refuse."""

from __future__ import annotations

import pytest

from resolvable import ConflictError, Registry, Stage, check, resolve
from resolvable.errors import DeclarationError, InvalidArgumentError, RegistrationError, RuleFailure


@pytest.fixture
def phased(fake_args):
    return Registry(
        fake_args,
        stages=["device", Stage("model", isolated=True), "passes", Stage("boot", phase="startup")],
        model_stage="model",
        name="phased",
    )


def test_resolve_skips_check_stages_and_check_runs_them_on_final_values(phased, hf, h100):
    seen = []

    @phased.rule("passes")
    def choose(ctx):
        return {"resolved_by_model": "fa3"}

    @phased.rule("boot")
    def boot_check(ctx):
        seen.append(ctx.args.resolved_by_model)
        return {}

    res = resolve(phased, {}, hf, h100)
    assert seen == []  # resolve never runs a check stage
    passed = check(phased, res, hf, phase="startup")
    assert seen == ["fa3"] and [r.name.rsplit(".", 1)[-1] for r in passed] == ["boot_check"]
    assert phased.phases == ("startup",)


def test_check_refusal_carries_phase_stage_resolution_and_origins(phased, hf, h100):
    @phased.rule("passes")
    def choose(ctx):
        return {"resolved_by_model": "fa3"}

    @phased.rule("boot")
    def refuse_fa3(ctx):
        if ctx.args.resolved_by_model == "fa3":
            raise ConflictError("fa3 does not start here", fields=("resolved_by_model",), fix="use triton")
        return {}

    res = resolve(phased, {}, hf, h100)
    fingerprint = res.fingerprint()
    with pytest.raises(ConflictError) as excinfo:
        check(phased, res, hf, phase="startup")
    exc = excinfo.value
    assert (exc.phase, exc.stage, exc.resolution) == ("startup", "boot", res)
    assert exc.rule.endswith("refuse_fa3")
    value, who, _ = exc.origins["resolved_by_model"]
    assert value == "fa3" and who.endswith("choose")
    assert "startup check" in str(exc)
    assert res.fingerprint() == fingerprint  # a check changes nothing


def test_refusal_while_resolving_has_no_phase_but_names_its_stage(phased, hf, h100):
    @phased.rule("passes")
    def refuse(ctx):
        raise ConflictError("no")

    with pytest.raises(ConflictError) as excinfo:
        resolve(phased, {}, hf, h100)
    assert (excinfo.value.phase, excinfo.value.stage, excinfo.value.resolution) == (None, "passes", None)


def test_a_check_rule_that_declares_is_refused(phased, hf, h100):
    @phased.rule("boot")
    def declares(ctx):
        return {"resolved_by_model": "triton"}

    res = resolve(phased, {}, hf, h100)
    with pytest.raises(DeclarationError, match="a check only refuses") as excinfo:
        check(phased, res, hf, phase="startup")
    assert excinfo.value.rule.endswith("declares")


def test_a_crashing_check_is_a_rule_failure(phased, hf, h100):
    @phased.rule("boot")
    def crashes(ctx):
        ctx.hf["missing"]  # a KeyError inside a check
        return {}

    res = resolve(phased, {}, hf, h100)
    with pytest.raises(RuleFailure, match="crashes"):
        check(phased, res, hf, phase="startup")


def test_check_stage_guard_skips_its_rules(fake_args, hf, h100):
    reg = Registry(
        fake_args, stages=["model", Stage("boot", phase="startup", when=lambda a: a.plain > 0)], name="g"
    )

    @reg.rule("boot")
    def never(ctx):
        raise ConflictError("guarded")

    assert check(reg, resolve(reg, {}, hf, h100), hf, phase="startup") == ()
    with pytest.raises(ConflictError, match="guarded"):
        check(reg, resolve(reg, {"plain": 1}, hf, h100), hf, phase="startup")


def test_unknown_phase_is_a_clear_error(phased, hf, h100):
    with pytest.raises(InvalidArgumentError, match=r"unknown check phase 'boot'.*startup"):
        check(phased, resolve(phased, {}, hf, h100), hf, phase="boot")


def test_check_stages_come_last_and_hold_no_constants(fake_args):
    with pytest.raises(RegistrationError, match="after a check stage"):
        Registry(fake_args, stages=[Stage("boot", phase="startup"), "model"], model_stage="model")
    with pytest.raises(RegistrationError, match="is a check stage; it must resolve"):
        Registry(fake_args, stages=["device", Stage("boot", phase="startup")], model_stage="boot")
    reg = Registry(fake_args, stages=["model", Stage("boot", phase="startup")])
    with pytest.raises(RegistrationError, match="check stage"):
        reg.constant("FakeForCausalLM", {"resolved_by_model": "fa3"}, stage="boot")
