"""Records: classes that behave like dataclasses without importing ``dataclasses``.

``import dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``, ``re``),
about half of what ``import resolvable.sglang`` cost, and every dataclass compiles generated
source for its ``__init__``, ``__repr__`` and ``__eq__`` when it is defined (``ServerArgs``: 22 kB).
``@record`` gives a class the same methods built from closures, at no compile cost; the engine's
own records (``Platform``, ``Rule``, ``Force``) and the SGLang ``ServerArgs`` use it. Argument
schemas written by users stay ordinary dataclasses.

Invariants:

* a record behaves like ``@dataclasses.dataclass(frozen=...)`` on the same body: its
  ``__init__`` (positional and keyword arguments, defaults, default factories, ``InitVar``
  fields handed to ``__post_init__`` in order, the same ``TypeError`` messages), ``__repr__``,
  ``__eq__``, ``__hash__`` (generated when frozen, ``None`` otherwise, an explicit one kept),
  ``__match_args__``, and, when frozen, assignment refused with
  ``dataclasses.FrozenInstanceError`` (imported only to raise it); a method the class defines
  itself is kept. ``tests/engine/test_record.py`` compares each with a real dataclass;
* ``dataclasses.fields``/``replace``/``asdict``/``is_dataclass`` work on a record: the first
  read of ``__dataclass_fields__`` (or ``__dataclass_params__``, ``__signature__``) builds the
  equivalent dataclass once (importing ``dataclasses`` then, not before) and attaches its
  field objects; nothing in the engine reads them (it reads ``__record_fields__``);
* instances keep a ``__dict__`` (``functools.cached_property`` works, pickling and copying
  behave as for a dataclass);
* ``record_tuple`` is ``collections.namedtuple`` without its compile step (the engine's tuple
  records: ``Declaration``, ``Step``, ``Change`` …); same interface, checked against namedtuple.
"""

from __future__ import annotations

import _thread
import sys
from operator import attrgetter
from types import MappingProxyType

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = [
    "MISSING",
    "Field",
    "field",
    "is_record",
    "record",
    "record_fields",
    "record_replace",
    "record_tuple",
]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


#: No default (a record's own sentinel; ``dataclasses.MISSING`` is not imported).
MISSING: Any = _Missing()
_EMPTY = MappingProxyType({})


class Field:
    """One field of a record: ``name``, ``type`` (the annotation), ``default``,
    ``default_factory``, ``repr``, ``compare``, ``hash``, ``metadata`` and ``initvar`` (an
    init-only ``InitVar`` pseudo-field, passed to ``__post_init__`` and not stored)."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "hash",
        "initvar",
        "metadata",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        repr: bool = True,
        compare: bool = True,
        hash: bool | None = None,
        metadata: Any = None,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name: str = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.hash = hash
        self.metadata = _EMPTY if not metadata else MappingProxyType(dict(metadata))
        self.initvar = False

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING or self.default_factory is not MISSING

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r}, "
            f"default_factory={self.default_factory!r}, repr={self.repr!r}, compare={self.compare!r}, "
            f"hash={self.hash!r}, metadata={self.metadata!r}, initvar={self.initvar!r})"
        )


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,
    compare: bool = True,
    hash: bool | None = None,
    metadata: Any = None,
) -> Any:
    """A record field with options, like ``dataclasses.field``."""
    return Field(default, default_factory, repr, compare, hash, metadata)


def is_record(cls: Any) -> bool:
    """Whether ``cls`` (a class or an instance) was made by ``@record`` itself (not inherited)."""
    if not isinstance(cls, type):
        cls = type(cls)
    return "__record_fields__" in cls.__dict__


def record_fields(cls: Any) -> tuple[Field, ...]:
    """The stored fields of a record class or instance, in order (``InitVar`` ones excluded)."""
    if not isinstance(cls, type):
        cls = type(cls)
    return tuple(f for f in cls.__record_fields__ if not f.initvar)


def record_replace(obj: Any, /, **changes: Any) -> Any:
    """``dataclasses.replace`` for a record instance, without importing ``dataclasses`` (for
    records built at import time). Fields without ``init`` are not supported, as records have none."""
    values = {f.name: getattr(obj, f.name) for f in record_fields(obj)}
    return type(obj)(**{**values, **changes})


def record(cls: type | None = None, /, *, frozen: bool = False) -> Any:
    """Class decorator: ``@record`` or ``@record(frozen=True)``, like ``@dataclasses.dataclass``."""

    def wrap(cls: type) -> type:
        return _process(cls, frozen)

    return wrap if cls is None else wrap(cls)


def _annotation_kind(annotation: Any) -> str:
    """ "initvar", "classvar" or "field", from the annotation text (annotations are strings here)."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    head = text.split("[", 1)[0].strip().rsplit(".", 1)[-1]
    if head == "InitVar":
        return "initvar"
    if head == "ClassVar":
        return "classvar"
    return "field"


def _process(cls: type, frozen: bool) -> type:
    fields: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        own = base.__dict__.get("__record_fields__")
        if own is not None:
            if base.__dict__["__record_frozen__"] != frozen:
                state = "frozen" if frozen else "non-frozen"
                raise TypeError(f"cannot inherit {state} record {cls.__qualname__} from {base.__qualname__}")
            fields.update((f.name, f) for f in own)
        elif "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"record {cls.__qualname__} cannot extend the dataclass {base.__qualname__}")
    # The class's own annotations (not inherited ones); inspect.get_annotations would import inspect.
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        kind = _annotation_kind(annotation)
        if kind == "classvar":
            continue
        value = cls.__dict__.get(name, MISSING)
        if type(value).__name__ == "Field" and type(value).__module__ == "dataclasses":
            raise TypeError(f"{cls.__qualname__}.{name}: use resolvable._record.field, not dataclasses.field")
        f = value if isinstance(value, Field) else Field(default=value)
        f.name, f.type, f.initvar = name, annotation, kind == "initvar"
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory"
            )
        if isinstance(value, Field):  # as dataclasses do: the class attribute is the default
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    seen_default = None
    for f in fields.values():
        if f.has_default:
            seen_default = f
        elif seen_default is not None:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")

    ordered = tuple(fields.values())
    stored = tuple(f for f in ordered if not f.initvar)
    cls.__record_fields__ = ordered  # type: ignore[attr-defined]
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    own = cls.__dict__
    if "__init__" not in own:
        cls.__init__ = _make_init(cls, ordered, frozen)  # type: ignore[misc]
    if "__repr__" not in own:
        cls.__repr__ = _make_repr(cls, tuple(f.name for f in stored if f.repr))  # type: ignore[method-assign]
    compared = tuple(f.name for f in stored if f.compare)
    if "__eq__" not in own:
        cls.__eq__ = _make_eq(cls, compared)  # type: ignore[method-assign]
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    if not explicit_hash:
        if frozen:
            hashed = tuple(f.name for f in stored if (f.compare if f.hash is None else f.hash))
            cls.__hash__ = _make_hash(cls, hashed)  # type: ignore[method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # mutable and comparable: unhashable
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        names = frozenset(f.name for f in stored)
        cls.__setattr__, cls.__delattr__ = _make_frozen(cls, names)  # type: ignore[method-assign]
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(f.name for f in ordered)  # type: ignore[attr-defined]
    if cls.__doc__ is None:
        cls.__doc__ = cls.__name__ + "(" + ", ".join(_param_text(f) for f in ordered) + ")"
    for attr in ("__dataclass_fields__", "__dataclass_params__", "__signature__"):
        setattr(cls, attr, _DataclassView(cls, attr))
    return cls


def _param_text(f: Field) -> str:
    """One parameter as ``inspect.signature`` writes it (the docstring a dataclass gets)."""
    annotation = repr(f.type)
    if f.default is not MISSING:
        return f"{f.name}: {annotation} = {f.default!r}"
    if f.default_factory is not MISSING:
        return f"{f.name}: {annotation} = <factory>"
    return f"{f.name}: {annotation}"


def _make_init(cls: type, ordered: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    qual = cls.__qualname__
    names = tuple(f.name for f in ordered)
    count = len(names)
    allowed = frozenset(names)
    # The starting values: every stored field in order (so __dict__ keeps the field order), then
    # the InitVars; a field without a default is given or refused, a factory's is filled below.
    start = {f.name: None if f.default is MISSING else f.default for f in ordered if not f.initvar}
    start.update((f.name, None if f.default is MISSING else f.default) for f in ordered if f.initvar)
    factories = tuple((f.name, f.default_factory) for f in ordered if f.default_factory is not MISSING)
    required = tuple(f.name for f in ordered if not f.has_default)
    initvars = tuple(f.name for f in ordered if f.initvar)
    takes = f"{count + 1}" if len(required) == count else f"from {len(required) + 1} to {count + 1}"
    post_init = hasattr(cls, "__post_init__")
    # A mutable record whose class customises assignment gets it, as a dataclass's ``self.x = x``.
    setattr_fields = not frozen and getattr(cls, "__setattr__", object.__setattr__) is not object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            if len(args) > count:
                raise TypeError(
                    f"{qual}.__init__() takes {takes} positional arguments but {len(args) + 1} were given"
                )
            for name, value in zip(names, args):
                if name in kwargs:
                    raise TypeError(f"{qual}.__init__() got multiple values for argument {name!r}")
                kwargs[name] = value
        if not allowed.issuperset(kwargs):
            bad = next(k for k in kwargs if k not in allowed)
            raise TypeError(f"{qual}.__init__() got an unexpected keyword argument {bad!r}")
        for name in required:
            if name not in kwargs:
                raise _missing(qual, [n for n in required if n not in kwargs])
        values = {**start, **kwargs}
        for name, factory in factories:
            if name not in kwargs:
                values[name] = factory()
        extra = [values.pop(name) for name in initvars] if initvars else ()
        if setattr_fields:
            for name, value in values.items():
                setattr(self, name, value)
        else:
            store = self.__dict__
            if type(store) is not dict:  # a HiddenDict record: vars() is read-only (see _frozen)
                from ._frozen import real_dict

                store = real_dict(self)
            store.update(values)
        if post_init:
            self.__post_init__(*extra)

    __init__.__qualname__ = f"{qual}.__init__"
    return __init__


def _missing(qual: str, names: list[str]) -> TypeError:
    quoted = [repr(n) for n in names]
    if len(quoted) == 1:
        text = quoted[0]
    elif len(quoted) == 2:
        text = f"{quoted[0]} and {quoted[1]}"
    else:
        text = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "argument" if len(names) == 1 else "arguments"
    return TypeError(f"{qual}.__init__() missing {len(names)} required positional {plural}: {text}")


_REPR_RUNNING: set[tuple[int, int]] = set()


def _make_repr(cls: type, names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        key = (id(self), _thread.get_ident())
        if key in _REPR_RUNNING:  # a record that contains itself (as dataclasses' recursive_repr)
            return "..."
        _REPR_RUNNING.add(key)
        try:
            inner = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
        finally:
            _REPR_RUNNING.discard(key)
        return f"{self.__class__.__qualname__}({inner})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A tuple of the attributes ``names`` (always a tuple, as the dataclass methods compare)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _make_eq(cls: type, names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    values = _getter(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    return __eq__


def _make_hash(cls: type, names: tuple[str, ...]) -> Callable[[Any], int]:
    values = _getter(names)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __hash__


def _make_frozen(cls: type, names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


def _frozen_error(message: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # the error path only: what a frozen dataclass raises

    return FrozenInstanceError(message)


class _DataclassView:
    """``__dataclass_fields__``, ``__dataclass_params__`` or ``__signature__`` of a record, built
    on first read from the equivalent dataclass and then stored on the class in its place."""

    def __init__(self, cls: type, attr: str) -> None:
        self.cls = cls
        self.attr = attr

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        twin = _twin(self.cls)
        for attr in ("__dataclass_fields__", "__dataclass_params__"):
            type.__setattr__(self.cls, attr, getattr(twin, attr))
        import inspect

        # The twin's InitVar annotations are InitVar objects; show the record's own text.
        texts = {f.name: f.type for f in self.cls.__record_fields__}
        signature = inspect.signature(twin)
        signature = signature.replace(
            parameters=[
                p.replace(annotation=texts.get(p.name, p.annotation)) for p in signature.parameters.values()
            ]
        )
        type.__setattr__(self.cls, "__signature__", signature)
        return getattr(self.cls, self.attr)


def _twin(cls: type) -> type:
    """The dataclass with the fields of ``cls`` (the source of its dataclasses view)."""
    import dataclasses

    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__annotations__": annotations,
    }
    for f in cls.__record_fields__:
        annotations[f.name] = dataclasses.InitVar(_initvar_inner(f.type)) if f.initvar else f.type
        options: dict[str, Any] = {
            "repr": f.repr,
            "compare": f.compare,
            "hash": f.hash,
            "metadata": dict(f.metadata) or None,
        }
        if f.default is not MISSING:
            options["default"] = f.default
        if f.default_factory is not MISSING:
            options["default_factory"] = f.default_factory
        namespace[f.name] = dataclasses.field(**options)
    return dataclasses.dataclass(frozen=cls.__record_frozen__)(type(cls.__name__, (), namespace))


def _initvar_inner(annotation: Any) -> Any:
    """``"dataclasses.InitVar[X]"`` → ``"X"`` (the type an ``InitVar`` wraps)."""
    if isinstance(annotation, str) and "[" in annotation and annotation.endswith("]"):
        return annotation.split("[", 1)[1][:-1].strip()
    return annotation


# -- record_tuple: named tuple classes without compiling code -------------------------------------
#
# ``collections.namedtuple`` builds each class's ``__new__`` by compiling source text (``eval``),
# about 0.1 ms per class, and ``import resolvable.sglang`` defines sixteen of them (``Declaration``,
# ``Write``, ``Step``, ``Stage``, ``Arg``, ``Change``, ``ReleaseRange``, the selection records …):
# 5-8 % of the import (docs/benchmarks.md §9). ``record_tuple`` builds the same class from
# constructors that are already compiled (``_NEW``, one per number of fields, stored in this
# module's bytecode): the constructor's code is copied with the field names as its parameter names
# (``CodeType.replace``), so keywords, defaults and error messages name the fields. The class has
# namedtuple's interface (``_fields``, ``_field_defaults``, ``_make``, ``_replace``, ``_asdict``,
# ``__match_args__``, ``__getnewargs__``, the ``Name(a=1)`` repr, C field getters); a class of
# more fields than ``_NEW`` holds is a ``collections.namedtuple``
# (``tests/engine/test_record_tuple.py`` compares them).

try:  # the C descriptor namedtuple's fields use (a field read is one C call)
    from _collections import _tuplegetter
except ImportError:  # pragma: no cover - another implementation
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:  # type: ignore[misc]
        return property(itemgetter(index), doc=doc)


_tuple_new = tuple.__new__


# One constructor per number of fields: the code ``record_tuple`` renames (parameters by position).
def _n1(_cls, a):
    return _tuple_new(_cls, (a,))


def _n2(_cls, a, b):
    return _tuple_new(_cls, (a, b))


def _n3(_cls, a, b, c):
    return _tuple_new(_cls, (a, b, c))


def _n4(_cls, a, b, c, d):
    return _tuple_new(_cls, (a, b, c, d))


def _n5(_cls, a, b, c, d, e):
    return _tuple_new(_cls, (a, b, c, d, e))


def _n6(_cls, a, b, c, d, e, f):
    return _tuple_new(_cls, (a, b, c, d, e, f))


def _n7(_cls, a, b, c, d, e, f, g):
    return _tuple_new(_cls, (a, b, c, d, e, f, g))


def _n8(_cls, a, b, c, d, e, f, g, h):
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h))


def _n9(_cls, a, b, c, d, e, f, g, h, i):
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i))


def _n10(_cls, a, b, c, d, e, f, g, h, i, j):
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j))


def _n11(_cls, a, b, c, d, e, f, g, h, i, j, k):
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k))


def _n12(_cls, a, b, c, d, e, f, g, h, i, j, k, m):
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m))


_NEW = (None, _n1, _n2, _n3, _n4, _n5, _n6, _n7, _n8, _n9, _n10, _n11, _n12)
_FunctionType = type(_n1)


def record_tuple(
    typename: str, field_names: str | Iterable[str], *, defaults: Iterable[Any] | None = None
) -> type:
    """``collections.namedtuple(typename, field_names, defaults=defaults)``, built without
    compiling code. Field names are identifiers that do not start with ``_``."""
    names = tuple(field_names.replace(",", " ").split() if isinstance(field_names, str) else field_names)
    module = sys._getframe(1).f_globals.get("__name__", "__main__")
    count = len(names)
    if not 0 < count < len(_NEW):
        from collections import namedtuple

        cls = namedtuple(typename, names, defaults=defaults)
        cls.__module__ = module
        return cls
    for name in (typename, *names):
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"record_tuple: {name!r} is not a valid field or type name")
    if len(set(names)) != count:
        raise ValueError(f"record_tuple: duplicate field names in {names!r}")
    names = tuple(sys.intern(n) for n in names)
    defaults = tuple(defaults) if defaults is not None else None
    if defaults is not None and len(defaults) > count:
        raise TypeError("Got more default values than field names")
    template = _NEW[count].__code__
    renamed = {"co_varnames": ("_cls", *names), "co_name": "__new__"}
    if hasattr(template, "co_qualname"):  # 3.11+
        renamed["co_qualname"] = "__new__"
    new = _FunctionType(template.replace(**renamed), {"_tuple_new": _tuple_new}, "__new__", defaults or None)
    arg_list = ", ".join(names)
    new.__doc__ = f"Create new instance of {typename}({arg_list})"
    repr_fmt = "(" + ", ".join(f"{n}=%r" for n in names) + ")"

    def _make(cls: type, iterable: Iterable[Any]) -> Any:
        result = _tuple_new(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, names, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self: Any) -> str:
        return self.__class__.__name__ + repr_fmt % self

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    namespace: dict[str, Any] = {
        "__doc__": f"{typename}({arg_list})",
        "__slots__": (),
        "_fields": names,
        "_field_defaults": dict(reversed(list(zip(reversed(names), reversed(defaults or ()))))),
        "__new__": new,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": names,
        "__module__": module,
    }
    for index, name in enumerate(names):
        namespace[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
    return type(typename, (tuple,), namespace)
