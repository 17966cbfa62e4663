"""`resolvable explain`: the chain of declarations behind each field, and `--why-not`.

Invariants: explain resolves with tracing on, so every step shows what its rule read; it then
runs the start-up checks (after ServerArgs) and always says which of the two answers holds:
"accepted, and would start" or "accepted by ServerArgs, refused at start-up: …"; then the node
check and the memory fit, folded into one verdict (``cli.verdicts``): exit 0 would start, 1 not.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from .._text import checks_passed, short
from ..errors import ConflictError, InvalidArgumentError
from ..rules import RELEASE_READ
from ._common import (
    EXIT_FINDINGS,
    _header,
    _resolve,
    _startup,
    _user_flags,
    config_origin_lines,
    default_pack,
    model_config,
    refusal_json,
    refusal_prefix,
    release_of_rule,
)


def _why(inputs: Sequence[Sequence[Any]], limit: int = 6) -> str:
    # A named change the rule asked about reads as its release condition, first:
    # "sglang ≥ 0.5.20 (DSA_TRITON_ON_ROCM, overrides._dsa_split_backend_resolution)".
    changes = [n[len(RELEASE_READ) :] for n, _ in inputs if n.startswith(RELEASE_READ)]
    shown = changes + [
        f"{n}={short(v, 24)}" for n, v in inputs if n != "hf.source" and not n.startswith(RELEASE_READ)
    ]
    more = f", … {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def _explain_lines(exp: Any, res: Any = None) -> list[str]:
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
        releases = release_of_rule(s.rule, s.location, res)
        lines.append(
            f"  {mark} {i}. [{s.stage}] {s.rule}  {s.location}" + (f"  ({releases})" if releases else "")
        )
        lines.append(f"       -> {s.value!r}  {label}" + (f" ({s.reason})" if s.reason else ""))
        if s.inputs:
            lines.append(f"       because {_why(s.inputs)}")
        if getattr(s, "choice", None) is not None:  # chosen from candidates: every candidate, and why not
            lines.append(f"       candidates ({s.choice.label or 'in priority order'}):")
            lines += ["         " + line for line in s.choice.summary().splitlines()]
    return lines


def _not_modelled_json(args: argparse.Namespace) -> dict[str, Any]:
    """The accepted flags this pack does not model: as typed, and dest → value."""
    from ._common import unread_env

    return {
        "flags": list(getattr(args, "not_modelled", ())),
        "values": dict(getattr(args, "not_modelled_values", {})),
        "env": unread_env(args),
    }


def _default_fields(res: Any) -> list[str]:
    """Every field that differs from its default, or that the user set (a rule may have forced
    a user's flag back to the default: that must show without ``--field``)."""
    changed, user = res.changed(), res.user
    return [f for f in res if f in changed or f in user]


def _overrides_of_user_flags(res: Any) -> list[str]:
    """One line per user flag a rule forced over, or tried to and was blocked by (always shown)."""
    lines = []
    for field in res.user:
        if field == "model_path" or field not in res:
            continue
        for step in res.explain(field).steps:
            flag = "--" + field.replace("_", "-")
            why = f" ({step.reason})" if step.reason else ""
            if step.outcome == "forced":
                lines.append(
                    f"forced    your {flag} {res.user[field]!r} -> {step.value!r} by {step.rule}  {step.location}{why}"
                )
            elif step.outcome == "blocked":
                lines.append(
                    f"kept      your {flag} {res.user[field]!r}; {step.rule} wanted {step.value!r}{why}"
                )
    return lines


def refused_by(rule: str | None, location: str | None) -> str:
    """Who refused: the rule and where it is, or the engine's own argument parser (a value it
    rejects before any rule runs carries neither)."""
    if not rule:
        return "the engine's argument parser"
    return f"{rule}  {location}" if location else rule


def _refusal_lines(exc: ConflictError) -> list[str]:
    lines = [f"refused by {refused_by(exc.rule, exc.location)}", f"    {exc.message}"]
    if exc.fix:
        lines.append(f"    fix: {exc.fix}")
    if exc.origins:
        lines.append("the values involved:")
        for field, (value, who, where) in exc.origins.items():
            source = {"user": "your flag", "default": "the default"}.get(who, f"declared by {who}  {where}")
            lines.append(f"    {field} = {value!r}    ({source})")
    return lines


def _startup_lines(
    passed: Sequence[Any], refusal: ConflictError | None, *, skipped: bool = False
) -> list[str]:
    STARTUP_LABEL = default_pack().startup_label
    if skipped:
        return [f"{STARTUP_LABEL}: not run (--no-startup-check); ServerArgs accepts it"]
    if refusal is None:
        return [f"{STARTUP_LABEL}: accepted, and would start ({checks_passed(len(passed))})"]
    lines = [f"{STARTUP_LABEL}: accepted by ServerArgs, refused at start-up: {refusal.message}"]
    return lines + ["    " + line for line in _refusal_lines(refusal)[:1] + _refusal_lines(refusal)[2:]]


def _startup_json(
    passed: Sequence[Any], refusal: ConflictError | None, *, skipped: bool = False
) -> dict[str, Any]:
    sglang = default_pack()
    return {
        "phase": sglang.startup_phase,
        "label": sglang.startup_label,
        "outcome": "skipped" if skipped else "accepted" if refusal is None else "refused",
        "checks": [r.name for r in passed],
        "refusal": refusal_json(refusal) if refusal is not None else None,
    }


def cmd_explain(args: argparse.Namespace, ignored: list[str]) -> int:
    user = _user_flags(args)
    if args.why_not is not None:
        return _why_not(args, user)
    try:
        res, verdict, passed, refusal = judge_launch(args, user, trace=True)
    except ConflictError as exc:
        if not args.json:  # the reason and where the conflicting values came from; stderr gets the error
            print("\n".join(_refusal_lines(exc) + config_origin_lines(getattr(args, "loaded_config", None))))
        raise
    hidden = [] if args.field or args.all else sorted(_not_applicable(args, res) & set(_default_fields(res)))
    fields = [args.field] if args.field else [f for f in _default_fields(res) if f not in hidden]
    for f in fields:
        if f not in res:
            res.explain(f)  # raises a clear InvalidArgumentError with a suggestion
    from .fit import verdict_memory_section

    memory_lines, memory_json = verdict_memory_section(
        _pack(), res, verdict, args.judged, context="context", fit_command="resolvable fit"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.explain/1",
                    "model": args.model,
                    "arch": res.arch,
                    "sglang_version": res.release,
                    "platform": res.platform.to_dict(),
                    "user_args": dict(res.user),
                    "not_modelled": _not_modelled_json(args),
                    "input_notes": list(getattr(args, "input_notes", ())),
                    "notes": list(res.notes),
                    "fingerprint": res.fingerprint(),
                    "fields": {f: res.explain(f).to_dict() for f in fields},
                    "startup": _startup_json(passed, refusal, skipped=not args.startup_check),
                    "memory": memory_json,
                    "verdict": verdict.to_dict(),
                },
                indent=2,
                default=repr,
            )
        )
        return _verdict_exit(verdict, refusal)
    print("\n".join(_header(res, args, user)))
    print("\n".join(_startup_lines(passed, refusal, skipped=not args.startup_check)))
    print("\n".join(memory_lines))
    print(verdict.line())
    for line in _overrides_of_user_flags(res):
        print(line)
    explained = [res.explain(f) for f in fields if f != "model_path"]
    for exp in explained:
        if exp.steps or args.field:
            print()
            print("\n".join(_explain_lines(exp, res)))
    untouched = [f"{e.field}={e.value!r}" for e in explained if not e.steps and not args.field]
    if untouched:
        print(f"\nfrom your flags, untouched by any rule: {', '.join(untouched)}")
    if hidden:
        print(f"\nnot shown, irrelevant for this model: {', '.join(hidden)} (--all shows them)")
    print("\nlegend: ✓ applied  ! forced over your flag  ✗ blocked by your flag  ~ shadowed by a later rule")
    return _verdict_exit(verdict, refusal)


def judge_launch(
    args: argparse.Namespace, user: dict[str, Any], *, trace: bool = False
) -> tuple[Any, Any, tuple[Any, ...], ConflictError | None]:
    """(resolution, verdict, checks passed, start-up refusal) of the command's launch
    (``_common.launch_of``, kept as ``args.judged``), judged by ``Pack.verdict`` on the config
    the command read (``model_config``: ``--revision``, ``--hub-timeout``); a refusal by argument
    resolution is raised (``cli.verdicts.judge``)."""
    from ._common import launch_of
    from .verdicts import judge

    args.judged = launch_of(args, user)
    return judge(
        _pack(), args.judged, trace=trace, startup=args.startup_check, config=model_config(args, user)
    )


def _not_applicable(args: argparse.Namespace, res: Any) -> frozenset[str]:
    """``Pack.not_applicable`` of the resolution (what ``--all`` shows besides)."""
    return _pack().not_applicable(res, model_config(args))


def _pack() -> Any:
    """The pack whose flags this command set parses (the SGLang default front-end)."""
    return default_pack()


def _startup_exit(refusal: ConflictError | None) -> int:
    """0 when it would start; else the one-line error on stderr (stdout has the whole answer), 1."""
    if refusal is None:
        return 0
    sys.stdout.flush()
    print(f"error: {refusal_prefix(refusal)}: {refusal}", file=sys.stderr)
    return EXIT_FINDINGS


def _verdict_exit(verdict: Any, refusal: ConflictError | None) -> int:
    """The verdict's exit code (0 would start, 1 would not); a start-up refusal's error line is
    the one it always was, a node or memory refusal's is the verdict's."""
    from .verdicts import say

    if refusal is not None:
        return _startup_exit(refusal)
    return say(verdict)


def _why_not(args: argparse.Namespace, user: dict[str, Any]) -> int:
    from .._schema import schema_of

    field = args.field or "attention_backend"
    schema = schema_of(default_pack().args_class)
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
        check = exc.fix_check.to_dict() if exc.fix_check is not None else None  # type: ignore[attr-defined]
        verdict.update(
            outcome="refused",
            rule=exc.rule,
            location=exc.location,
            reason=exc.message,
            fix=exc.fix,
            fix_check=check,
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
            passed, refusal = _startup(args, res)
            verdict.update(
                outcome="accepted",
                also_changes={c.field: [c.before, c.after] for c in changes},
                startup=_startup_json(passed, refusal, skipped=not args.startup_check),
            )
            chosen = baseline[field] if baseline is not None else None
            text = f"{field}={value!r} would be accepted (without it: {chosen!r})."
            if refusal is not None:
                text = (
                    f"{field}={value!r} would be accepted by ServerArgs (without it: {chosen!r}), "
                    f"but refused at start-up by {refusal.rule} ({refusal.location}):\n  {refusal.message}"
                    + (f"\n  fix: {refusal.fix}" if refusal.fix else "")
                )
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
