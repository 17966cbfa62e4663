"""The library takes what sglang's ``ServerArgs`` takes: every field of the release, typed as
sglang types it.

``split_fields(fields, release)`` sorts keyword arguments of ``resolve_server_args`` and
``ServerArgs(...)`` into the *modelled* fields (this pack's ``ServerArgs`` schema: rules read
them) and the *not-modelled* ones (a field of the release's ``ServerArgs`` that no rule reads: the
flag table, ``flags/sglang-<release>.json``, lists every one by its dest). Invariants:

* a name that is neither is refused, naming the closest field, or the release that added or
  removed it (``flags.option_history``);
* every value is checked against sglang's type of that field before anything is stored: a string
  for a bool, int or float field (``disable_cuda_graph="false"``, which is truthy) is refused with
  the field named, never kept as it is; None only where sglang's default is None;
* not-modelled values never change a resolved value or the fingerprint; the resolution records
  them (``Resolution.not_modelled``) so they are listed, not dropped.
"""

from __future__ import annotations

import functools

from ..errors import InvalidArgumentError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_SCALARS = {"bool": bool, "int": int, "float": float, "str": str}


def _kind_of_annotation(annotation: Any) -> tuple[str | None, bool]:
    """(scalar type name or None when not checked, whether None is allowed) of a schema field."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    parts = [p.strip() for p in str(text).split("|")]
    nullable = "None" in parts or "Optional" in str(text)
    scalars = [p for p in parts if p in _SCALARS]
    if len(scalars) != 1 or len([p for p in parts if p != "None"]) != 1:
        return None, True
    return scalars[0], nullable


def _kind_of_flag(dest: str, release: str) -> tuple[str | None, bool, bool]:
    """(scalar type name or None, None allowed, a list of them) of a flag-table field."""
    from .flags import NO_DEFAULT, load_table

    flags = load_table(release).for_dest(dest)
    flag = next((f for f in flags if f.origin == "field"), flags[0] if flags else None)
    if flag is None:
        return None, True, False
    nullable = flag.default is None or flag.default is NO_DEFAULT
    if flag.action in ("store_true", "boolean_optional"):
        return "bool", nullable, False
    if flag.action != "store":
        return None, True, False
    kind = {"int": "int", "human_readable_int": "int", "float": "float", "str": "str", "nullable_str": "str"}
    many = flag.nargs in ("+", "*")
    return kind.get(flag.type or "str"), nullable, many


def _check(name: str, value: Any, kind: str | None, nullable: bool, many: bool, release: str) -> None:
    if kind is None or (value is None and nullable):
        return
    if not many and type(value) is _SCALARS[kind]:  # the exact type (a bool is never an int here)
        return
    if value is None:
        raise InvalidArgumentError(
            f"argument {name}: None is not a value of {name} (sglang {release} types it {kind}, with a default); "
            "leave it out to take the default"
        )
    if many:
        if not isinstance(value, (list, tuple)):
            raise InvalidArgumentError(
                f"argument {name}: {value!r} is a {type(value).__name__}, but sglang {release} takes a list of "
                f"{kind} for {name}; pass a list"
            )
        for item in value:
            _check(name, item, kind, False, False, release)
        return
    from ..rules import has_kind

    if has_kind(value, kind):
        return
    fix = {
        "bool": "pass True or False",
        "int": "pass an int",
        "float": "pass a number",
        "str": "pass a string",
    }[kind]
    raise InvalidArgumentError(
        f"argument {name}: expected {kind}, got {type(value).__name__} {value!r} "
        f"(sglang {release} types {name} as {kind}); {fix}"
    )


@functools.lru_cache(maxsize=4096)
def _field_typing(name: str, release: str) -> tuple[bool, str | None, bool, bool] | None:
    """(modelled, scalar kind or None, None allowed, a list) of field ``name`` in sglang
    ``release``, or None when the release has no such field: a pure function of the pack's schema
    and the release's flag table, memoised (a resolution types every field it is given)."""
    from ..rules import schema_of
    from .args import ServerArgs
    from .flags import load_table

    schema = schema_of(ServerArgs).fields
    dests = load_table(release).dests
    if name in schema:
        kind, nullable = _kind_of_annotation(schema[name].type)
        if name in dests:  # sglang's own typing of the field where the release has it
            flag_kind, flag_nullable, many = _kind_of_flag(name, release)
            if flag_kind is not None and not many:
                kind, nullable = flag_kind, nullable or flag_nullable
        return True, kind, nullable, False
    if name in dests:
        return (False, *_kind_of_flag(name, release))
    return None


def split_fields(fields: Mapping[str, Any], release: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(modelled, not modelled) of ``fields`` for sglang ``release``, each value type-checked."""
    modelled: dict[str, Any] = {}
    other: dict[str, Any] = {}
    for name, value in fields.items():
        typing = _field_typing(name, release) if type(name) is str else None
        if typing is not None:
            is_modelled, kind, nullable, many = typing
            _check(name, value, kind, nullable, many, release)
            (modelled if is_modelled else other)[name] = value
        else:
            from ..rules import schema_of
            from .args import ServerArgs
            from .flags import load_table, option_history

            schema = schema_of(ServerArgs).fields
            dests = load_table(release).dests
            option = "--" + str(name).replace("_", "-")
            alias = load_table(release).by_option.get(option)
            if alias is not None:  # a flag of the release that stores into another field
                use = f"; sglang says: use {alias.deprecated}" if isinstance(alias.deprecated, str) else ""
                raise InvalidArgumentError(
                    f"argument {name} is not a field of sglang {release}'s ServerArgs: its flag {option} sets "
                    f"{alias.dest}; pass {alias.dest}=...{use}"
                )
            history = option_history(option, release)
            if history is not None:
                raise InvalidArgumentError(f"argument {name} is not a field of sglang {release}: {history}")
            hint = closest(str(name), [*schema, *dests])
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise InvalidArgumentError(
                f"unknown argument {name!r}: not a field of sglang {release}'s ServerArgs{extra}"
            )
    return modelled, other
