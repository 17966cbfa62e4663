"""``resolvable compare``: one launch in both engines, side by side (text, ``--json``, ``--html``).

The launch comes in either engine's form (a pasted command after ``--``, or MODEL and tool flags
with ``--engine``). It is translated into the other engine's flags by the pair's translation
table (``resolvable.packs.translation``, ``resolvable.translate``), then each side is answered by
judging that engine's command as every launch command does (``Pack.build_launch`` →
``Pack.verdict``), so each side's values and verdict are ``explain``'s own (the acceptance test
compares them). The
rows and their reasons are built by ``resolvable.compare``.

Invariants: no engine is named here (the packs and the pair's table carry every engine-specific
name); a flag without an equivalent is listed, never dropped; the memory knobs are not equated
unless ``--same-memory-budget`` asks for a matched KV budget, and the output says which; user
errors are one ``error:`` line (exit 2); the HTML page is written atomically.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from .. import packs
from ..compare import Side, compare_rows, matched_fraction
from ._common import UsageError, _Parser, pack

__all__ = ["build_parser", "compare_launch", "main", "run_side"]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="resolvable compare",
        allow_abbrev=False,  # an engine flag (vLLM's --model) is never a prefix of ours (--models)
        description="one launch in every engine of a translation pair, side by side: the verdict, "
        "attention backends, KV cache, CUDA graphs, scheduling, each difference with its rule",
        epilog="paste the launch after `--`: resolvable compare --platform h100 -- vllm serve MODEL -tp 4",
    )
    p.add_argument(
        "model", nargs="?", help="bundled sample, config.json, directory or hub id (with tool flags)"
    )
    p.add_argument(
        "--engine",
        choices=packs.names(),
        help="the engine whose flag names the tool flags after MODEL use (a pasted command names its own)",
    )
    p.add_argument("--platform", default="detect", metavar="PRESET", help="platform preset, or 'detect'")
    p.add_argument("--gpus", type=int, metavar="N", help="GPUs on the node (for engines that check it)")
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment variable of the launch")
    p.add_argument(
        "--model-config",
        dest="model_config",
        metavar="PATH|SAMPLE",
        help="a config.json, model directory or bundled sample that stands for the model in both engines "
        "(a local model path that is not on this machine)",
    )
    for name in packs.names():
        p.add_argument(
            pack(name).release_option,
            dest=f"release_{name}",
            metavar="VERSION",
            help=f"{pack(name).title or name} release (default: the newest modelled)",
        )
    p.add_argument(
        "--same-memory-budget",
        action="store_true",
        help="give the other engine the source engine's KV pool (its memory knob derived from the "
        "memory model) instead of its own default",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (resolvable.compare/1)")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write a model × GPU grid of both engines as an HTML page (the flags of every cell after `--`, "
        "in --engine's names)",
    )
    p.add_argument("--models", help="comma-separated models for --html (default: 20 bundled samples)")
    p.add_argument("--platforms", help="comma-separated presets for --html (default: a100,h100,h200,b200)")
    return p


def _split(argv: Sequence[str]) -> tuple[list[str], list[str] | None]:
    if "--" not in argv:
        return list(argv), None
    i = list(argv).index("--")
    return list(argv[:i]), list(argv[i + 1 :])


def run_side(
    engine: str,
    words: Sequence[str],
    env: dict[str, str],
    *,
    platform: str,
    release: str,
    gpus: int | None,
    trace: bool = True,
    model_config: str | None = None,
) -> tuple[Side, Any]:
    """(one engine's answer, its ``Launch``) for its launch command ``words``: the pack's
    ``Launch`` and its one verdict (``Pack.build_launch``, ``Pack.verdict``), as every launch
    command reads it."""
    from ..compare import decided_by

    p = pack(engine)
    launch = p.build_launch(
        command=list(words),
        command_env=dict(env),
        release=release,
        release_from="flag",
        platform=platform,
        gpus=gpus,
        model_config=model_config,
    )
    res, verdict = p.verdict(launch, trace=trace)
    report = verdict.memory
    if report is not None:
        memory = report.to_dict()
    else:
        unknown = [u for u in verdict.unknowns if u.startswith("memory")]
        memory = {"error": unknown[0].partition(": ")[2]} if unknown else {}
    resolved = res is not None and verdict.stage not in ("resolve", "parse")
    values = {k: res[k] for k in res} if resolved else {}
    command = [f"{k}={v}" for k, v in env.items()] + list(words)
    side = Side(
        engine,
        launch.release,
        tuple(command),
        values,
        decided_by(res) if resolved else {},
        memory,
        verdict,
        res.fingerprint() if resolved else None,
        tuple(launch.notes),
        str(getattr(res, "arch", "") or ""),
    )
    return side, launch


def _target_side(engine: str, words: Sequence[str], env: dict[str, str], **kw: Any) -> Side:
    """The translated side; an input error there (the other engine cannot read the model, say)
    is that side's answer, not the end of the comparison (the source side was judged)."""
    from ..errors import ResolvableError

    try:
        return run_side(engine, words, env, **kw)[0]
    except ResolvableError as exc:
        command = tuple([f"{k}={v}" for k, v in env.items()] + list(words))
        return Side(engine, kw["release"], command, {}, {}, {}, None, error=str(exc))


def _launch_flags(engine: str, words: Sequence[str]) -> tuple[str | None, list[str]]:
    """(the positional model, if any; the flags) of a launch command."""
    p = pack(engine)
    parse = getattr(p, "parse_launch", None)
    argv = list(parse(list(words)).argv) if parse is not None else p.launch_flags(words)
    model = None
    while argv and not argv[0].startswith("-"):
        model = model or argv[0]
        argv = argv[1:]
    return model, argv


def compare_launch(
    source: str,
    words: Sequence[str],
    env: dict[str, str],
    *,
    platform: str,
    releases: dict[str, str],
    gpus: int | None = None,
    same_memory_budget: bool = False,
    target: str | None = None,
    trace: bool = True,
    model_config: str | None = None,
) -> dict[str, Any]:
    """The whole comparison as the ``resolvable.compare/1`` document."""
    from ..translate import parse_flags, translate, translate_env

    if target is None:
        others = [n for n in packs.names() if n != source]
        target = next((n for n in others if _has_table(source, n)), None)
        if target is None:
            raise UsageError(f"no engine to compare {source} with: no pack has a translation table for it")
    table = packs.translation(source, target)
    side = {"platform": platform, "gpus": gpus, "trace": trace, "model_config": model_config}
    src_side, src_launch = run_side(source, words, env, release=releases[source], **side)
    src_table = pack(source).flag_table(releases[source])
    tgt_table = pack(target).flag_table(releases[target])
    _, argv = _launch_flags(source, words)
    flags, unknown = parse_flags(argv, src_table.by_option, releases[source])
    model = src_launch.model
    tr = translate(table, source, flags, tgt_table, unknown=unknown)
    tgt_env, env_steps, env_left = translate_env(table, source, env)
    tgt_words = pack(target).launch_command(model, tr.target_words)
    tgt_side = _target_side(target, tgt_words, tgt_env, release=releases[target], **side)
    knobs = dict(table.memory_knobs)
    budget = {"mode": "each engine's own default (or the source command's flag)", "flag": None}
    if same_memory_budget:
        knob, flag = knobs.get(target, ("", ""))
        fraction = matched_fraction(src_side, tgt_side, knob) if knob else None
        if fraction is None:
            budget = {"mode": "not matched: a side's memory is unknown", "flag": None}
        else:
            tgt_words = pack(target).launch_command(model, [*tr.target_words, flag, str(fraction)])
            tgt_side = _target_side(target, tgt_words, tgt_env, release=releases[target], **side)
            budget = {
                "mode": f"matched: {target} given {source}'s KV pool per rank",
                "flag": f"{flag} {fraction}",
            }
    sides = {source: (table.side(source), src_side), target: (table.side(target), tgt_side)}
    rows = compare_rows(table.rows, sides, knobs)
    return {
        "schema": "resolvable.compare/1",
        "model": model,
        "platform": platform,
        "source": source,
        "target": target,
        "translation": {
            **tr.to_dict(),
            "env": [{"from": a, "to": b} for a, b in env_steps],
            "untranslated": tr.to_dict()["untranslated"] + [{"flag": f, "why": w} for f, w in env_left],
        },
        "memory_budget": budget,
        "sides": {e: s.to_dict() for e, (_, s) in sides.items()},
        "rows": rows,
    }


def _has_table(a: str, b: str) -> bool:
    try:
        packs.translation(a, b)
    except packs.PackError:
        return False
    return True


def render_text(doc: dict[str, Any]) -> str:
    from .._text import short
    from .._text import table as text_table

    src, tgt = doc["source"], doc["target"]
    title = {e: pack(e).title or e for e in (src, tgt)}
    lines = [f"model     {doc['model']}   platform {doc['platform']}"]
    for e in (src, tgt):
        side = doc["sides"][e]
        lines.append(f"{title[e]:<9} {side['release']}: {' '.join(side['command'])}")
    lines.append("")
    lines.append(f"translation {title[src]} → {title[tgt]}:")
    for step in doc["translation"]["steps"]:
        note = f"  ({step['note']})" if step["note"] else ""
        lines.append(f"  {' '.join(step['from'])} → {' '.join(step['to']) or '(nothing: the default)'}{note}")
    for env in doc["translation"]["env"]:
        lines.append(f"  {env['from']} → {env['to']}")
    for left in doc["translation"]["untranslated"]:
        lines.append(f"  {left['flag']}: NOT TRANSLATED: {left['why']}")
    lines.append(
        f"memory budget: {doc['memory_budget']['mode']}"
        + (f" ({doc['memory_budget']['flag']})" if doc["memory_budget"]["flag"] else "")
    )
    lines.append("")
    body = [
        [
            ("≠ " if r["differs"] else "  ") + r["row"],
            short(r["values"].get(src, ""), 64),
            short(r["values"].get(tgt, ""), 64),
        ]
        for r in doc["rows"]
    ]
    lines.append(text_table(["", title[src], title[tgt]], body))
    verdicts = [(e, doc["sides"][e]) for e in (src, tgt)]
    said = [(e, side) for e, side in verdicts if side["error"] or side["verdict"]["status"] != "starts"]
    if said:
        lines.append("")
        for e, side in said:
            v = side["verdict"]
            if v is None:
                lines.append(f"{title[e]}: not judged: {side['error']}")
                continue
            where = (
                f" [{v['rule']}" + (f", {v['location']}" if v["location"] else "") + "]" if v["rule"] else ""
            )
            lines.append(f"{title[e]}: {v['status']}{where}: {v['message']}")
            if v["fix"]:
                lines.append(f"    fix: {v['fix']}")
    why = [r for r in doc["rows"] if r["differs"] and any(r["reasons"].values())]
    if why:
        lines.append("")
        lines.append("why they differ:")
        for r in why:
            lines.append(f"  {r['row']}:")
            for e in (src, tgt):
                for reason in r["reasons"].get(e, []):
                    lines.append(f"    {title[e]}: {reason}")
    return "\n".join(lines)


def _releases(args: argparse.Namespace) -> dict[str, str]:
    return {n: pack(n).release(getattr(args, f"release_{n}", None)) for n in packs.names()}


def main(argv: Sequence[str]) -> int:
    """``resolvable compare ...``; user errors propagate as ``ResolvableError`` (printed by the caller)."""
    own, pasted = _split(argv)
    args, extra = build_parser().parse_known_args(own)
    releases = _releases(args)
    if args.html:
        if args.model is not None or extra:
            raise UsageError(
                "--html draws a grid of models × presets: give the launch flags of every cell after `--` "
                "(resolvable compare --html F --engine sglang -- --tp-size 8), and the models with --models"
            )
        write_grid(args, releases, pasted or [])
        print(f"wrote {args.html}")
        return 0
    env = dict(_env_pairs(args.env))
    if pasted is not None:
        from .paste import read

        command = read(pasted)
        if command.engine is None:
            raise UsageError(
                "the pasted command starts no engine resolvable knows (vllm serve …, python -m sglang.launch_server …)"
            )
        source, words = command.engine, command.words
        env = {**command.env, **env}
        if command.tag is not None and getattr(args, f"release_{source}") is None:
            from .paste import tag_release

            releases[source], _ = tag_release(command.tag, list(pack(source).releases), pack(source).title)
        if extra:
            raise UsageError(f"unrecognized arguments before `--`: {' '.join(extra)}")
    else:
        if args.model is None:
            raise UsageError(
                "no launch: give MODEL and --engine with its flags, or paste the launch after `--`"
            )
        if args.engine is None:
            raise UsageError(
                "tool flags need --engine (whose flag names they are); or paste the launch after `--`"
            )
        source, words = args.engine, pack(args.engine).launch_command(args.model, extra)
    doc = compare_launch(
        source,
        words,
        env,
        platform=args.platform,
        releases=releases,
        gpus=args.gpus,
        same_memory_budget=args.same_memory_budget,
        model_config=args.model_config,
    )
    if args.json:
        print(json.dumps(doc, indent=2, default=repr))
    else:
        print(render_text(doc))
    # the source launch's verdict is the exit status (0 starts, 1 would not start), as explain's
    return int(doc["sides"][source]["verdict"]["exit_code"])


#: The GPU presets of the grid by default (four generations of datacenter GPUs).
GRID_PLATFORMS = ("a100", "h100", "h200", "b200")


def grid(
    models: Sequence[str],
    platforms: Sequence[str],
    source: str,
    flags: Sequence[str],
    releases: dict[str, str],
) -> tuple[dict[tuple[str, str], Any], list[tuple[str, str]]]:
    """Every (model, platform) comparison of one launch (``flags`` in ``source``'s names):
    (the ``resolvable.compare/1`` document, or the error text, per cell; (model, arch) pairs)."""
    from ..errors import ResolvableError

    cells: dict[tuple[str, str], Any] = {}
    arch: dict[str, str] = {}
    for model in models:
        for platform in platforms:
            words = pack(source).launch_command(model, list(flags))
            try:
                doc = compare_launch(source, words, {}, platform=platform, releases=releases, trace=False)
            except ResolvableError as exc:
                cells[(model, platform)] = str(exc)
                continue
            cells[(model, platform)] = doc
            arch.setdefault(model, doc["sides"][source]["arch"])
    return cells, [(m, arch.get(m, "")) for m in models]


def write_grid(args: argparse.Namespace, releases: dict[str, str], flags: Sequence[str]) -> None:
    from .._files import write_atomic
    from ..compare_html import render_grid

    source = args.engine or packs.names()[0]
    target = next(n for n in packs.names() if n != source and _has_table(source, n))
    if args.models:
        models = [m.strip() for m in args.models.split(",") if m.strip()]
    else:
        theirs = pack(target).catalog()
        models = [m for m in pack(source).catalog() if m in theirs]
    platforms = [p.strip() for p in args.platforms.split(",")] if args.platforms else list(GRID_PLATFORMS)
    cells, rows = grid(models, platforms, source, flags, releases)
    titles = {e: pack(e).title or e for e in (source, target)}
    text = render_grid(cells, rows, platforms, (source, target), titles, releases, flags)
    write_atomic(args.html, text, what="compare page")


def _env_pairs(pairs: Sequence[str] | None) -> list[tuple[str, str]]:
    out = []
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env expects KEY=VALUE, got {pair!r}")
        out.append((key, value))
    return out
