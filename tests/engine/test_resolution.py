"""The immutable Resolution: explain, diff, adjust, fingerprint, (de)serialisation."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap

import pytest

from resolvable import Declaration, Force, Outcome, Platform, Resolution, resolve
from resolvable._schema import schema_of
from resolvable.errors import DeclarationError, InvalidArgumentError, LateDeclarationError


@pytest.fixture
def rules(registry, arch):
    """Three rules: an arch rule, a pass that overrides it, and a pass blocked by user input."""

    @registry.for_arch(arch)
    def model_rule(ctx):
        return {"resolved_by_model": "fa3", "also_resolved": 16}

    @registry.rule("passes")
    def pass_rule(ctx):
        return {"resolved_by_model": "flashinfer"}

    @registry.rule("passes")
    def forcing_rule(ctx):
        if ctx.user_set("also_resolved"):
            return {"also_resolved": Force(64, "fake kernels need 64")}
        return {}

    return registry


@pytest.fixture
def res(rules, hf, h100):
    return resolve(rules, {}, hf, h100)


# -- immutability ----------------------------------------------------------------------------


def test_resolution_is_immutable(res):
    with pytest.raises(AttributeError, match="immutable"):
        res.arch = "Other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        res.brand_new = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        res["resolved_by_model"] = "triton"  # type: ignore[index]
    with pytest.raises(TypeError):
        res.user["plain"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        res.leaves["x"] = "y"  # type: ignore[index]
    assert isinstance(res.declarations, tuple)
    with pytest.raises(AttributeError):  # records are immutable (NamedTuple)
        res.declarations[0].rule = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        res.declarations[0].writes[0].value = "triton"  # type: ignore[misc]
    assert res["resolved_by_model"] == "flashinfer"


def test_resolution_does_not_alias_its_inputs(rules, hf, h100):
    user = {"plain": 1}
    res = resolve(rules, user, hf, h100)
    user["plain"] = 2
    assert res.user == {"plain": 1}
    assert res["plain"] == 1


def test_mapping_interface(res):
    assert set(res) == {"plain", "resolved_by_model", "also_resolved", "metadata_but_not_resolvable"}
    assert len(res) == 4
    assert res.get("also_resolved") == 16
    assert res.resolvable == frozenset({"resolved_by_model", "also_resolved"})
    assert "flashinfer" in repr(res)


def test_changed_lists_fields_that_differ_from_defaults(rules, hf, h100):
    res = resolve(rules, {"plain": 7}, hf, h100)
    assert res.changed() == {"plain": 7, "resolved_by_model": "flashinfer", "also_resolved": 16}
    assert resolve(rules, {}, None, h100).changed() == {"resolved_by_model": "flashinfer"}


# -- explain ------------------------------------------------------------------------------------


def test_explain_steps_in_order_with_outcomes(res, rules):
    exp = res.explain("resolved_by_model")
    assert exp.field == "resolved_by_model"
    assert exp.value == "flashinfer"
    assert exp.default == "auto"
    assert exp.user_set is False and exp.user_value is None
    assert [s.rule.rsplit(".", 1)[-1] for s in exp.steps] == ["model_rule", "pass_rule"]
    assert [s.outcome for s in exp.steps] == ["shadowed", "applied"]
    assert [s.stage for s in exp.steps] == ["model", "passes"]
    assert [(s.previous, s.value) for s in exp.steps] == [("auto", "fa3"), ("fa3", "flashinfer")]
    assert exp.decided_by.endswith("pass_rule")
    assert exp.location == next(r for r in rules.rules if r.name.endswith("pass_rule")).location
    assert "test_resolution.py:" in exp.location
    text = str(exp)
    assert "flashinfer" in text and "shadowed" in text and "pass_rule" in text


def test_explain_blocked_and_forced(rules, hf, h100):
    res = resolve(rules, {"resolved_by_model": "triton", "also_resolved": 8}, hf, h100)
    backend = res.explain("resolved_by_model")
    assert res["resolved_by_model"] == "triton"
    assert [s.outcome for s in backend.steps] == ["blocked", "blocked"]
    assert backend.decided_by == "user"
    assert backend.user_set is True and backend.user_value == "triton"
    assert backend.location is None

    page = res.explain("also_resolved")
    assert res["also_resolved"] == 64
    assert [s.outcome for s in page.steps] == ["blocked", "forced"]
    assert page.steps[1].reason == "fake kernels need 64"
    assert page.decided_by.endswith("forcing_rule")
    assert "fake kernels need 64" in str(page)


def test_explain_field_nobody_declared(res):
    exp = res.explain("plain")
    assert exp.steps == ()
    assert exp.decided_by == "default"
    assert exp.value == 0


def test_explain_unknown_field_suggests(res):
    with pytest.raises(InvalidArgumentError, match="did you mean 'also_resolved'"):
        res.explain("also_resolvd")


def test_explanation_to_dict_is_json(res):
    data = res.explain("resolved_by_model").to_dict()
    assert json.loads(json.dumps(data)) == data
    assert [s["outcome"] for s in data["steps"]] == ["shadowed", "applied"]


# -- diff ---------------------------------------------------------------------------------------


def test_diff_with_itself_is_empty(res):
    assert res.diff(res) == ()


def test_diff_names_the_rule_on_each_side(rules, hf, h100):
    a = resolve(rules, {}, hf, h100)
    b = resolve(rules, {"resolved_by_model": "triton", "also_resolved": 8}, hf, h100)
    changes = {c.field: c for c in a.diff(b)}
    assert set(changes) == {"resolved_by_model", "also_resolved"}
    backend = changes["resolved_by_model"]
    assert (backend.before, backend.after) == ("flashinfer", "triton")
    assert backend.decided_before.endswith("pass_rule")
    assert backend.decided_after == "user"
    page = changes["also_resolved"]
    assert (page.before, page.after) == (16, 64)
    assert page.decided_before.endswith("model_rule")
    assert page.decided_after.endswith("forcing_rule")
    assert [c.field for c in b.diff(a)] == sorted(changes)


def test_diff_across_platforms(registry, hf, arch):
    @registry.for_arch(arch)
    def by_platform(ctx):
        return {"resolved_by_model": "fa3" if ctx.platform.is_sm90 else "triton"}

    a = resolve(registry, {}, hf, Platform.preset("h100"))
    b = resolve(registry, {}, hf, Platform.preset("a100"))
    (change,) = a.diff(b)
    assert (change.field, change.before, change.after) == ("resolved_by_model", "fa3", "triton")


# -- adjust -------------------------------------------------------------------------------------


def test_adjust_returns_a_new_resolution(res):
    adjusted = res.adjust("load_weights", also_resolved=32)
    assert adjusted is not res
    assert adjusted["also_resolved"] == 32
    assert res["also_resolved"] == 16  # original unchanged
    assert len(adjusted.declarations) == len(res.declarations) + 1
    last = adjusted.declarations[-1]
    assert last.rule == "load_weights"
    assert last.stage == "adjust"
    assert last.seq == res.declarations[-1].seq + 1
    assert last.location.startswith("test_resolution.py:")
    assert adjusted.explain("also_resolved").decided_by == "load_weights"
    assert adjusted.fingerprint() != res.fingerprint()


def test_adjust_overrides_explicit_user_values_as_forced(rules, hf, h100):
    res = resolve(rules, {"resolved_by_model": "triton"}, hf, h100)
    adjusted = res.adjust("weight_loader", resolved_by_model="fa3")
    assert adjusted["resolved_by_model"] == "fa3"
    assert res["resolved_by_model"] == "triton"
    write = adjusted.declarations[-1].writes[0]
    assert write.outcome is Outcome.FORCED
    assert "weight_loader" in write.reason
    assert adjusted.explain("resolved_by_model").steps[-1].outcome == "forced"


def test_adjust_validates_like_a_rule(res):
    with pytest.raises(DeclarationError, match="plain"):
        res.adjust("loader", plain=3)
    with pytest.raises(DeclarationError, match="fa9"):
        res.adjust("loader", also_resolved=4, resolved_by_model="fa9")
    assert res["also_resolved"] == 16


def test_adjust_with_nothing_returns_itself(res):
    assert res.adjust("noop") is res


def test_adjust_after_publish_is_refused(res):
    res.publish()
    with pytest.raises(LateDeclarationError, match="already published") as info:
        res.adjust("late_loader", also_resolved=1)
    assert "late_loader" in str(info.value)
    assert res["also_resolved"] == 16


# -- fingerprint ----------------------------------------------------------------------------------


def test_fingerprint_is_stable(rules, hf, h100):
    a = resolve(rules, {}, hf, h100).fingerprint()
    b = resolve(rules, {}, hf, Platform.preset("h100")).fingerprint()
    assert a == b
    assert len(a) == 16 and int(a, 16) >= 0


def test_fingerprint_differs_with_a_value(rules, hf, h100):
    base = resolve(rules, {}, hf, h100)
    assert resolve(rules, {"plain": 1}, hf, h100).fingerprint() != base.fingerprint()
    assert base.adjust("x", also_resolved=17).fingerprint() != base.fingerprint()


def test_fingerprint_differs_with_the_platform(rules, hf, h100):
    base = resolve(rules, {}, hf, h100)
    other = resolve(rules, {}, hf, Platform.preset("h200"))
    assert dict(base) == dict(other)  # same values ...
    assert base.fingerprint() != other.fingerprint()  # ... different platform facts
    tweaked = resolve(rules, {}, hf, h100.replace(name="h100", driver_version=(580, 1)))
    assert tweaked.fingerprint() != base.fingerprint()


def test_fingerprint_ignores_detected_by(rules, hf, h100):
    relabelled = dataclasses.replace(h100, detected_by="a different probe")
    assert resolve(rules, {}, hf, relabelled).fingerprint() == resolve(rules, {}, hf, h100).fingerprint()


def test_fingerprint_differs_with_the_ruleset_version(rules, new_registry, hf, h100):
    other = new_registry(version="2")
    assert (
        resolve(other, {}, None, h100).fingerprint() != resolve(new_registry(), {}, None, h100).fingerprint()
    )


FINGERPRINT_SCRIPT = textwrap.dedent(
    """
    import dataclasses
    from resolvable import Platform, Registry, arg, resolve

    @dataclasses.dataclass
    class S:
        a: str = arg("x", resolvable=True, leaf="g.a", choices=("x", "y"))
        b: list = arg(None, resolvable=True)
        c: dict = arg(None)

    reg = Registry(S, ["model"], name="fp", version="3")

    @reg.rule("model")
    def r(ctx):
        return {"a": "y", "b": (3, 1, 2)}

    FP = resolve(reg, {"c": None}, {"architectures": ["Z"]}, Platform.preset("b200")).fingerprint()
    print(FP)
    """
)


def test_fingerprint_is_identical_across_processes_and_hash_seeds():
    namespace: dict = {}
    results = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", FINGERPRINT_SCRIPT],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        results.add(out.stdout.strip())
    assert len(results) == 1
    (fingerprint,) = results
    assert len(fingerprint) == 16
    exec(compile(FINGERPRINT_SCRIPT.replace("print(FP)", ""), "<fp>", "exec"), namespace)
    assert namespace["FP"] == fingerprint  # and the same in this process


# -- serialisation -------------------------------------------------------------------------------


def round_trip(res, schema=None):
    return Resolution.from_dict(json.loads(json.dumps(res.to_dict())), schema=schema)


def test_to_dict_json_from_dict_round_trip(rules, hf, h100, fake_args):
    res = resolve(rules, {"also_resolved": 8, "plain": 3}, hf, h100, trace=True)
    back = round_trip(res, schema_of(fake_args))
    assert back == res
    assert dict(back) == dict(res)
    assert back.fingerprint() == res.fingerprint()
    assert back.platform == h100
    assert back.declarations == res.declarations
    assert back.explicit == res.explicit
    assert back.explain("also_resolved") == res.explain("also_resolved")


def test_round_trip_without_schema(res):
    back = round_trip(res)
    assert back == res
    assert back.leaves == res.leaves
    assert back.adjust("later", also_resolved=2)["also_resolved"] == 2


def test_round_trip_of_adjusted_resolution(res):
    adjusted = res.adjust("loader", also_resolved=24)
    assert round_trip(adjusted) == adjusted
    assert round_trip(adjusted).declarations[-1].stage == "adjust"


def test_declaration_round_trip():
    decl = Declaration.from_dict(
        {
            "seq": 1,
            "rule": "r",
            "location": "f.py:1",
            "stage": "model",
            "writes": [{"field": "a", "value": 1, "previous": None, "outcome": "forced", "reason": "why"}],
            "inputs": [["platform.is_sm90", True]],
        }
    )
    assert decl.writes[0].outcome is Outcome.FORCED
    assert decl.inputs == (("platform.is_sm90", True),)
    assert Declaration.from_dict(decl.to_dict()) == decl
    assert decl.fields == {"a": 1}


def test_tampered_values_are_detected(res):
    data = json.loads(json.dumps(res.to_dict()))
    data["values"]["resolved_by_model"] = "triton"
    with pytest.raises(DeclarationError, match="fingerprint"):
        Resolution.from_dict(data)


def test_tampered_platform_is_detected(res):
    data = json.loads(json.dumps(res.to_dict()))
    data["platform"]["cuda_version"] = [12, 2]
    with pytest.raises(DeclarationError, match="fingerprint"):
        Resolution.from_dict(data)


def test_unsupported_format_is_refused(res):
    data = res.to_dict()
    data["format"] = 99
    with pytest.raises(DeclarationError, match="format"):
        Resolution.from_dict(data)


@pytest.mark.parametrize("missing", ["values", "ruleset"])
def test_truncated_data_is_a_value_error(res, missing):
    # Data read back from a file is input: a missing key must surface as a clear ValueError
    # (the engine's rule for bad input), not a bare KeyError.
    data = json.loads(json.dumps(res.to_dict()))
    del data[missing]
    with pytest.raises(ValueError, match=missing):
        Resolution.from_dict(data)


def test_malformed_declarations_are_a_value_error(res):
    data = json.loads(json.dumps(res.to_dict()))
    data["declarations"] = "not a list of declarations"
    with pytest.raises(ValueError):
        Resolution.from_dict(data)


def test_equality_is_by_content(rules, hf, h100):
    a = resolve(rules, {}, hf, h100)
    b = resolve(rules, {}, hf, h100)
    assert a == b
    assert a != resolve(rules, {"plain": 1}, hf, h100)
    with pytest.raises(TypeError):
        hash(a)
