"""argparse integration: SGLang's flags for every ``ServerArgs`` field.

Invariant: flags the user did not pass do not appear in the namespace (``SUPPRESS``), so
``from_cli_args`` knows exactly which fields were set explicitly; an invalid choice is an
argparse error listing the valid ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import Any

from .._schema import schema_of
from .args import ALIASES, ServerArgs


def _scalar_type(annotation: Any) -> type:
    if isinstance(annotation, str):
        annotation = eval(annotation, {"typing": typing})  # annotations are plain builtins here
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = args[0] if args else str
    return annotation if annotation in (int, float, str, bool) else str


def flag_of(field: str) -> str:
    return "--" + field.replace("_", "-")


def add_cli_args(parser: argparse.ArgumentParser, *, skip: tuple[str, ...] = ()) -> None:
    """Add one flag per CLI-visible ``ServerArgs`` field (SGLang's names, choices and help)."""
    group = parser.add_argument_group("SGLang server arguments")
    for spec in schema_of(ServerArgs).fields.values():
        if not spec.arg.cli or spec.name in skip:
            continue
        names = [flag_of(spec.name), *ALIASES.get(spec.name, ())]
        kind = _scalar_type(spec.type)
        help_text = f"{spec.arg.help} (default: {spec.default!r})"
        if kind is bool:
            group.add_argument(
                *names, dest=spec.name, action="store_true", default=argparse.SUPPRESS, help=help_text
            )
        else:
            group.add_argument(
                *names,
                dest=spec.name,
                type=kind,
                default=argparse.SUPPRESS,
                help=help_text,
                choices=list(spec.arg.choices) if spec.arg.choices else None,
                metavar=spec.name.upper() if not spec.arg.choices else None,
            )


def user_args_from_namespace(namespace: argparse.Namespace) -> dict[str, Any]:
    """The fields the user actually passed on the command line."""
    fields = {f.name for f in dataclasses.fields(ServerArgs)}
    return {k: v for k, v in vars(namespace).items() if k in fields}


def from_cli_args(namespace: argparse.Namespace, **resolution_inputs: Any) -> ServerArgs:
    """Build (and resolve) ``ServerArgs`` from parsed flags, recording which were passed."""
    user = user_args_from_namespace(namespace)
    return ServerArgs(**user, user_set=tuple(user), **resolution_inputs)
