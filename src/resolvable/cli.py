"""The ``resolvable`` command: explain, resolve, matrix, diff, platforms, models, lint, docs.

Invariants: every user error (unknown model, unreadable config, unknown preset, bad flag
value, refused configuration) prints one ``error:`` line with the fix and exits 2 — never a
traceback; ``--json`` output has a documented, versioned schema (docs/cli-json.md); the
platform is simulated from a preset unless ``--platform detect``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from ._platform import PLATFORM_ENV_VAR, Platform
from ._text import short, table
from .errors import ConflictError, InvalidArgumentError, ResolvableError, closest

EXIT_USAGE = 2
EXIT_FINDINGS = 1


class UsageError(ResolvableError):
    """A command-line mistake."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own usage errors: one line, exit 2
        match = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            choices = re.findall(r"'([^']*)'", match.group(2))
            hint = closest(match.group(1), choices)
            message += f"; did you mean '{hint}'?" if hint else ""
        self.exit(EXIT_USAGE, f"error: {message} (see `{self.prog} --help`)\n")


# -- shared inputs -------------------------------------------------------------------------


def _platform(name: str) -> Platform:
    if name == "detect":
        return Platform.detect()
    return Platform.preset(name)


def _env(pairs: Sequence[str]) -> dict[str, str]:
    from .sglang.api import env_from_os

    env = env_from_os()
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def _parse_set(pairs: Sequence[str]) -> dict[str, Any]:
    """``--set FLAG=VALUE`` (SGLang flag or field name) → typed user arguments."""
    from .sglang.cli_args import add_cli_args

    if not pairs:
        return {}
    parser = _Parser(prog="--set", add_help=False)
    add_cli_args(parser, skip=("model_path",))
    argv: list[str] = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        flag = "--" + key.lstrip("-").replace("_", "-")
        if not sep:
            argv.append(flag)  # boolean switch
        elif value.lower() in ("true", "false") and _is_switch(parser, flag):
            if value.lower() == "true":
                argv.append(flag)
        else:
            argv += [flag, value]
    namespace, extra = parser.parse_known_args(argv)
    _check_extras(parser, extra, strict=True)
    return vars(namespace)


def _is_switch(parser: argparse.ArgumentParser, flag: str) -> bool:
    for action in parser._actions:
        if flag in action.option_strings:
            return action.nargs == 0
    return False


def _check_extras(parser: argparse.ArgumentParser, extra: list[str], *, strict: bool = False) -> list[str]:
    """Unknown flags: a near-miss of a known flag is an error; others are reported as ignored."""
    known = [s for a in parser._actions for s in a.option_strings]
    ignored = []
    for token in extra:
        if not token.startswith("-"):
            if strict:
                raise UsageError(f"unexpected value {token!r}")
            ignored.append(token)
            continue
        name = token.split("=", 1)[0]
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        if hint or strict:
            extra_hint = f"; did you mean {hint[0]}?" if hint else ""
            raise UsageError(f"unknown flag {name}{extra_hint}")
        ignored.append(token)
    return ignored


def _resolve(args: argparse.Namespace, platform_name: str, user: dict[str, Any], *, trace: bool = False) -> Any:
    from .sglang import load_model, resolve_server_args

    hf = load_model(args.model)
    return resolve_server_args(hf, _platform(platform_name), _env(args.env), model_path=args.model,
                               trace=trace, **user)


def _user_flags(args: argparse.Namespace) -> dict[str, Any]:
    from .sglang.cli_args import user_args_from_namespace

    user = user_args_from_namespace(args)
    user.pop("model_path", None)
    user.update(_parse_set(getattr(args, "set", None)))
    return user


def _header(res: Any, args: argparse.Namespace, user: dict[str, Any]) -> list[str]:
    from .sglang import SGLANG_VERSION

    platform = res.platform
    flags = " ".join(f"--{k.replace('_', '-')} {v}" if v is not True else f"--{k.replace('_', '-')}"
                     for k, v in user.items()) or "(none)"
    lines = [
        f"model     {args.model}  [{res.arch}]",
        f"platform  {platform.name}: {platform.describe()}"
        + (f"  (detected by {platform.detected_by})" if platform.name == "detected" else ""),
        f"flags     {flags}",
        f"rules     sglang {SGLANG_VERSION} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
    ]
    lines += [f"note      {n}" for n in res.notes]
    return lines


def _report_ignored(ignored: list[str]) -> None:
    if ignored:
        print(f"note: ignored (not modelled by resolvable): {' '.join(ignored)}", file=sys.stderr)


# -- explain ---------------------------------------------------------------------------------


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
        label = {"applied": "applied", "forced": "FORCED over the user's value", "blocked": "blocked by the user's value",
                 "shadowed": "shadowed by a later rule"}[s.outcome]
        lines.append(f"  {mark} {i}. [{s.stage}] {s.rule}  {s.location}")
        lines.append(f"       -> {s.value!r}  {label}" + (f" ({s.reason})" if s.reason else ""))
        if s.inputs:
            lines.append(f"       because {_why(s.inputs)}")
    return lines


def cmd_explain(args: argparse.Namespace, ignored: list[str]) -> int:
    user = _user_flags(args)
    if args.why_not is not None:
        return _why_not(args, user)
    res = _resolve(args, args.platform, user, trace=True)
    fields = [args.field] if args.field else list(res.changed())
    for f in fields:
        if f not in res:
            res.explain(f)  # raises a clear InvalidArgumentError with a suggestion
    if args.json:
        print(json.dumps({
            "schema": "resolvable.explain/1", "model": args.model, "arch": res.arch,
            "platform": res.platform.to_dict(), "user_args": res.user, "notes": list(res.notes),
            "fingerprint": res.fingerprint(), "fields": {f: res.explain(f).to_dict() for f in fields},
        }, indent=2, default=repr))
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
    from ._schema import schema_of
    from .sglang import ServerArgs

    field = args.field or "attention_backend"
    spec = schema_of(ServerArgs).spec(field)
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
        verdict.update(outcome="refused", rule=exc.rule, location=exc.location, reason=exc.message, fix=exc.fix)
        text = (f"{field}={value!r} is refused by {exc.rule} ({exc.location}):\n  {exc.message}"
                + (f"\n  fix: {exc.fix}" if exc.fix else ""))
    else:
        if res[field] != value:
            exp = res.explain(field)
            last = next(s for s in reversed(exp.steps) if s.outcome in ("forced", "applied"))
            verdict.update(outcome="overridden", final=res[field], rule=last.rule, location=last.location,
                           reason=last.reason)
            text = (f"{field}={value!r} is accepted as input but overridden: {last.rule} ({last.location}) "
                    f"forces {res[field]!r}" + (f" because {last.reason}" if last.reason else ""))
        else:
            changes = [c for c in (baseline.diff(res) if baseline is not None else ()) if c.field != field]
            verdict.update(outcome="accepted", also_changes={c.field: [c.before, c.after] for c in changes})
            chosen = baseline[field] if baseline is not None else None
            text = f"{field}={value!r} would be accepted (without it: {chosen!r})."
            if changes:
                text += "\n  it would also change: " + ", ".join(f"{c.field} {c.before!r} -> {c.after!r}"
                                                              for c in changes)
    print(json.dumps(verdict, indent=2, default=repr) if args.json else text)
    return 0


def _coerce(spec: Any, raw: str) -> Any:
    text = str(spec.type)
    if raw.lower() in ("none", "null"):
        return None
    if "bool" in text:
        return raw.lower() in ("1", "true", "yes", "on")
    if "int" in text:
        try:
            return int(raw)
        except ValueError:
            raise InvalidArgumentError(f"--why-not {raw!r}: {spec.name} takes an integer") from None
    if "float" in text:
        return float(raw)
    return raw


# -- resolve / diff -------------------------------------------------------------------------


def cmd_resolve(args: argparse.Namespace, ignored: list[str]) -> int:
    user = _user_flags(args)
    res = _resolve(args, args.platform, user)
    ctx = res.publish()
    if args.json:
        data = res.to_dict()
        print(json.dumps({
            "schema": "resolvable.resolve/1", "model": args.model, "arch": res.arch,
            "platform": data["platform"], "user_args": data["user"], "values": data["values"],
            "context": ctx.to_dict(), "fingerprint": res.fingerprint(), "notes": data["notes"],
            "declarations": data["declarations"],
        }, indent=2))
        return 0
    print("\n".join(_header(res, args, user)))
    print()
    rows = [[path, short(ctx.leaf(path), 40), res.decided_by(field)[0]] for field, path in sorted(
        res.leaves.items(), key=lambda kv: kv[1])]
    print(table(["published leaf", "value", "decided by"], rows))
    return 0


def cmd_diff(args: argparse.Namespace, ignored: list[str]) -> int:
    user = _user_flags(args)
    other_user = {**user, **_parse_set(args.vs_set)}
    if args.vs_platform is None and not args.vs_set:
        raise UsageError("diff needs --vs-platform PRESET and/or --vs-set FLAG=VALUE")
    left = _resolve(args, args.platform, user)
    right = _resolve(args, args.vs_platform or args.platform, other_user)
    changes = [c for c in left.diff(right) if c.field != "device" or args.vs_platform]
    labels = (f"{args.platform}", f"{args.vs_platform or args.platform}"
              + (" + " + " ".join(args.vs_set) if args.vs_set else ""))
    if args.json:
        print(json.dumps({"schema": "resolvable.diff/1", "left": labels[0], "right": labels[1],
                          "changes": [c.to_dict() for c in changes]}, indent=2))
        return 0
    print(f"{args.model}: {labels[0]}  vs  {labels[1]}")
    if not changes:
        print("no resolved field differs")
        return 0
    rows = [[c.field, short(c.before, 24), c.decided_before, short(c.after, 24), c.decided_after] for c in changes]
    print(table(["field", labels[0], "decided by", labels[1], "decided by"], rows))
    return 0


# -- matrix / docs ----------------------------------------------------------------------------


def _csv_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def cmd_matrix(args: argparse.Namespace, ignored: list[str]) -> int:
    from ._schema import schema_of
    from .sglang import ServerArgs, load_model
    from .sglang import grid as sglang_grid
    from .sglang.matrix import compute, render

    models = _csv_list(args.models) or sglang_grid.models()
    platforms = _csv_list(args.platforms) or sglang_grid.presets()
    for p in platforms:
        Platform.preset(p)
    fields = _csv_list(args.fields) or ["attention_backend", "page_size"]
    schema = schema_of(ServerArgs)
    for f in fields:
        schema.spec(f)
    flags = _parse_set(args.set)
    cells = compute(models, platforms, fields, flags, _env(args.env), hf_loader=load_model)
    title = "SGLang support matrix" + (f" ({' '.join(args.set)})" if args.set else "")
    text = render(cells, args.format, fields=fields, title=title)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output} ({len(cells)} cells)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


DOCS = (("docs/support-matrix.md", "md"), ("docs/support-matrix.html", "html"))


def generate_docs() -> dict[str, str]:
    """The generated documents (path → content): support matrix (md, html) and rule reference."""
    from .sglang import grid as sglang_grid
    from .sglang import registry
    from .sglang.matrix import compute, render

    cells = compute(sglang_grid.models(), sglang_grid.presets(), ["attention_backend", "page_size"])
    title = "SGLang support matrix (bundled models × platform presets, default flags)"
    docs = {path: render(cells, fmt, fields=["attention_backend", "page_size"], title=title) for path, fmt in DOCS}
    docs["docs/rules.md"] = rules_reference(registry)
    return docs


def rules_reference(registry: Any) -> str:
    """Every rule of a registry, stage by stage, in execution order."""
    out = [f"# Rule reference: {registry.name}", "",
           "Generated by `resolvable docs`. Stages run top to bottom; inside a stage: constants, exact-architecture "
           "rules, predicate rules, then rules for every architecture, each in registration order. "
           "The last writer wins.", ""]
    rules = registry.rules
    for stage in registry.stages:
        mine = [r for r in rules if r.stage == stage.name]
        if not mine:
            continue
        isolated = " (isolated: rules read the state at the start of the stage)" if stage.isolated else ""
        out += [f"## `{stage.name}`{isolated}", "", stage.doc, "", "| rule | applies to | location | what it does |",
                "|---|---|---|---|"]
        for r in mine:
            applies = r.selector().replace("|", "\\|")
            doc = (r.doc or "").replace("|", "\\|")
            out.append(f"| `{r.name}` | {applies} | `{r.location}` | {doc} |")
        out.append("")
    return "\n".join(out)


def cmd_docs(args: argparse.Namespace, ignored: list[str]) -> int:
    stale = []
    for rel, content in generate_docs().items():
        path = os.path.join(args.root, rel)
        try:
            with open(path, encoding="utf-8") as fh:
                current = fh.read()
        except OSError:
            current = None
        if current != content:
            stale.append(rel)
            if not args.check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(content)
    if args.check:
        if stale:
            print(f"stale: {', '.join(stale)}; run `resolvable docs` to regenerate", file=sys.stderr)
            return EXIT_FINDINGS
        print("docs are up to date")
        return 0
    print(f"regenerated: {', '.join(stale) if stale else 'nothing (already up to date)'}")
    return 0


# -- platforms / models / lint ------------------------------------------------------------------


def _facts(p: Platform) -> dict[str, Any]:
    return {
        "sm90": p.is_sm90, "sm100": p.is_sm100, "sm120": p.is_sm120, "blackwell": p.is_blackwell,
        "amx": p.has_amx, "xmx": p.has_xmx, "device": p.device,
    }


def cmd_platforms(args: argparse.Namespace, ignored: list[str]) -> int:
    if args.detect:
        p = Platform.detect()
        if args.json:
            print(json.dumps({"schema": "resolvable.platform/1", "platform": p.to_dict(), "facts": _facts(p),
                              "detected_by": p.detected_by}, indent=2))
            return 0
        print(f"this machine: {p.describe()}")
        print(f"detected by:  {p.detected_by}")
        print(f"facts:        {', '.join(f'{k}={v}' for k, v in _facts(p).items())}")
        print(f"simulate another platform with --platform PRESET or {PLATFORM_ENV_VAR}=PRESET")
        return 0
    presets = Platform.presets()
    if args.json:
        print(json.dumps({"schema": "resolvable.platforms/1", "presets": {
            n: {**p.to_dict(), "facts": _facts(p)} for n, p in presets.items()}}, indent=2))
        return 0
    rows = []
    for name, p in presets.items():
        flags = [k for k in ("sm90", "sm100", "sm120", "blackwell", "amx", "xmx") if _facts(p)[k]]
        rows.append([name, p.device_name or "", p.describe(with_device_name=False), " ".join(flags)])
    print(table(["preset", "device", "facts", "predicates"], rows))
    return 0


def cmd_models(args: argparse.Namespace, ignored: list[str]) -> int:
    from .sglang import catalog, load_model

    entries = catalog()
    if args.json:
        print(json.dumps({"schema": "resolvable.models/1", "models": {
            n: {**e, "architecture": load_model(n).architecture} for n, e in entries.items()}}, indent=2))
        return 0
    rows = [[n, load_model(n).architecture, e["family"], e["repo_id"]] for n, e in entries.items()]
    print(table(["model", "architecture", "family", "hub repo"], rows))
    return 0


def cmd_lint(args: argparse.Namespace, ignored: list[str]) -> int:
    from ._lint import lint
    from .sglang import grid as sglang_grid
    from .sglang import registry, resolve_server_args
    from .sglang.models import bundled

    attempts = [
        (f"{m}@{p}:{v}", (lambda hf=hf, pl=pl, fl=fl: resolve_server_args(hf, pl, **fl)))
        for m, p, v, hf, pl, fl in sglang_grid.cases()
    ]
    # Explicit-choice sweep: every field a rule declared in a default cell, set by the user to
    # another valid value. A rule that declares over it without Force is a silent override.
    for m, p, _, hf, pl, _ in sglang_grid.cases(variants={"default": {}}):
        try:
            base = resolve_server_args(hf, pl, load_time=False)
        except ConflictError:
            continue
        for user in sglang_grid.explicit_variants(base):
            label = f"{m}@{p}:" + ",".join(f"{k}={v}" for k, v in user.items() if k != "model_path")
            attempts.append((label, lambda hf=hf, pl=pl, user=user: resolve_server_args(hf, pl, **user)))
    known = sorted({a for m in sglang_grid.models() for a in bundled(m).architectures} | registry.architectures())
    findings, stats = lint(registry, attempts, known)
    if args.json:
        print(json.dumps({"schema": "resolvable.lint/1", "stats": stats,
                          "findings": [f.__dict__ for f in findings]}, indent=2))
    else:
        print(f"linted {len(registry.rules)} rules over {stats['resolutions'] + stats['refusals']} configurations "
              f"({stats['refusals']} refused by design)")
        for f in findings:
            print(f"  {f}")
        print("no findings" if not findings else f"{len(findings)} finding(s)")
    return EXIT_FINDINGS if findings else 0


# -- parser -------------------------------------------------------------------------------------


def _add_model_inputs(p: argparse.ArgumentParser, *, platform_default: str) -> None:
    from .sglang.cli_args import add_cli_args

    p.add_argument("model", help="bundled sample name, config.json, model directory, or cached hub repo id")
    p.add_argument("--platform", default=platform_default,
                   help=f"platform preset to simulate, or 'detect' (default: {platform_default})")
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules")
    p.add_argument("--json", action="store_true", help="machine-readable output (schema in docs/cli-json.md)")
    add_cli_args(p, skip=("model_path",))


def build_parser() -> argparse.ArgumentParser:
    default_platform = "detect"
    parser = _Parser(prog="resolvable", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    from . import __version__

    parser.add_argument("--version", action="version", version=f"resolvable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("explain", help="why each resolved field has its value (and why not another)")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--field", help="explain only this field (default: every field that differs from its default)")
    p.add_argument("--why-not", metavar="VALUE", help="would FIELD=VALUE be accepted? who rejects or overrides it?")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("resolve", help="all resolved values and the published runtime context")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser("diff", help="what changes between two platforms or flag sets, and which rule changes it")
    _add_model_inputs(p, platform_default=default_platform)
    p.add_argument("--vs-platform", help="the platform preset to compare with")
    p.add_argument("--vs-set", action="append", metavar="FLAG=VALUE", default=[], help="extra flag on the right side")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("matrix", help="models × platforms support table (text, md, csv, json, html)")
    p.add_argument("--models", help="comma-separated models (default: every bundled sample)")
    p.add_argument("--platforms", help="comma-separated presets (default: every preset)")
    p.add_argument("--fields", help="comma-separated fields per cell (default: attention_backend,page_size)")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE", help="SGLang flag applied to every cell")
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment variable seen by the rules")
    p.add_argument("--format", choices=("text", "md", "csv", "json", "html"), default="text")
    p.add_argument("-o", "--output", help="write to FILE instead of stdout")
    p.set_defaults(func=cmd_matrix)

    p = sub.add_parser("platforms", help="platform presets and their facts; --detect for this machine")
    p.add_argument("--detect", action="store_true", help="show what this machine is and how it was detected")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_platforms)

    p = sub.add_parser("models", help="the bundled model configs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("lint", help="check the rule registry over bundled models × presets × flag variants")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("docs", help="regenerate docs/support-matrix.{md,html} (--check: fail if stale)")
    p.add_argument("--check", action="store_true")
    p.add_argument("--root", default=".", help="project root (default: current directory)")
    p.set_defaults(func=cmd_docs)
    return parser


_TAKES_SGLANG_FLAGS = ("explain", "resolve", "diff")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and args.command not in _TAKES_SGLANG_FLAGS:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        sub = parser._subparsers._group_actions[0].choices[args.command]  # type: ignore[union-attr]
        ignored = _check_extras(sub, extra) if extra else []
        _report_ignored(ignored)
        return int(args.func(args, ignored) or 0)
    except ConflictError as exc:
        print(f"error: refused: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ResolvableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse: --help, --version, usage errors (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: say so without a wall of traceback unless asked
        if os.environ.get("RESOLVABLE_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {exc} (set RESOLVABLE_DEBUG=1 for a traceback; "
              "please report it)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
