"""The rule registry: dispatch order, registration-time validation, plan caching (upstream §2.2)."""

from __future__ import annotations

import pytest

from resolvable import HFConfig, Registry, Stage, resolve
from resolvable._registry import location_of
from resolvable.errors import RegistrationError


def where(fn) -> str:
    """The ``file:line`` suffix the registry records for ``fn`` (its first decorator line)."""
    return f"test_registry.py:{fn.__code__.co_firstlineno}"


def hf_for(arch: str) -> HFConfig:
    return HFConfig({"architectures": [arch]})


def rule_names(res) -> list[str]:
    return [d.rule for d in res.declarations]


def counter_rule(tag: str):
    """A rule that declares ``also_resolved`` and records its own run in ``calls``."""

    def fn(ctx):
        calls.append(tag)
        return {"also_resolved": len(calls)}

    fn.__qualname__ = tag
    return fn


calls: list[str] = []


@pytest.fixture(autouse=True)
def _reset_calls():
    calls.clear()


# -- dispatch order ---------------------------------------------------------------------


def test_order_constants_then_exact_then_predicate_then_global(registry, h100, arch):
    # Registered deliberately out of order: the groups, not registration order, decide.
    registry.rule("model")(counter_rule("global_a"))
    registry.for_arch_matching(lambda a: a.startswith("Fake"), label="Fake*")(counter_rule("pred_a"))
    registry.for_arch(arch)(counter_rule("exact_a"))
    registry.constant(arch, {"resolved_by_model": "fa3"})
    registry.rule("model")(counter_rule("global_b"))
    registry.for_arch(arch)(counter_rule("exact_b"))
    registry.for_arch_matching(lambda a: "Causal" in a)(counter_rule("pred_b"))

    res = resolve(registry, {}, hf_for(arch), h100)
    assert rule_names(res) == [
        f"constant[{arch}]",
        "exact_a",
        "exact_b",
        "pred_a",
        "pred_b",
        "global_a",
        "global_b",
    ]
    assert calls == ["exact_a", "exact_b", "pred_a", "pred_b", "global_a", "global_b"]
    assert res["also_resolved"] == 6  # last writer wins
    assert res["resolved_by_model"] == "fa3"
    assert [r.name for _, rules in registry.plan(arch) for r in rules] == rule_names(res)


def test_stages_run_in_declared_order_not_registration_order(registry, h100, arch):
    registry.rule("passes")(counter_rule("in_passes"))
    registry.for_arch(arch)(counter_rule("in_model"))
    registry.rule("device")(counter_rule("in_device"))
    res = resolve(registry, {}, hf_for(arch), h100)
    assert calls == ["in_device", "in_model", "in_passes"]
    assert [d.stage for d in res.declarations] == ["device", "model", "passes"]
    assert [s.name for s, _ in registry.plan(arch)] == ["device", "model", "passes"]


def test_exact_arch_rules_in_a_later_stage_run_after_globals_of_an_earlier_stage(registry, h100, arch):
    registry.for_arch(arch, stage="passes")(counter_rule("late_exact"))
    registry.rule("model")(counter_rule("early_global"))
    resolve(registry, {}, hf_for(arch), h100)
    assert calls == ["early_global", "late_exact"]


def test_rules_listing_is_in_plan_order(registry, arch):
    registry.rule("passes")(counter_rule("p"))
    registry.rule("model")(counter_rule("g"))
    registry.for_arch(arch)(counter_rule("e"))
    registry.constant(arch, {"also_resolved": 1})
    assert [r.name for r in registry.rules] == [f"constant[{arch}]", "e", "g", "p"]
    assert [r.kind for r in registry.rules] == ["constant", "arch", "pass", "pass"]


def test_unknown_architecture_gets_only_global_rules(registry, h100, arch):
    registry.constant(arch, {"resolved_by_model": "fa3"})
    registry.for_arch(arch)(counter_rule("exact"))
    registry.for_arch_matching(lambda a: a == arch)(counter_rule("pred"))
    registry.rule("passes")(counter_rule("global"))
    res = resolve(registry, {}, hf_for("SomethingElseForCausalLM"), h100)
    assert calls == ["global"]
    assert rule_names(res) == ["global"]
    assert res["resolved_by_model"] == "auto"
    assert registry.knows(arch) is True
    assert registry.knows("SomethingElseForCausalLM") is False


def test_no_config_gets_only_global_rules(registry, h100, arch):
    registry.for_arch(arch)(counter_rule("exact"))
    registry.rule("passes")(counter_rule("global"))
    res = resolve(registry, {}, None, h100)
    assert calls == ["global"]
    assert res.arch is None
    assert res.notes == ()


def test_exact_rule_for_several_architectures(registry, h100):
    registry.for_arch("A", "B")(counter_rule("ab"))
    assert rule_names(resolve(registry, {}, hf_for("A"), h100)) == ["ab"]
    assert rule_names(resolve(registry, {}, hf_for("B"), h100)) == ["ab"]
    assert rule_names(resolve(registry, {}, hf_for("C"), h100)) == []
    assert registry.architectures() == frozenset({"A", "B"})


def test_predicate_rules(registry, h100):
    @registry.for_arch_matching(lambda a: a.startswith("Qwen3"), label="Qwen3*")
    def qwen3(ctx):
        return {"resolved_by_model": "flashinfer"}

    assert resolve(registry, {}, hf_for("Qwen3ForCausalLM"), h100)["resolved_by_model"] == "flashinfer"
    assert resolve(registry, {}, hf_for("Qwen2ForCausalLM"), h100)["resolved_by_model"] == "auto"
    (rule,) = registry.rules
    assert rule.kind == "predicate"
    assert rule.selector() == "arch matching Qwen3*"
    assert registry.knows("Qwen3MoeForCausalLM") and not registry.knows("LlamaForCausalLM")


def test_a_crashing_predicate_names_the_rule(registry, h100):
    @registry.for_arch_matching(lambda a: 1 / 0)
    def picky(ctx):
        return {}

    with pytest.raises(RegistrationError, match="picky") as info:
        resolve(registry, {}, hf_for("X"), h100)
    assert where(picky) in str(info.value)


def test_empty_dict_is_dropped(registry, h100, arch):
    @registry.for_arch(arch)
    def nothing_to_say(ctx):
        return {}

    res = resolve(registry, {}, hf_for(arch), h100)
    assert res.declarations == ()
    assert dict(res) == dict(resolve(registry, {}, None, h100))


@pytest.mark.parametrize("bad", [None, ["resolved_by_model", "fa3"], "fa3", 3, ("a", 1)])
def test_non_dict_return_is_a_type_error_naming_the_rule(registry, h100, arch, bad):
    @registry.for_arch(arch)
    def sloppy_rule(ctx):
        return bad

    with pytest.raises(TypeError) as info:
        resolve(registry, {}, hf_for(arch), h100)
    message = str(info.value)
    assert "sloppy_rule" in message
    assert where(sloppy_rule) in message
    assert "dict" in message


# -- registration-time validation --------------------------------------------------------


def test_location_is_file_and_first_decorator_line(registry):
    @registry.rule("passes")
    def located(ctx):
        return {}

    (rule,) = registry.rules
    assert rule.location.endswith(where(located))
    assert rule.location == location_of(located)
    assert rule.name.endswith("located")


def test_docstring_first_paragraph_is_kept(registry):
    @registry.rule("passes")
    def documented(ctx):
        """Pick a backend
        for the fake model.

        Details nobody reads.
        """
        return {}

    assert registry.rules[0].doc == "Pick a backend for the fake model."


def test_unknown_stage_suggests_the_closest(registry):
    with pytest.raises(RegistrationError) as info:
        registry.rule("pases")
    message = str(info.value)
    assert "'pases'" in message
    assert "did you mean 'passes'" in message
    assert "device" in message and "model" in message  # lists the stages


def test_unknown_stage_for_constants_and_for_arch(registry):
    with pytest.raises(RegistrationError, match="did you mean 'model'"):
        registry.constant("X", {"also_resolved": 1}, stage="modle")
    with pytest.raises(RegistrationError, match="did you mean 'device'"):
        registry.for_arch("X", stage="devise")


def test_zero_parameter_rule_is_refused(registry):
    def no_args():
        return {}

    with pytest.raises(RegistrationError, match="exactly one argument") as info:
        registry.rule("passes")(no_args)
    assert "no_args" in str(info.value)
    assert where(no_args) in str(info.value)
    assert registry.rules == ()


def test_two_required_parameters_rule_is_refused(registry):
    def two_args(ctx, extra):
        return {}

    with pytest.raises(RegistrationError, match="two_args"):
        registry.for_arch("X")(two_args)
    assert registry.rules == ()


def test_one_required_parameter_plus_optional_ones_is_accepted(registry):
    def with_default(ctx, verbose=False):
        return {}

    registry.rule("passes")(with_default)
    assert len(registry.rules) == 1


def test_non_callable_rule_is_refused(registry):
    with pytest.raises(RegistrationError, match="not callable"):
        registry.rule("passes")("not a function")  # type: ignore[arg-type]


def test_registering_the_same_function_twice_in_a_stage_is_refused(registry):
    def once(ctx):
        return {}

    registry.rule("passes")(once)
    with pytest.raises(RegistrationError, match="already registered") as info:
        registry.rule("passes")(once)
    assert "once" in str(info.value)
    assert len(registry.rules) == 1


def test_same_function_for_arch_twice_in_a_stage_is_refused(registry):
    def per_arch(ctx):
        return {}

    registry.for_arch("A")(per_arch)
    with pytest.raises(RegistrationError, match="already registered"):
        registry.for_arch("B")(per_arch)


def test_same_function_in_two_stages_is_allowed(registry):
    def twice(ctx):
        return {}

    registry.rule("device")(twice)
    registry.rule("passes")(twice)
    assert [r.stage for r in registry.rules] == ["device", "passes"]


def test_duplicate_constant_for_an_arch_is_refused(registry):
    registry.constant("A", {"also_resolved": 1})
    with pytest.raises(RegistrationError, match="already registered"):
        registry.constant("A", {"also_resolved": 2})
    registry.constant("A", {"also_resolved": 3}, stage="passes")  # another stage is fine
    registry.constant("B", {"also_resolved": 2})


def test_constant_declaring_a_non_resolvable_field_is_refused(registry):
    with pytest.raises(RegistrationError, match="'plain' is not a resolvable field of FakeArgs"):
        registry.constant("A", {"also_resolved": 1, "plain": 5})
    with pytest.raises(RegistrationError, match="no_such_field"):
        registry.constant("A", {"no_such_field": 5})
    assert registry.rules == ()


def test_constant_values_are_copied(registry, h100):
    values = {"also_resolved": 1}
    registry.constant("A", values)
    values["also_resolved"] = 2
    assert resolve(registry, {}, hf_for("A"), h100)["also_resolved"] == 1


def test_rule_keyed_by_both_archs_and_predicate_is_refused(registry):
    with pytest.raises(RegistrationError, match="not both"):
        registry.rule("model", archs=("A",), when=lambda a: True)


def test_for_arch_needs_an_architecture(registry):
    with pytest.raises(RegistrationError):
        registry.for_arch()


def test_non_callable_predicate_is_refused(registry):
    with pytest.raises(RegistrationError, match="not callable"):
        registry.rule("model", when="Llama*")  # type: ignore[arg-type]


def test_freeze_refuses_registration(registry, h100, arch):
    registry.for_arch(arch)(counter_rule("before"))
    registry.freeze()
    with pytest.raises(RegistrationError, match="frozen"):
        registry.rule("passes")(counter_rule("after"))
    with pytest.raises(RegistrationError, match="frozen"):
        registry.constant(arch, {"also_resolved": 1})
    assert rule_names(resolve(registry, {}, hf_for(arch), h100)) == ["before"]  # resolving still works


def test_plan_cache_is_invalidated_by_a_new_registration(registry, h100, arch):
    registry.for_arch(arch)(counter_rule("first"))
    plan_before = registry.plan(arch)
    assert registry.plan(arch) is plan_before  # cached
    assert rule_names(resolve(registry, {}, hf_for(arch), h100)) == ["first"]

    registry.for_arch(arch)(counter_rule("second"))
    assert registry.plan(arch) is not plan_before
    assert rule_names(resolve(registry, {}, hf_for(arch), h100)) == ["first", "second"]

    registry.rule("passes")(counter_rule("third"))
    assert rule_names(resolve(registry, {}, hf_for(arch), h100)) == ["first", "second", "third"]


def test_registries_are_independent(registry, new_registry, h100, arch):
    other = new_registry(name="other")
    registry.for_arch(arch)(counter_rule("only_here"))
    assert other.rules == ()
    assert rule_names(resolve(other, {}, hf_for(arch), h100)) == []


# -- construction ------------------------------------------------------------------------


def test_duplicate_stage_names_are_refused(fake_args):
    with pytest.raises(RegistrationError, match="unique"):
        Registry(fake_args, ["model", Stage("model", isolated=True)])


def test_no_stages_is_refused(fake_args):
    with pytest.raises(RegistrationError):
        Registry(fake_args, [])


def test_unknown_model_stage_is_refused(fake_args):
    with pytest.raises(RegistrationError, match="did you mean 'model'"):
        Registry(fake_args, ["model", "passes"], model_stage="modle")


def test_model_stage_defaults_to_the_first_stage(fake_args):
    reg = Registry(fake_args, ["first", "second"])
    assert reg.model_stage == "first"

    @reg.for_arch("A")
    def r(ctx):
        return {}

    assert reg.rules[0].stage == "first"


def test_stage_objects_keep_their_isolation(registry):
    assert [(s.name, s.isolated) for s in registry.stages] == [
        ("device", False),
        ("model", True),
        ("passes", False),
    ]


def test_same_function_as_arch_rule_and_global_rule_in_one_stage_is_refused(new_registry):
    reg = new_registry()

    def rule(ctx):
        return {}

    reg.rule("passes", archs=("XForCausalLM",))(rule)
    with pytest.raises(RegistrationError, match="already registered"):
        reg.rule("passes")(rule)
