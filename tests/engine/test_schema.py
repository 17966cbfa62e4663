"""Schema introspection: which fields are resolvable, leaf paths, argument validation."""

from __future__ import annotations

import dataclasses

import pytest

import resolvable
from resolvable import Arg, Registry, arg, resolvable_fields
from resolvable._schema import _METADATA_KEY, Schema, schema_of
from resolvable.errors import InvalidArgumentError, RegistrationError


def test_resolvable_fields_is_exactly_the_flagged_fields(fake_args):
    assert resolvable_fields(fake_args) == frozenset({"resolved_by_model", "also_resolved"})


def test_metadata_without_resolvable_flag_does_not_count(fake_args):
    spec = schema_of(fake_args).fields["metadata_but_not_resolvable"]
    assert spec.arg.help  # it does carry metadata ...
    assert spec.arg.resolvable is False
    assert "metadata_but_not_resolvable" not in resolvable_fields(fake_args)  # ... but is not resolvable
    assert "plain" not in resolvable_fields(fake_args)


def test_arg_defaults_to_not_resolvable():
    assert Arg().resolvable is False
    assert Arg().leaf is None and Arg().choices is None


def test_field_without_any_metadata_is_not_resolvable():
    @dataclasses.dataclass
    class Mixed:
        bare: int = 1
        flagged: int = arg(2, resolvable=True)

    assert resolvable_fields(Mixed) == frozenset({"flagged"})
    assert schema_of(Mixed).fields["bare"].arg == Arg()


def test_non_dataclass_yields_empty_set():
    class NotADataclass:
        x: int = arg(1, resolvable=True)

    assert resolvable_fields(NotADataclass) == frozenset()
    assert resolvable_fields(int) == frozenset()


def test_dataclass_without_resolvable_fields_yields_empty_set():
    @dataclasses.dataclass
    class NoResolvable:
        x: int = 1

    assert resolvable_fields(NoResolvable) == frozenset()


def test_schema_of_non_dataclass_raises_registration_error():
    class Plain:
        pass

    with pytest.raises(RegistrationError, match="not a dataclass"):
        Schema(Plain)


def test_schema_defaults_and_leaves(fake_args):
    schema = schema_of(fake_args)
    assert dict(schema.defaults) == {
        "plain": 0,
        "resolved_by_model": "auto",
        "also_resolved": None,
        "metadata_but_not_resolvable": False,
    }
    assert dict(schema.leaves) == {"resolved_by_model": "attn.backend", "also_resolved": "also_resolved"}
    assert schema.fields["resolved_by_model"].leaf == "attn.backend"
    assert schema.fields["also_resolved"].leaf == "also_resolved"  # no leaf: its own name


def test_schema_is_cached_and_read_only(fake_args):
    schema = schema_of(fake_args)
    assert schema_of(fake_args) is schema
    with pytest.raises(TypeError):
        schema.fields["plain"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        schema.defaults["plain"] = 5  # type: ignore[index]
    assert isinstance(schema.resolvable, frozenset)


def test_arg_stores_metadata_and_tuple_choices():
    @dataclasses.dataclass
    class WithChoices:
        kind: str = arg("a", resolvable=True, choices=["a", "b"], leaf="k.kind", help="kind")

    spec = schema_of(WithChoices).fields["kind"]
    assert spec.arg.choices == ("a", "b")
    assert isinstance(spec.arg.choices, tuple)
    assert spec.arg.leaf == "k.kind"
    assert spec.arg.help == "kind"


def test_default_factory_is_evaluated_into_the_default():
    @dataclasses.dataclass
    class WithFactory:
        ranks: list = arg(default_factory=lambda: [1, 2])

    assert schema_of(WithFactory).defaults["ranks"] == [1, 2]


def test_two_fields_on_the_same_leaf_raise():
    @dataclasses.dataclass
    class Collide:
        a: str = arg("x", resolvable=True, leaf="attn.backend")
        b: str = arg("y", resolvable=True, leaf="attn.backend")

    with pytest.raises(RegistrationError, match=r"attn\.backend") as info:
        resolvable_fields(Collide)
    assert "'a'" in str(info.value) and "'b'" in str(info.value)
    with pytest.raises(RegistrationError):
        Registry(Collide, ["model"])


def test_leaf_colliding_with_another_fields_name_raises():
    @dataclasses.dataclass
    class Collide:
        attn_backend: str = arg("x", resolvable=True)
        other: str = arg("y", resolvable=True, leaf="attn_backend")

    with pytest.raises(RegistrationError):
        Schema(Collide)


@pytest.mark.parametrize("group_first", [True, False])
def test_a_leaf_that_is_also_a_group_raises(group_first):
    if group_first:

        @dataclasses.dataclass
        class Conflict:
            group: str = arg("x", resolvable=True, leaf="attn")
            leaf: str = arg("y", resolvable=True, leaf="attn.backend")

    else:

        @dataclasses.dataclass
        class Conflict:  # type: ignore[no-redef]
            leaf: str = arg("y", resolvable=True, leaf="attn.backend.kind")
            attn: str = arg("x", resolvable=True)  # leaf "attn", a group of the other path

    with pytest.raises(RegistrationError, match="also a group"):
        Schema(Conflict)


def test_leaf_of_a_non_resolvable_field_is_ignored():
    @dataclasses.dataclass
    class Ok:
        a: str = arg("x", resolvable=True, leaf="attn.backend")
        b: str = arg("y", leaf="attn.backend")  # not resolvable: never published, no collision

    assert dict(Schema(Ok).leaves) == {"a": "attn.backend"}


def test_spec_unknown_name_suggests_the_closest(fake_args):
    schema = schema_of(fake_args)
    with pytest.raises(InvalidArgumentError, match="did you mean 'also_resolved'") as info:
        schema.spec("also_resolvd")
    assert "FakeArgs" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_spec_unknown_name_without_close_match_has_no_hint(fake_args):
    with pytest.raises(InvalidArgumentError) as info:
        schema_of(fake_args).spec("zzzzzzzzzzzz")
    assert "did you mean" not in str(info.value)


def test_spec_known_name(fake_args):
    spec = schema_of(fake_args).spec("plain")
    assert spec.name == "plain" and spec.default == 0


def test_choices_validation(fake_args):
    spec = schema_of(fake_args).spec("resolved_by_model")
    spec.validate("fa3", what="argument resolved_by_model")  # a valid choice
    spec.validate(None, what="argument resolved_by_model")  # None means "unset" and is always accepted
    with pytest.raises(InvalidArgumentError) as info:
        spec.validate("fa4", what="argument resolved_by_model")
    message = str(info.value)
    assert "argument resolved_by_model" in message
    assert "'fa4'" in message
    assert "did you mean 'fa3'" in message
    assert "triton" in message  # lists the valid choices


def test_field_without_choices_accepts_anything(fake_args):
    schema_of(fake_args).spec("also_resolved").validate(12345, what="x")
    schema_of(fake_args).spec("plain").validate("anything", what="x")


def test_custom_check_is_applied():
    @dataclasses.dataclass
    class Checked:
        n: int = dataclasses.field(
            default=1,
            metadata={
                _METADATA_KEY: Arg(resolvable=True, check=lambda v: None if v > 0 else "must be positive")
            },
        )

    spec = Schema(Checked).spec("n")
    spec.validate(3, what="argument n")
    with pytest.raises(InvalidArgumentError, match="argument n: must be positive"):
        spec.validate(-1, what="argument n")


def test_public_surface_exports_schema_helpers():
    assert resolvable.arg is arg
    assert resolvable.resolvable_fields is resolvable_fields
    assert "Arg" in resolvable.__all__


def test_field_named_like_a_view_method_is_refused():
    import dataclasses as dc

    from resolvable._schema import Schema

    @dc.dataclass
    class Clashing:
        get: int = 0

    with pytest.raises(RegistrationError, match="hide methods"):
        Schema(Clashing)
