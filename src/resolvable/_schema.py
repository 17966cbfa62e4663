"""Argument metadata and schema introspection.

A schema is a dataclass (or a ``_record`` record, like the SGLang ``ServerArgs``) whose fields
carry an ``Arg`` in their metadata. Invariants:

* only a field whose ``Arg`` has ``resolvable=True`` may ever be declared by a rule;
* every resolvable field has exactly one leaf path in the published context (its ``leaf``,
  or its own name), and no leaf path is both a group and a leaf;
* ``Schema`` objects are built once per dataclass and are immutable;
* nothing here imports ``dataclasses`` until a dataclass schema needs it (``arg``, ``Schema``):
  a record schema is read from ``__record_fields__`` (import cost).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from ._record import MISSING, is_record, record_fields, record_tuple
from ._record import field as record_field
from .errors import InvalidArgumentError, RegistrationError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Arg", "FieldSpec", "Schema", "arg", "has_kind", "record_arg", "resolvable_fields", "schema_of"]

_METADATA_KEY = "resolvable.arg"


class Arg(
    record_tuple(
        "Arg", "resolvable leaf choices help cli check", defaults=(False, None, None, "", True, None)
    )
):
    """Metadata of one argument (immutable): ``resolvable`` (may rules declare it), ``leaf`` (its
    dotted path in the published context), ``choices``, ``help``, ``cli`` (has a flag) and
    ``check`` (extra validation returning an error message or None)."""

    __slots__ = ()


def arg(
    default: Any = MISSING,
    *,
    resolvable: bool = False,
    leaf: str | None = None,
    choices: Iterable[Any] | None = None,
    help: str = "",
    cli: bool = True,
    default_factory: Any = MISSING,
    check: Any = None,
) -> Any:
    """A dataclass field carrying an ``Arg``: ``page_size: int | None = arg(None, resolvable=True)``.

    ``check(value)`` returns an error message for a value the field must refuse, or None.
    (A ``_record`` schema uses ``record_arg``, which takes the same arguments.)"""
    import dataclasses  # a dataclass schema has imported it already

    return dataclasses.field(
        default=dataclasses.MISSING if default is MISSING else default,
        default_factory=dataclasses.MISSING if default_factory is MISSING else default_factory,
        metadata={_METADATA_KEY: _meta(resolvable, leaf, choices, help, cli, check)},
    )


def record_arg(
    default: Any = MISSING,
    *,
    resolvable: bool = False,
    leaf: str | None = None,
    choices: Iterable[Any] | None = None,
    help: str = "",
    cli: bool = True,
    default_factory: Any = MISSING,
    check: Any = None,
) -> Any:
    """``arg`` for a ``_record`` schema (a record field carrying an ``Arg``)."""
    return record_field(
        default=default,
        default_factory=default_factory,
        metadata={_METADATA_KEY: _meta(resolvable, leaf, choices, help, cli, check)},
    )


def _meta(resolvable: bool, leaf: str | None, choices: Any, help: str, cli: bool, check: Any) -> Arg:
    return Arg(
        resolvable=resolvable,
        leaf=leaf,
        choices=tuple(choices) if choices is not None else None,
        help=help,
        cli=cli,
        check=check,
    )


class FieldSpec(record_tuple("FieldSpec", "name default arg type")):
    """One field of a schema: its name, default, ``Arg`` metadata and annotation."""

    __slots__ = ()

    @property
    def leaf(self) -> str:
        return self.arg.leaf or self.name

    def check_type(self, value: Any, *, what: str) -> None:
        """Raise InvalidArgumentError if ``value`` does not have the field's type, as the engine
        types it: a string is never a bool, int or float (``"false"`` would be true), a bool is
        not an int, an int is a float. Annotations this does not understand are not checked."""
        kinds = _kinds(self.type)
        if kinds is None or any(ok(value) for ok in kinds):
            return
        expected = " or ".join(_KIND_WORDS[k] for k in _kind_names(self.type))
        raise InvalidArgumentError(
            f"{what}: expected {expected}, got {type(value).__name__} {_short_repr(value)}"
        )

    def validate(self, value: Any, *, what: str) -> None:
        """Raise InvalidArgumentError if ``value`` is outside this field's choices."""
        choices = self.arg.choices
        if choices is None or value is None or value in choices:
            if self.arg.check is not None and value is not None:
                problem = self.arg.check(value)
                if problem:
                    raise InvalidArgumentError(f"{what}: {problem}")
            return
        hint = closest(str(value), [str(c) for c in choices])
        message = f"{what}: {value!r} is not a valid choice for {self.name}; choose one of {list(choices)}"
        if hint:
            message += f" (did you mean {hint!r}?)"
        raise InvalidArgumentError(message)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: Checks by annotation word (what the engine's argument types are built from).
_CHECKS: dict[str, Any] = {
    "bool": lambda v: isinstance(v, bool),
    "int": _is_int,
    "float": lambda v: _is_int(v) or isinstance(v, float),
    "str": lambda v: isinstance(v, str),
    "None": lambda v: v is None,
    "list[str]": lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v),
    "list[int]": lambda v: isinstance(v, (list, tuple)) and all(_is_int(x) for x in v),
}


def has_kind(value: Any, kind: str) -> bool:
    """Whether ``value`` is a value of the annotation word ``kind`` (``"bool"``, ``"int"``,
    ``"float"``, ``"str"``, ``"None"``, ``"list[str]"``, ``"list[int]"``) as the engine types
    arguments: a string is never a bool or a number, a bool is not an int, an int is a float."""
    return _CHECKS[kind](value)


_KIND_WORDS = {
    "bool": "a bool (True or False)",
    "int": "an int",
    "float": "a number",
    "str": "a string",
    "None": "None",
    "list[str]": "a list of strings",
    "list[int]": "a list of ints",
}


@functools.lru_cache(maxsize=256)  # annotations of schema fields: a few dozen distinct ones
def _kind_names(annotation: Any) -> tuple[str, ...] | None:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None)
    if text is None:
        text = str(annotation).replace("typing.", "")
    text = text.replace(" ", "").replace("NoneType", "None")
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional[") : -1] + "|None"
    words = tuple(text.split("|"))
    return words if all(w in _CHECKS for w in words) else None


def _kinds(annotation: Any) -> tuple[Any, ...] | None:
    try:
        names = _kind_names(annotation)
    except TypeError:  # an unhashable annotation object: not checked
        return None
    return None if names is None else tuple(_CHECKS[n] for n in names)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: Methods of the rule view (``ctx.args``); a field may not be named like one of them.
_VIEW_METHODS = frozenset({"get", "keys", "items"})


class Schema:
    """The fields of an argument dataclass, with their metadata (immutable)."""

    __slots__ = (
        "__weakref__",
        "_json_defaults",
        "_json_template",
        "_list_defaults",
        "choices",
        "cls",
        "defaults",
        "fields",
        "leaves",
        "resolvable",
    )

    def __init__(self, cls: type) -> None:
        specs: dict[str, FieldSpec] = {}
        for name, default, metadata, annotation in fields_of(cls):
            meta = metadata.get(_METADATA_KEY) or Arg()
            specs[name] = FieldSpec(name, default, meta, annotation)
        clash = sorted(set(specs) & _VIEW_METHODS)
        if clash:
            raise RegistrationError(
                f"{cls.__name__}: field name(s) {clash} would hide methods of the rules' read-only view; rename them"
            )
        setter = object.__setattr__  # the record is frozen once built (see __setattr__)
        setter(self, "cls", cls)
        setter(self, "fields", MappingProxyType(specs))
        defaults = MappingProxyType({n: s.default for n, s in specs.items()})
        setter(self, "defaults", defaults)
        # Defaults in JSON shape (tuples as lists), kept frozen: ``json_defaults`` hands out copies.
        setter(
            self,
            "_json_defaults",
            MappingProxyType(
                {n: tuple(v) if isinstance(v, (list, tuple)) else v for n, v in defaults.items()}
            ),
        )
        setter(
            self, "_list_defaults", frozenset(n for n, v in defaults.items() if isinstance(v, (list, tuple)))
        )
        # What json_defaults copies (a plain dict copies fastest; private, never handed out).
        setter(self, "_json_template", dict(self._json_defaults))
        resolvable = frozenset(n for n, s in specs.items() if s.arg.resolvable)
        setter(self, "resolvable", resolvable)
        #: field -> allowed values, for the fields that have choices.
        setter(
            self,
            "choices",
            MappingProxyType(
                {n: frozenset(s.arg.choices) for n, s in specs.items() if s.arg.choices is not None}
            ),
        )
        setter(self, "leaves", MappingProxyType({n: specs[n].leaf for n in sorted(resolvable)}))
        _check_leaf_tree(cls.__name__, self.leaves)

    @property
    def json_defaults(self) -> dict[str, Any]:
        """Defaults in JSON shape (tuples as lists): the starting values of every resolution. A
        fresh dict with fresh lists on every read, so no caller can alter the schema's defaults."""
        out = self._json_template.copy()
        for name in self._list_defaults:
            out[name] = list(out[name])
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        from .errors import FrozenContextError

        raise FrozenContextError(f"cannot set Schema.{name}: a schema is immutable once built")

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def __copy__(self) -> Schema:  # immutable: a copy is the same value
        return self

    def __deepcopy__(self, memo: Any) -> Schema:
        return self

    def __reduce__(self) -> Any:
        return (schema_of, (self.cls,))

    def spec(self, name: str) -> FieldSpec:
        try:
            return self.fields[name]
        except KeyError:
            hint = closest(name, self.fields)
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise InvalidArgumentError(f"unknown argument {name!r} for {self.cls.__name__}{extra}") from None

    def __repr__(self) -> str:
        return f"Schema({self.cls.__name__}, {len(self.fields)} fields, {len(self.resolvable)} resolvable)"


#: Attribute names of the published context itself; a leaf or group may not shadow them.
RESERVED_LEAVES = frozenset({"fingerprint", "resolution", "leaf", "to_dict"})


def _check_leaf_tree(owner: str, leaves: Mapping[str, str]) -> None:
    for field, path in leaves.items():
        if not path or any(not part.isidentifier() or part.startswith("_") for part in path.split(".")):
            raise RegistrationError(
                f"{owner}.{field}: leaf {path!r} must be dotted identifiers without leading '_'"
            )
        if path.split(".")[0] in RESERVED_LEAVES or path.split(".")[-1] in ("to_dict", "leaf"):
            raise RegistrationError(
                f"{owner}.{field}: leaf {path!r} collides with an attribute of the published context "
                f"({sorted(RESERVED_LEAVES)}); pick another leaf name"
            )
    paths = set(leaves.values())
    if len(paths) != len(leaves):
        seen: dict[str, str] = {}
        for field, path in leaves.items():
            if path in seen:
                raise RegistrationError(
                    f"{owner}: fields {seen[path]!r} and {field!r} both publish to leaf {path!r}"
                )
            seen[path] = field
    for path in paths:
        parts = path.split(".")
        for i in range(1, len(parts)):
            prefix = ".".join(parts[:i])
            if prefix in paths:
                raise RegistrationError(
                    f"{owner}: leaf {prefix!r} is also a group of {path!r}; pick distinct paths"
                )


def fields_of(cls: Any, no_default: Any = None) -> list[tuple[str, Any, Any, Any]]:
    """(name, default, metadata, annotation) of each field of a record or dataclass (a class or
    an instance); a default factory is called, a field without a default has ``no_default``."""
    if is_record(cls):
        fields = record_fields(cls)
        missing: Any = MISSING
    elif is_dataclass(cls):
        import dataclasses

        fields = dataclasses.fields(cls)
        missing = dataclasses.MISSING
    else:
        raise RegistrationError(f"{cls!r} is not a dataclass; a schema must be one")
    out = []
    for f in fields:
        if f.default is not missing:
            default = f.default
        elif f.default_factory is not missing:
            default = f.default_factory()
        else:
            default = no_default
        out.append((f.name, default, f.metadata, f.type))
    return out


def is_dataclass(obj: Any) -> bool:
    """``dataclasses.is_dataclass`` without importing ``dataclasses`` (a record counts)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return is_record(cls) or hasattr(cls, "__dataclass_fields__")


@functools.cache
def schema_of(cls: type) -> Schema:
    """The (cached) schema of an argument dataclass."""
    return Schema(cls)


def resolvable_fields(cls: type) -> frozenset[str]:
    """Names of the fields of ``cls`` that rules may declare (empty for a non-dataclass)."""
    if not is_dataclass(cls):
        return frozenset()
    return schema_of(cls).resolvable
