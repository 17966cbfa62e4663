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
    """The function ``MODULE:FUNCTION`` names; every way it can be wrong is a one-line
    ``UsageError``: a malformed or relative module name, a module that fails to import, a missing
    attribute, or a callable that cannot be called as ``fn(args, hf, platform, env)``."""
    from .._files import shown

    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:FUNCTION, got {shown(target)!r}")
    if not all(part.isidentifier() for part in module_name.split(".")):
        raise UsageError(
            f"{shown(module_name)!r} is not an absolute module name (dotted identifiers, e.g. "
            "my_team.legacy_config); relative imports are not supported"
        )
    if not all(part.isidentifier() for part in attr.split(".")):
        raise UsageError(f"{shown(attr)!r} is not a function name")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # let a team point at a module of its own checkout
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # the module itself failed while importing (its own bug)
        raise UsageError(f"importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
    if not callable(fn):
        raise UsageError(f"{module_name} has no function {attr!r}")
    import inspect  # deferred: only this command needs it

    try:
        inspect.signature(fn).bind(None, None, None, None)
    except TypeError:
        raise UsageError(
            f"{module_name}:{attr} cannot be called as fn(args, hf, platform, env); give the function "
            "that mutates args in place"
        ) from None
    except ValueError:  # a builtin without a signature: it cannot be a legacy config function
        raise UsageError(
            f"{module_name}:{attr} is not a Python function taking (args, hf, platform, env)"
        ) from None
    return fn


class _LegacyCrashed(Exception):
    """The user's function raised something other than a refusal (not a ValueError: it must
    not be compared as one)."""


def cmd_parity(args: argparse.Namespace, ignored: list[str]) -> int:
    from .. import RecordingArgs, check_parity
    from .._schema import schema_of
    from ._common import _env, _parse_set, default_pack

    sglang = default_pack()
    resolve_server_args = sglang.resolve_server_args
    legacy_fn = load_function(args.target)
    schema = schema_of(sglang.args_class)
    fields = _csv_list(args.fields)
    for f in fields or ():
        schema.spec(f)
    env = _env(args.env)
    extra = _parse_set(args.set)
    variants = {"flags": extra} if args.set else None
    cases = [
        (f"{m} on {p} [{v}]", (hf, pl, flags))
        for m, p, v, hf, pl, flags in sglang.grid_cases(
            _csv_list(args.models), _csv_list(args.platforms), variants
        )
    ]

    def legacy(inputs: Any) -> dict[str, Any]:
        hf, platform, flags = inputs
        stand_in = RecordingArgs({**schema.json_defaults, **flags})
        try:
            legacy_fn(stand_in, hf, platform, env)
        except (ValueError, AssertionError):
            raise  # a refusal, compared with the rules' refusals
        except Exception as exc:  # a crash of the user's function is not a bug of resolvable
            raise _LegacyCrashed(
                f"{args.target} raised {type(exc).__name__} ({exc}) when called as fn(args, hf, platform, env) "
                f"for {hf.architecture} on {platform.name}; fix the function or point at another one"
            ) from None
        return {name: getattr(stand_in, name) for name in schema.fields}

    def declarative(inputs: Any) -> Any:
        hf, platform, flags = inputs
        return resolve_server_args(hf, platform, env, **flags)

    try:
        report = check_parity(cases, legacy, declarative, fields, refusals=(ValueError, AssertionError))
    except _LegacyCrashed as exc:
        raise UsageError(str(exc)) from None
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
