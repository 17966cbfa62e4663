"""Agreement of the pack with the real sglang ``ServerArgs`` on REAL published launches.

Issue 32 item 3 ("measure like an outsider"). Runs in the repo venv. The cases are not drawn
from our generator: each one is a command of tests/cli/data/sglang_launch_corpus.json (a
published ``python -m sglang.launch_server ...`` with its source), taken as published:

* leading ``VAR=value`` words are the launch's environment (the oracle process gets them);
* the model the command names (``--model-path``/``--model``) is served by the bundled sample
  the corpus maps its hub id to (``repos``), or by the entry's ``--config`` stand-in; a local
  path with no stand-in is **not measured** (counted, with the reason). The sample's
  config.json is written into a directory named like the published model's last component,
  and the command's model argument is replaced by that directory;
* the platform is the preset the entry's ``resolvable`` options name (``--platform``);
* the release: every case is measured on 0.5.23 (the pack's default), and also on the entry's
  own release (``--sglang-version V``, or ``--from V`` of an upgrade entry) where that release is
  one the pack resolves and an oracle venv for it exists under /work/oracle.

The oracle is compare.py's (``oracle_worker.py``: sglang's own ``add_cli_args`` +
``from_cli_args`` (+ ``resolve_once``) on the faked hardware of the preset); the pack is
compare.py's ``run_pack`` (the pack's CLI surface); ``compare.classify`` decides agreement on
the same six fields. An oracle refusal that only says the hub could not be reached offline
(a draft model the corpus has no stand-in for) is not measured, with that reason.

This is a measurement, run once per release: no rule is changed because of it (see
docs/fidelity.md). Writes tools/agreement/reports/real-launches-sglang-<version>.{md,json}.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import shlex
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from compare import (  # noqa: E402
    EXTENDED,
    SIX,
    _answer,
    _flag_of_parser_message,
    case_key,
    classify,
    load_oracle_cache,
    run_oracle,
    run_pack,
    samples_text,
)

ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "tests", "cli", "data", "sglang_launch_corpus.json")
DEFAULT_RELEASE = "0.5.23"
_LAUNCHERS = ("python", "python3", "-m", "sglang.launch_server")
_MODEL_FLAGS = ("--model-path", "--model")
#: words of an oracle refusal that only say the hub was unreachable (the worker runs offline)
_OFFLINE = ("offline", "couldn't connect", "not a local folder", "is not a valid model identifier")


def _option(opts: list[str], name: str) -> str | None:
    """The value of ``name`` in the entry's resolvable options (``--name V``), or None."""
    for i, word in enumerate(opts):
        if word == name and i + 1 < len(opts):
            return opts[i + 1]
    return None


def split_command(command: str) -> tuple[dict, list[str]]:
    """(environment, sglang flags) of a published command: leading ``VAR=value`` words, then the
    launcher words (``python -m sglang.launch_server``) dropped, the rest kept as published."""
    words = shlex.split(command)
    env: dict = {}
    while (
        words and "=" in words[0] and not words[0].startswith("-") and words[0].split("=")[0].isidentifier()
    ):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    while words and words[0] in _LAUNCHERS:
        words.pop(0)
    return env, words


def take_model(flags: list[str]) -> tuple[str | None, list[str]]:
    """(the model the flags name, the flags without it). The last occurrence wins, as argparse's."""
    model, rest, i = None, [], 0
    while i < len(flags):
        word = flags[i]
        name, eq, value = word.partition("=")
        if name in _MODEL_FLAGS and eq:
            model = value
        elif word in _MODEL_FLAGS and i + 1 < len(flags):
            model = flags[i + 1]
            i += 1
        else:
            rest.append(word)
        i += 1
    return model, rest


def own_release(entry: dict) -> str | None:
    """The release the entry names (``--sglang-version``, or ``--from`` of an upgrade), if any."""
    opts = entry.get("resolvable") or []
    return _option(opts, "--sglang-version") or _option(opts, "--from")


def build_case(entry: dict, repos: dict, release: str) -> tuple[dict | None, str | None]:
    """(case, None) or (None, why not measured). A case: id, source, preset, env, model (the
    published argument), sample, model_name (the directory's name), flags, sglang_version."""
    opts = entry.get("resolvable") or []
    preset = _option(opts, "--platform")
    if preset is None:
        return None, "no --platform preset named"
    env, words = split_command(entry["command"])
    model, flags = take_model(words)
    if model is None:
        return None, "the command names no model"
    sample = _option(opts, "--config") or repos.get(model)
    if sample is None:
        return None, f"no config for {model} (a local path with no --config stand-in)"
    case = {
        "id": f"{entry['id']}@{release}",
        "entry": entry["id"],
        "source": entry["source"],
        "preset": preset,
        "env": env,
        "model": model,
        "sample": sample,
        "model_name": os.path.basename(model.rstrip("/")) or sample,
        "flags": flags,
        "sglang_version": release,
    }
    return case, None


def oracle_venv(release: str) -> str | None:
    """/work/oracle/venv-<release> (or its ``.postN`` build), if it exists."""
    for path in [f"/work/oracle/venv-{release}", *sorted(glob.glob(f"/work/oracle/venv-{release}.post*"))]:
        if os.path.isdir(path):
            return path
    return None


def releases_of(entry: dict, resolved: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """[(release, why not measured or None)] for one entry: 0.5.23, and its own release."""
    out: list[tuple[str, str | None]] = [(DEFAULT_RELEASE, None)]
    own = own_release(entry)
    if own and own != DEFAULT_RELEASE:
        if own not in resolved:
            out.append((own, f"release {own} is not one the pack resolves"))
        elif oracle_venv(own) is None:
            out.append((own, f"no oracle venv for {own} under /work/oracle"))
        else:
            out.append((own, None))
    return out


def _offline_only(oracle: dict) -> bool:
    text = (oracle.get("message") or "").lower()
    return oracle["outcome"] == "refused" and any(w in text for w in _OFFLINE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--release", action="append", help="measure only these releases (repeatable)")
    ap.add_argument(
        "--every-entry-at",
        action="append",
        default=[],
        metavar="RELEASE",
        help="measure every corpus entry at RELEASE (repeatable), not only the entries that name it: "
        "the real commands as an operator pinned to an older release would paste them; reports "
        "real-launches-sglang-RELEASE-every-entry",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per oracle group")
    ap.add_argument("--report-dir", default=os.path.join(HERE, "reports"))
    opts = ap.parse_args(argv)

    from resolvable import Platform
    from resolvable.sglang import SGLANG_RELEASES

    with open(opts.corpus, encoding="utf-8") as fh:
        corpus = json.load(fh)
    by_release: dict = collections.defaultdict(lambda: {"cases": [], "skipped": []})
    for release in opts.every_entry_at:
        if release not in SGLANG_RELEASES or oracle_venv(release) is None:
            ap.error(
                f"--every-entry-at {release}: not a resolved release with an oracle venv under /work/oracle"
            )
        got = by_release[(release, "every-entry")]
        for entry in corpus["commands"]:
            case, reason = build_case(entry, corpus["repos"], release)
            if case is None:
                got["skipped"].append((entry["id"], reason))
            else:
                got["cases"].append(case)
    for entry in [] if opts.every_entry_at else corpus["commands"]:
        for release, why in releases_of(entry, SGLANG_RELEASES):
            if opts.release and release not in opts.release:
                continue
            case, reason = (None, why) if why else build_case(entry, corpus["repos"], release)
            if case is None:
                by_release[(release, "")]["skipped"].append((entry["id"], reason))
            else:
                by_release[(release, "")]["cases"].append(case)

    for (release, scope), got in sorted(by_release.items()):
        _measure(release, got["cases"], got["skipped"], opts, Platform, scope)
    return 0


def _measure(release: str, cases: list, skipped: list, opts, Platform, scope: str = "") -> None:
    t0 = time.time()
    venv = oracle_venv(release)
    cache_path = f"/work/oracle/cache-real-{release}.jsonl"
    cache = load_oracle_cache(cache_path)
    rows = []
    with tempfile.TemporaryDirectory(prefix="real-launches-") as tmp:
        keys, dirs, groups = {}, {}, collections.defaultdict(list)
        for i, c in enumerate(cases):
            d = os.path.join(tmp, "models", f"{i:03d}", c["model_name"])
            os.makedirs(d)
            text = samples_text(c["sample"])
            with open(os.path.join(d, "config.json"), "w", encoding="utf-8") as fh:
                fh.write(text)
            dirs[c["id"]] = d
            pdict = Platform.preset(c["preset"]).to_dict()
            k = case_key(c, json.dumps([c["model_name"], text]), pdict, release)
            keys[c["id"]] = k
            if k not in cache:
                gk = (json.dumps(pdict, sort_keys=True), json.dumps(c["env"], sort_keys=True))
                groups[gk].append({"id": c["id"], "model_dir": d, "flags": c["flags"]})

        def store(answers: dict) -> None:
            with open(cache_path, "a", encoding="utf-8") as fh:
                for cid, r in answers.items():
                    if r["outcome"] != "oracle_error":
                        fh.write(json.dumps({"key": keys[cid], "result": r}) + "\n")
                    cache[keys[cid]] = r

        if groups:
            run_oracle(groups, venv, tmp, opts.jobs, opts.timeout, on_group=store)
        for c in cases:
            oracle = cache.get(keys[c["id"]]) or {"outcome": "oracle_error", "message": "no answer"}
            rows.append((c, oracle, run_pack(c, dirs[c["id"]])))
    write_report(release, rows, skipped, opts.report_dir, time.time() - t0, scope)


def write_report(
    release: str, rows: list, skipped: list, report_dir: str, seconds: float, scope: str = ""
) -> None:
    """Writes real-launches-sglang-<release>[-<scope>].{md,json} (scope "every-entry": every corpus
    entry at this release, not only those that name it)."""
    not_measured = list(skipped)
    verdicts = []
    for c, o, p in rows:
        if o["outcome"] == "oracle_error":
            not_measured.append((c["entry"], f"the oracle could not run: {o.get('message', '')[:80]}"))
        elif _offline_only(o):
            not_measured.append(
                (c["entry"], "the oracle needs the hub (a model the corpus has no stand-in for)")
            )
        else:
            verdicts.append((c, o, p, *classify(o, p)))
    agree = sum(1 for v in verdicts if v[3])
    crashes = sum(1 for v in verdicts if v[2]["outcome"] == "crash")
    outcomes = collections.Counter(f"{o['outcome']} / {p['outcome']}" for _, o, p, *_ in verdicts)
    distinct = {
        json.dumps([c["preset"], c["sample"], c["env"], c["flags"]], sort_keys=True) for c, *_ in verdicts
    }
    both_accept = [(o, p) for _, o, p, ok, _ in verdicts if o["outcome"] == p["outcome"] == "accepted"]
    extended = [
        f"{f}: sglang {o['fields'].get(f)!r} vs pack {p['fields'].get(f)!r}"
        for o, p in both_accept
        for f in EXTENDED
        if f in p["fields"] and o["fields"].get(f) != p["fields"].get(f)
    ]
    # both parsers reject: do they name the same flag?
    parser_same = sum(
        1
        for _, o, p, *_ in verdicts
        if o["outcome"] == p["outcome"] == "parser_error"
        and _flag_of_parser_message(o["message"]) == _flag_of_parser_message(p["message"])
    )
    summary = {
        "sglang_version": release,
        "corpus": os.path.relpath(CORPUS, ROOT),
        "entries": len(rows) + len(skipped),
        "compared": len(verdicts),
        "agree": agree,
        "distinct_launches_compared": len(distinct),
        "both_accept": len(both_accept),
        "both_accept_six_equal": sum(
            1 for o, p in both_accept if all(o["fields"].get(f) == p["fields"].get(f) for f in SIX)
        ),
        "extended_fields": list(EXTENDED),
        "extended_differences": collections.Counter(extended),
        "both_parsers_reject": outcomes.get("parser_error / parser_error", 0),
        "both_parsers_reject_same_flag": parser_same,
        "pack_crashes": crashes,
        "not_measured": len(not_measured),
        "outcomes_oracle_vs_pack": dict(sorted(outcomes.items())),
        "seconds": round(seconds, 1),
    }
    items = [
        {
            "entry": c["entry"],
            "source": c["source"],
            "preset": c["preset"],
            "sample": c["sample"],
            "env": c["env"],
            "flags": c["flags"],
            "agree": ok,
            "category": cat,
            "sglang": o,
            "pack": p,
        }
        for c, o, p, ok, cat in verdicts
    ]
    os.makedirs(report_dir, exist_ok=True)
    stem = os.path.join(report_dir, f"real-launches-sglang-{release}" + (f"-{scope}" if scope else ""))
    payload = {"summary": summary, "not_measured": not_measured, "cases": items}
    _atomic_write(stem + ".json", json.dumps(payload, indent=1, default=str))
    pct = 100 * agree / max(1, len(verdicts))
    lines = [
        f"# Agreement with sglang {release} on real published launches",
        "",
        *(
            [
                f"Every corpus entry is launched at {release} (`--every-entry-at {release}`), as an operator "
                "pinned to it would paste the published command; a flag the release lacks is its parser's refusal.",
                "",
            ]
            if scope
            else []
        ),
        "Generated by `tools/agreement/real_launches.py` from tests/cli/data/sglang_launch_corpus.json"
        " (each command with its source; the model served by the bundled sample the corpus maps it to).",
        "Measured once; no rule was changed because of it.",
        "",
        f"- corpus entries for this release: {summary['entries']}",
        f"- compared: {len(verdicts)}; not measured: {len(not_measured)}",
        f"- **agreement: {agree}/{len(verdicts)} = {pct:.1f}%** (the six fields: {', '.join(SIX)})",
        f"- distinct launches among the compared (same preset, sample, env and flags): {len(distinct)}",
        f"- both accept: {len(both_accept)}, six fields equal: {summary['both_accept_six_equal']};"
        f" {', '.join(EXTENDED)} differ on {len(extended)} of them",
        *(f"  - {n} × {k}" for k, n in collections.Counter(extended).most_common()),
        f"- both parsers reject: {summary['both_parsers_reject']}, naming the same flag: {parser_same}",
        f"- pack crashes (non-ValueError): {crashes}",
        "",
        "| outcome sglang / pack | cases |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in summary["outcomes_oracle_vs_pack"].items()),
        "",
        "## Not measured",
        "",
        *(f"- `{eid}`: {why}" for eid, why in not_measured),
        "",
        "## Disagreements",
        "",
    ]
    for c, o, p, ok, cat in verdicts:
        if ok:
            continue
        env = " ".join(f"{k}={v}" for k, v in c["env"].items())
        lines += [
            f"### `{c['entry']}` — {cat}",
            "",
            f"- launch: `{(env + ' ') if env else ''}{c['sample']} @ {c['preset']}: {' '.join(c['flags'])}`",
            f"- source: {c['source']}",
            f"- sglang: {_answer(o)}",
            f"- pack: {_answer(p)}",
            "",
        ]
    lines += ["## Agreeing cases", ""]
    lines += [f"- `{c['entry']}`: {cat}" for c, o, p, ok, cat in verdicts if ok]
    _atomic_write(stem + ".md", "\n".join(lines) + "\n")
    print(
        json.dumps(
            {k: summary[k] for k in ("sglang_version", "compared", "agree", "not_measured", "pack_crashes")}
            | {"scope": scope or "entries naming the release"}
        )
    )


def _atomic_write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
