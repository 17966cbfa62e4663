"""Properties of selection by candidates (``resolvable._choose``) and its place in a resolution."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from resolvable import Platform, Registry, resolve
from resolvable._choose import Candidate, Check, Choice, Chosen, choose, validate
from resolvable._resolution import Resolution
from resolvable._schema import arg

# A candidate is a set of features it lacks; a query is a set of features it needs.
FEATURES = ("sinks", "fp8", "mla", "sliding", "bs16")
names = st.lists(st.sampled_from([f"B{i}" for i in range(8)]), min_size=0, max_size=8, unique=True)
lacks = st.frozensets(st.sampled_from(FEATURES))


def _candidate(name: str, missing: frozenset) -> Candidate:
    return Candidate(
        name, tuple(Check(f"{f} not supported", lambda q, f=f: f not in q) for f in sorted(missing))
    )


@st.composite
def lists_and_queries(draw):
    chosen_names = draw(names)
    cands = [_candidate(n, draw(lacks)) for n in chosen_names]
    query = draw(st.frozensets(st.sampled_from(FEATURES)))
    return cands, query


@given(lists_and_queries())
def test_the_first_valid_candidate_wins(case):
    cands, query = case
    choice = choose(cands, query)
    valid = [c.name for c in cands if not (set(query) & {ch.reason.split()[0] for ch in c.checks})]
    assert choice.chosen == (valid[0] if valid else None)


@given(lists_and_queries())
def test_every_candidate_is_recorded_in_order_with_all_its_reasons(case):
    cands, query = case
    choice = choose(cands, query)
    assert [v.name for v in choice.verdicts] == [c.name for c in cands]
    assert [v.rank for v in choice.verdicts] == list(range(len(cands)))
    for v, c in zip(choice.verdicts, cands):
        expected = tuple(ch.reason for ch in c.checks if ch.reason.split()[0] in query)
        assert v.reasons == expected  # every failing check, in check order (vLLM collects them all)


@given(lists_and_queries())
def test_rejected_are_exactly_the_invalid_ones_ranked_above_the_winner(case):
    cands, query = case
    choice = choose(cands, query)
    rank = choice.rank_of(choice.chosen)
    assert all(not v.valid for v in choice.rejected())
    assert {v.name for v in choice.rejected()} == {
        v.name for v in choice.verdicts if not v.valid and (rank is None or v.rank < rank)
    }


@given(lists_and_queries())
def test_choice_round_trips_through_its_dict(case):
    choice = choose(*case, label="full layers")
    assert Choice.from_dict(choice.to_dict()) == choice


@given(lists_and_queries(), st.sampled_from(FEATURES))
def test_adding_a_requirement_never_makes_a_rejected_candidate_valid(case, extra):
    cands, query = case
    before = choose(cands, query)
    after = choose(cands, query | {extra})
    for b, a in zip(before.verdicts, after.verdicts):
        if not b.valid:
            assert not a.valid


def test_a_failed_prerequisite_hides_the_other_checks():
    c = Candidate(
        "FI",
        (Check("sinks not supported", lambda q: False),),
        requires=(Check("ImportError", lambda q: False),),
    )
    assert validate(c, None).verdicts[0].reasons == ("ImportError",)


def test_a_test_may_return_its_own_reason():
    c = Candidate("X", (Check("generic", lambda q: "specific reason"), Check("ok", lambda q: True)))
    assert choose([c], None).verdicts[0].reasons == ("specific reason",)


def test_precluded_only_by():
    a = Candidate("A", (Check("block_size not supported", lambda q: False),))
    b = Candidate("B", (Check("block_size not supported", lambda q: False), Check("dtype", lambda q: False)))
    c = Candidate("C", ())
    assert choose([a, b, c], None).precluded_only_by("block_size not supported") == ("A",)


# -- in a resolution: Chosen values carry their choice into explain and (de)serialisation --------
@dataclasses.dataclass
class _Args:
    backend: str | None = arg(None, resolvable=True, choices=("A", "B"))
    other: int = arg(0, resolvable=True)


_REG = Registry(_Args, ["pick"], name="choose-test")


@_REG.rule("pick")
def _pick(ctx):
    choice = choose([Candidate("A", (Check("no A", lambda q: False),)), Candidate("B", ())], None, label="t")
    return {"backend": Chosen(choice.chosen, choice), "other": 1}


def test_chosen_value_is_explained_with_every_candidate_and_round_trips():
    res = resolve(_REG, {}, None, Platform.preset("cpu"))
    assert res["backend"] == "B"
    step = res.explain("backend").steps[0]
    assert step.choice.chosen == "B" and step.choice.verdict("A").reasons == ("no A",)
    assert step.to_dict()["choice"]["candidates"][0] == {"name": "A", "rank": 0, "reasons": ["no A"]}
    assert "choice" not in res.explain("other").steps[0].to_dict()  # plain values: output unchanged
    assert "✗ A: no A" in str(res.explain("backend"))
    again = Resolution.from_dict(res.to_dict(), res.schema)
    assert again == res and again.explain("backend").steps[0].choice == step.choice


def test_chosen_value_outside_choices_is_refused_like_a_plain_one():
    import pytest

    from resolvable.errors import DeclarationError

    reg = Registry(_Args, ["pick"], name="choose-bad")

    @reg.rule("pick")
    def bad(ctx):
        return {"backend": Chosen("Z", choose([], None))}

    with pytest.raises(DeclarationError, match="outside its choices"):
        resolve(reg, {}, None, Platform.preset("cpu"))


def test_chosen_value_is_blocked_by_an_explicit_user_value():
    res = resolve(_REG, {"backend": "A"}, None, Platform.preset("cpu"))
    assert res["backend"] == "A"
    step = res.explain("backend").steps[0]
    assert step.outcome == "blocked" and step.choice.chosen == "B"
