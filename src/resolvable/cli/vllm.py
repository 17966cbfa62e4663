"""`resolvable COMMAND --engine vllm …` (or a pasted vLLM command): explain, resolve, matrix,
models, backends for every release the vLLM pack resolves (diff and upgrade: cli/diff.py, cli/upgrade.py).

``main()`` routes here when ``--engine vllm`` is given or the command after ``--`` starts vLLM
(``vllm serve``, the api_server module, a ``vllm/vllm-openai`` docker image). The parser carries
resolvable's own options and every flag of ``vllm serve`` of the release being modelled (its
table: ``resolvable.vllm.flags``), and the argv goes through vLLM's own pre-processing first
(underscores, ``-O3``, dotted JSON keys, ``--config`` YAML). Invariants: the same as the SGLang
commands — every user error is one ``error:`` line and exit code 2; ``--json`` output carries a
versioned ``schema``; the release is named in the header, the fingerprint and the JSON; every flag
of the launch is either read by the rules or listed as not modelled, and every variable of the
launch's environment too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._text import checks_passed, short, table
from ..errors import ConflictError
from ._common import UsageError, _csv_list, _env_pairs
from .explain import _explain_lines, _refusal_lines
from .render import node_line, release_line, release_note


def _pack() -> Any:
    """The pack this front-end serves: the registered pack whose ``Pack.frontend`` names this
    module (``cli._frontend``), read through the registry, never by name."""
    own = __name__.rpartition(".")[2]
    return next(packs.get(n) for n in packs.names() if packs.get(n).frontend == own)


def run_pack(frontend_pack: Any, argv: Sequence[str], pasted: Any = None) -> int:
    """The front-end entry point of ``Pack.frontend`` ``vllm`` (``cli._frontend``)."""
    return main(argv, pasted, frontend_pack)


def main(argv: Sequence[str], pasted: Any = None, frontend_pack: Any = None) -> int:
    """Run ``explain`` or ``resolve``: read by the front door (``cli.launchcmd``) and rendered by
    ``explain``/``resolve`` below; the table commands are parsed by ``cli.tables`` and rendered
    by ``matrix``/``models``/``backends`` below."""
    from .launchcmd import main as launch_main

    return launch_main(frontend_pack or _pack(), list(argv), pasted)


# -- the launch: model, flags, environment ----------------------------------------------------


def _judge(args: argparse.Namespace, *, trace: bool = False) -> tuple[Any, Any, Any, Any]:
    """(resolution, verdict, checks passed, start-up refusal) of the command's launch, judged by
    ``Pack.verdict`` (``cli.verdicts.judge``)."""
    from .verdicts import judge

    return judge(args.pack, args.launch, trace=trace, startup=getattr(args, "startup_check", True))


def _startup_lines(passed: Any, refusal: ConflictError | None, *, skipped: bool = False) -> list[str]:
    vllm = _pack()
    STARTUP_LABEL, NOT_KNOWN_OFFLINE = vllm.startup_label, vllm.not_known_offline
    if skipped:
        lines = [f"{STARTUP_LABEL}: not run (--no-startup-check); create_engine_config accepts it"]
    elif refusal is None:
        lines = [
            f"{STARTUP_LABEL}: accepted by create_engine_config, and would start ({checks_passed(len(passed))})"
        ]
    else:
        lines = [
            f"{STARTUP_LABEL}: accepted by create_engine_config, refused at engine start: {refusal.message}"
        ]
        if refusal.fix:
            lines.append(f"    fix: {refusal.fix}")
    lines.append("not known offline (decided on the GPU at start):")
    return lines + [f"    - {item}" for item in NOT_KNOWN_OFFLINE]


def _startup_json(passed: Any, refusal: ConflictError | None) -> dict[str, Any]:
    vllm = _pack()
    return {
        "phase": vllm.startup_phase,
        "label": vllm.startup_label,
        "would_start": refusal is None,
        "checks_passed": [r.name for r in passed],
        "refusal": None
        if refusal is None
        else {
            "message": refusal.message,
            "rule": refusal.rule,
            "location": refusal.location,
            "fix": refusal.fix,
        },
        "not_known_offline": list(vllm.not_known_offline),
    }


def _header(res: Any, args: argparse.Namespace) -> list[str]:
    launch = args.launch
    parsed = launch.parsed
    modelled = [s for s in parsed.shown_all() if s not in parsed.shown]
    lines = [f"model     {launch.model}  [{res.arch}]"]
    if launch.model_config is not None:
        lines.append(
            f"config    read from {launch.model_config} (--model-config), standing for {launch.model}"
        )
    if launch.launcher is not None:
        lines.append(
            f"command   {launch.launcher}" + "".join(f"  {k}={v}" for k, v in _command_env(args).items())
        )
    lines += [
        f"platform  {res.platform.name}: {res.platform.describe()}",
        f"flags     {' '.join(modelled) or '(none)'}",
    ]
    if parsed.shown:
        lines.append(f"not modelled (accepted, not read by the rules): {' '.join(parsed.shown)}")
    lines += [
        release_line(args.pack, launch, args.release_note),
        f"rules     vllm {res.release} ({len(res.declarations)} declarations)  fingerprint {res.fingerprint()}",
        node_line(res.platform, launch.node),
        f"kernels   {', '.join(res['installed_kernels']) or '(none)'}  (standard install; override with --kernels)",
    ]
    lines += [f"env       {line}" for line in args.pack.classify_env(dict(launch.env), res.release).lines()]
    lines += [f"note      {n}" for n in parsed.notes]
    # The vLLM pack dispatches on config facts, not on architecture names: the engine's
    # "no architecture-specific rule" note says nothing here.
    return lines + [f"note      {n}" for n in res.notes if "architecture-specific" not in n]


def _command_env(args: argparse.Namespace) -> dict[str, str]:
    """The pasted command's own assignments (and docker ``-e``), as the header shows them."""
    return dict(args.pasted.env) if args.pasted is not None else {}


def _launch_json(args: argparse.Namespace, res: Any) -> dict[str, Any]:
    parsed = args.launch.parsed
    return {
        "vllm_version": res.release,
        "release_note": args.release_note,
        "launcher": args.launch.launcher,
        "flags": {k: v for k, v in parsed.values.items() if k not in parsed.not_modelled},
        "not_modelled": parsed.not_modelled,
        "environment": args.pack.classify_env(dict(args.launch.env), res.release).to_dict(),
        "notes": list(parsed.notes),
    }


# -- commands ------------------------------------------------------------------------------


def explain(args: argparse.Namespace) -> int:
    """The vLLM rendering of ``explain`` (``cli.launchcmd``: ``args.pack``, ``args.launch``)."""
    args.release_note = release_note(args.pack, args.launch, args.pasted)
    try:
        res, verdict, passed, refusal = _judge(args, trace=True)
    except ConflictError as exc:
        if not args.json:
            print("\n".join(_refusal_lines(exc)))
        raise
    hidden = [] if args.field or args.all else sorted(_pack().not_applicable(res) & set(res.changed()))
    fields = [args.field] if args.field else [f for f in _in_pipeline_order(res) if f not in hidden]
    explained = [res.explain(f) for f in fields]
    from .fit import verdict_memory_section
    from .verdicts import say

    memory_lines, memory_json = verdict_memory_section(
        args.pack,
        res,
        verdict,
        args.launch,
        context="max_model_len",
        fit_command="resolvable fit --engine vllm",
    )
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.explain/1",
                    "engine": _pack().name,
                    "model": args.launch.model,
                    "arch": res.arch,
                    "platform": res.platform.to_dict(),
                    "user_args": dict(res.user),
                    "installed_kernels": res["installed_kernels"],
                    "notes": list(res.notes),
                    "fingerprint": res.fingerprint(),
                    **_launch_json(args, res),
                    "fields": {e.field: e.to_dict() for e in explained},
                    "startup": _startup_json(passed, refusal),
                    "memory": memory_json,
                    "verdict": verdict.to_dict(),
                },
                indent=2,
                default=repr,
            )
        )
        return say(verdict)
    print("\n".join(_header(res, args)))
    print("\n".join(memory_lines))
    for exp in explained:
        if exp.steps or args.field:
            print()
            print("\n".join(_explain_lines(exp, res) + _precluded(exp, res)))
    untouched = [f"{e.field}={e.value!r}" for e in explained if not e.steps and not args.field]
    if untouched:
        print(f"\nfrom your flags, untouched by any rule: {', '.join(untouched)}")
    if hidden:
        print(f"\nnot shown, irrelevant for this model: {', '.join(hidden)} (--all shows them)")
    print()
    print("\n".join(_startup_lines(passed, refusal, skipped=not getattr(args, "startup_check", True))))
    print(verdict.line())
    print(
        "\nlegend: ✓ applied/chosen  ! forced over your flag  ✗ blocked / rejected  ~ shadowed  · valid, lower priority"
    )
    return say(verdict)


def _in_pipeline_order(res: Any) -> list[str]:
    """The changed fields in the order vLLM decides them (first declaration first)."""
    first: dict[str, int] = {}
    for decl in res.declarations:
        for field in (w.field for w in decl.writes):
            first.setdefault(field, decl.seq)
    changed = [f for f in res.changed() if f != "installed_kernels"]
    return sorted(changed, key=lambda f: first.get(f, 1 << 30))


def _precluded(exp: Any, res: Any) -> list[str]:
    """vLLM's warning when --block-size alone removed higher-priority backends (platforms/cuda.py)."""
    out = []
    for step in exp.steps:
        choice = getattr(step, "choice", None)
        if choice is None or "block_size" not in res.user:
            continue
        names = choice.precluded_only_by("block_size not supported")
        if names:
            out.append(
                f"       vLLM warns: --block-size {res.user['block_size']} precluded higher-priority backend(s) "
                f"{', '.join(names)}; using {choice.chosen} instead (remove --block-size to auto-select)"
            )
    return out


def resolve(args: argparse.Namespace) -> int:
    """The vLLM rendering of ``resolve`` (``cli.launchcmd``: ``args.pack``, ``args.launch``)."""
    args.release_note = release_note(args.pack, args.launch, args.pasted)
    from .verdicts import say

    res, verdict, passed, refusal = _judge(args)
    ctx = res.publish()
    if args.json:
        data = res.to_dict()
        print(
            json.dumps(
                {
                    "schema": "resolvable.resolve/1",
                    "engine": _pack().name,
                    "model": args.launch.model,
                    "arch": res.arch,
                    "platform": data["platform"],
                    "user_args": data["user"],
                    "values": data["values"],
                    "context": ctx.to_dict(),
                    "fingerprint": res.fingerprint(),
                    **_launch_json(args, res),
                    "notes": data["notes"],
                    "declarations": data["declarations"],
                    "release": res.release,
                    "engine_config": _pack().engine_config(res),
                    "startup": _startup_json(passed, refusal),
                    "verdict": verdict.to_dict(),
                },
                indent=2,
                default=repr,
            )
        )
        return say(verdict)
    print("\n".join(_header(res, args)))
    print(verdict.line())
    print()
    rows = [
        [path, short(ctx.leaf(path), 40), res.decided_by(field)[0]]
        for field, path in sorted(res.leaves.items(), key=lambda kv: kv[1])
    ]
    print(table(["published leaf", "value", "decided by"], rows))
    print()
    print("\n".join(_startup_lines(passed, refusal, skipped=not getattr(args, "startup_check", True))))
    return say(verdict)


def _parse_set(pairs: Sequence[str], release: str) -> Any:
    """``--set``/``--vs-set FLAG=VALUE`` pairs → a parsed vLLM command line of ``release``."""
    argv: list[str] = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        flag = key if key.startswith("-") else "--" + key.replace("_", "-")
        argv += [flag, value] if sep else [flag]
    return _pack().parse_argv(["model", *argv], release)


def _matrix_platforms() -> tuple[str, ...]:
    return tuple(_pack().grid_platforms)


def matrix_cells(
    models: Sequence[str],
    platforms: Sequence[str],
    parsed: Any,
    env: dict[str, str],
    release: str | None = None,
    *,
    gpus: int | None = None,
    fields: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """One cell per (model, platform): the backend per layer kind and the block size (and the
    ``fields`` asked for), or the refusal."""
    vllm = _pack()
    kwargs = vllm.resolution_kwargs(parsed)
    cells = []
    for model in models:
        hf = vllm.load_model(model)
        for name in platforms:
            try:
                res = vllm.resolve(
                    hf, vllm.with_gpus(vllm.platform(name), gpus), env, release=release, **kwargs
                )
            except ConflictError as exc:
                cells.append({"model": model, "platform": name, "refused": exc.message})
                continue
            backends = {k: res[f] for k, f in vllm.kind_fields.items() if res[f] is not None}
            cell = {"model": model, "platform": name, "backends": backends, "block_size": res["block_size"]}
            if fields:
                cell["values"] = {f: res[f] for f in fields}
            cells.append(cell)
    return cells


def _cell_text(cell: dict[str, Any]) -> str:
    if "refused" in cell:
        return "refused"
    if "values" in cell:
        return " ".join(f"{v}" if not isinstance(v, list) else f"[{len(v)}]" for v in cell["values"].values())
    names = list(dict.fromkeys(cell["backends"].values()))
    return "/".join(names) + f" bs{cell['block_size']}"


def matrix(args: argparse.Namespace) -> int:
    """``resolvable matrix`` of this pack (parsed by ``cli.tables``)."""
    vllm = _pack()
    if args.format not in ("text", "md", "json"):
        raise UsageError(f"--format {args.format}: the {vllm.title} matrix renders text, md or json")
    args.release = vllm.release(args.release)
    models = _csv_list(args.models) or list(vllm.catalog())
    platforms = _csv_list(args.platforms) or list(_matrix_platforms())
    for name in platforms:
        vllm.platform(name)
    env = {**vllm.env_from_os(), **_env_pairs(args.env)}
    fields = _csv_list(args.fields) or []
    for field in fields:
        if field not in vllm.args_class.__dataclass_fields__:
            raise UsageError(f"--fields: {field!r} is not a vLLM field; e.g. max_num_seqs, async_scheduling")
    cells = matrix_cells(
        models,
        platforms,
        _parse_set(args.set, args.release),
        env,
        args.release,
        gpus=args.gpus,
        fields=fields,
    )
    other = vllm.release(args.vs_release) if args.vs_release else None
    if other is not None:
        if other == args.release:
            vs = "--vs-" + vllm.release_option.removeprefix("--")
            raise UsageError(f"{vllm.release_option} and {vs} are both {other}")
        after = matrix_cells(
            models, platforms, _parse_set(args.set, other), env, other, gpus=args.gpus, fields=fields
        )
        changed = [
            {
                "model": a["model"],
                "platform": a["platform"],
                args.release: _cell_text(a),
                other: _cell_text(b),
            }
            for a, b in zip(cells, after)
            if _cell_text(a) != _cell_text(b)
        ]
        if args.format == "json":
            print(
                json.dumps(
                    {
                        "schema": "resolvable.vllm-matrix-diff/1",
                        "from": args.release,
                        "to": other,
                        "changed": changed,
                    },
                    indent=2,
                )
            )
            return 0
        print(f"vLLM {args.release} → {other}: {len(changed)} of {len(cells)} cells change")
        if changed:
            print(
                table(
                    ["model", "platform", args.release, other],
                    [[c["model"], c["platform"], c[args.release], c[other]] for c in changed],
                )
            )
        return 0
    if args.format == "json":
        print(
            json.dumps(
                {"schema": "resolvable.vllm-matrix/1", "vllm_version": args.release, "cells": cells}, indent=2
            )
        )
        return 0
    by = {(c["model"], c["platform"]): _cell_text(c) for c in cells}
    rows = [[m, *(by[(m, p)] for p in platforms)] for m in models]
    if args.format == "md":
        lines = [
            f"vLLM {args.release}",
            "",
            "| model | " + " | ".join(platforms) + " |",
            "|" + "---|" * (len(platforms) + 1),
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        print("\n".join(lines))
    else:
        print(f"vLLM {args.release}")
        print(table(["model", *platforms], rows))
    return 0


def models(args: argparse.Namespace) -> int:
    """``resolvable models`` of this pack (parsed by ``cli.tables``)."""
    vllm = _pack()
    rows, data = [], {}
    for name, entry in vllm.catalog().items():
        hf = vllm.load_model(name)
        mla = vllm.use_mla(hf, {})
        try:
            kinds = vllm.kinds_of(hf, mla)
        except ConflictError:
            kinds = ["(not modelled)"]
        data[name] = {**entry, "architecture": hf.architecture, "use_mla": mla, "layer_kinds": kinds}
        rows.append([name, hf.architecture, "MLA" if mla else "MHA", ", ".join(kinds)])
    if args.json:
        print(json.dumps({"schema": "resolvable.models/1", "engine": _pack().name, "models": data}, indent=2))
        return 0
    print(table(["model", "architecture", "attention", "vLLM layer kinds"], rows))
    return 0


def backends(args: argparse.Namespace) -> int:
    """``resolvable backends`` of this pack (parsed by ``cli.tables``): every backend of the
    capability table (its rows are the candidates' checks, not probes per preset)."""
    vllm = _pack()
    if args.backends or args.platforms:
        raise UsageError(
            f"--backends/--platforms: the {vllm.title} table lists every backend on every platform; "
            "leave them out"
        )
    if args.format == "html":
        raise UsageError(f"--format html: the {vllm.title} backend table renders text, md or json")
    args.release = vllm.release(args.release)
    rows = vllm.capability_table()
    if args.format == "json":
        print(
            json.dumps(
                {"schema": "resolvable.vllm-backends/1", "vllm_version": args.release, "backends": rows},
                indent=2,
            )
        )
    elif args.format == "md":
        sys.stdout.write(vllm.capability_markdown(rows))
    else:
        keep = ("backend", "platforms", "MLA", "sparse", "block sizes", "compute capability", "sinks")
        print(f"vLLM {args.release}")
        print(table(list(keep), [[short(r[c], 40) for c in keep] for r in rows]))
        print(f"\n({len(vllm.capability_columns)} columns with --format md or json)")
    return 0
