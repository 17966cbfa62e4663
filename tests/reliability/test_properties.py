"""Properties of ``resolve_server_args`` over random models, platforms and user flags.

Inputs (``reliability_strategies``): every bundled sample, every architecture the registry
names (tiny Llama-shaped config), random unknown architectures; every platform preset and
random valid ``Platform`` facts; random subsets of user flags drawn from the fields' choices,
integers and booleans; every supported sglang release. For every input:

* the outcome is a ``Resolution`` or a ``ResolvableError`` (a ``ValueError``), nothing else;
* two runs agree: values, declarations, fingerprint (or the same error, word for word);
* every published leaf equals its resolved value, and the context cannot be written;
* a value the user set explicitly survives unless a FORCED write to it is recorded;
* values are exactly defaults, then user input, then every applied/forced write in order;
* ``to_dict`` → JSON → ``from_dict`` gives an equal resolution with the same fingerprint,
  and a resolution differs from itself in no field.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from reliability_strategies import SCHEMA, Model, Scenario, scenarios, tiny_config

from golden import GOLDEN
from resolvable import Outcome, Platform, Resolution
from resolvable.errors import ResolvableError
from resolvable.sglang import resolve_server_args
from resolvable.sglang.models import bundled


def canonical(value: Any) -> Any:
    """What a value looks like once recorded: JSON-shaped (tuples become lists)."""
    return [canonical(v) for v in value] if isinstance(value, (list, tuple)) else value


def outcome(s: Scenario) -> Resolution | ResolvableError:
    """Resolve once; a ResolvableError is an acceptable outcome, anything else propagates."""
    try:
        return resolve_server_args(s.model.hf, s.platform, **s.kwargs())
    except ResolvableError as exc:
        assert isinstance(exc, ValueError)
        assert str(exc), "a user-facing error must say something"
        return exc


def _scenario(model: str, platform: str, **flags: Any) -> Scenario:
    hf = bundled(model)
    return Scenario(Model(f"bundled:{model}", hf), Platform.preset(platform), flags, None, True, GOLDEN)


# Worked examples pinned alongside the random ones: a FORCED override, a refusal, a load-time
# adjustment (HRM-Text) and an unknown architecture, in sglang 0.5.15.
# golden cases of sglang 0.5.15 (spec): pinned
PINNED = [
    _scenario("qwen3.5-397b-a17b", "b200", page_size=16),
    _scenario("gpt-oss-120b", "mi300x"),
    _scenario("hrm-text", "h100", attention_backend="fa3"),
    _scenario("deepseek-v3", "b200", tp_size=8, kv_cache_dtype="fp8_e4m3"),
    Scenario(
        Model("unknown:Nope", tiny_config("NopeForCausalLM")), Platform.preset("cpu"), {}, None, False, GOLDEN
    ),
]


def with_pinned(test):
    for s in PINNED:
        test = example(s)(test)
    return test


@given(scenarios)
@with_pinned
def test_outcome_is_a_resolution_or_a_resolvable_error(s: Scenario) -> None:
    result = outcome(s)
    assert isinstance(result, (Resolution, ResolvableError))
    if isinstance(result, Resolution):
        assert result.arch == s.model.hf.architecture
        assert set(result) == set(SCHEMA.fields)


@given(scenarios)
@with_pinned
def test_resolution_is_deterministic(s: Scenario) -> None:
    first, second = outcome(s), outcome(s)
    assert type(first) is type(second)
    if isinstance(first, ResolvableError):
        assert str(first) == str(second)
        return
    assert dict(first) == dict(second)
    assert first.declarations == second.declarations
    assert first.fingerprint() == second.fingerprint()
    assert first.to_dict() == second.to_dict()


def _groups(node: Any, path: str = "") -> list[tuple[str, Any]]:
    out = [(path, node)]
    for name in node:
        child = getattr(node, name)
        if hasattr(child, "to_dict") and hasattr(child, "__iter__") and not isinstance(child, (str, bytes)):
            out += _groups(child, f"{path}.{name}" if path else name)
    return out


@given(scenarios)
@with_pinned
def test_publish_matches_every_leaf_and_the_context_is_frozen(s: Scenario) -> None:
    res = outcome(s)
    if not isinstance(res, Resolution):
        return
    ctx = res.publish()
    assert res.published
    for field, path in res.leaves.items():
        published = ctx.leaf(path)
        assert published == res[field], path
        assert type(published) is type(res[field]), path
    for path, group in _groups(ctx):
        for name in [*list(group), "not_a_leaf"]:
            with pytest.raises(AttributeError):
                setattr(group, name, "changed")
            with pytest.raises(AttributeError):
                delattr(group, name)
        assert path == "" or ctx.leaf(path) is group
    for name in ("fingerprint", "resolution"):
        with pytest.raises(AttributeError):
            setattr(ctx, name, None)
    assert ctx.fingerprint == res.fingerprint()


@given(scenarios)
@with_pinned
def test_explicit_user_values_survive_unless_forced(s: Scenario) -> None:
    res = outcome(s)
    if not isinstance(res, Resolution):
        return
    defaults = SCHEMA.defaults
    for field, value in s.flags.items():
        if value == defaults[field]:
            continue
        assert field in res.explicit
        writes = [w for d in res.declarations for w in d.writes if w.field == field]
        if any(w.outcome is Outcome.FORCED for w in writes):
            assert all(w.reason for w in writes if w.outcome is Outcome.FORCED), (
                "a FORCED write gives a reason"
            )
            continue
        assert res[field] == canonical(value), (
            f"{field}: the user set {value!r}, resolved {res[field]!r} without a FORCED write; writes: {writes}"
        )


@given(scenarios)
@with_pinned
def test_values_are_defaults_then_user_then_declarations_in_order(s: Scenario) -> None:
    res = outcome(s)
    if not isinstance(res, Resolution):
        return
    expected = dict(SCHEMA.defaults)
    expected.update({k: canonical(v) for k, v in res.user.items()})
    seqs = [d.seq for d in res.declarations]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    for decl in res.declarations:
        for w in decl.writes:
            assert w.field in res.leaves, f"{decl.rule} wrote non-resolvable {w.field}"
            if w.outcome is Outcome.BLOCKED:
                assert w.field in res.explicit
            else:
                expected[w.field] = w.value
    assert dict(res) == expected
    for field in res.changed():
        exp = res.explain(field)
        assert exp.value == res[field]
        assert exp.decided_by == res.decided_by(field)[0]


@given(scenarios)
@with_pinned
def test_to_dict_round_trips_through_json(s: Scenario) -> None:
    res = outcome(s)
    if not isinstance(res, Resolution):
        return
    data = res.to_dict()
    text = json.dumps(data, sort_keys=True, allow_nan=False)
    back = Resolution.from_dict(json.loads(text))
    assert back == res
    assert back.fingerprint() == res.fingerprint() == data["fingerprint"]
    assert json.dumps(back.to_dict(), sort_keys=True) == text
    assert res.diff(res) == ()
    assert back.diff(res) == ()
