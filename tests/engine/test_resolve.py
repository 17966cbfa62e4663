"""resolve() and the read-only View rules see (upstream §2.3)."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from resolvable import ConflictError, Force, HFConfig, Outcome, Platform, Registry, RuleContext, arg, resolve
from resolvable._declaration import apply_declaration
from resolvable._resolve import View
from resolvable._schema import schema_of
from resolvable.errors import (
    DeclarationError,
    FrozenContextError,
    InvalidArgumentError,
    RuleFailure,
)


def where(fn) -> str:
    return f"test_resolve.py:{fn.__code__.co_firstlineno}"


def only_write(res, field):
    writes = [w for d in res.declarations for w in d.writes if w.field == field]
    assert len(writes) == 1, writes
    return writes[0]


# -- the View --------------------------------------------------------------------------------


def test_view_forwards_reads():
    view = View({"a": 1, "b": None})
    assert view.a == 1
    assert view["a"] == 1
    assert view.b is None
    assert dict(view) == {"a": 1, "b": None}
    assert len(view) == 2
    assert "a" in view
    with pytest.raises(AttributeError, match="no argument named 'c'"):
        view.c  # noqa: B018
    with pytest.raises(KeyError):
        view["c"]


def test_view_rejects_attribute_writes():
    view = View({"a": 1})
    with pytest.raises(FrozenContextError) as info:
        view.a = 2
    assert isinstance(info.value, AttributeError)
    assert "return {'a': 2}" in str(info.value)  # tells the author what to do instead
    with pytest.raises(FrozenContextError):
        view.new = 3
    assert view.a == 1


def test_view_rejects_item_assignment_and_deletion():
    view = View({"a": 1})
    with pytest.raises(FrozenContextError):
        view["a"] = 2
    with pytest.raises(FrozenContextError):
        del view.a
    assert view.a == 1


def test_a_rule_that_writes_to_the_view_fails_naming_the_rule(registry, h100):
    @registry.rule("passes")
    def mutating_rule(ctx):
        ctx.args.resolved_by_model = "fa3"
        return {}

    with pytest.raises(RuleFailure) as info:
        resolve(registry, {}, None, h100)
    assert "mutating_rule" in str(info.value)
    assert isinstance(info.value.__cause__, FrozenContextError)


def test_rule_context_carries_the_inputs(registry, h100, hf, arch):
    seen = {}

    @registry.rule("passes")
    def look(ctx):
        seen.update(
            ctx=ctx,
            arch=ctx.arch,
            hf=ctx.hf,
            platform=ctx.platform,
            env=ctx.env,
            plain=ctx.args.plain,
            user_set=ctx.user_set("plain"),
            user_set_other=ctx.user_set("also_resolved"),
        )
        return {}

    resolve(registry, {"plain": 3}, hf, h100, env={"SGLANG_X": "1"})
    assert isinstance(seen["ctx"], RuleContext)
    assert seen["arch"] == arch
    assert seen["hf"] is hf
    assert seen["platform"] is h100
    assert seen["env"] == {"SGLANG_X": "1"}
    with pytest.raises(TypeError):
        seen["env"]["SGLANG_X"] = "0"  # the environment is read-only too
    assert seen["plain"] == 3
    assert seen["user_set"] is True
    assert seen["user_set_other"] is False


def test_plain_dict_hf_config_is_wrapped(registry, h100):
    @registry.for_arch("DictArch")
    def from_dict(ctx):
        assert isinstance(ctx.hf, HFConfig)
        return {"also_resolved": ctx.hf.n}

    res = resolve(registry, {}, {"architectures": ["DictArch"], "n": 4}, h100)
    assert res["also_resolved"] == 4
    assert res.arch == "DictArch"


# -- visibility of earlier declarations ------------------------------------------------------


def test_non_isolated_stage_sees_earlier_declarations_live(registry, h100):
    seen = []

    @registry.rule("passes")
    def first(ctx):
        return {"resolved_by_model": "fa3"}

    @registry.rule("passes")
    def second(ctx):
        seen.append(ctx.args.resolved_by_model)
        return {"also_resolved": 1 if ctx.args.resolved_by_model == "fa3" else 0}

    res = resolve(registry, {}, None, h100)
    assert seen == ["fa3"]
    assert res["also_resolved"] == 1


def test_isolated_stage_sees_the_state_at_stage_start(registry, h100, hf, arch):
    seen = []

    @registry.rule("device")
    def device_default(ctx):
        return {"also_resolved": 7}

    @registry.for_arch(arch)  # "model" is isolated
    def model_a(ctx):
        return {"resolved_by_model": "fa3"}

    @registry.rule("model")
    def model_b(ctx):
        seen.append(("model_b", ctx.args.resolved_by_model, ctx.args.also_resolved))
        return {}

    @registry.rule("passes")
    def after(ctx):
        seen.append(("after", ctx.args.resolved_by_model, ctx.args.also_resolved))
        return {}

    res = resolve(registry, {}, hf, h100)
    # model_b does not see model_a's declaration, but does see the earlier stage's ...
    assert seen[0] == ("model_b", "auto", 7)
    # ... and the next stage sees everything.
    assert seen[1] == ("after", "fa3", 7)
    assert res["resolved_by_model"] == "fa3"


def test_last_writer_wins(registry, h100):
    @registry.rule("passes")
    def early(ctx):
        return {"resolved_by_model": "fa3", "also_resolved": 1}

    @registry.rule("passes")
    def late(ctx):
        return {"resolved_by_model": "triton"}

    res = resolve(registry, {}, None, h100)
    assert res["resolved_by_model"] == "triton"
    assert res["also_resolved"] == 1
    assert res.decided_by("resolved_by_model")[0].endswith("late")
    assert res.decided_by("also_resolved")[0].endswith("early")
    steps = res.explain("resolved_by_model").steps
    assert [s.outcome for s in steps] == ["shadowed", "applied"]


def test_last_writer_wins_inside_an_isolated_stage(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def exact(ctx):
        return {"resolved_by_model": "fa3"}

    @registry.rule("model")
    def generic(ctx):
        return {"resolved_by_model": "flashinfer"}

    assert resolve(registry, {}, hf, h100)["resolved_by_model"] == "flashinfer"


# -- what a declaration may contain ---------------------------------------------------------


def test_declaring_a_non_resolvable_field_names_the_rule(registry, h100):
    @registry.rule("passes")
    def overreach(ctx):
        return {"resolved_by_model": "fa3", "plain": 3}

    with pytest.raises(DeclarationError) as info:
        resolve(registry, {}, None, h100)
    message = str(info.value)
    assert "overreach" in message
    assert where(overreach) in message
    assert "'plain'" in message
    assert "not a resolvable field of FakeArgs" in message


def test_declaring_an_unknown_field_is_refused(registry, h100):
    @registry.rule("passes")
    def typo(ctx):
        return {"resolved_by_mdoel": "fa3"}

    with pytest.raises(DeclarationError, match="resolved_by_mdoel"):
        resolve(registry, {}, None, h100)


def test_declaration_is_all_or_nothing(fake_args):
    schema = schema_of(fake_args)
    values = dict(schema.defaults)
    before = dict(values)
    with pytest.raises(DeclarationError):
        apply_declaration(
            values=values,
            explicit=frozenset(),
            schema=schema,
            resolvable=schema.resolvable,
            declared={"resolved_by_model": "fa3", "also_resolved": 2, "plain": 3},
            rule="r",
            location="here:1",
            stage="passes",
            seq=1,
        )
    assert values == before  # the valid fields before the bad one were not applied
    with pytest.raises(DeclarationError):
        apply_declaration(
            values=values,
            explicit=frozenset(),
            schema=schema,
            resolvable=schema.resolvable,
            declared={"also_resolved": 2, "resolved_by_model": "not-a-backend"},
            rule="r",
            location="here:1",
            stage="passes",
            seq=1,
        )
    assert values == before


def test_value_outside_choices_is_refused(registry, h100):
    @registry.rule("passes")
    def invents_backend(ctx):
        return {"resolved_by_model": "fa9"}

    with pytest.raises(DeclarationError) as info:
        resolve(registry, {}, None, h100)
    message = str(info.value)
    assert "invents_backend" in message and "'fa9'" in message and "fa3" in message


def test_none_is_accepted_for_a_field_with_choices(registry, h100):
    @registry.rule("passes")
    def unset(ctx):
        return {"resolved_by_model": None}

    assert resolve(registry, {}, None, h100)["resolved_by_model"] is None


def test_non_json_value_is_refused(registry, h100):
    @registry.rule("passes")
    def object_value(ctx):
        return {"also_resolved": object()}

    with pytest.raises(DeclarationError, match="object_value"):
        resolve(registry, {}, None, h100)


def test_a_mapping_return_is_accepted(registry, h100):
    @registry.rule("passes")
    def proxy(ctx):
        return MappingProxyType({"also_resolved": 5})

    assert resolve(registry, {}, None, h100)["also_resolved"] == 5


# -- explicit user values ----------------------------------------------------------------------


def test_user_explicit_value_blocks_a_plain_declaration(registry, h100):
    @registry.rule("passes")
    def prefers_fa3(ctx):
        return {"resolved_by_model": "fa3", "also_resolved": 8}

    res = resolve(registry, {"resolved_by_model": "triton"}, None, h100)
    assert res["resolved_by_model"] == "triton"
    assert res["also_resolved"] == 8  # the other field of the same declaration still applies
    write = only_write(res, "resolved_by_model")
    assert write.outcome is Outcome.BLOCKED
    assert write.value == "fa3" and write.previous == "triton"
    assert only_write(res, "also_resolved").outcome is Outcome.APPLIED
    assert res.explicit == frozenset({"resolved_by_model"})
    assert res.decided_by("resolved_by_model") == ("user", None)


def test_force_overrides_a_user_value_and_records_the_reason(registry, h100):
    @registry.rule("passes")
    def needs_fa3(ctx):
        return {"resolved_by_model": Force("fa3", "the fake kernel only exists for fa3")}

    res = resolve(registry, {"resolved_by_model": "triton"}, None, h100)
    assert res["resolved_by_model"] == "fa3"
    write = only_write(res, "resolved_by_model")
    assert write.outcome is Outcome.FORCED
    assert write.reason == "the fake kernel only exists for fa3"
    assert write.previous == "triton"
    assert res.explain("resolved_by_model").steps[0].outcome == "forced"


def test_force_on_a_field_the_user_did_not_set_is_applied(registry, h100):
    @registry.rule("passes")
    def forced(ctx):
        return {"also_resolved": Force(64, "pages of 64")}

    res = resolve(registry, {}, None, h100)
    write = only_write(res, "also_resolved")
    assert res["also_resolved"] == 64
    assert write.outcome is Outcome.APPLIED
    assert write.reason == "pages of 64"


def test_force_needs_a_reason():
    with pytest.raises(DeclarationError, match="reason"):
        Force("fa3", "")


def test_declaring_the_users_own_value_is_applied_not_blocked(registry, h100):
    @registry.rule("passes")
    def agrees(ctx):
        return {"resolved_by_model": "triton"}

    res = resolve(registry, {"resolved_by_model": "triton"}, None, h100)
    assert only_write(res, "resolved_by_model").outcome is Outcome.APPLIED


def test_user_value_equal_to_the_default_is_not_protected(registry, h100):
    @registry.rule("passes")
    def fills(ctx):
        return {"resolved_by_model": "fa3", "also_resolved": 2}

    res = resolve(registry, {"resolved_by_model": "auto", "also_resolved": None}, None, h100)
    assert res.explicit == frozenset()
    assert res["resolved_by_model"] == "fa3"
    assert res["also_resolved"] == 2
    assert only_write(res, "resolved_by_model").outcome is Outcome.APPLIED


def test_user_value_equal_to_a_tuple_default_is_not_explicit(h100):
    # A user passing the default value is not an explicit choice, also when the default is a
    # tuple (user input is canonicalised to a list before the comparison).
    @dataclasses.dataclass
    class WithTuple:
        ranks: tuple = arg((1, 2), resolvable=True)

    reg = Registry(WithTuple, ["passes"])

    @reg.rule("passes")
    def widen(ctx):
        return {"ranks": [1, 2, 3]}

    res = resolve(reg, {"ranks": (1, 2)}, None, h100)
    assert res.explicit == frozenset()
    assert list(res["ranks"]) == [1, 2, 3]


def test_rule_sees_user_value_and_explicit_flag(registry, h100):
    @registry.rule("passes")
    def respectful(ctx):
        if ctx.user_set("resolved_by_model"):
            return {}
        return {"resolved_by_model": "fa3"}

    assert resolve(registry, {"resolved_by_model": "triton"}, None, h100).declarations == ()
    assert resolve(registry, {}, None, h100)["resolved_by_model"] == "fa3"


# -- rule failures -----------------------------------------------------------------------------


def test_conflict_error_gets_rule_and_location(registry, h100):
    @registry.rule("passes")
    def refuses(ctx):
        raise ConflictError(
            "fake models do not support triton",
            fields=("resolved_by_model",),
            fix="pass --resolved-by-model fa3",
        )

    with pytest.raises(ConflictError) as info:
        resolve(registry, {"resolved_by_model": "triton"}, None, h100)
    exc = info.value
    assert exc.rule is not None and exc.rule.endswith("refuses")
    assert exc.location is not None and exc.location.endswith(where(refuses))
    assert exc.fields == ("resolved_by_model",)
    text = str(exc)
    assert "fake models do not support triton" in text
    assert "Fix: pass --resolved-by-model fa3" in text
    assert "refused by" in text and where(refuses) in text
    assert isinstance(exc, ValueError)


def test_conflict_error_keeps_a_rule_set_by_a_helper(registry, h100):
    @registry.rule("passes")
    def delegating(ctx):
        exc = ConflictError("no")
        exc.rule, exc.location = "helper", "helper.py:1"
        raise exc

    with pytest.raises(ConflictError) as info:
        resolve(registry, {}, None, h100)
    assert (info.value.rule, info.value.location) == ("helper", "helper.py:1")


@pytest.mark.parametrize(
    "error", [KeyError("hidden_size"), TypeError("bad"), ValueError("v"), AssertionError()]
)
def test_other_exceptions_become_rule_failure(registry, h100, error):
    @registry.rule("passes")
    def crashes(ctx):
        raise error

    with pytest.raises(RuleFailure) as info:
        resolve(registry, {}, None, h100)
    message = str(info.value)
    assert "crashes" in message
    assert where(crashes) in message
    assert type(error).__name__ in message
    assert info.value.__cause__ is error
    assert isinstance(info.value, ValueError)


def test_resolvable_errors_from_a_rule_propagate_unchanged(registry, h100):
    @registry.rule("passes")
    def strict(ctx):
        raise InvalidArgumentError("specific problem")

    with pytest.raises(InvalidArgumentError, match="specific problem"):
        resolve(registry, {}, None, h100)


def test_a_rule_reading_a_missing_config_key_is_a_rule_failure(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def needs_key(ctx):
        return {"also_resolved": ctx.hf["kv_lora_rank"]}

    with pytest.raises(RuleFailure, match="KeyError"):
        resolve(registry, {}, hf, h100)


# -- tracing and notes -------------------------------------------------------------------------


def test_trace_records_the_inputs_a_rule_read(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def platform_dependent(ctx):
        if ctx.platform.is_sm90 and ctx.hf.get("num_layers") == 2 and ctx.args.also_resolved is None:
            return {"resolved_by_model": "fa3"}
        return {}

    @registry.rule("passes")
    def reads_env(ctx):
        return {"also_resolved": int(ctx.env.get("FAKE_PAGE", "1"))}

    res = resolve(registry, {}, hf, h100, env={"FAKE_PAGE": "16"}, trace=True)
    first, second = res.declarations
    assert ("platform.is_sm90", True) in first.inputs
    assert ("hf.get('num_layers')", 2) in first.inputs
    assert ("args.also_resolved", None) in first.inputs
    assert ("env.get('FAKE_PAGE')", "16") in second.inputs
    assert ("platform.is_sm90", True) not in second.inputs  # reads are per rule
    assert res["also_resolved"] == 16
    steps = res.explain("resolved_by_model").steps
    assert ("platform.is_sm90", True) in steps[0].inputs


def test_without_trace_no_inputs_are_recorded(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def platform_dependent(ctx):
        return {"resolved_by_model": "fa3"} if ctx.platform.is_sm90 else {}

    res = resolve(registry, {}, hf, h100)
    assert res.declarations[0].inputs == ()


def test_trace_does_not_change_the_result(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def platform_dependent(ctx):
        return {"resolved_by_model": "fa3"} if ctx.platform.is_sm90 else {"resolved_by_model": "triton"}

    plain = resolve(registry, {}, hf, h100)
    traced = resolve(registry, {}, hf, h100, trace=True)
    assert dict(plain) == dict(traced)
    assert plain.fingerprint() == traced.fingerprint()


def test_unknown_architecture_adds_a_note(registry, h100):
    @registry.for_arch("KnownForCausalLM")
    def known(ctx):
        return {}

    res = resolve(registry, {}, {"architectures": ["MysteryForCausalLM"]}, h100)
    assert len(res.notes) == 1
    assert "MysteryForCausalLM" in res.notes[0]
    assert resolve(registry, {}, {"architectures": ["KnownForCausalLM"]}, h100).notes == ()


# -- user input validation ----------------------------------------------------------------------


def test_unknown_user_argument_suggests_the_closest(registry, h100):
    with pytest.raises(InvalidArgumentError) as info:
        resolve(registry, {"also_resolvd": 1}, None, h100)
    assert "'also_resolvd'" in str(info.value)
    assert "did you mean 'also_resolved'" in str(info.value)


def test_invalid_choice_for_a_user_argument(registry, h100):
    with pytest.raises(InvalidArgumentError) as info:
        resolve(registry, {"resolved_by_model": "trition"}, None, h100)
    message = str(info.value)
    assert "resolved_by_model" in message
    assert "'trition'" in message
    assert "did you mean 'triton'" in message


def test_user_arguments_must_be_a_mapping(registry, h100):
    with pytest.raises(InvalidArgumentError, match="mapping"):
        resolve(registry, [("plain", 1)], None, h100)  # type: ignore[arg-type]


def test_non_json_user_value_is_an_invalid_argument(registry, h100):
    # Bad user input is an InvalidArgumentError ("a user argument ... holds a value outside its
    # choices"), not a DeclarationError, which is about what a *rule* declared.
    with pytest.raises(InvalidArgumentError, match="also_resolved"):
        resolve(registry, {"also_resolved": {"nested": 1}}, None, h100)


def test_non_resolvable_user_arguments_are_kept(registry, h100):
    res = resolve(registry, {"plain": 5, "metadata_but_not_resolvable": True}, None, h100)
    assert res["plain"] == 5
    assert res["metadata_but_not_resolvable"] is True
    assert res.explicit == frozenset({"plain", "metadata_but_not_resolvable"})


def test_defaults_fill_what_the_user_did_not_pass(registry, h100):
    res = resolve(registry, None, None, h100)
    assert dict(res) == {
        "plain": 0,
        "resolved_by_model": "auto",
        "also_resolved": None,
        "metadata_but_not_resolvable": False,
    }


# -- purity --------------------------------------------------------------------------------------


def test_same_inputs_give_the_same_resolution(registry, hf, arch):
    @registry.for_arch(arch)
    def by_platform(ctx):
        return {"resolved_by_model": "fa3" if ctx.platform.is_sm90 else "triton"}

    a = resolve(registry, {"plain": 1}, hf, Platform.preset("h100"))
    b = resolve(registry, {"plain": 1}, hf, Platform.preset("h100"))
    c = resolve(registry, {"plain": 1}, hf, Platform.preset("a100"))
    assert a == b
    assert a.fingerprint() == b.fingerprint()
    assert a["resolved_by_model"] == "fa3" and c["resolved_by_model"] == "triton"


def test_resolve_does_not_mutate_its_inputs(registry, h100, hf, arch):
    @registry.for_arch(arch)
    def r(ctx):
        return {"resolved_by_model": "fa3"}

    user = {"plain": 2}
    env = {"X": "1"}
    resolve(registry, user, hf, h100, env=env)
    assert user == {"plain": 2}
    assert env == {"X": "1"}


def test_conflict_records_where_the_involved_values_came_from(registry, h100):
    from resolvable.errors import ConflictError

    @registry.rule("passes")
    def chooses(ctx):
        return {"resolved_by_model": "flashinfer"}

    @registry.rule("passes")
    def refuses(ctx):
        raise ConflictError("no", fields=("resolved_by_model", "also_resolved", "plain"))

    with pytest.raises(ConflictError) as excinfo:
        resolve(registry, {"plain": 3}, None, h100)
    origins = excinfo.value.origins
    assert origins["resolved_by_model"][0:2] == ("flashinfer", chooses.__qualname__)
    assert origins["resolved_by_model"][2].endswith(
        ".py:" + origins["resolved_by_model"][2].rsplit(":", 1)[1]
    )
    assert origins["also_resolved"] == (None, "default", None)
    assert origins["plain"] == (3, "user", None)
