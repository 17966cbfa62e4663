"""`resolvable parity MODULE:FUNCTION`: compare your procedural config code with the SGLang pack.

The function is called as ``fn(args, hf, platform, env)`` for every cell of the grid, where
``args`` is a ``RecordingArgs`` holding ``ServerArgs`` defaults plus the cell's flags; it
mutates ``args`` in place (as sglang's ``__post_init__`` did) and may raise ``ValueError`` or
``AssertionError`` to refuse. Invariant: the command only reads; exit 1 when anything diverges.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from ._common import EXIT_FINDINGS, UsageError, _csv_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load_function(target: str) -> Any:
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:FUNCTION, got {target!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # let a team point at a module of its own checkout
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise UsageError(f"{module_name} has no function {attr!r}")
    return fn


def cmd_parity(args: argparse.Namespace, ignored: list[str]) -> int:
    from .. import RecordingArgs, check_parity
    from .._schema import schema_of
    from ..sglang import ServerArgs, resolve_server_args
    from ..sglang import grid as sglang_grid
    from ._common import _env, _parse_set

    legacy_fn = load_function(args.target)
    schema = schema_of(ServerArgs)
    fields = _csv_list(args.fields)
    for f in fields or ():
        schema.spec(f)
    env = _env(args.env)
    extra = _parse_set(args.set)
    variants = {"flags": extra} if args.set else None
    cases = [
        (f"{m} on {p} [{v}]", (hf, pl, flags))
        for m, p, v, hf, pl, flags in sglang_grid.cases(
            _csv_list(args.models), _csv_list(args.platforms), variants
        )
    ]

    def legacy(inputs: Any) -> dict[str, Any]:
        hf, platform, flags = inputs
        stand_in = RecordingArgs({**schema.json_defaults, **flags})
        legacy_fn(stand_in, hf, platform, env)
        return {name: getattr(stand_in, name) for name in schema.fields}

    def declarative(inputs: Any) -> Any:
        hf, platform, flags = inputs
        return resolve_server_args(hf, platform, env, **flags)

    report = check_parity(cases, legacy, declarative, fields, refusals=(ValueError, AssertionError))
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.parity/1",
                    "compared": report.compared,
                    "refused_by_both": report.refused_by_both,
                    "by_field": report.by_field(),
                    "divergences": [d.to_dict() for d in report.divergences],
                },
                indent=2,
                default=repr,
            )
        )
    else:
        print(report.__str__().split("\n")[0])
        shown = report.divergences[: args.limit]
        for d in shown:
            print(f"  {d}")
        if len(report.divergences) > len(shown):
            print(f"  … {len(report.divergences) - len(shown)} more (--limit, or --json for all)")
        if report.divergences:
            print("by field: " + ", ".join(f"{k} {v}" for k, v in report.by_field().items()))
    return EXIT_FINDINGS if report.divergences else 0
