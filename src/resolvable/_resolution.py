"""The immutable result of a resolution, with explain, diff, adjust and (de)serialisation.

Invariants:

* a ``Resolution`` never changes: ``adjust`` returns a new one with one more declaration;
* ``values`` equals the defaults, overlaid with the user's input, overlaid with every
  applied or forced write in declaration order (last writer wins);
* a write to a field the user set explicitly (to a non-default value) is ``blocked`` unless the
  rule forced it with a reason (``forced``); both are kept for ``explain``;
* ``fingerprint()`` hashes canonical JSON of (values, platform facts, rule-set version):
  identical in every process, independent of ``PYTHONHASHSEED`` and dict order;
* after ``publish()``, ``adjust`` is refused (``LateDeclarationError``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ._declaration import Declaration, Outcome, apply_declaration, canonical
from ._platform import Platform
from ._record import record_tuple
from ._schema import Schema
from .errors import DeclarationError, InvalidArgumentError, LateDeclarationError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Explanation", "FieldChange", "Resolution", "Step"]

FORMAT_VERSION = 1


# The records below are immutable named tuples: cheaper to define than dataclasses (import cost).


class Step(
    record_tuple("Step", "rule location stage value previous outcome reason inputs choice", defaults=(None,))
):
    """One declaration touching the explained field. ``outcome`` is applied, blocked, forced or
    shadowed; ``inputs`` are the (name, value) pairs its rule read; ``choice`` is the selection
    record (every candidate and why it was rejected) when the value was chosen from candidates."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["inputs"] = [[n, v] for n, v in self.inputs]
        if self.choice is None:
            del data["choice"]  # only selections by candidates carry one (output unchanged otherwise)
        else:
            data["choice"] = self.choice.to_dict()
        return data


class Explanation(
    record_tuple("Explanation", "field value default user_value user_set decided_by location steps")
):
    """Why ``field`` has its value: the starting point (``default`` or ``user_value``) and every
    declaration (``steps``) in order; ``decided_by`` is "default", "user" or a rule name."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["steps"] = [s.to_dict() for s in self.steps]
        return data

    def __str__(self) -> str:
        start = f"user set {self.user_value!r}" if self.user_set else f"default {self.default!r}"
        lines = [
            f"{self.field} = {self.value!r}  ({start}; decided by {self.decided_by}"
            + (f" at {self.location})" if self.location else ")")
        ]
        for i, s in enumerate(self.steps, 1):
            lines.append(
                f"  {i}. [{s.stage}] {s.rule} ({s.location}) -> {s.value!r}: {s.outcome}"
                + (f" ({s.reason})" if s.reason else "")
            )
            if s.inputs:
                lines.append("       read " + ", ".join(f"{n}={v!r}" for n, v in s.inputs))
            if s.choice is not None:
                lines += ["       " + line for line in s.choice.summary().splitlines()]
        return "\n".join(lines)


class FieldChange(record_tuple("FieldChange", "field before after decided_before decided_after")):
    """A field that differs between two resolutions, with the rule (or "user"/"default") on each side."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


_NO_ASKS: Mapping[int, tuple[Any, ...]] = MappingProxyType({})


class Resolution(Mapping):
    """The immutable result of a resolution. Read values with ``res["attention_backend"]``."""

    __slots__ = (
        "__weakref__",
        "_asked",
        "_published",
        "_values",
        "arch",
        "declarations",
        "explicit",
        "leaves",
        "not_modelled",
        "notes",
        "platform",
        "release",
        "ruleset",
        "schema",
        "user",
    )

    def __init__(
        self,
        *,
        values: Mapping[str, Any],
        user: Mapping[str, Any],
        explicit: frozenset[str],
        declarations: tuple[Declaration, ...],
        platform: Platform | None,
        arch: str | None,
        notes: tuple[str, ...],
        ruleset: str,
        schema: Schema | None,
        leaves: Mapping[str, str],
        owned: bool = False,
        release: str | None = None,
        not_modelled: Mapping[str, Any] | None = None,
        asked: Mapping[int, tuple[Any, ...]] | None = None,
    ) -> None:
        # Copies protect callers' dicts; a resolver hands over dicts it owns (``owned=True``).
        # The slots' own setters (below the class): C calls, half an ``object.__setattr__`` each.
        _set_values(self, MappingProxyType(values if owned else dict(values)))
        _set_user(self, MappingProxyType(user if owned else dict(user)))
        _set_explicit(self, frozenset(explicit))
        _set_declarations(self, tuple(declarations))
        _set_platform(self, platform)
        _set_arch(self, arch)
        _set_notes(self, tuple(notes))
        _set_ruleset(self, ruleset)
        #: The modelled engine release (``"0.5.15"``); None for a registry without releases.
        _set_release(self, release)
        _set_schema(self, schema)
        _set_leaves(self, leaves if isinstance(leaves, MappingProxyType) else MappingProxyType(dict(leaves)))
        #: Arguments the user passed that the engine accepts but no rule reads (field → value);
        #: they never change a value or the fingerprint, and are listed, not dropped.
        _set_not_modelled(self, MappingProxyType(dict(not_modelled)) if not_modelled else _NO_ASKS)
        _set_published(self, False)
        #: Declaration seq -> the named changes its rule asked (``releases_of``).
        _set_asked(self, MappingProxyType(dict(asked)) if asked else _NO_ASKS)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Resolution is immutable; use adjust() to derive a new one")

    def __copy__(self) -> Resolution:  # immutable: a copy is the same value
        return self

    def __deepcopy__(self, memo: Any) -> Resolution:
        return self

    def __reduce__(self) -> Any:  # pickle: rebuilt (and checked) from its saved form
        return (_from_saved, (self.to_dict(), self.schema))

    # -- Mapping ---------------------------------------------------------------------
    def __getitem__(self, field: str) -> Any:
        value = self._values[field]
        # A list value is handed out as a copy: the resolution is immutable, its lists too.
        return list(value) if type(value) is list else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        changed = ", ".join(f"{k}={v!r}" for k, v in self.changed().items())
        return f"Resolution({self.arch or '?'} on {self.platform.name if self.platform else '?'}: {changed})"

    @property
    def published(self) -> bool:
        return self._published

    @property
    def resolvable(self) -> frozenset[str]:
        return frozenset(self.leaves)

    def default_of(self, field: str) -> Any:
        if self.schema is not None:
            return self.schema.json_defaults.get(field)
        return None

    def changed(self) -> dict[str, Any]:
        """Fields whose value differs from the schema default (user input or declarations)."""
        if self.schema is None:
            return {w.field: self._values[w.field] for d in self.declarations for w in d.writes}
        defaults = self.schema.json_defaults
        return {k: v for k, v in self._values.items() if defaults.get(k) != v}

    # -- provenance ------------------------------------------------------------------
    def decided_by(self, field: str) -> tuple[str, str | None]:
        """(rule name, location) of the last effective write to ``field``; or ("user"|"default", None)."""
        for decl in reversed(self.declarations):
            for w in decl.writes:
                if w.field == field and w.outcome is not Outcome.BLOCKED:
                    return decl.rule, decl.location
        return ("user" if field in self.user else "default"), None

    def releases_of(self, rule: str, location: str | None = None) -> Any:
        """The releases in which the named changes ``rule`` asked while declaring answer as they do
        in this release — a ``ReleaseRange``, unbounded when the rule asked none (or declared
        nothing); None for a resolution without a release."""
        from ._changes import releases_of
        from ._release import ReleaseRange

        if self.release is None:
            return None
        for decl in self.declarations:
            if decl.rule == rule and (location is None or decl.location == location):
                asked = self._asked.get(decl.seq)
                return releases_of(asked, self.release) if asked else ReleaseRange()
        return ReleaseRange()

    def explain(self, field: str) -> Explanation:
        if field not in self._values:
            from .errors import InvalidArgumentError, closest

            hint = closest(field, self._values)
            raise InvalidArgumentError(
                f"unknown field {field!r}" + (f" (did you mean {hint!r}?)" if hint else "")
            )
        touching = [(d, w) for d in self.declarations for w in d.writes if w.field == field]
        effective = [i for i, (_, w) in enumerate(touching) if w.outcome is not Outcome.BLOCKED]
        last = effective[-1] if effective else None
        steps = []
        for i, (d, w) in enumerate(touching):
            outcome = w.outcome.value
            if w.outcome is not Outcome.BLOCKED and last is not None and i < last:
                outcome = "shadowed"
            steps.append(
                Step(d.rule, d.location, d.stage, w.value, w.previous, outcome, w.reason, d.inputs, w.choice)
            )
        rule, location = self.decided_by(field)
        return Explanation(
            field=field,
            value=self._values[field],
            default=self.default_of(field),
            user_value=self.user.get(field),
            user_set=field in self.user,
            decided_by=rule,
            location=location,
            steps=tuple(steps),
        )

    def diff(self, other: Resolution) -> tuple[FieldChange, ...]:
        """Fields whose values differ, with the rule responsible on each side."""
        if not isinstance(other, Resolution):
            raise InvalidArgumentError(
                f"diff: expected a Resolution to compare with, got {type(other).__name__}"
            )
        changes = []
        for field in sorted(set(self._values) | set(other._values)):
            before, after = self._values.get(field), other._values.get(field)
            if before != after or type(before) is not type(after):
                changes.append(
                    FieldChange(field, before, after, self.decided_by(field)[0], other.decided_by(field)[0])
                )
        return tuple(changes)

    # -- derivation ------------------------------------------------------------------
    def adjust(self, source: str, **fields: Any) -> Resolution:
        """A new resolution with ``fields`` declared by ``source`` (a load-time adjustment).

        Adjustments are deliberate, so they override explicit user values (recorded as forced,
        with ``source`` as the reason). Refused once this resolution was published.
        """
        if not isinstance(source, str) or not source:
            raise InvalidArgumentError(f"adjust: source must name the adjustment (a string), got {source!r}")
        if self.schema is not None:  # values typed as the engine types them (a user value would be)
            for name, value in fields.items():
                spec = self.schema.fields.get(name)
                if spec is not None:
                    spec.check_type(getattr(value, "value", value), what=f"{source}: {name}")
        if self._published:
            raise LateDeclarationError(
                f"{source}: this resolution was already published; adjust() it before publish(), "
                "or resolve again with the new inputs and publish that"
            )
        frame = sys._getframe(1)
        location = f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"
        values = dict(self._values)
        seq = (self.declarations[-1].seq + 1) if self.declarations else 1
        decl = apply_declaration(
            values=values,
            explicit=self.explicit,
            schema=self.schema,
            resolvable=self.resolvable,
            declared=fields,
            rule=source,
            location=location,
            stage="adjust",
            seq=seq,
            forced_by_default=f"load-time adjustment by {source}",
        )
        if not decl.writes:
            return self
        return Resolution(
            values=values,
            user=self.user,
            explicit=self.explicit,
            declarations=(*self.declarations, decl),
            platform=self.platform,
            arch=self.arch,
            notes=self.notes,
            ruleset=self.ruleset,
            schema=self.schema,
            leaves=self.leaves,
            owned=True,
            release=self.release,
            not_modelled=self.not_modelled,
            asked=self._asked,
        )

    def with_not_modelled(self, fields: Mapping[str, Any]) -> Resolution:
        """This resolution, recording ``fields`` as accepted but not modelled (values unchanged)."""
        if not fields:
            return self
        return Resolution(
            values=self._values,
            user=self.user,
            explicit=self.explicit,
            declarations=self.declarations,
            platform=self.platform,
            arch=self.arch,
            notes=self.notes,
            ruleset=self.ruleset,
            schema=self.schema,
            leaves=self.leaves,
            release=self.release,
            not_modelled={**self.not_modelled, **fields},
            asked=self._asked,
        )

    def _mark_published(self) -> None:
        object.__setattr__(self, "_published", True)

    def publish(self) -> Any:
        """Freeze into a runtime context (``ctx.attn.backend``); see ``resolvable.publish``."""
        from ._publish import publish

        return publish(self)

    # -- identity and serialisation --------------------------------------------------
    def fingerprint(self) -> str:
        payload = {
            "values": {k: canonical(v) for k, v in self._values.items()},
            "platform": self.platform.to_dict() if self.platform else None,
            "ruleset": self.ruleset,
        }
        if self.release is not None:  # registries without releases keep their fingerprints
            payload["release"] = self.release
        import json  # deferred with hashlib: keeps `import resolvable` light

        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
        import hashlib  # deferred: keeps `import resolvable` light

        return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "ruleset": self.ruleset,
            "release": self.release,
            "arch": self.arch,
            "platform": self.platform.to_dict() if self.platform else None,
            "values": {k: canonical(v) for k, v in self._values.items()},
            "user": {k: canonical(v) for k, v in self.user.items()},
            "explicit": sorted(self.explicit),
            "declarations": [d.to_dict() for d in self.declarations],
            "notes": list(self.notes),
            **(
                {"not_modelled": {k: canonical(v) for k, v in self.not_modelled.items()}}
                if self.not_modelled
                else {}
            ),
            "leaves": dict(self.leaves),
            "fingerprint": self.fingerprint(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], schema: Schema | None = None) -> Resolution:
        """Rebuild a resolution saved with ``to_dict``; malformed data is a ``DeclarationError``."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT_VERSION:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise DeclarationError(
                f"unsupported resolution data (format {found!r}); expected format {FORMAT_VERSION}"
            )
        _check_shape(data)
        if schema is not None and not isinstance(schema, Schema):
            raise InvalidArgumentError(
                f"from_dict: schema must be a Schema or None, got {type(schema).__name__}"
            )
        try:
            return cls._from_dict(data, schema)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
            if isinstance(exc, DeclarationError):
                raise
            raise DeclarationError(f"malformed resolution data: {type(exc).__name__}: {exc}") from None

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any], schema: Schema | None) -> Resolution:
        res = cls(
            values=data["values"],
            user=data["user"],
            explicit=frozenset(data["explicit"]),
            declarations=tuple(Declaration.from_dict(d) for d in data["declarations"]),
            platform=Platform.from_dict(data["platform"]) if data.get("platform") else None,
            arch=data.get("arch"),
            notes=tuple(data.get("notes", ())),
            ruleset=data["ruleset"],
            schema=schema,
            leaves=data["leaves"],
            release=data.get("release"),
            not_modelled=data.get("not_modelled"),
        )
        expected = data.get("fingerprint")
        if expected is not None and expected != res.fingerprint():
            raise DeclarationError("resolution data was altered: its fingerprint does not match its values")
        return res

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resolution):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


#: The slot descriptors' ``__set__`` of ``Resolution`` (its ``__setattr__`` refuses writes).
(
    _set_values,
    _set_user,
    _set_explicit,
    _set_declarations,
    _set_platform,
    _set_arch,
    _set_notes,
    _set_ruleset,
    _set_release,
    _set_schema,
    _set_leaves,
    _set_not_modelled,
    _set_published,
    _set_asked,
) = (
    Resolution.__dict__[name].__set__
    for name in (
        "_values",
        "user",
        "explicit",
        "declarations",
        "platform",
        "arch",
        "notes",
        "ruleset",
        "release",
        "schema",
        "leaves",
        "not_modelled",
        "_published",
        "_asked",
    )
)


def _check_shape(data: Mapping[str, Any]) -> None:
    """The top-level shape of ``to_dict`` data: each key present with the type ``to_dict``
    writes; a ``DeclarationError`` naming the first key that is not."""

    def fail(key: str, expected: str) -> None:
        value = data.get(key)
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise DeclarationError(
            f"malformed resolution data: {key!r} must be {expected}, got {type(value).__name__} {shown}"
        )

    def str_keys(value: Any) -> bool:
        return isinstance(value, Mapping) and all(isinstance(k, str) for k in value)

    for key in ("values", "user"):
        if not str_keys(data.get(key)):
            fail(key, "an object of field values")
    if not isinstance(data.get("leaves"), Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data["leaves"].items()
    ):
        fail("leaves", "an object of field name to leaf path")
    for key in ("explicit", "declarations"):
        if not isinstance(data.get(key), (list, tuple)):
            fail(key, "a list")
    if not all(isinstance(n, str) for n in data["explicit"]):
        fail("explicit", "a list of field names")
    if not all(str_keys(d) for d in data["declarations"]):
        fail("declarations", "a list of declaration objects")
    if not isinstance(data.get("ruleset"), str):
        fail("ruleset", "a string")
    for key in ("arch", "release"):
        if data.get(key) is not None and not isinstance(data[key], str):
            fail(key, "a string or null")
    notes = data.get("notes", ())
    if not isinstance(notes, (list, tuple)) or not all(isinstance(n, str) for n in notes):
        fail("notes", "a list of strings")
    platform = data.get("platform")
    if platform is not None and not isinstance(platform, Mapping):
        fail("platform", "an object of platform facts or null")
    if data.get("fingerprint") is not None and not isinstance(data["fingerprint"], str):
        fail("fingerprint", "a string")


def _from_saved(data: dict[str, Any], schema: Schema | None) -> Resolution:
    return Resolution.from_dict(data, schema)
