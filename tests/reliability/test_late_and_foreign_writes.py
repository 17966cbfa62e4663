"""Writes that arrive late (after publish) or from foreign procedural code.

* ``adjust`` after ``publish()`` raises ``LateDeclarationError``, whichever way it was
  published (``Resolution.publish``, ``resolvable.publish``, a ``ContextSlot``);
* a failed ``ContextSlot.publish`` (parity broken through ``live=``) leaves the previous
  context in place and does not mark the resolution published;
* a resolvable field changed undeclared on a mutable args object makes ``publish_args``
  refuse, naming the field, until ``refresh_declared_fields`` records the change;
* every write of foreign procedural code, captured through ``RecordingArgs`` /
  ``procedural``, appears in the declarations (blocked ones too), under the function's name.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvable import (
    ContextSlot,
    HFConfig,
    Outcome,
    Platform,
    RecordingArgs,
    Registry,
    Stage,
    arg,
    procedural,
    publish,
    publish_args,
    refresh_declared_fields,
    resolve,
    resolve_into,
)
from resolvable._facade import record_writes
from resolvable.errors import LateDeclarationError, ParityError, ResolvableError, RuleFailure
from resolvable.sglang import ServerArgs, resolve_server_args
from resolvable.sglang.models import bundled

B200 = Platform.preset("b200")


def fresh() -> Any:
    return resolve_server_args(bundled("llama-3.1-8b"), B200)


# -- late declarations -----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["method", "function", "slot"])
def test_adjust_after_publish_is_refused(how: str) -> None:
    res = fresh()
    adjusted = res.adjust("loader", page_size=32)  # before publishing: fine
    assert adjusted["page_size"] == 32 and not res.published
    {
        "method": lambda: res.publish(),
        "function": lambda: publish(res),
        "slot": lambda: ContextSlot().publish(res),
    }[how]()
    assert res.published
    with pytest.raises(LateDeclarationError, match="already published"):
        res.adjust("loader", page_size=4096)
    with pytest.raises(LateDeclarationError):
        res.adjust("loader")  # even an empty adjustment
    assert res["page_size"] != 4096
    assert (
        adjusted.adjust("loader", page_size=4096)["page_size"] == 4096
    )  # a derived, unpublished one still can


def test_adjust_is_forced_over_an_explicit_user_value_and_recorded() -> None:
    res = resolve_server_args(bundled("llama-3.1-8b"), B200, page_size=16)
    out = res.adjust("ModelRunner", page_size=32)
    last = out.declarations[-1]
    assert (last.rule, last.stage) == ("ModelRunner", "adjust")
    assert [(w.field, w.value, w.previous, w.outcome) for w in last.writes] == [
        ("page_size", 32, 16, Outcome.FORCED)
    ]
    assert out.decided_by("page_size")[0] == "ModelRunner"
    assert res["page_size"] == 16  # the original never changes


def test_failed_slot_publish_keeps_the_previous_context() -> None:
    slot = ContextSlot()
    first = fresh()
    ctx1 = slot.publish(first)
    second = resolve_server_args(bundled("deepseek-v3"), B200, tp_size=8)
    live = dict(second)
    live["attention_backend"] = "triton" if second["attention_backend"] != "triton" else "fa3"
    with pytest.raises(ParityError, match="attention_backend"):
        slot.publish(second, live=live)
    assert slot.current is ctx1
    assert slot.get() is ctx1
    assert not second.published, "a failed publish must not mark the resolution published"
    second.adjust("after-failed-publish", page_size=64)  # so it can still be adjusted
    ctx2 = slot.publish(second, live=dict(second))
    assert slot.current is ctx2 and ctx2.fingerprint == second.fingerprint()


def test_empty_slot_get_is_a_clear_error() -> None:
    with pytest.raises(ParityError, match="nothing has been published"):
        ContextSlot().get()


def test_undeclared_change_on_a_mutable_args_object_blocks_publish_until_refreshed() -> None:
    args = ServerArgs(model_path="llama-3.1-8b", platform=B200, env={})
    publish_args(args)  # parity holds right after resolution
    args = ServerArgs(model_path="llama-3.1-8b", platform=B200, env={})
    args.page_size = 128  # foreign code changes a resolvable field
    with pytest.raises(ParityError, match="page_size") as info:
        publish_args(args)
    assert "refresh_declared_fields" in str(info.value)
    assert not args.resolution.published
    res = refresh_declared_fields(args, ("page_size", "attention_backend"), source="legacy_tuner")
    assert res["page_size"] == 128
    last = res.declarations[-1]
    assert last.rule == "legacy_tuner[page_size]" and last.fields == {"page_size": 128}
    ctx = publish_args(args)
    assert ctx.cache.page_size == 128
    args.page_size = 256  # changed again after publishing: too late to declare it
    with pytest.raises(LateDeclarationError):
        refresh_declared_fields(args, ("page_size",))


# -- foreign procedural code ---------------------------------------------------------------------


@dataclasses.dataclass
class Legacy:
    backend: str | None = arg(
        None, resolvable=True, leaf="attn.backend", choices=("fa3", "triton", "flashinfer")
    )
    page_size: int | None = arg(None, resolvable=True, leaf="cache.page_size")
    chunk: int = arg(8192, resolvable=True, leaf="sched.chunk")
    tp_size: int = arg(1)


FIELDS = ("backend", "page_size", "chunk")
VALUES = {
    "backend": st.sampled_from(["fa3", "triton", "flashinfer"]),
    "page_size": st.sampled_from([1, 16, 64]),
    "chunk": st.sampled_from([-1, 2048, 4096]),
}
writes_strategy = st.lists(
    st.sampled_from(FIELDS).flatmap(lambda f: st.tuples(st.just(f), VALUES[f])), max_size=8
)


def _engine(writes: list[tuple[str, Any]]) -> Registry:
    reg = Registry(Legacy, stages=[Stage("model", isolated=True), "legacy"], name="legacy", version="1")

    def legacy_adjust(args, ctx):  # foreign code: mutates its args object in place
        for name, value in writes:
            setattr(args, name, value)

    reg.rule("legacy")(procedural(legacy_adjust))
    return reg


@given(
    writes=writes_strategy,
    user=st.dictionaries(st.sampled_from(FIELDS), st.none()).flatmap(
        lambda d: st.fixed_dictionaries({k: VALUES[k] for k in d})
    ),
)
def test_every_procedural_write_appears_in_the_declarations(
    writes: list[tuple[str, Any]], user: dict[str, Any]
) -> None:
    reg = _engine(writes)
    res = resolve(reg, user, HFConfig({"architectures": ["LegacyForCausalLM"]}), B200)
    final: dict[str, Any] = {}
    for name, value in writes:
        final[name] = value
    legacy = [d for d in res.declarations if d.rule.endswith("legacy_adjust")]
    if not writes:
        assert legacy == []
        return
    (decl,) = legacy
    assert decl.location.split(":")[0].endswith("test_late_and_foreign_writes.py")
    assert {w.field: w.value for w in decl.writes} == final  # every written field, last value wins
    for w in decl.writes:
        explicit = w.field in user and user[w.field] != Legacy.__dataclass_fields__[w.field].default
        if explicit and w.value != user[w.field]:
            assert w.outcome is Outcome.BLOCKED and res[w.field] == user[w.field]
        else:
            assert w.outcome is Outcome.APPLIED and res[w.field] == w.value
    # The stand-in keeps every write, in order, repeated ones included.
    assert record_writes(lambda a: [setattr(a, n, v) for n, v in writes], dict(res)).writes == writes


def test_procedural_write_to_an_unknown_field_is_a_clear_rule_failure() -> None:
    reg = Registry(Legacy, stages=["legacy"], name="legacy", version="1")

    def legacy_typo(args, ctx):
        args.page_sise = 16

    reg.rule("legacy")(procedural(legacy_typo))
    with pytest.raises(RuleFailure, match=r"legacy_typo.*page_sise") as info:
        resolve(reg, {}, HFConfig({"architectures": ["X"]}), B200)
    assert isinstance(info.value, ResolvableError)


def test_procedural_write_to_a_non_resolvable_field_is_refused() -> None:
    reg = Registry(Legacy, stages=["legacy"], name="legacy", version="1")

    def legacy_tp(args, ctx):
        args.tp_size = 8

    reg.rule("legacy")(procedural(legacy_tp))
    with pytest.raises(ResolvableError, match="tp_size"):
        resolve(reg, {}, HFConfig({"architectures": ["X"]}), B200)


def test_recording_args_rejects_unknown_fields_and_keeps_order() -> None:
    rec = RecordingArgs({"a": 1, "b": 2})
    rec.a = 3
    rec.b = 4
    rec.a = 5
    assert rec.writes == [("a", 3), ("b", 4), ("a", 5)]
    assert rec.declarations() == {"a": 5, "b": 4}
    assert list(rec.declarations()) == ["a", "b"]
    with pytest.raises(AttributeError, match="unknown field"):
        rec.c = 1


def test_resolve_into_a_mutable_object_then_late_adjust() -> None:
    @dataclasses.dataclass
    class Obj:
        backend: str | None = arg(
            None, resolvable=True, leaf="attn.backend", choices=("fa3", "triton", "flashinfer")
        )
        page_size: int | None = arg(None, resolvable=True, leaf="cache.page_size")
        chunk: int = arg(8192, resolvable=True, leaf="sched.chunk")
        tp_size: int = arg(1)

    reg = _engine([("backend", "triton")])
    obj = Obj(page_size=16)
    res = resolve_into(obj, lambda user: resolve(reg, user, HFConfig({"architectures": ["X"]}), B200))
    assert (obj.backend, obj.page_size) == ("triton", 16)
    assert res.user == {"page_size": 16}
    ctx = publish_args(obj)
    assert ctx.attn.backend == "triton"
    with pytest.raises(LateDeclarationError):
        obj.resolution.adjust("late", backend="fa3")
