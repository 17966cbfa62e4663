"""``_record.record`` behaves like ``dataclasses.dataclass`` on the same class body."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

from resolvable import Platform
from resolvable._record import field, is_record, record, record_fields
from resolvable.sglang import ServerArgs
from resolvable.sglang._base import registry


def _twins(frozen: bool) -> tuple[type, type]:
    """The same body as a dataclass and as a record (both named ``Item``)."""
    seen: list[tuple[object, ...]] = []

    def body(mark: object, fld: object) -> dict[str, object]:
        def __post_init__(self, scale):
            seen.append((mark, scale))

        return {
            "__annotations__": {
                "name": "str",
                "size": "int",
                "tags": "tuple[str, ...]",
                "notes": "list[str]",
                "hidden": "str",
                "scale": "dataclasses.InitVar[int]",
            },
            "size": 1,
            "tags": (),
            "notes": fld(default_factory=list),
            "hidden": fld(default="h", repr=False, compare=False, metadata={"k": 1}),
            "scale": fld(default=2),
            "__post_init__": __post_init__,
            "__module__": __name__,
        }

    dc = dataclasses.dataclass(frozen=frozen)(type("Item", (), body("dc", dataclasses.field)))
    rec = record(frozen=frozen)(type("Item", (), body("rec", field)))
    return dc, rec


def _state(obj: object) -> dict[str, object]:
    return dict(vars(obj))


@pytest.mark.parametrize("frozen", [False, True])
def test_init_matches_dataclass(frozen):
    dc, rec = _twins(frozen)
    for args, kwargs in [
        (("a",), {}),
        (("a", 3, ("x",)), {}),
        ((), {"name": "b", "scale": 5, "hidden": "z"}),
    ]:
        a, b = dc(*args, **kwargs), rec(*args, **kwargs)
        assert _state(a) == _state(b)
        assert list(_state(a)) == list(_state(b))  # the same attribute order
        assert repr(a) == repr(b)
    assert rec("a").notes is not rec("a").notes  # a fresh default from the factory each time
    for args, kwargs in [
        ((), {}),
        (("a", 1, (), [], "h", 2, "extra"), {}),
        (("a",), {"name": "b"}),
        ((), {"name": "a", "colour": "red"}),
    ]:
        with pytest.raises(TypeError) as expected:
            dc(*args, **kwargs)
        with pytest.raises(TypeError) as got:
            rec(*args, **kwargs)
        assert str(got.value) == str(expected.value)


def test_missing_arguments_are_named_like_dataclasses():
    annotations = {"a": "int", "b": "int", "c": "int"}
    dc = dataclasses.dataclass(type("P", (), {"__annotations__": dict(annotations)}))
    rec = record(type("P", (), {"__annotations__": dict(annotations)}))
    for args in [(), (1,), (1, 2)]:
        with pytest.raises(TypeError) as expected:
            dc(*args)
        with pytest.raises(TypeError) as got:
            rec(*args)
        assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("frozen", [False, True])
def test_post_init_gets_the_init_vars(frozen):
    dc, rec = _twins(frozen)
    assert "scale" not in vars(rec("a", scale=7))
    assert rec.__match_args__ == dc.__match_args__
    assert rec.__doc__ == dc.__doc__


@pytest.mark.parametrize("frozen", [False, True])
def test_eq_and_hash_match_dataclass(frozen):
    dc, rec = _twins(frozen)
    pairs = [(("a",), ("a",)), (("a",), ("b",)), (("a", 1, (), [], "h1"), ("a", 1, (), [], "h2"))]
    for left, right in pairs:
        assert (dc(*left) == dc(*right)) == (rec(*left) == rec(*right))
    assert rec("a") != dc("a")  # another class: not equal, as between two dataclasses
    if frozen:
        assert hash(rec("a", 1, (), (), "x")) == hash(rec("a", 1, (), (), "y")) == hash(dc("a", 1, (), ()))
        assert {rec("a", notes=()), rec("a", notes=())} == {rec("a", notes=())}
    else:
        assert rec.__hash__ is None and dc.__hash__ is None


def test_frozen_refuses_assignment_like_dataclass():
    dc, rec = _twins(True)
    for obj in (dc("a"), rec("a")):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'size'"):
            obj.size = 2
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'size'"):
            del obj.size


def test_dataclasses_functions_work_on_a_record():
    dc, rec = _twins(True)
    assert dataclasses.is_dataclass(rec) and dataclasses.is_dataclass(rec("a"))
    want = [(f.name, f.default, f.repr, f.compare, dict(f.metadata)) for f in dataclasses.fields(dc)]
    got = [(f.name, f.default, f.repr, f.compare, dict(f.metadata)) for f in dataclasses.fields(rec)]
    assert got == want
    assert dataclasses.asdict(rec("a", 3)) == dataclasses.asdict(dc("a", 3))
    changed = dataclasses.replace(rec("a"), size=9)
    assert type(changed) is rec and changed.size == 9 and changed.name == "a"
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))


def test_class_rules_match_dataclass():
    with pytest.raises(ValueError, match="mutable default"):
        record(type("M", (), {"__annotations__": {"x": "list"}, "x": []}))
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):
        record(type("O", (), {"__annotations__": {"x": "int", "y": "int"}, "x": 1}))
    explicit = record(type("E", (), {"__annotations__": {"x": "int"}, "__repr__": lambda self: "mine"}))
    assert repr(explicit(1)) == "mine"  # a method the class defines is kept


def test_platform_pickles_copies_and_keeps_cached_predicates():
    h100 = Platform.preset("h100")
    assert h100.is_sm90  # a cached_property: stored in the instance __dict__
    for other in (pickle.loads(pickle.dumps(h100)), copy.deepcopy(h100), copy.copy(h100)):
        assert other == h100 and hash(other) == hash(h100) and other.is_sm90


def test_engine_records_read_without_the_dataclasses_view():
    assert is_record(Platform) and is_record(ServerArgs)
    names = [f.name for f in record_fields(ServerArgs)]
    assert names == list(registry.schema.fields)
    assert [f.name for f in dataclasses.fields(ServerArgs)] == names  # init-only fields excluded
    assert "hf_config" in inspect.signature(ServerArgs).parameters


def test_record_replace_matches_dataclasses_replace():
    import dataclasses

    from resolvable._record import record, record_replace

    @record(frozen=True)
    class Point:
        x: int
        y: int = 2

    p = Point(1)
    assert record_replace(p, y=5) == dataclasses.replace(p, y=5) == Point(1, 5)
    assert record_replace(p) == p and record_replace(p) is not p
    with pytest.raises(TypeError):
        record_replace(p, z=1)
