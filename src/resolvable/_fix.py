"""A refusal's fix as a value: the flags to set or drop and the env to change, rendered to text.

``ConflictError(message, fix=Fix(set={"attention_backend": "fa3"}))`` carries the fix as data;
``exc.fix`` is its text (what every output shows) and ``exc.fix_value`` the value, which the
fix checker (``_fixes.check_fix``) applies as it is instead of reading flags back out of prose.

Invariants:

* frozen and hashable (the mappings are stored as tuples of pairs, in the author's order);
* one alternative is a set of changes applied together; ``Fix.any_of(a, b)`` (or ``a | b``) is
  "a, or b", tried in that order; an alternative of alternatives is flattened;
* ``another`` names fields of which any other value is a fix ("choose another
  --attention-backend"): the checker tries each of the field's choices;
* the text is the author's (``text=``) when given, else rendered from the changes
  (``--a x --b``, ``drop --c``, ``--env K=V``), with ``note`` appended; either way it is one
  line, and ``exc.fix`` reads exactly as it did when fixes were prose.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

__all__ = ["Fix"]


def _pairs(values: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> tuple[tuple[str, Any], ...]:
    if not values:
        return ()
    items = values.items() if hasattr(values, "items") else values
    return tuple((str(k), v) for k, v in items)  # in the author's order: the checker tries it so


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
        own = {
            "set": _pairs(set),
            "drop": tuple(drop),
            "env": _pairs(env),
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
        """The one-line text (``exc.fix``)."""
        if self.text is not None:
            return self.text
        parts = [alt._render_one() if alt is self else alt.render() for alt in self.options()]
        text = ", or ".join(p for p in parts if p)
        return f"{text} {self.note}".strip() if self.note else text

    def _render_one(self) -> str:
        flags = []
        for name, value in self.set:
            flag = "--" + name.replace("_", "-")
            flags.append(flag if value is True else f"{flag} {value}")
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
