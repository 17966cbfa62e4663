"""Immutability by construction: no back door through ``vars()``, no shared value a caller or a
rule can alter, and copies that are equal values.

Guarantees:

* a rule's view (``ctx.args``, traced or not) refuses attribute and item writes, and
  ``vars(ctx.args)`` / ``ctx.args.__dict__`` is a read-only proxy; ``ctx`` itself (``ctx.platform``,
  ``ctx.hf``, …) cannot be reassigned; each attempt is a ``FrozenContextError`` that fails the
  rule (``RuleFailure``), and a later rule never sees a change;
* a registry constant is deep-frozen when it is registered;
* a platform's ``vars()`` is read-only, so the shared presets cannot be poisoned;
* a ``Schema`` cannot be reassigned;
* a published context (and its groups) ``copy.copy``/``copy.deepcopy``/pickles to an equal
  value, without recursion.

Limit: ``object.__setattr__`` still writes, as it does on a frozen dataclass; it is deliberate
circumvention and not tested.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from resolvable import Platform, Registry, Stage, publish, resolve
from resolvable._schema import schema_of
from resolvable.errors import RegistrationError, RuleFailure
from resolvable.sglang import ServerArgs, resolve_server_args

LLAMA = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32}


def _registry() -> Registry:
    return Registry(ServerArgs, stages=[Stage("one"), Stage("two")], name="t")


ATTACKS = {
    "setattr": lambda ctx: setattr(ctx.args, "page_size", 7),
    "setitem": lambda ctx: ctx.args.__setitem__("page_size", 7),
    "vars": lambda ctx: vars(ctx.args).__setitem__("page_size", 7),
    "dunder-dict": lambda ctx: ctx.args.__dict__.update(page_size=7),
    "delattr": lambda ctx: delattr(ctx.args, "page_size"),
    "ctx.platform": lambda ctx: setattr(ctx, "platform", Platform.preset("b200")),
    "ctx.args": lambda ctx: setattr(ctx, "args", {}),
    "ctx.env": lambda ctx: setattr(ctx, "env", {"X": "1"}),
    "ctx.explicit": lambda ctx: setattr(ctx, "explicit", frozenset()),
    "platform-vars": lambda ctx: vars(ctx.platform).__setitem__("vendor", "cpu"),
    "env-item": lambda ctx: ctx.env.__setitem__("X", "1"),
    "hf-item": lambda ctx: ctx.hf.__setitem__("architectures", ()),
}


@pytest.mark.parametrize("trace", [False, True], ids=["plain", "traced"])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_rule_cannot_write_what_later_rules_read(attack: str, trace: bool) -> None:
    reg = _registry()
    seen: list[object] = []

    @reg.rule(stage="one")
    def attacker(ctx):
        ATTACKS[attack](ctx)
        return {}

    @reg.rule(stage="two")
    def observer(ctx):
        seen.append((ctx.args.page_size, ctx.platform.vendor, dict(ctx.env)))
        return {}

    with pytest.raises(RuleFailure, match="attacker"):
        resolve(reg, {}, LLAMA, Platform.preset("h100"), {}, trace=trace)
    assert seen == []
    assert Platform.preset("h100").vendor == "cuda"


def test_vars_of_a_view_is_read_only_and_live() -> None:
    reg = _registry()
    captured = {}

    @reg.rule(stage="one")
    def look(ctx):
        captured["vars"] = vars(ctx.args)
        return {"page_size": 32}

    resolve(reg, {}, LLAMA, Platform.preset("h100"))
    proxy = captured["vars"]
    assert proxy["page_size"] == 32
    with pytest.raises(TypeError):
        proxy["page_size"] = 1  # type: ignore[index]


def test_registry_constants_are_deep_frozen() -> None:
    reg = _registry()
    values = {"page_size": 64}
    reg.constant("LlamaForCausalLM", values, stage="one")
    values["page_size"] = 1  # the caller's dict is not the registered one
    rule = next(r for r in reg.rules if r.constant is not None)
    with pytest.raises(TypeError):
        rule.constant["page_size"] = 2  # type: ignore[index]
    out = rule.fn(None)
    with pytest.raises(TypeError):
        out["page_size"] = 3
    assert resolve(reg, {}, LLAMA, Platform.preset("h100"))["page_size"] == 64
    with pytest.raises(RegistrationError, match="mapping"):
        reg.constant("X", [("page_size", 1)], stage="one")  # type: ignore[arg-type]


def test_presets_cannot_be_poisoned() -> None:
    preset = Platform.preset("h100")
    with pytest.raises(TypeError):
        vars(preset)["vendor"] = "cpu"
    with pytest.raises(TypeError):
        preset.__dict__["capability"] = (8, 0)
    with pytest.raises(AttributeError):
        preset.vendor = "cpu"  # type: ignore[misc]
    Platform.presets()["h100"] = Platform(vendor="cpu")  # a copy of the table: no effect
    assert Platform.preset("h100").vendor == "cuda" and Platform.preset("h100").is_sm90


def test_schema_is_frozen() -> None:
    schema = schema_of(ServerArgs)
    for name in ("fields", "resolvable", "defaults", "leaves", "cls", "anything"):
        with pytest.raises(AttributeError):
            setattr(schema, name, None)
    with pytest.raises(TypeError):
        schema.fields["page_size"] = None  # type: ignore[index]
    assert copy.deepcopy(schema) is schema and pickle.loads(pickle.dumps(schema)) is schema


def test_published_context_copies_to_an_equal_value() -> None:
    res = resolve_server_args(LLAMA, Platform.preset("h100"))
    ctx = publish(res)
    for copied in (copy.copy(ctx), copy.deepcopy(ctx)):
        assert copied == ctx and copied.to_dict() == ctx.to_dict()
        assert copied.fingerprint == ctx.fingerprint
    group = ctx.attn
    assert copy.copy(group) == group and copy.deepcopy(group) == group
    with pytest.raises(TypeError):
        ctx._items["attn"] = None  # the items are a read-only mapping
    with pytest.raises(TypeError):
        vars(ctx)  # slots: no instance dictionary at all


def test_platform_and_view_copies_are_equal_values() -> None:
    preset = Platform.preset("b200")
    assert copy.copy(preset) == preset and copy.deepcopy(preset) == preset
    assert pickle.loads(pickle.dumps(preset)) == preset


def test_list_values_cannot_be_altered_through_a_resolution_or_the_schema() -> None:
    """A list value read from a resolution, or a list default read from a schema, is a copy:
    appending to it changes neither the resolution nor any later one."""
    from resolvable.vllm.api import resolve_vllm_args
    from resolvable.vllm.args import VllmArgs

    config = {**LLAMA, "num_hidden_layers": 2}
    res = resolve_vllm_args(config, "h100")
    lists = [name for name, value in res.items() if isinstance(value, list)]
    assert lists
    for name in lists:
        before = res[name]
        res[name].append("poison")
        default = schema_of(VllmArgs).json_defaults[name]
        if isinstance(default, list):  # a field may default to None and resolve to a list
            default.append("poison")
        assert res[name] == before
        assert "poison" not in resolve_vllm_args(config, "h100")[name]
    assert "poison" not in str(schema_of(VllmArgs).json_defaults)


def test_resolutions_and_contexts_copy_and_pickle_to_equal_values() -> None:
    res = resolve_server_args(LLAMA, Platform.preset("h100"), trace=True)
    for copied in (copy.copy(res), copy.deepcopy(res), pickle.loads(pickle.dumps(res))):
        assert copied == res and copied.fingerprint() == res.fingerprint()
    ctx = res.publish()
    again = pickle.loads(pickle.dumps(ctx))
    assert again == ctx and again.fingerprint == ctx.fingerprint
    assert pickle.loads(pickle.dumps(ctx.attn)) == ctx.attn
