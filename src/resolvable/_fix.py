"""A refusal's fix as a value: the flags to set or drop and the env to change, rendered to text.

``ConflictError(message, fix=Fix(set={"attention_backend": "fa3"}))`` carries the fix as data;
``exc.fix`` is its text (what every output shows) and ``exc.fix_value`` the value, which the
fix checker (``_fixes.check_fix``) applies as it is instead of reading flags back out of prose.

Invariants:

* frozen and hashable (the mappings are stored as tuples of pairs, in the author's order; a
  list value is stored as a tuple, a mapping or set value is a ``TypeError``);
* one alternative is a set of changes applied together; ``Fix.any_of(a, b)`` (or ``a | b``) is
  "a, or b", tried in that order; an alternative of alternatives is flattened;
* ``another`` names fields of which any other value is a fix ("choose another
  --attention-backend"): the checker tries each of the field's choices;
* the text is the author's (``text=``) when given, else rendered from the changes
  (``--a x --b``, ``drop --c``, ``--env K=V``), with ``note`` appended; either way it is one
  line (line breaks escaped), and ``exc.fix`` reads exactly as it did when fixes were prose.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

__all__ = ["Fix"]


def _frozen(value: Any, where: str) -> Any:
    """``value`` as a hashable value: a list or tuple becomes a tuple of its frozen items; a
    mapping, a set or another unhashable value is a ``TypeError`` naming ``where``."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v, where) for v in value)
    if isinstance(value, (dict, set, bytearray)) or not _hashable(value):
        raise TypeError(
            f"Fix({where}=...): {type(value).__name__} is not a flag value; give a str, int, float, bool "
            "or a tuple of them"
        )
    return value


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _pairs(
    values: Mapping[str, Any] | Iterable[tuple[str, Any]] | None, where: str = "set"
) -> tuple[tuple[str, Any], ...]:
    if not values:
        return ()
    items = values.items() if hasattr(values, "items") else values
    out = []
    for k, v in items:  # in the author's order: the checker tries it so
        if not isinstance(k, str) or not k:
            raise TypeError(f"Fix({where}=...) takes field names (str) as keys, not {k!r}")
        out.append((k, _frozen(v, f"{where}[{k!r}]")))
    return tuple(out)


class Fix:
    """What to change so that a refused configuration is accepted (see the module docstring)."""

    __slots__ = ("alternatives", "another", "drop", "env", "note", "set", "text")

    def __init__(
        self,
        set: Mapping[str, Any] | None = None,  # the fix's own word (shadows the builtin here only)
        drop: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
        note: str | None = None,
        text: str | None = None,
        *,
        another: Iterable[str] = (),
        alternatives: Iterable[Fix] = (),
    ) -> None:
        for name, value in (("drop", drop), ("another", another)):
            if isinstance(value, str) or any(not isinstance(f, str) for f in value):
                raise TypeError(f"Fix({name}=...) takes field names, e.g. {name}=('page_size',)")
        alts: list[Fix] = []
        for alt in alternatives:
            if not isinstance(alt, Fix):
                raise TypeError(f"Fix.any_of takes Fix values, not {type(alt).__name__} ({alt!r})")
            alts += list(alt.alternatives) if alt.alternatives else [alt]
        for name, value in (("note", note), ("text", text)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Fix({name}=...) takes a str, not {type(value).__name__}")
        own = {
            "set": _pairs(set),
            "drop": tuple(drop),
            "env": _pairs(env, "env"),
            "another": tuple(another),
        }
        if alts and any(own.values()):
            raise TypeError("a Fix is either one set of changes or alternatives (Fix.any_of), not both")
        object.__setattr__(self, "alternatives", tuple(alts))
        for name, value in own.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "text", text)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Fix is immutable; build another (cannot set {name})")

    @classmethod
    def any_of(cls, *fixes: Fix, note: str | None = None, text: str | None = None) -> Fix:
        """A fix with alternatives: any one of ``fixes`` (tried in this order)."""
        return cls(alternatives=fixes, note=note, text=text)

    def __or__(self, other: Fix) -> Fix:
        if not isinstance(other, Fix):
            return NotImplemented
        return Fix.any_of(self, other)

    def options(self) -> tuple[Fix, ...]:
        """The alternatives, each one set of changes (a plain fix is its own only alternative)."""
        return self.alternatives or (self,)

    def fields(self) -> tuple[str, ...]:
        """Every field the fix names (set, dropped or "another"), in order, once."""
        out: list[str] = []
        for alt in self.options():
            for name in (*(k for k, _ in alt.set), *alt.drop, *alt.another):
                if name not in out:
                    out.append(name)
        return tuple(out)

    def render(self) -> str:
        """The one-line text (``exc.fix``): line breaks and control characters in a value, a
        note or a text are escaped (``errors.one_line``)."""
        from .errors import one_line  # deferred: errors imports this module

        if self.text is not None:
            return one_line(self.text)
        parts = [alt._render_one() if alt is self else alt.render() for alt in self.options()]
        text = ", or ".join(p for p in parts if p)
        return one_line(f"{text} {self.note}".strip() if self.note else text)

    def _render_one(self) -> str:
        flags = []
        for name, value in self.set:
            flag = "--" + name.replace("_", "-")
            shown = " ".join(map(str, value)) if isinstance(value, tuple) else value
            flags.append(flag if value is True else f"{flag} {shown}")
        flags += [f"--env {k}={v}" for k, v in self.env]
        words = []
        if flags:
            words.append("pass " + " ".join(flags))
        if self.drop:
            words.append("drop " + " ".join("--" + f.replace("_", "-") for f in self.drop))
        if self.another:
            words.append("choose another " + " / ".join("--" + f.replace("_", "-") for f in self.another))
        return " and ".join(words)

    def _key(self) -> tuple[Any, ...]:
        return (self.set, self.drop, self.env, self.another, self.alternatives, self.note, self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        if self.alternatives:
            return f"Fix.any_of({', '.join(map(repr, self.alternatives))})"
        parts = [
            f"{n}={v!r}"
            for n, v in (
                ("set", dict(self.set)),
                ("drop", self.drop),
                ("env", dict(self.env)),
                ("another", self.another),
            )
            if v
        ]
        parts += [f"{n}={v!r}" for n, v in (("note", self.note), ("text", self.text)) if v is not None]
        return f"Fix({', '.join(parts)})"

    def __str__(self) -> str:
        return self.render()
