"""Rule gates (``only_if_set=``): a rule that is inert while its fields hold their defaults is not
called when none of them is set, and the answer is always the whole plan's (``Plan.pruned``, the
restart in ``resolve``)."""

from __future__ import annotations

import pytest

from resolvable import ConflictError, Stage, resolve
from resolvable.errors import RegistrationError


def _calls(registry):
    """A gated rule on ``plain`` that records its calls and declares ``also_resolved``."""
    calls = []

    @registry.rule("passes", only_if_set=("plain",))
    def follows_plain(ctx):
        calls.append(ctx.args.plain)
        if ctx.args.plain == 0:  # the default: inert, as the gate promises
            return {}
        return {"also_resolved": ctx.args.plain * 10}

    return calls


def _whole(registry, *args, **kwargs):
    """The same resolution on the whole plan (nothing left out)."""
    from resolvable._registry import Plan

    saved = Plan.pruned
    Plan.pruned = lambda self, explicit: (self.groups, None)
    try:
        return resolve(registry, *args, **kwargs)
    finally:
        Plan.pruned = saved


def _same(a, b):
    assert dict(a) == dict(b)
    assert a.declarations == b.declarations
    assert a._asked == b._asked


def test_gated_rule_is_not_called_when_its_field_is_not_set(registry, hf, h100):
    calls = _calls(registry)
    res = resolve(registry, {}, hf, h100)
    assert calls == []  # left out of the plan: never called
    assert res["also_resolved"] is None
    _same(res, _whole(registry, {}, hf, h100))
    assert calls == [0]  # the whole plan calls it, and it declares nothing


def test_gated_rule_runs_when_the_user_sets_its_field(registry, hf, h100):
    calls = _calls(registry)
    res = resolve(registry, {"plain": 3}, hf, h100)
    assert calls == [3] and res["also_resolved"] == 30
    # a user value equal to the default is not "set": the rule stays out, and is inert anyway
    calls.clear()
    assert resolve(registry, {"plain": 0}, hf, h100)["also_resolved"] is None and calls == []


def test_a_declaration_of_a_watched_field_switches_to_the_whole_plan(registry, hf, h100):
    earlier = []

    @registry.rule("device")
    def sets_model_backend(ctx):
        earlier.append(1)
        return {"resolved_by_model": "fa3"}

    seen = []

    @registry.rule("passes", only_if_set=("resolved_by_model",))
    def after_backend(ctx):
        seen.append(ctx.args.resolved_by_model)
        if ctx.args.resolved_by_model == "auto":
            return {}
        return {"also_resolved": 7}

    res = resolve(registry, {}, hf, h100)
    assert seen == ["fa3"] and res["also_resolved"] == 7  # the gated rule did run
    assert len(earlier) == 1  # the rules after the declaration are the whole plan's; none runs twice
    assert [d.seq for d in res.declarations] == [1, 2]
    _same(res, _whole(registry, {}, hf, h100))


def test_refusal_of_a_gated_rule_is_the_whole_plans(registry, hf, h100):
    @registry.rule("passes", only_if_set=("plain",))
    def refuses_plain(ctx):
        if ctx.args.plain > 1:
            raise ConflictError("plain above 1 is refused", fields=("plain",))
        return {}

    assert resolve(registry, {"plain": 1}, hf, h100)["plain"] == 1
    with pytest.raises(ConflictError) as excinfo:
        resolve(registry, {"plain": 2}, hf, h100)
    assert excinfo.value.rule.endswith("refuses_plain") and excinfo.value.stage == "passes"


def test_traced_resolution_and_isolated_stage(registry, hf, h100):
    calls = _calls(registry)

    @registry.rule("model", only_if_set=("also_resolved",))
    def isolated_gate(ctx):
        calls.append("model")
        return {}

    res = resolve(registry, {"plain": 2}, hf, h100, trace=True)
    # ``follows_plain`` (passes) declares ``also_resolved``, which the left-out ``isolated_gate``
    # waits on; it came earlier (model) and was inert then, so it is not called
    assert calls == [2] and res["also_resolved"] == 20
    (decl,) = res.declarations
    assert ("args.plain", 2) in decl.inputs
    _same(res, _whole(registry, {"plain": 2}, hf, h100, trace=True))


def test_switch_inside_an_isolated_stage_keeps_the_stage_snapshot(registry, hf, h100):
    seen = []

    @registry.rule("model")
    def declares(ctx):
        return {"also_resolved": 5}

    @registry.rule("model", only_if_set=("also_resolved",))
    def same_stage(ctx):  # reads the stage's snapshot: also_resolved is still None there
        seen.append(("model", ctx.args.also_resolved))
        return {} if ctx.args.also_resolved is None else {"resolved_by_model": "fa3"}

    @registry.rule("passes", only_if_set=("also_resolved",))
    def later(ctx):
        seen.append(("passes", ctx.args.also_resolved))
        return {"resolved_by_model": "triton"} if ctx.args.also_resolved == 5 else {}

    res = resolve(registry, {}, hf, h100)
    assert seen == [("model", None), ("passes", 5)]
    assert res["resolved_by_model"] == "triton" and res["also_resolved"] == 5
    seen.clear()
    _same(res, _whole(registry, {}, hf, h100))
    assert seen == [("model", None), ("passes", 5)]


def test_after_a_switch_rules_gated_on_other_unset_fields_stay_out(registry, hf, h100):
    calls = _calls(registry)  # gated on ``plain``, which nothing sets

    @registry.rule("device")
    def declares(ctx):
        return {"also_resolved": 1}

    @registry.rule("passes", only_if_set=("also_resolved",))
    def on_also(ctx):
        calls.append("also")
        return {}

    res = resolve(registry, {}, hf, h100)
    assert calls == ["also"]  # after the switch: ``on_also`` runs, ``follows_plain`` still does not
    _same(res, _whole(registry, {}, hf, h100))


def test_pruned_plan_is_cached_per_set_gate_fields_and_bounded(registry, hf, h100):
    _calls(registry)

    @registry.rule("passes")
    def ungated(ctx):
        return {}

    plan = registry.compiled(hf.architecture)
    groups, watched = plan.pruned(frozenset())
    assert watched == frozenset({"plain"})
    assert [r.name.rsplit(".", 1)[-1] for _, _, _, rules in groups for r in rules] == ["ungated"]
    assert plan.pruned(frozenset({"resolved_by_model"})) is plan.pruned(frozenset())  # not a gate field
    assert plan.pruned(frozenset({"plain"})) == (plan.groups, None)  # set: nothing left out
    for n in range(600):  # explicit sets come from user input; the cache stays bounded
        plan.pruned(frozenset({"plain", f"x{n}"}))
    assert len(plan._pruned) <= 256


def test_a_plan_without_gates_is_the_whole_plan(registry, hf):
    @registry.rule("passes")
    def ungated(ctx):
        return {}

    plan = registry.compiled(hf.architecture)
    assert plan.pruned(frozenset({"plain"})) == (plan.groups, None)


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        (("plian",), "'plian' is not a field of FakeArgs; did you mean 'plain'?"),
        ((), "only_if_set=() gates on nothing"),
        ("plain", "only_if_set must be a tuple of field names"),
        ((1,), "only_if_set must be a tuple of field names"),
    ],
)
def test_bad_gates_are_refused_at_registration(registry, gate, message):
    with pytest.raises(
        RegistrationError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")
    ):
        registry.rule("passes", only_if_set=gate)


def test_check_stage_rules_take_no_gate(new_registry, fake_args):
    from resolvable import Registry

    phased = Registry(fake_args, stages=["device", Stage("boot", phase="startup")], name="phased")
    with pytest.raises(RegistrationError, match="check stage"):
        phased.rule("boot", only_if_set=("plain",))
    del new_registry


def test_gate_is_on_the_rule_record(registry):
    @registry.rule("passes", only_if_set=("plain", "also_resolved"))
    def two(ctx):
        return {}

    (rule,) = registry.rules
    assert rule.only_if_set == frozenset({"plain", "also_resolved"})
