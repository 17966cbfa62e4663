"""``resolvable launches FILE…`` and ``resolvable check FILE…``: launches read from deployment
files (``resolvable.deploy``), and the verdict on each, for people and for CI.

* ``launches`` lists what each file launches (text, or ``--json``: a list of launch records,
  docs/cli-json.md);
* ``check`` gives each launch the verdict of ``explain`` (would start / refused / does not fit)
  as text, ``--json`` or ``--format sarif`` (SARIF 2.1.0, one result per finding, located at the
  file line of the argument the refusal names); ``--against REV`` reports, as markdown for a pull
  request, what ``upgrade`` says for each launch whose image tag or flags changed since the git
  revision ``REV`` of the same file.

Invariants: the verdict is the one verdict of every command (``Pack.build_launch`` then
``Pack.verdict``, ``resolvable.verdict``); this module decides nothing about an engine; what the file does not state (platform, GPUs, a release the image does not name, a
value known at run time only) is either taken from ``--platform``/``--gpus``/``--release`` or
left unchecked, and every such value is listed under ``assumed``. Exit codes: 0 every launch
would start, 1 one would not (refused or does not fit), 2 a file could not be read or a launch
could not be checked (the tool's input is missing something; ``unchecked`` says what).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from typing import Any

from .. import packs
from ..errors import ResolvableError

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_RULE_TEXT = {
    "refused": "the engine refuses the launch at start-up",
    "does-not-fit": "the launch does not fit in GPU memory",
    "unknown": "the launch may not fit in GPU memory: an allocation cannot be sized offline",
    "unchecked": "the launch could not be checked: the file does not state a value the verdict needs",
}


def build_parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"resolvable {command}",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="Kubernetes/KServe/OME YAML, helm values, compose, script"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output (docs/cli-json.md)")
    if command == "check":
        parser.add_argument("--format", choices=("text", "json", "sarif"), default=None, help="output format")
        parser.add_argument("--platform", help="platform preset for launches whose file names no GPU product")
        parser.add_argument("--gpus", type=int, help="GPUs per node for launches whose file does not say")
        parser.add_argument("--release", help="engine release for launches whose image names none")
        parser.add_argument(
            "--model", help="model (hub id or sample) for launches whose model is a path or run-time value"
        )
        parser.add_argument(
            "--nearest",
            action="store_true",
            help="answer for the nearest modelled release when the image's is not modelled",
        )
        parser.add_argument(
            "--against", metavar="REV", help="git revision to compare each file with (markdown)"
        )
        parser.add_argument(
            "-o", "--output", help="write the report to this file (atomically) instead of stdout"
        )
    return parser


def main(argv: list[str]) -> int:
    command, rest = argv[0], argv[1:]
    try:
        args = build_parser(command).parse_args(rest)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from .. import deploy

    if command == "launches":
        return _launches(args, deploy)
    return _check(args, deploy)


def _read_all(files: list[str], deploy: Any) -> tuple[list[Any], list[str]]:
    found, errors = [], []
    for path in files:
        try:
            found += deploy.read(path)
        except ResolvableError as exc:
            errors.append(str(exc))
    return found, errors


def _launches(args: argparse.Namespace, deploy: Any) -> int:
    found, errors = _read_all(args.files, deploy)
    if args.json:
        print(json.dumps([launch.to_dict() for launch in found], indent=2))
    else:
        for launch in found:
            print(_launch_text(launch))
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return EXIT_USAGE if errors else EXIT_OK


def _launch_text(launch: Any) -> str:
    title = packs.get(launch.engine).title if launch.engine in packs.names() else launch.engine
    release = launch.release or "release unknown"
    gpus = (
        "GPUs per node not stated"
        if launch.gpus_per_node is None
        else f"{launch.gpus_per_node} GPU(s) per node"
    )
    lines = [
        f"{launch.file}:{launch.line}  {launch.source}",
        f"  engine   {title} {release}  ({launch.release_from})",
        f"  image    {launch.image or '-'}",
        f"  model    {launch.model or '-'}",
        f"  node     {gpus} × {launch.nodes} node(s)" + (f", GPU {launch.gpu}" if launch.gpu else ""),
        f"  argv     {_shell_join(launch.argv)}",
    ]
    if launch.env:
        lines.append("  env      " + " ".join(f"{k}={v}" for k, v in launch.env.items()))
    for name, why in launch.runtime.items():
        lines.append(f"  run time {name}: {why}")
    for note in launch.notes:
        lines.append(f"  note     {note}")
    return "\n".join(lines) + "\n"


def _shell_join(words: Any) -> str:
    import shlex

    return " ".join(shlex.quote(w) for w in words)


# -- check ------------------------------------------------------------------------------------


def _check(args: argparse.Namespace, deploy: Any) -> int:
    fmt = args.format or ("json" if args.json else "text")
    if args.platform is not None:
        from .._platform import Platform

        try:
            Platform.preset(args.platform)
        except ResolvableError as exc:
            print(f"error: --platform: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.against:
        return _against(args, deploy)
    found, errors = _read_all(args.files, deploy)
    results = [check_launch(launch, args) for launch in found]
    code = exit_code(results, errors)
    if fmt == "sarif":
        text = json.dumps(sarif(results, errors), indent=2)
    elif fmt == "json":
        text = json.dumps(
            {"schema": "resolvable.check/1", "launches": results, "errors": errors, "exit_code": code},
            indent=2,
        )
    else:
        text = "".join(_result_text(r) for r in results)
    _emit(text, args.output)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return code


def exit_code(results: list[dict[str, Any]], errors: list[str]) -> int:
    statuses = {r["verdict"]["status"] for r in results}
    if statuses & {"refused", "does-not-fit"}:
        return EXIT_REFUSED
    if errors or "unchecked" in statuses:
        return EXIT_USAGE
    if "unknown" in statuses:  # no firm answer offline: never 0 (resolvable.verdict.EXIT_UNKNOWN)
        return EXIT_UNKNOWN
    return EXIT_OK


def _emit(text: str, output: str | None) -> None:
    if not text and not output:
        return
    if output:
        from .._files import write_atomic

        write_atomic(output, text if text.endswith("\n") else text + "\n")
    else:
        print(text, end="" if text.endswith("\n") else "\n")


def _unchecked(launch: Any, reason: str, assumed: dict[str, str]) -> dict[str, Any]:
    return {
        "launch": launch.to_dict(),
        "verdict": {"status": "unchecked", "message": reason, "line": launch.line},
        "assumed": assumed,
    }


def check_launch(launch: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The verdict on one launch (a JSON-ready dict: launch, verdict, assumed)."""
    from ..deploy.node import preset_for

    assumed: dict[str, str] = {}
    if launch.engine not in packs.names():
        return _unchecked(launch, "the command starts no engine resolvable models", assumed)
    pack = packs.get(launch.engine)
    # release
    release, release_from = launch.release, "image-tag"
    if args.release:
        release, release_from = args.release, "flag"
        assumed["release"] = f"{pack.title} {release} (--release)"
    elif release is None:
        release, release_from = pack.default_release, "default"
        assumed["release"] = f"{pack.title} {release}, the default modelled release: {launch.release_from}"
    elif not launch.modelled:
        if not args.nearest:
            return _unchecked(
                launch,
                f"{launch.release_from}; pass --nearest to answer for {launch.nearest}, the nearest modelled release",
                assumed,
            )
        release, release_from = launch.nearest, "flag"
        assumed["release"] = (
            f"{pack.title} {release}, the nearest modelled release to {launch.release} (--nearest)"
        )
    # platform
    preset = preset_for(launch.gpu)
    if preset is None:
        if args.platform is None:
            where = (
                f"the GPU product {launch.gpu!r} is not one resolvable maps"
                if launch.gpu
                else "the file names no GPU product"
            )
            return _unchecked(launch, f"{where}; pass --platform PRESET", assumed)
        preset = args.platform
        assumed["platform"] = f"{preset} (--platform)"
    # GPUs
    gpus = launch.gpus_per_node if isinstance(launch.gpus_per_node, int) else None
    if gpus is None and args.gpus is not None:
        gpus = args.gpus
        assumed["gpus_per_node"] = f"{gpus} (--gpus)"
    elif gpus is None:
        assumed["gpus_per_node"] = (
            f"the {preset} preset's count ({'all' if launch.gpus_per_node == 'all' else 'not stated'})"
        )
    # model and run-time values
    argv = list(launch.argv)
    model = launch.model
    if model is None or "$" in model or model.startswith(("/", "./")):
        if args.model is None:
            why = "known at run time only" if model is None or "$" in model else "a path inside the container"
            return _unchecked(launch, f"the model is {why} ({model}); pass --model MODEL", assumed)
        model = args.model
        assumed["model"] = f"{args.model} (--model; the container reads {launch.model})"
    from ..deploy.launch import model_of

    written = model_of(argv)
    if written is not None and written != model:  # KServe's /mnt/models, a path, a run-time value
        argv = [model if w == written else w.replace(f"={written}", f"={model}") for w in argv]
        assumed.setdefault("model", f"{model} (the container reads {launch.model})")
    argv, dropped = _drop_runtime(argv)
    if dropped:
        assumed["not_checked"] = (
            ", ".join(dropped) + " (known at run time only; the engine's default is used)"
        )
    verdict = _verdict(pack, release, release_from, preset, gpus, launch.nodes, launch, argv)
    verdict["line"] = _offending_line(launch, pack, release, verdict)
    return {"launch": launch.to_dict(), "verdict": verdict, "assumed": assumed}


def _drop_runtime(argv: list[str]) -> tuple[list[str], list[str]]:
    """The argv without options whose value is known at run time only (``$VAR`` left in it)."""
    out, dropped, i = [], [], 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("--") and "=" in word and "$" in word:
            dropped.append(word)
        elif (
            word.startswith("--")
            and i + 1 < len(argv)
            and "$" in argv[i + 1]
            and not argv[i + 1].startswith("--")
        ):
            dropped.append(f"{word} {argv[i + 1]}")
            i += 1
        elif word.startswith("--") and word.endswith("=") and i > 0:
            dropped.append(word + "(empty)")
        else:
            out.append(word)
        i += 1
    return out, dropped


def _verdict(
    pack: Any,
    release: str,
    release_from: str,
    preset: str,
    gpus: int | None,
    nodes: int,
    launch: Any,
    argv: list[str],
) -> dict[str, Any]:
    """The one verdict (``Pack.build_launch`` then ``Pack.verdict``, issue 26) of a file's launch."""
    from ..errors import one_line

    try:
        built = pack.build_launch(
            command=argv,
            release=release,
            release_from=release_from,
            image=launch.image,
            platform=preset,
            gpus=gpus,
            nodes=max(1, int(launch.nodes or 1)),
            command_env=dict(launch.env),
        )
        _, verdict = pack.verdict(built)
    except ResolvableError as exc:  # no config for the model, a value the pack cannot read …
        return {"status": "unchecked", "message": one_line(str(exc)), "fields": []}
    out = verdict.to_dict()
    message = (out.get("message") or "").lower()
    out["fields"] = [f for f in built.user if f.replace("_", " ") in message or f in message]
    if out["status"] == "starts":
        out["message"] = "would start"
    return out


def _offending_line(launch: Any, pack: Any, release: str, verdict: dict[str, Any]) -> int:
    """The file line of the first argument the refusal names (the launch's line otherwise)."""
    for field in verdict.get("fields") or []:
        for flag in _flags_of(pack, release, field):
            if any(w == flag or w.startswith(flag + "=") for w in launch.argv):
                return launch.line_of(flag)
    message = verdict.get("message") or ""
    for word in launch.argv:
        if word.startswith("--") and word.split("=", 1)[0] in message:
            return launch.line_of(word.split("=", 1)[0])
    return launch.line


def _flags_of(pack: Any, release: str, field: str) -> list[str]:
    names = [f"--{field.replace('_', '-')}", f"--{field}"]
    try:
        table = pack.flag_table(release)
    except Exception:
        return names
    by_dest = getattr(table, "by_dest", None)
    if isinstance(by_dest, dict) and field in by_dest:
        return [*by_dest[field].options, *names]
    for_dest = getattr(table, "for_dest", None)
    if callable(for_dest):
        return [o for flag in for_dest(field) for o in flag.options] + names
    return names


def _result_text(result: dict[str, Any]) -> str:
    launch, verdict = result["launch"], result["verdict"]
    title = packs.get(launch["engine"]).title if launch["engine"] in packs.names() else launch["engine"]
    head = f"{launch['file']}:{verdict.get('line') or launch['line']}  {launch['source']}  [{title} {launch['release'] or '?'}]"
    status = verdict["status"]
    if status == "starts":
        body = "  would start"
    elif status == "refused":
        body = f"  refused: {verdict['message']}" + (f" Fix: {verdict['fix']}" if verdict.get("fix") else "")
        body += f"  [{verdict.get('rule')}]"
    elif status == "does-not-fit":
        body = f"  does not fit: {verdict['message']}" + (
            f" Fix: {verdict['fix']}" if verdict.get("fix") else ""
        )
    elif status == "unknown":
        body = f"  may not fit (unknown offline): {verdict['message']}" + (
            f" Fix: {verdict['fix']}" if verdict.get("fix") else ""
        )
    else:
        body = f"  unchecked: {verdict['message']}"
    assumed = "".join(f"\n  assumed  {k}: {v}" for k, v in result["assumed"].items())
    return f"{head}\n{body}{assumed}\n"


def sarif(results: list[dict[str, Any]], errors: list[str]) -> dict[str, Any]:
    """SARIF 2.1.0: one result per launch that would not start or could not be checked."""
    from .. import __version__

    rules: dict[str, dict[str, Any]] = {}
    out = []
    for result in results:
        verdict, launch = result["verdict"], result["launch"]
        status = verdict["status"]
        if status == "starts":
            continue
        rule_id = f"{status}/{verdict.get('rule')}" if verdict.get("rule") else status
        rules.setdefault(rule_id, {
            "id": rule_id,
            "shortDescription": {"text": _RULE_TEXT.get(status, status)},
            **({"properties": {"location": verdict["location"]}} if verdict.get("location") else {}),
        })  # fmt: skip
        text = verdict.get("message") or status
        if verdict.get("fix"):
            text += f" Fix: {verdict['fix']}"
        if result["assumed"]:
            text += " (assumed: " + "; ".join(f"{k} {v}" for k, v in result["assumed"].items()) + ")"
        out.append({
            "ruleId": rule_id,
            "level": "warning" if status in ("unchecked", "unknown") else "error",
            "message": {"text": text},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(launch["file"])},
                "region": {"startLine": max(1, int(verdict.get("line") or launch["line"] or 1))},
            }}],
        })  # fmt: skip
    notifications = [{"level": "error", "message": {"text": e}} for e in errors]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "resolvable",
                "version": __version__,
                "rules": list(rules.values()),
            }
        },
        "results": out,
    }
    if notifications:
        run["invocations"] = [{"executionSuccessful": False, "toolExecutionNotifications": notifications}]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return rel.replace(os.sep, "/")


# -- check --against REV --------------------------------------------------------------------------


def _git_show(rev: str, path: str) -> str | None:
    import subprocess

    directory = os.path.dirname(os.path.abspath(path)) or "."
    name = os.path.basename(path)
    try:
        done = subprocess.run(
            ["git", "-C", directory, "show", f"{rev}:./{name}"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ResolvableError(f"cannot run git for {path}: {exc}") from None
    if done.returncode != 0:
        return None
    return done.stdout


def _against(args: argparse.Namespace, deploy: Any) -> int:
    sections, code = ["## resolvable: what this change does to each launch", ""], EXIT_OK
    for path in args.files:
        try:
            new = deploy.read(path)
        except ResolvableError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        old_text = _git_show(args.against, path)
        if old_text is None:
            sections += [f"### `{path}`", "", f"New file (not in {args.against}): nothing to compare.", ""]
            continue
        try:
            old = deploy.read_text(old_text, path)
        except ResolvableError as exc:
            sections += [f"### `{path}`", "", f"{args.against} version unreadable: {exc}", ""]
            continue
        before: dict[str, list[Any]] = {}
        for launch in old:
            before.setdefault(launch.source, []).append(launch)
        for launch in new:
            previous = before.get(launch.source, [])
            prev = previous.pop(0) if previous else None
            if (
                prev is not None
                and prev.image == launch.image
                and prev.argv == launch.argv
                and prev.env == launch.env
            ):
                continue
            section, failed = _compare(prev, launch, args)
            sections += section
            code = max(code, failed)
    if len(sections) == 2:
        sections.append(f"No launch changed its image tag or flags since `{args.against}`.")
    _emit("\n".join(sections) + "\n", args.output)
    return code


def _compare(prev: Any, launch: Any, args: argparse.Namespace) -> tuple[list[str], int]:
    title = packs.get(launch.engine).title
    out = [f"### `{launch.file}:{launch.line}` {launch.source}", ""]
    if prev is None:
        out += ["A new launch.", ""]
    else:
        if prev.image != launch.image:
            out.append(f"- image: `{prev.image}` → `{launch.image}`")
        removed = [w for w in prev.argv if w not in launch.argv]
        added = [w for w in launch.argv if w not in prev.argv]
        if removed or added:
            out.append(f"- flags: removed `{' '.join(removed) or '-'}`, added `{' '.join(added) or '-'}`")
        out.append("")
    result = check_launch(launch, args)
    verdict = result["verdict"]
    code = {
        "refused": EXIT_REFUSED,
        "does-not-fit": EXIT_REFUSED,
        "unchecked": EXIT_USAGE,
        "unknown": EXIT_UNKNOWN,
    }.get(verdict["status"], 0)
    if (
        prev is not None
        and prev.release
        and launch.release
        and prev.release != launch.release
        and prev.modelled
        and launch.modelled
    ):
        report = _upgrade(launch, prev.release, launch.release, result)
        out += [f"**{title} {prev.release} → {launch.release}** (what `resolvable upgrade` reports):", ""]
        if report is None:
            out += ["_upgrade could not be computed for this launch_", ""]
        else:
            changes = report.get("changes") or []
            outcome = report.get("outcome") or {}
            out.append(f"- outcome: {outcome.get('from')} → {outcome.get('to')}")
            if changes:
                out += ["", "| field | before | after | changed in |", "|---|---|---|---|"]
                out += [
                    f"| {c['field']} | {c['before']} | {c['after']} | {c.get('since') or ''} |"
                    for c in changes
                ]
            else:
                out.append("- no resolved value changes")
            out.append("")
    line = f"**verdict now:** {verdict['status']}"
    if verdict["status"] != "starts":
        line += f": {verdict.get('message')}"
    out += [line, ""]
    for key, value in result["assumed"].items():
        out.append(f"- assumed {key}: {value}")
    if result["assumed"]:
        out.append("")
    return out, code


def _upgrade(launch: Any, before: str, after: str, result: dict[str, Any]) -> dict[str, Any] | None:
    from . import _run

    assumed = result["assumed"]
    preset = None
    if "platform" in assumed:
        preset = assumed["platform"].split(" ", 1)[0]
    else:
        from ..deploy.node import preset_for

        preset = preset_for(launch.gpu)
    if preset is None:
        return None
    argv, _ = _drop_runtime(list(launch.argv))
    tool = [
        "upgrade",
        "--json",
        "--engine",
        launch.engine,
        "--from",
        before,
        "--to",
        after,
        "--platform",
        preset,
    ]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        _run([*tool, "--", *[f"{k}={v}" for k, v in launch.env.items()], *argv])
    try:
        data = json.loads(out.getvalue())
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None
