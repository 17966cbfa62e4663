"""`resolvable explain`: the chain of declarations behind each field, and `--why-not`.

Invariant: explain resolves with tracing on, so every step shows what its rule read.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

from .._text import short
from ..errors import ConflictError, InvalidArgumentError
from ._common import _header, _resolve, _user_flags


def _why(inputs: Sequence[Sequence[Any]], limit: int = 6) -> str:
    shown = [f"{n}={short(v, 24)}" for n, v in inputs if n not in ("hf.source",)]
    more = f", … {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def _explain_lines(exp: Any) -> list[str]:
    start = f"user set {exp.user_value!r}" if exp.user_set else f"default {exp.default!r}"
    lines = [f"{exp.field} = {exp.value!r}    ({start})"]
    if not exp.steps:
        lines.append("    no rule declared it")
    for i, s in enumerate(exp.steps, 1):
        mark = {"applied": "✓", "forced": "!", "blocked": "✗", "shadowed": "~"}[s.outcome]
        label = {
            "applied": "applied",
            "forced": "FORCED over the user's value",
            "blocked": "blocked by the user's value",
            "shadowed": "shadowed by a later rule",
        }[s.outcome]
        lines.append(f"  {mark} {i}. [{s.stage}] {s.rule}  {s.location}")
        lines.append(f"       -> {s.value!r}  {label}" + (f" ({s.reason})" if s.reason else ""))
        if s.inputs:
            lines.append(f"       because {_why(s.inputs)}")
        if getattr(s, "choice", None) is not None:  # chosen from candidates: every candidate, and why not
            lines.append(f"       candidates ({s.choice.label or 'in priority order'}):")
            lines += ["         " + line for line in s.choice.summary().splitlines()]
    return lines


def _refusal_lines(exc: ConflictError) -> list[str]:
    lines = [f"refused by {exc.rule}  {exc.location}", f"    {exc.message}"]
    if exc.fix:
        lines.append(f"    fix: {exc.fix}")
    if exc.origins:
        lines.append("the values involved:")
        for field, (value, who, where) in exc.origins.items():
            source = {"user": "your flag", "default": "the default"}.get(who, f"declared by {who}  {where}")
            lines.append(f"    {field} = {value!r}    ({source})")
    return lines


def cmd_explain(args: argparse.Namespace, ignored: list[str]) -> int:
    user = _user_flags(args)
    if args.why_not is not None:
        return _why_not(args, user)
    try:
        res = _resolve(args, args.platform, user, trace=True)
    except ConflictError as exc:
        if not args.json:  # the reason and where the conflicting values came from; stderr gets the error
            print("\n".join(_refusal_lines(exc)))
        raise
    fields = [args.field] if args.field else list(res.changed())
    for f in fields:
        if f not in res:
            res.explain(f)  # raises a clear InvalidArgumentError with a suggestion
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.explain/1",
                    "model": args.model,
                    "arch": res.arch,
                    "platform": res.platform.to_dict(),
                    "user_args": res.user,
                    "notes": list(res.notes),
                    "fingerprint": res.fingerprint(),
                    "fields": {f: res.explain(f).to_dict() for f in fields},
                },
                indent=2,
                default=repr,
            )
        )
        return 0
    print("\n".join(_header(res, args, user)))
    explained = [res.explain(f) for f in fields if f != "model_path"]
    for exp in explained:
        if exp.steps or args.field:
            print()
            print("\n".join(_explain_lines(exp)))
    untouched = [f"{e.field}={e.value!r}" for e in explained if not e.steps and not args.field]
    if untouched:
        print(f"\nfrom your flags, untouched by any rule: {', '.join(untouched)}")
    print("\nlegend: ✓ applied  ! forced over your flag  ✗ blocked by your flag  ~ shadowed by a later rule")
    return 0


def _why_not(args: argparse.Namespace, user: dict[str, Any]) -> int:
    from .._schema import schema_of
    from ..sglang import ServerArgs

    field = args.field or "attention_backend"
    schema = schema_of(ServerArgs)
    spec = schema.spec(field)
    if field not in schema.resolvable:
        raise InvalidArgumentError(
            f"--why-not needs a field that rules decide; {field} is input only "
            "(try attention_backend, page_size, dtype, kv_cache_dtype, moe_runner_backend, ...)"
        )
    value = _coerce(spec, args.why_not)
    spec.validate(value, what=f"--why-not {args.why_not}")
    try:
        baseline = _resolve(args, args.platform, user)
    except ConflictError:
        baseline = None  # the configuration without the value is refused anyway
    trial_user = {**user, field: value}
    verdict: dict[str, Any] = {"schema": "resolvable.why-not/1", "field": field, "value": value}
    try:
        res = _resolve(args, args.platform, trial_user, trace=True)
    except ConflictError as exc:
        verdict.update(
            outcome="refused", rule=exc.rule, location=exc.location, reason=exc.message, fix=exc.fix
        )
        text = f"{field}={value!r} is refused by {exc.rule} ({exc.location}):\n  {exc.message}" + (
            f"\n  fix: {exc.fix}" if exc.fix else ""
        )
    else:
        if res[field] != value:
            exp = res.explain(field)
            last = next((s for s in reversed(exp.steps) if s.outcome in ("forced", "applied")), None)
            if last is None:  # no rule wrote it: the value was normalised on input
                raise InvalidArgumentError(f"--why-not {args.why_not!r}: {field} cannot hold this value")
            verdict.update(
                outcome="overridden",
                final=res[field],
                rule=last.rule,
                location=last.location,
                reason=last.reason,
            )
            text = (
                f"{field}={value!r} is accepted as input but overridden: {last.rule} ({last.location}) "
                f"forces {res[field]!r}" + (f" because {last.reason}" if last.reason else "")
            )
        else:
            changes = [c for c in (baseline.diff(res) if baseline is not None else ()) if c.field != field]
            verdict.update(outcome="accepted", also_changes={c.field: [c.before, c.after] for c in changes})
            chosen = baseline[field] if baseline is not None else None
            text = f"{field}={value!r} would be accepted (without it: {chosen!r})."
            if changes:
                text += "\n  it would also change: " + ", ".join(
                    f"{c.field} {c.before!r} -> {c.after!r}" for c in changes
                )
    print(json.dumps(verdict, indent=2, default=repr) if args.json else text)
    return 0


def _coerce(spec: Any, raw: str) -> Any:
    """The typed value of ``--why-not RAW`` for ``spec``'s field (a clear error if it does not parse)."""
    text = str(spec.type)
    if raw.lower() in ("none", "null"):
        return None
    if "bool" in text:
        return raw.lower() in ("1", "true", "yes", "on")
    for kind, name in ((int, "an integer"), (float, "a number")):
        if kind.__name__ in text:
            try:
                value = kind(raw)
            except ValueError:
                raise InvalidArgumentError(f"--why-not {raw!r}: {spec.name} takes {name}") from None
            if kind is float and not math.isfinite(value):
                raise InvalidArgumentError(f"--why-not {raw!r}: {spec.name} takes a finite number")
            return value
    return raw
