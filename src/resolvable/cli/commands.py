"""`resolvable resolve | diff | matrix | platforms | models | lint`.

Invariant: each command only reads; JSON output carries a versioned ``schema`` key (docs/cli-json.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._files import shown
from .._platform import PLATFORM_ENV_VAR, Platform
from .._text import short, table
from ._common import (
    EXIT_FINDINGS,
    UsageError,
    _csv_list,
    _env,
    _header,
    _parse_set,
    _user_flags,
    default_pack,
)
from .explain import _not_modelled_json


def cmd_resolve(args: argparse.Namespace, ignored: list[str]) -> int:
    from .explain import _startup_json, _startup_lines, _verdict_exit, judge_launch

    user = _user_flags(args)
    res, verdict, passed, refusal = judge_launch(args, user)
    skipped = not args.startup_check
    ctx = res.publish()
    if args.json:
        data = res.to_dict()
        print(
            json.dumps(
                {
                    "schema": "resolvable.resolve/1",
                    "model": args.model,
                    "arch": res.arch,
                    "sglang_version": res.release,
                    "platform": data["platform"],
                    "user_args": data["user"],
                    "not_modelled": _not_modelled_json(args),
                    "input_notes": list(getattr(args, "input_notes", ())),
                    "values": data["values"],
                    "context": ctx.to_dict(),
                    "fingerprint": res.fingerprint(),
                    "notes": data["notes"],
                    "declarations": data["declarations"],
                    "startup": _startup_json(passed, refusal, skipped=skipped),
                    "verdict": verdict.to_dict(),
                },
                indent=2,
                default=repr,
            )
        )
        return _verdict_exit(verdict, refusal)
    print("\n".join(_header(res, args, user)))
    print("\n".join(_startup_lines(passed, refusal, skipped=skipped)))
    print(verdict.line())
    print()
    from .explain import _not_applicable

    hidden = frozenset() if args.all else _not_applicable(args, res)
    rows = [
        [path, short(ctx.leaf(path), 40), res.decided_by(field)[0]]
        for field, path in sorted(res.leaves.items(), key=lambda kv: kv[1])
        if field not in hidden
    ]
    print(table(["published leaf", "value", "decided by"], rows))
    return _verdict_exit(verdict, refusal)


def cmd_matrix(args: argparse.Namespace, ignored: list[str]) -> int:
    from .._schema import schema_of

    sglang = default_pack()
    sglang_release, Cell = sglang.release, sglang.matrix_cell
    models = _csv_list(args.models) or sglang.grid_models()
    platforms = _csv_list(args.platforms) or sglang.grid_presets()
    for p in platforms:
        Platform.preset(p)
    fields = _csv_list(args.fields) or ["attention_backend", "page_size"]
    schema = schema_of(sglang.args_class)
    for f in fields:
        if f != "kv_tokens":  # the memory model's pseudo-field (sglang/matrix.py KV_TOKENS_FIELD)
            schema.spec(f)
    release = sglang_release(args.release)
    other = None if args.vs_release is None else sglang_release(args.vs_release)
    if other == release:
        option, vs = sglang.release_option, "--vs-" + sglang.release_option.removeprefix("--")
        raise UsageError(
            f"{option} and {vs} are both {sglang.name} {release}; compare two releases: "
            f"{option} A {vs} B (A defaults to the default release, {sglang_release(None)})"
        )
    options = {"hf_loader": sglang.load_model, "startup": args.startup_check}

    def cells_of(version: str) -> list[Any]:
        """The cells of one release, its --set flags read with that release's flag table: a flag
        the release does not accept refuses every cell of that side (never a parse error)."""
        from ._common import FlagError, _Parser, flag_refusal

        _Parser.raise_errors = other is not None
        try:
            flags = _parse_set(args.set, version)
        except FlagError as exc:
            if other is None:
                raise
            refusal = flag_refusal(exc, version)
            return [
                Cell(
                    m,
                    p,
                    None,
                    refusal.message,
                    refusal.rule,
                    message=refusal.message,
                    fix=refusal.fix,
                    refused_at=refusal.location,
                    release=version,
                )
                for m in models
                for p in platforms
            ]
        finally:
            _Parser.raise_errors = False
        return sglang.matrix(
            models, platforms, fields, flags, _env(args.env), sglang_version=version, **options
        )

    cells = cells_of(release)
    title = "SGLang support matrix" + (f" ({' '.join(args.set)})" if args.set else "")
    if other is None:
        text = sglang.render_matrix(cells, args.format, fields=fields, title=title)
        wrote = f"{len(cells)} cells"
    else:
        after = cells_of(other)
        diff = sglang.compare_matrices(cells, after, fields)
        title = f"{title}: what changes from sglang {release} to {other}"
        text = sglang.render_matrix_diff(diff, args.format, title=title)
        wrote = diff.summary
    if args.output:
        from .._files import write_atomic

        write_atomic(args.output, text, what="matrix output")
        print(f"wrote {shown(args.output)} ({wrote})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _facts(p: Platform) -> dict[str, Any]:
    # The generation predicates are SGLang's gates (its pack defines them), asked of the pack.
    return {
        **default_pack().platform_facts(p),
        "amx": p.has_amx,
        "xmx": p.has_xmx,
        "device": p.device,
    }


def cmd_platforms(args: argparse.Namespace, ignored: list[str]) -> int:
    if args.detect:
        from ._common import check_platform_env

        check_platform_env()
        p = Platform.detect()
        if args.json:
            print(
                json.dumps(
                    {
                        "schema": "resolvable.platform/1",
                        "platform": p.to_dict(),
                        "facts": _facts(p),
                        "detected_by": p.detected_by,
                    },
                    indent=2,
                )
            )
            return 0
        print(f"this machine: {p.describe()}")
        print(f"detected by:  {p.detected_by}")
        print(f"facts:        {', '.join(f'{k}={v}' for k, v in _facts(p).items())}")
        print(f"simulate another platform with --platform PRESET or {PLATFORM_ENV_VAR}=PRESET")
        return 0
    presets = Platform.presets()
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.platforms/1",
                    "presets": {n: {**p.to_dict(), "facts": _facts(p)} for n, p in presets.items()},
                },
                indent=2,
            )
        )
        return 0
    rows = []
    for name, p in presets.items():
        flags = [k for k in ("sm90", "sm100", "sm120", "blackwell", "amx", "xmx") if _facts(p)[k]]
        memory = f"{p.memory_gib:g} GiB" if p.memory_gib is not None else "-"
        rows.append([name, p.device_name or "", memory, p.describe(with_device_name=False), " ".join(flags)])
    print(table(["preset", "device", "memory", "facts", "predicates"], rows))
    return 0


def cmd_models(args: argparse.Namespace, ignored: list[str]) -> int:
    sglang = default_pack()
    load_model = sglang.load_model
    entries = sglang.catalog()
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.models/1",
                    "models": {
                        n: {**e, "architecture": load_model(n).architecture} for n, e in entries.items()
                    },
                },
                indent=2,
            )
        )
        return 0
    rows = [[n, load_model(n).architecture, e["family"], e["repo_id"]] for n, e in entries.items()]
    print(table(["model", "architecture", "family", "hub repo"], rows))
    return 0


def cmd_lint(args: argparse.Namespace, ignored: list[str] | None = None) -> int:
    """Lint the rule registry of the pack ``--engine`` names over its own cases
    (``Pack.lint_attempts``: every modelled release) and architectures (``Pack.lint_architectures``)."""
    from .._lint import lint
    from ._common import pack as pack_named

    sglang = pack_named(args.engine) if getattr(args, "engine", None) else default_pack()
    registry = sglang.registry
    attempts = []
    for release in registry.releases:  # every modelled release: its own plan, its own findings
        attempts += sglang.lint_attempts(release)
    known = sglang.lint_architectures()
    findings, stats = lint(registry, attempts, known)
    if args.json:
        print(
            json.dumps(
                {"schema": "resolvable.lint/1", "stats": stats, "findings": [f.__dict__ for f in findings]},
                indent=2,
            )
        )
    else:
        print(
            f"linted {len(registry.rules)} rules over {stats['resolutions'] + stats['refusals']} configurations "
            f"in {len(registry.releases)} {sglang.name} releases ({stats['refusals']} refused by design)"
        )
        for f in findings:
            print(f"  {f}")
        print("no findings" if not findings else f"{len(findings)} finding(s)")
    return EXIT_FINDINGS if findings else 0
