"""Agreement of the vLLM pack's engine configuration with the real ``create_engine_config`` on REAL
published ``vllm serve`` launches (issue 32 item 3, "measure like an outsider").

Runs in the repo venv. The cases are the commands of tests/vllm/vllm_serve_corpus.py (each with
the page it was published on), not the generator's:

* the pasted text is read as a shell reads it (``export``/``K=V`` lines and prefixes, ``\\``
  continuations, a ``docker run`` of the vLLM image) by the CLI's paste reader
  (``resolvable.cli.paste.read``) and split into the launcher and vLLM's arguments
  (``resolvable.vllm.launch.parse_launch``): shell reading only, no vLLM semantics;
* the model (``vllm serve``'s positional, or ``--model``) is served by the bundled sample the
  vLLM catalog maps its hub id to (``repo_id`` / ``same_config_as``); a model with no sample is
  **not measured** (counted with the reason);
* the oracle (``oracle_worker.py``) parses ``--model DIR <argv>`` with ``AsyncEngineArgs``'s parser,
  which does not know the API server's own flags (``vllm serve``'s Frontend group: ``--port``,
  ``--tool-call-parser`` …): those are dropped from the argv both sides get, and the report lists
  them per case;
* the platform is the entry's preset, the release the pack's default (0.34.0) unless
  ``--vllm-version`` names another of compare.RELEASES.

Agreement is compare.py's (``compare.classify``: every key the pack exposes equal, or both refuse
with the same meaning; the pack's attention-selection refusals and the oracle's own limits are
excluded and counted apart). Measured once; no rule is changed because of it (docs/vllm.md).
Writes tools/agreement_vllm_config/reports/real-launches-vllm-<V>.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "vllm"))

import compare  # noqa: E402
import pack_adapter  # noqa: E402

#: ``vllm serve`` flags outside the Frontend group that AsyncEngineArgs's parser does not hold
_SERVER_ONLY = frozenset(
    {"--headless", "--headless-client-handshake-address", "--api-server-count", "--grpc"}
)


def _flag(table, word: str):
    """The flag a word names (``--opt``, ``--opt=v``, ``--opt_with_underscores``), or None."""
    option = word.partition("=")[0]
    if not option.startswith("--"):
        return table.by_option.get(option) if option.startswith("-") else None
    return table.by_option.get(option) or table.by_option.get("--" + option[2:].replace("_", "-"))


def engine_argv(argv: list[str], table) -> tuple[list[str], list[str]]:
    """(the argv without the API server's own flags, the dropped words)."""
    kept, dropped, i = [], [], 0
    while i < len(argv):
        word = argv[i]
        flag = _flag(table, word) if word.startswith("-") else None
        if flag is not None and (flag.group == "Frontend" or flag.options[0] in _SERVER_ONLY):
            took = [word]
            valued = flag.action in ("store", "append", "lora_modules")  # boolean_optional takes none
            if valued and "=" not in word:
                if flag.nargs in ("+", "*"):
                    while i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                        i += 1
                        took.append(argv[i])
                elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                    i += 1
                    took.append(argv[i])
            dropped += took
        else:
            kept.append(word)
        i += 1
    return kept, dropped


def take_model(argv: list[str], serve: bool) -> tuple[str | None, list[str]]:
    """(the model, the argv without it): ``vllm serve``'s positional, or ``--model`` (last wins)."""
    model, rest = None, list(argv)
    if serve and rest and not rest[0].startswith("-"):
        model = rest.pop(0)
    out, i = [], 0
    while i < len(rest):
        word = rest[i]
        if word == "--model" and i + 1 < len(rest):
            model = rest[i + 1]
            i += 2
            continue
        if word.startswith("--model="):
            model = word.partition("=")[2]
        else:
            out.append(word)
        i += 1
    return model, out


def build_case(
    index: int, entry, release: str, drop_auto_map: bool = False
) -> tuple[dict | None, str | None]:
    """(case, None) or (None, why not measured). The case has compare.py's shape (``config``:
    the sample's config.json, ``argv``, ``env``, ``platform``, ``install`` None: the standard
    kernels) plus ``source``, ``sample``, ``dropped`` (the API server flags taken out)."""
    from resolvable.cli import paste
    from resolvable.vllm import load_model
    from resolvable.vllm.flags import load_table
    from resolvable.vllm.launch import parse_launch

    pasted = paste.read([entry.command])
    launch = parse_launch(pasted.words)
    model, argv = take_model(launch.argv, launch.serve)
    if model is None:
        return None, "the command names no model"
    bundled = load_model.__self__
    sample = model.lower() if model.lower() in bundled.catalog() else bundled.bundled_for_repo(model)
    if sample is None:
        return None, f"no bundled sample for {model}"
    argv, dropped = engine_argv(argv, load_table(release))
    case = {
        "id": f"real-{index:02d}",
        "source": entry.source,
        "model": model,
        "sample": sample,
        "mutations": [],
        "config": None,
        "platform": entry.platform,
        "flags": {},
        "argv": argv,
        "dropped": dropped,
        "env": dict(pasted.env),
        "install": None,
    }
    with open(os.path.join(bundled.directory, f"{sample}.json"), encoding="utf-8") as fh:
        case["config"] = json.load(fh)  # the sample's config.json as published
    if drop_auto_map and "auto_map" in case["config"] and "--trust-remote-code" in argv:
        # the remote configuration code (configuration_*.py) is not bundled: without it the oracle
        # cannot load a --trust-remote-code launch; the class transformers registers stands in
        del case["config"]["auto_map"]
        case["notes"] = ["auto_map dropped (remote config code not available offline)"]
    return case, None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vllm-version", default="0.34.0", choices=compare.RELEASES)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=str(HERE / "reports"))
    ap.add_argument(
        "--drop-auto-map",
        action="store_true",
        help="an approximation, reported apart (-auto-map-dropped): the samples' auto_map removed, so a "
        "--trust-remote-code launch loads the config class transformers registers (as the sglang worker does)",
    )
    args = ap.parse_args()
    from vllm_serve_corpus import CORPUS

    os.chdir(ROOT)
    release = args.vllm_version
    cases, skipped = [], []
    for i, entry in enumerate(CORPUS):
        case, why = build_case(i, entry, release, args.drop_auto_map)
        if case is None:
            skipped.append((f"real-{i:02d}", entry.source, why))
        else:
            cases.append(case)
    t0 = time.time()
    oracle = compare.run_oracle(release, cases, args.workers)
    rows, status = [], Counter()
    for case in cases:
        pack = pack_adapter.pack_values(case, release)
        st, diffs = compare.classify(oracle.get(case["id"]), pack)
        status[st] += 1
        rows.append({**case, "status": st, "diffs": diffs, "cause": compare.cause(diffs) if diffs else None,
                     "pack": pack, "oracle": oracle.get(case["id"])})  # fmt: skip
    suffix = "-auto-map-dropped" if args.drop_auto_map else ""
    write_report(release, rows, skipped, status, Path(args.out), time.time() - t0, suffix)
    return 0


def write_report(
    release: str, rows: list, skipped: list, status: Counter, out: Path, seconds: float, suffix: str = ""
) -> None:
    compared = status["agree"] + status["disagree"] + status["crash"]
    distinct = {json.dumps([r["platform"], r["sample"], r["env"], r["argv"]], sort_keys=True) for r in rows}
    lines = [
        f"# vLLM {release} engine configuration on real published launches"
        + (" (approximation: the samples' auto_map dropped)" if suffix else ""),
        "",
        "Generated by `tools/agreement_vllm_config/real_launches.py` from tests/vllm/vllm_serve_corpus.py"
        " (each command with the page it was published on; the model served by the bundled sample the"
        " catalog maps it to). Measured once; no rule was changed because of it.",
        "",
        f"- corpus entries: {len(rows) + len(skipped)}; cases built: {len(rows)} ({len(distinct)} distinct)",
        f"- compared: {compared}; **agree: {status['agree']}/{compared}"
        f" = {100.0 * status['agree'] / max(1, compared):.1f}%**; pack crashes: {status['crash']}",
        f"- excluded as compare.py excludes them: oracle limits {status['oracle_limit']}, pack refuses at"
        f" attention selection (after create_engine_config) {status['after_config']},"
        f" oracle missing {status['oracle_missing']}",
        f"- not measured (no case built): {len(skipped)}",
        f"- seconds: {seconds:.0f}",
        "",
        "## Not measured / excluded",
        "",
        *(f"- `{cid}` ({src}): {why}" for cid, src, why in skipped),
        *(
            f"- `{r['id']}` {r['sample']} @ {r['platform']}: {r['status']}: {r['cause']}"
            for r in rows
            if r["status"] in ("oracle_limit", "after_config", "oracle_missing")
        ),
        "",
        "## Disagreements",
        "",
    ]
    for r in rows:
        if r["status"] not in ("disagree", "crash"):
            continue
        env = " ".join(f"{k}={v}" for k, v in r["env"].items())
        lines += [
            f"### `{r['id']}` — {r['cause']}",
            "",
            f"- launch: `{(env + ' ') if env else ''}vllm serve {r['model']} {' '.join(r['argv'])}` on {r['platform']}"
            f" (sample {r['sample']}; API server flags dropped: {' '.join(r['dropped']) or 'none'})",
            f"- source: {r['source']}",
            f"- differences (key, pack, vLLM): {r['diffs'][:4]}",
            "",
        ]
    lines += ["## Agreeing cases", ""]
    lines += [
        f"- `{r['id']}` {r['model']} @ {r['platform']}: `{' '.join(r['argv']) or '(no engine flags)'}`"
        + (f" (dropped: {' '.join(r['dropped'])})" if r["dropped"] else "")
        for r in rows
        if r["status"] == "agree"
    ]
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"real-launches-vllm-{release}{suffix}"
    payload = {
        "release": release,
        "status": dict(status),
        "compared": compared,
        "agree": status["agree"],
        "distinct": len(distinct),
        "not_measured": skipped,
        "cases": [{k: v for k, v in r.items() if k != "config"} for r in rows],
    }
    for suffix, text in (
        (".md", "\n".join(lines) + "\n"),
        (".json", json.dumps(payload, indent=1, default=str)),
    ):
        tmp = stem.with_name(f".{stem.name}{suffix}.tmp")
        tmp.write_text(text)
        tmp.replace(stem.with_name(stem.name + suffix))
    print(json.dumps({"release": release, "compared": compared, "agree": status["agree"], **dict(status)}))


if __name__ == "__main__":
    sys.exit(main())
