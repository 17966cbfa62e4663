"""record_tuple behaves as collections.namedtuple (the engine's records are built with it)."""

from __future__ import annotations

import copy
import pickle
from collections import namedtuple

import pytest

from resolvable._record import record_tuple

Fast = record_tuple("Fast", "name since until upstream summary", defaults=(None, "", ""))
Slow = namedtuple("Slow", "name since until upstream summary", defaults=(None, "", ""))


class Picklable(record_tuple("Picklable", "a b", defaults=(2,))):
    __slots__ = ()


def test_same_interface_as_namedtuple() -> None:
    fast, slow = Fast("X", "0.5.20", upstream="u"), Slow("X", "0.5.20", upstream="u")
    assert tuple(fast) == tuple(slow) == ("X", "0.5.20", None, "u", "")
    assert fast == slow and hash(fast) == hash(slow)
    assert repr(fast) == repr(slow).replace("Slow", "Fast")
    assert fast.since == "0.5.20" and fast.summary == ""
    assert Fast._fields == Slow._fields and Fast.__match_args__ == Slow.__match_args__
    assert Fast._field_defaults == Slow._field_defaults == {"until": None, "upstream": "", "summary": ""}
    assert fast._asdict() == slow._asdict()
    assert tuple(fast._replace(until="0.5.22")) == tuple(slow._replace(until="0.5.22"))
    assert tuple(Fast._make(range(5))) == tuple(Slow._make(range(5)))
    assert Fast.__module__ == __name__
    public = {n for n in dir(Slow) if not n.startswith("__")}
    assert public == {n for n in dir(Fast) if not n.startswith("__")}


def test_errors_as_namedtuple() -> None:
    with pytest.raises(TypeError, match="since"):
        Fast("X")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        Fast("X", "1.0", nope=1)
    with pytest.raises(ValueError, match="unexpected field names"):
        Fast("X", "1.0")._replace(nope=1)
    with pytest.raises(TypeError, match="Expected 5 arguments"):
        Fast._make(range(4))
    with pytest.raises(AttributeError):
        Fast("X", "1.0").name = "Y"
    with pytest.raises(ValueError):
        record_tuple("Bad", "a _b")
    with pytest.raises(ValueError):
        record_tuple("Bad", "a a")


def test_copy_and_pickle_keep_the_class() -> None:
    value = Picklable(1)
    for other in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert type(other) is Picklable and other == (1, 2)


def test_wide_records_fall_back_to_namedtuple() -> None:
    names = [f"f{i}" for i in range(14)]
    wide = record_tuple("Wide", names)
    assert wide._fields == tuple(names) and wide(*range(14)).f13 == 13
    one = record_tuple("One", "only")
    assert one(5).only == 5 and repr(one(5)) == "One(only=5)"
