"""argparse integration: every flag of sglang's command line, from the release's flag table.

Invariants:

* the flags come from one table (``resolvable.sglang.flags``), with sglang's option strings and
  aliases, types, choices, nargs and actions, so a command line sglang accepts parses here and
  one it rejects (bad choice, bad type, ambiguous abbreviation) is rejected the same way;
* flags the user did not pass do not appear in the namespace (``SUPPRESS``), so
  ``from_cli_args`` knows exactly which fields were set explicitly;
* a flag whose dest is a ``ServerArgs`` CLI field is *modelled* (the rules read it); every
  other flag is accepted and kept, but *not modelled*: ``parse_namespace`` returns it apart,
  with the spelling the user typed, so callers can say so.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..rules import schema_of
from .args import ServerArgs
from .flags import NO_DEFAULT, Flag, load_table, modelled_dests

#: The namespace attribute where each passed flag is recorded as (option string, dest, value).
PASSED = "_resolvable_passed"


def flag_of(field: str) -> str:
    return "--" + field.replace("_", "-")


def _record(namespace: argparse.Namespace, option: str | None, dest: str, value: Any) -> None:
    passed = getattr(namespace, PASSED, None)
    if passed is None:
        passed = []
        setattr(namespace, PASSED, passed)
    passed.append((option or flag_of(dest), dest, value))


class _Store(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        _record(namespace, option_string, self.dest, values)


class _StoreConst(argparse.Action):
    """``store_true`` / ``store_const`` / sglang's deprecated constant-storing switches."""

    def __init__(self, option_strings: Any, dest: str, const: Any = True, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, const=const, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, self.const)
        _record(namespace, option_string, self.dest, self.const)


class _StoreConstValue(_StoreConst):
    """sglang's ``DeprecatedStoreConstAction(nargs=None, choices=...)``: a retired valued flag that
    takes one value (one of its choices) and stores the constant."""

    def __init__(self, option_strings: Any, dest: str, const: Any = True, **kwargs: Any) -> None:
        argparse.Action.__init__(self, option_strings, dest, nargs=None, const=const, **kwargs)


class _BooleanOptional(argparse.Action):
    """``--x`` / ``--no-x`` (argparse.BooleanOptionalAction, recording the spelling)."""

    def __init__(self, option_strings: Any, dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        value = not str(option_string).startswith("--no-")
        setattr(namespace, self.dest, value)
        _record(namespace, option_string, self.dest, value)


class _Ignore(argparse.Action):
    """A deprecated flag that sglang accepts and ignores (``DeprecatedAction``)."""

    def __init__(self, option_strings: Any, dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        _record(namespace, option_string, self.dest, True)


class _LoraPaths(_Store):
    """sglang/srt/arg_groups/argparse_actions.py:LoRAPathAction: names, or JSON objects with
    ``lora_name`` and ``lora_path``."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        paths: list[Any] = []
        for raw in values or ():
            raw = raw.strip()
            if raw.startswith("{") and raw.endswith("}"):
                try:
                    obj = json.loads(raw)
                except ValueError as exc:
                    parser.error(f"argument {option_string}: invalid JSON {raw!r}: {exc}")
                if not (isinstance(obj, dict) and "lora_path" in obj and "lora_name" in obj):
                    parser.error(f"argument {option_string}: {raw!r} needs 'lora_name' and 'lora_path' keys")
                paths.append(obj)
            else:
                paths.append(raw)
        super().__call__(parser, namespace, paths, option_string)


def _help(flag: Flag, modelled: bool, helps: dict[str, str]) -> str:
    text = helps.get(flag.dest) if modelled else None
    text = text or ("not modelled by resolvable (accepted)" if not modelled else "")
    if flag.deprecated:
        text += " [deprecated" + (f"; use {flag.deprecated}]" if isinstance(flag.deprecated, str) else "]")
    if flag.default is not NO_DEFAULT and flag.action not in ("ignore", "store_const", "store_const_value"):
        read_as = f", read as {flag.fallback!r}" if flag.fallback is not NO_DEFAULT else ""
        text += f" (sglang default: {flag.default!r}{read_as})"
    return text.replace("%", "%%")


def _action_kwargs(flag: Flag, release: str) -> dict[str, Any]:
    from .flags.values import converter

    if flag.action == "store_true":
        return {"action": _StoreConst, "const": True}
    if flag.action == "store_const":
        return {"action": _StoreConst, "const": flag.const}
    if flag.action == "store_const_value":
        return {"action": _StoreConstValue, "const": flag.const, "choices": list(flag.choices or ())}
    if flag.action == "boolean_optional":
        return {"action": _BooleanOptional}
    if flag.action == "ignore":
        return {"action": _Ignore}
    if flag.action == "lora_paths":
        return {"action": _LoraPaths, "nargs": flag.nargs or "*", "type": str}
    kwargs: dict[str, Any] = {"action": _Store, "type": converter(flag.type or "str", release)}
    if flag.choices is not None:
        kwargs["choices"] = list(flag.choices)
    else:
        kwargs["metavar"] = flag.dest.upper()
    if flag.nargs is not None:
        kwargs["nargs"] = flag.nargs
    if flag.nargs == "?":
        kwargs["const"] = flag.const
    return kwargs


def add_cli_args(
    parser: argparse.ArgumentParser, *, skip: tuple[str, ...] = (), release: str | None = None
) -> None:
    """Add every flag of sglang's parser (``release``, default the pack's) to ``parser``.

    ``skip`` names dests to leave out (the CLI takes the model as a positional argument).
    Nothing is required here and no defaults are stored, so the namespace holds only the
    flags that were passed."""
    table = load_table(release)
    modelled = modelled_dests()
    helps = {n: s.arg.help for n, s in schema_of(ServerArgs).fields.items()}
    group = parser.add_argument_group(f"SGLang {table.release} server arguments")
    for flag in table:
        if flag.dest in skip:
            continue
        group.add_argument(
            *flag.options,
            dest=flag.dest,
            default=argparse.SUPPRESS,
            help=_help(flag, flag.dest in modelled, helps),
            **_action_kwargs(flag, table.release),
        )


def passed_flags(namespace: argparse.Namespace) -> list[tuple[str, str, Any]]:
    """Each flag the user passed, in order: (option string as typed, dest, value)."""
    return list(getattr(namespace, PASSED, ()))


class ParsedFlags:
    """The flags of one command line, split: ``user`` (modelled: ServerArgs fields),
    ``not_modelled`` (dest → value), ``shown`` (the not-modelled flags as typed) and ``notes``
    (sglang's input rewrites that were applied)."""

    def __init__(
        self, user: dict[str, Any], not_modelled: dict[str, Any], shown: list[str], notes: list[str]
    ):
        self.user, self.not_modelled, self.shown, self.notes = user, not_modelled, shown, notes


def parse_namespace(namespace: argparse.Namespace, *, release: str | None = None) -> ParsedFlags:
    """The passed flags after sglang's input normalisation (``flags.values.normalise``), split by
    whether ``ServerArgs`` has the field."""
    from .flags.values import normalise

    table = load_table(release)
    values = {k: v for k, v in vars(namespace).items() if k != PASSED}
    defaults = {f.dest: table.default(f.dest) for f in table if f.dest not in values}
    values, notes, consumed = normalise(values, {k: v for k, v in defaults.items() if v is not NO_DEFAULT})
    modelled = modelled_dests()
    ignored = {f.dest for f in table if f.action == "ignore"}
    user = {k: v for k, v in values.items() if k in modelled}
    other = {k: v for k, v in values.items() if k not in modelled and k not in ignored and k not in consumed}
    shown = [
        option if value is True or value is False else f"{option} {_show(value)}"
        for option, dest, value in passed_flags(namespace)
        if dest not in modelled and dest not in consumed
    ]
    return ParsedFlags(user, other, shown, notes)


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(_show(v) for v in value)
    if isinstance(value, (dict,)):
        return json.dumps(value)
    return str(value)


def user_args_from_namespace(namespace: argparse.Namespace) -> dict[str, Any]:
    """The modelled fields the user actually passed on the command line (normalised as sglang does)."""
    return parse_namespace(namespace).user


def from_cli_args(namespace: argparse.Namespace, **resolution_inputs: Any) -> ServerArgs:
    """Build (and resolve) ``ServerArgs`` from parsed flags, recording which were passed.

    Not-modelled flags do not change the result; they stay in the namespace (and
    ``parse_namespace`` returns them)."""
    # The flags are read with the table of the release being modelled (its names, choices).
    release = resolution_inputs.get("sglang_version")
    if release is not None:
        from .api import sglang_release

        release = sglang_release(release)
    user = parse_namespace(namespace, release=release).user
    fields = schema_of(ServerArgs).fields
    user = {k: v for k, v in user.items() if k in fields}
    return ServerArgs(**user, user_set=tuple(user), **resolution_inputs)
