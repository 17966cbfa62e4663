"""``Outcome`` without ``enum``: it behaves as ``class Outcome(str, enum.Enum)`` did."""

from __future__ import annotations

import copy
import enum
import json
import pickle

import pytest

from resolvable.rules import Outcome


class EnumOutcome(str, enum.Enum):  # the definition Outcome replaces (import cost)
    APPLIED = "applied"
    BLOCKED = "blocked"
    FORCED = "forced"

    def __str__(self) -> str:
        return self.value


@pytest.mark.parametrize("name", ["APPLIED", "BLOCKED", "FORCED"])
def test_member_behaves_as_the_enum_member(name):
    ours, theirs = getattr(Outcome, name), getattr(EnumOutcome, name)
    assert isinstance(ours, Outcome) and isinstance(ours, str)
    assert ours == theirs == theirs.value and ours.value == theirs.value and ours.name == theirs.name
    assert type(ours.value) is str and type(ours.name) is str
    assert hash(ours) == hash(theirs)
    assert repr(ours) == repr(theirs).replace("EnumOutcome", "Outcome")
    assert str(ours) == str(theirs) and f"{ours}" == f"{theirs}" and f"{ours:>10}" == f"{theirs:>10}"
    assert "{}".format(ours) == "{}".format(theirs)  # noqa: UP032  (str.format, not an f-string)
    assert json.dumps({"o": ours}) == json.dumps({"o": theirs}) == json.dumps({"o": theirs.value})
    assert Outcome(theirs.value) is ours and Outcome(ours) is ours and Outcome[name] is ours
    assert copy.copy(ours) is ours and copy.deepcopy(ours) is ours
    assert pickle.loads(pickle.dumps(ours)) is ours
    assert ours in Outcome and theirs.value not in Outcome


def test_class_behaves_as_the_enum_class():
    assert [o.value for o in Outcome] == [o.value for o in EnumOutcome]
    assert len(Outcome) == len(EnumOutcome) == 3
    assert list(Outcome.__members__) == list(EnumOutcome.__members__)
    with pytest.raises(ValueError, match="'shadowed' is not a valid Outcome"):
        Outcome("shadowed")
    with pytest.raises(KeyError):
        Outcome["applied"]
    with pytest.raises(AttributeError):
        Outcome.APPLIED = "x"
    with pytest.raises(AttributeError):
        Outcome.APPLIED.extra = 1  # members carry no state


def test_import_does_not_load_enum():
    import subprocess
    import sys

    code = "import sys, resolvable.sglang; print('enum' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
