"""Publishing a resolution into a frozen runtime context (upstream §2.4, §2.5, §2.7)."""

from __future__ import annotations

import dataclasses

import pytest

from resolvable import ContextSlot, Platform, Registry, RuntimeContext, arg, publish, resolve
from resolvable.errors import FrozenContextError, LateDeclarationError, ParityError, RegistrationError


@pytest.fixture
def res(registry, hf, h100, arch):
    @registry.for_arch(arch)
    def dsv4_rule(ctx):
        return {"resolved_by_model": "dsv4", "also_resolved": 7}

    return resolve(registry, {"plain": 3}, hf, h100)


def test_leaves_are_routed_through_the_leaf_map(res):
    ctx = publish(res)
    assert isinstance(ctx, RuntimeContext)
    assert ctx.attn.backend == "dsv4"  # mapped leaf
    assert ctx.also_resolved == 7  # flat leaf, its own name
    assert ctx.leaf("attn.backend") == "dsv4"
    assert ctx.leaf("also_resolved") == 7


def test_only_resolvable_fields_are_published(res):
    ctx = publish(res)
    assert ctx.to_dict() == {"attn": {"backend": "dsv4"}, "also_resolved": 7}
    for name in ("plain", "metadata_but_not_resolvable", "resolved_by_model"):
        with pytest.raises(AttributeError):
            getattr(ctx, name)


def test_unknown_leaf_lists_what_exists(res):
    ctx = publish(res)
    with pytest.raises(AttributeError, match="backend"):
        ctx.attn.prefill_backend  # noqa: B018
    with pytest.raises(AttributeError):
        ctx.leaf("attn.nothing")


def test_parity_every_leaf_equals_the_resolved_value(res):
    ctx = publish(res)
    for field, path in res.leaves.items():
        assert ctx.leaf(path) == res[field]


def test_published_defaults_when_nothing_was_declared(registry, h100):
    ctx = publish(resolve(registry, {}, None, h100))
    assert ctx.attn.backend == "auto"
    assert ctx.also_resolved is None


def test_context_is_frozen(res):
    ctx = publish(res)
    with pytest.raises(FrozenContextError) as info:
        ctx.attn.backend = "triton"
    assert isinstance(info.value, AttributeError)
    assert "attn.backend" in str(info.value)
    with pytest.raises(FrozenContextError):
        ctx.also_resolved = 1
    with pytest.raises(FrozenContextError):
        ctx.attn = None
    with pytest.raises(FrozenContextError):
        ctx.new_leaf = 1
    assert ctx.attn.backend == "dsv4" and ctx.also_resolved == 7


def test_deleting_from_the_context_is_refused_as_frozen(res):
    ctx = publish(res)
    with pytest.raises(FrozenContextError):
        del ctx.attn.backend
    with pytest.raises(FrozenContextError):
        del ctx.attn
    assert ctx.attn.backend == "dsv4"


def test_context_carries_the_fingerprint_and_resolution(res):
    ctx = publish(res)
    assert ctx.fingerprint == res.fingerprint()
    assert ctx.resolution is res
    with pytest.raises(FrozenContextError):
        ctx.fingerprint = "0" * 16


def test_to_dict_is_a_plain_nested_dict(res):
    data = publish(res).to_dict()
    assert data == {"attn": {"backend": "dsv4"}, "also_resolved": 7}
    data["attn"]["backend"] = "changed"  # a copy, not the context
    assert publish(res).attn.backend == "dsv4"


def test_resolution_publish_method(res):
    ctx = res.publish()
    assert ctx.attn.backend == "dsv4"
    assert res.published


def test_publish_marks_the_resolution_published_and_refuses_late_declarations(res):
    assert res.published is False
    res.adjust("before_publish", also_resolved=8)  # fine before publishing
    publish(res)
    assert res.published is True
    with pytest.raises(LateDeclarationError):
        res.adjust("after_publish", also_resolved=9)


def test_publishing_an_adjusted_resolution(res):
    adjusted = res.adjust("loader", resolved_by_model="triton")
    ctx = publish(adjusted)
    assert ctx.attn.backend == "triton"
    assert adjusted.published and not res.published


def test_live_drift_raises_parity_error_naming_the_field(res):
    live = {**dict(res), "resolved_by_model": "fa3"}
    with pytest.raises(ParityError) as info:
        publish(res, live=live)
    message = str(info.value)
    assert "resolved_by_model" in message
    assert "'dsv4'" in message and "'fa3'" in message
    assert "refresh_declared_fields" in message
    assert "also_resolved:" not in message  # only the drifted field is named
    assert res.published is False  # nothing was published
    res.adjust("still_allowed", also_resolved=1)


def test_live_drift_of_a_non_resolvable_field_is_ignored(res):
    live = {**dict(res), "plain": 99}
    assert publish(res, live=live).attn.backend == "dsv4"


def test_live_equal_to_the_resolution_publishes(res):
    assert publish(res, live=dict(res)).also_resolved == 7


# -- ContextSlot --------------------------------------------------------------------------------


def test_slot_is_empty_until_published(res):
    slot = ContextSlot()
    assert slot.current is None
    with pytest.raises(ParityError, match="nothing has been published"):
        slot.get()
    ctx = slot.publish(res)
    assert slot.current is ctx
    assert slot.get() is ctx


def test_failed_publish_keeps_the_previous_context(res, registry, h100):
    slot = ContextSlot()
    first = slot.publish(res)
    second_res = resolve(registry, {}, None, h100)
    with pytest.raises(ParityError):
        slot.publish(second_res, live={**dict(second_res), "also_resolved": 123})
    assert slot.current is first
    assert slot.get().attn.backend == "dsv4"
    assert second_res.published is False


def test_successful_publish_replaces_the_context(res, registry, h100):
    slot = ContextSlot()
    slot.publish(res)
    newer = slot.publish(resolve(registry, {"resolved_by_model": "triton"}, None, h100))
    assert slot.get() is newer
    assert slot.get().attn.backend == "triton"


# -- upstream §2.7: parity between published leaves and resolved values ------------------------


def test_leaf_equal_to_resolved_value_for_list_values(h100):
    @dataclasses.dataclass
    class WithList:
        sizes: list | None = arg(None, resolvable=True, leaf="cuda_graph.sizes")

    reg = Registry(WithList, ["passes"])

    @reg.rule("passes")
    def sizes(ctx):
        return {"sizes": (1, 2, 4)}

    res = resolve(reg, {}, None, h100)
    ctx = publish(res)
    assert list(ctx.cuda_graph.sizes) == [1, 2, 4]
    assert ctx.leaf("cuda_graph.sizes") == res["sizes"]


@pytest.mark.parametrize("name", ["fingerprint", "resolution", "leaf", "to_dict"])
def test_a_leaf_named_like_a_context_attribute_is_refused_or_published_faithfully(name):
    # A leaf called "fingerprint" (or "leaf", "to_dict", "resolution") would be shadowed by the
    # context's own attributes. Either the schema refuses it up front, or publishing works and
    # the leaf reads back the resolved value; a spurious ParityError is neither.
    cls = dataclasses.make_dataclass("Shadowing", [("value", int, arg(0, resolvable=True, leaf=name))])
    try:
        reg = Registry(cls, ["passes"])
    except RegistrationError:
        return
    res = resolve(reg, {"value": 5}, None, Platform.preset("cpu"))
    ctx = publish(res)
    assert ctx.leaf(name) == 5
