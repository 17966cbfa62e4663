"""Mutable args objects and legacy procedural code (upstream §2.7 and #45)."""

from __future__ import annotations

import dataclasses

import pytest

from resolvable import (
    RecordingArgs,
    procedural,
    publish_args,
    refresh_declared_fields,
    resolve,
    resolve_into,
)
from resolvable._facade import record_writes, resolution_of
from resolvable._registry import location_of
from resolvable.errors import (
    DeclarationError,
    InvalidArgumentError,
    LateDeclarationError,
    ParityError,
    RuleFailure,
)


@pytest.fixture
def server_args_cls(fake_args, registry, hf, h100, arch):
    """A ServerArgs-like mutable dataclass whose ``__post_init__`` resolves into itself."""

    @registry.for_arch(arch)
    def fake_model_rule(ctx):
        return {"resolved_by_model": "dsv4", "also_resolved": 7}

    @dataclasses.dataclass
    class ServerArgs(fake_args):
        def __post_init__(self):
            resolve_into(self, lambda user: resolve(registry, user, hf, h100))

    return ServerArgs


def test_resolved_values_are_written_onto_the_object(server_args_cls):
    sa = server_args_cls(plain=4)
    assert sa.resolved_by_model == "dsv4"
    assert sa.also_resolved == 7
    assert sa.plain == 4
    res = sa.resolution
    assert res is resolution_of(sa)
    assert res["resolved_by_model"] == "dsv4"
    assert res.user == {"plain": 4}
    assert [d.rule.rsplit(".", 1)[-1] for d in res.declarations] == ["fake_model_rule"]


def test_user_values_on_the_object_are_explicit(server_args_cls):
    sa = server_args_cls(resolved_by_model="triton")
    assert sa.resolved_by_model == "triton"  # blocked declaration: the user wins
    assert sa.also_resolved == 7
    assert sa.resolution.explain("resolved_by_model").steps[0].outcome == "blocked"


def test_user_set_names_the_fields_the_user_passed(fake_args, registry, h100):
    @registry.rule("passes")
    def fill(ctx):
        return {"resolved_by_model": "fa3"}

    sa = fake_args(resolved_by_model="auto")
    res = resolve_into(sa, lambda user: resolve(registry, user, None, h100), user_set=("plain",))
    assert res.user == {"plain": 0}
    assert sa.resolved_by_model == "fa3"


def test_resolve_into_needs_a_dataclass_instance(registry, h100):
    with pytest.raises(InvalidArgumentError, match="not a dataclass"):
        resolve_into(object(), lambda user: resolve(registry, user, None, h100))


def test_resolution_of_an_unresolved_object(fake_args):
    with pytest.raises(InvalidArgumentError, match="never resolved"):
        resolution_of(fake_args())
    with pytest.raises(InvalidArgumentError):
        publish_args(fake_args())


def test_publish_args_publishes_the_resolved_values(server_args_cls):
    sa = server_args_cls()
    ctx = publish_args(sa)
    assert ctx.attn.backend == sa.resolved_by_model == "dsv4"
    assert ctx.also_resolved == sa.also_resolved == 7


def test_undeclared_change_breaks_parity(server_args_cls):
    sa = server_args_cls()
    sa.resolved_by_model = "fa3"  # procedural code changes a resolvable field behind the resolution
    with pytest.raises(ParityError) as info:
        publish_args(sa)
    message = str(info.value)
    assert "resolved_by_model" in message
    assert "fa3" in message and "dsv4" in message
    assert "also_resolved" not in message.split(". ")[0]
    assert sa.resolution.published is False


def test_changing_a_non_resolvable_field_does_not_break_parity(server_args_cls):
    sa = server_args_cls()
    sa.plain = 42
    assert publish_args(sa).attn.backend == "dsv4"


def test_refresh_declared_fields_restores_parity(server_args_cls):
    sa = server_args_cls()
    before = sa.resolution
    sa.resolved_by_model = "fa3"
    new = refresh_declared_fields(sa, ("resolved_by_model",))
    assert sa.resolution is new
    assert new is not before
    assert before["resolved_by_model"] == "dsv4"  # the old resolution is untouched
    last = new.declarations[-1]
    assert last.rule == "runtime_adjustment[resolved_by_model]"
    assert last.stage == "adjust"
    assert last.fields == {"resolved_by_model": "fa3"}
    ctx = publish_args(sa)
    assert ctx.attn.backend == sa.resolved_by_model == "fa3"
    assert new.explain("resolved_by_model").decided_by == "runtime_adjustment[resolved_by_model]"


def test_refresh_of_an_explicit_user_value_is_forced(server_args_cls):
    sa = server_args_cls(resolved_by_model="triton")
    sa.resolved_by_model = "flashinfer"
    res = refresh_declared_fields(sa, ("resolved_by_model",))
    assert res["resolved_by_model"] == "flashinfer"
    assert res.declarations[-1].writes[0].outcome.value == "forced"
    assert publish_args(sa).attn.backend == "flashinfer"


def test_refreshing_an_unchanged_field_adds_nothing(server_args_cls):
    sa = server_args_cls()
    before = sa.resolution
    res = refresh_declared_fields(sa, ("resolved_by_model", "also_resolved"))
    assert res.declarations == before.declarations
    assert dict(res) == dict(before)
    assert publish_args(sa).attn.backend == "dsv4"


def test_refresh_only_the_named_fields(server_args_cls):
    sa = server_args_cls()
    sa.resolved_by_model = "fa3"
    sa.also_resolved = 99
    refresh_declared_fields(sa, ("resolved_by_model",))
    with pytest.raises(ParityError, match="also_resolved"):
        publish_args(sa)
    refresh_declared_fields(sa, ("also_resolved",))
    assert publish_args(sa).also_resolved == 99


def test_refresh_with_a_custom_source(server_args_cls):
    sa = server_args_cls()
    sa.also_resolved = 8
    res = refresh_declared_fields(sa, ["also_resolved"], source="model_specific_adjustment")
    assert res.declarations[-1].rule == "model_specific_adjustment[also_resolved]"


def test_refresh_of_a_non_resolvable_field_is_refused(server_args_cls):
    sa = server_args_cls()
    with pytest.raises(InvalidArgumentError, match="plain"):
        refresh_declared_fields(sa, ("plain",))


def test_refresh_with_a_value_outside_choices_is_refused(server_args_cls):
    sa = server_args_cls()
    sa.resolved_by_model = "not-a-backend"
    with pytest.raises(DeclarationError, match="not-a-backend"):
        refresh_declared_fields(sa, ("resolved_by_model",))


def test_refresh_after_publish_is_a_late_declaration(server_args_cls):
    sa = server_args_cls()
    publish_args(sa)
    refresh_declared_fields(sa, ("resolved_by_model",))  # nothing changed: fine after publish
    sa.resolved_by_model = "fa3"
    with pytest.raises(LateDeclarationError):
        refresh_declared_fields(sa, ("resolved_by_model",))


# -- RecordingArgs / record_writes --------------------------------------------------------------


def test_recording_args_reads_and_records_writes_in_order():
    args = RecordingArgs({"a": 1, "b": None})
    assert args.a == 1
    args.b = 2
    args.a = 3
    args.b = 4
    assert args.writes == [("b", 2), ("a", 3), ("b", 4)]
    assert args.declarations() == {"b": 4, "a": 3}  # last writer wins, first-write order
    assert list(args.declarations()) == ["b", "a"]
    assert args.a == 3  # later reads see earlier writes, like the legacy object would


def test_recording_args_refuses_unknown_fields():
    args = RecordingArgs({"a": 1})
    with pytest.raises(AttributeError, match="nope"):
        args.nope = 1
    with pytest.raises(AttributeError, match="nope"):
        args.nope  # noqa: B018
    assert args.writes == []


def test_recording_args_does_not_alias_its_input():
    values = {"a": 1}
    args = RecordingArgs(values)
    args.a = 2
    assert values == {"a": 1}
    writes = args.writes
    writes.append(("x", 0))
    assert args.writes == [("a", 2)]


def test_record_writes_runs_the_function_with_extra_arguments():
    def legacy(args, factor, *, offset):
        args.a = args.a * factor + offset
        args.a = args.a + 1

    recorded = record_writes(legacy, {"a": 2}, 10, offset=3)
    assert recorded.writes == [("a", 23), ("a", 24)]
    assert recorded.declarations() == {"a": 24}


# -- procedural ----------------------------------------------------------------------------------


def legacy_model_specific_adjustment(args, ctx):
    """A legacy mutate-in-place function, as in SGLang's ServerArgs.__post_init__ chain."""
    if ctx.platform.is_sm90 and args.resolved_by_model == "auto":
        args.resolved_by_model = "fa3"
        args.also_resolved = 64
    args.resolved_by_model = "flashinfer" if args.also_resolved == 1 else args.resolved_by_model


def test_procedural_keeps_the_legacy_name_and_location():
    rule = procedural(legacy_model_specific_adjustment)
    assert rule.__name__ == "legacy_model_specific_adjustment"
    assert location_of(rule) == location_of(legacy_model_specific_adjustment)


def test_procedural_turns_writes_into_declarations(registry, h100):
    registry.rule("passes")(procedural(legacy_model_specific_adjustment))
    res = resolve(registry, {}, None, h100)
    assert res["resolved_by_model"] == "fa3"
    assert res["also_resolved"] == 64
    (decl,) = res.declarations
    assert decl.rule == "legacy_model_specific_adjustment"
    assert decl.location == location_of(legacy_model_specific_adjustment)
    assert decl.location.endswith(
        f"test_facade.py:{legacy_model_specific_adjustment.__code__.co_firstlineno}"
    )
    assert decl.fields == {"resolved_by_model": "fa3", "also_resolved": 64}
    explanation = res.explain("resolved_by_model")
    assert explanation.decided_by == "legacy_model_specific_adjustment"


def test_procedural_rule_respects_explicit_user_values(registry, h100):
    registry.rule("passes")(procedural(legacy_model_specific_adjustment))
    res = resolve(registry, {"also_resolved": 16}, None, h100)
    # the legacy function overwrote the user's 16 in place; as a declaration that is blocked
    assert res["also_resolved"] == 16
    assert res["resolved_by_model"] == "fa3"
    assert [s.outcome for s in res.explain("also_resolved").steps] == ["blocked"]


def test_procedural_function_that_writes_nothing_declares_nothing(registry):
    def legacy_noop(args, ctx):
        _ = args.plain

    registry.rule("passes")(procedural(legacy_noop))
    from resolvable import Platform

    res = resolve(registry, {}, None, Platform.preset("a100"))
    assert res.declarations == ()


def test_procedural_write_to_a_non_resolvable_field_is_refused(registry, h100):
    def legacy_sets_plain(args, ctx):
        args.plain = 5

    registry.rule("passes")(procedural(legacy_sets_plain))
    with pytest.raises(DeclarationError, match="legacy_sets_plain"):
        resolve(registry, {}, None, h100)


def test_procedural_write_to_an_unknown_field_names_the_rule(registry, h100):
    def legacy_typo(args, ctx):
        args.resolved_by_modle = "fa3"

    registry.rule("passes")(procedural(legacy_typo))
    with pytest.raises(RuleFailure, match="legacy_typo"):
        resolve(registry, {}, None, h100)


def test_procedural_does_not_mutate_the_view(registry, h100):
    seen = []

    def legacy(args, ctx):
        args.also_resolved = 5

    @registry.rule("passes")
    def observer(ctx):
        seen.append(ctx.args.also_resolved)
        return {}

    registry.rule("device")(procedural(legacy))
    res = resolve(registry, {}, None, h100)
    assert res["also_resolved"] == 5
    assert seen == [5]  # visible downstream only through the declaration
