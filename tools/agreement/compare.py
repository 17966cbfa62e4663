"""Agreement of the pack with the real sglang ``ServerArgs`` on randomised launches.

Runs in the repo venv. For each case the oracle (``oracle_worker.py`` in the oracle venv, one
subprocess per (preset, env) group) and the pack see the same argv
``--model-path DIR <flags>``; the pack goes through its own CLI surface
(``resolvable.sglang.add_cli_args`` + ``from_cli_args``), i.e. what a user pasting the
command gets. Oracle results are cached by case content (``--oracle-cache``), so re-measuring
after a pack change costs only the pack side.

Agreement of one case (see README "What counts as agreement"):
* both accept, and the six attention fields are equal;
* both refuse and the refusals mean the same thing (``same_meaning``);
* both parsers reject the command line.
A pack exception that is not a ValueError is a *crash* (and a disagreement).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from generate import default_seed, generate, load_samples, materialize  # noqa: E402

SIX = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "page_size",
    "dtype",
    "kv_cache_dtype",
)
EXTRA = (
    "quantization",
    "moe_runner_backend",
    "speculative_algorithm",
    "disable_cuda_graph",
    "device",
    "disable_overlap_schedule",
)
#: Small values compared on top of SIX for the "extended" figure (both sides accept): the
#: quantization sglang resolves and the overlap schedule (issue 20 item 6 found misses there).
EXTENDED = ("quantization", "disable_overlap_schedule")


# -- refusal meaning -------------------------------------------------------------------------
_STOP = frozenset(
    {
        "the", "and", "for", "with", "but", "got", "are", "not", "must", "when", "set", "use",
        "using", "this", "that", "only", "than", "from", "into", "its", "please", "was", "were",
        "has", "have", "been", "which", "also", "can", "cannot", "is", "be", "of", "to", "in", "on",
        "or", "an", "it", "by", "as", "at", "if", "one", "those", "these", "may", "you", "your",
        "currently", "should", "will",
    }
)  # fmt: skip


def _tokens(text: str) -> set[str]:
    """Lower-cased word pieces (identifiers split at ``_ . -``), plural ``s`` dropped, stop words out."""
    text = re.sub(r"\[refused by .*?\]", " ", text or "").lower()
    words = (w[:-1] if len(w) > 4 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text))
    return {w for w in words if len(w) >= 2} - _STOP


_TMP_PATH = re.compile(r"/tmp/[^\s'\",]*/([^/\s'\",]+)")


def _strip_tmp(text: str) -> str:
    """A model directory path of this harness → its last component: the oracle's answer may be
    cached from a run whose temporary directory differs from the pack's."""
    return _TMP_PATH.sub(r"\1", text or "")


def similarity(a: str, b: str) -> float:
    """max(keyword overlap coefficient, difflib ratio of the lowered texts) in [0, 1]; the overlap
    counts only when at least 3 keywords are shared (or the shorter text has fewer than 3); two
    texts whose first 50 characters read >= 90% alike score 1 (one message template). Temporary
    model paths are reduced to the directory's name first."""
    a, b = _strip_tmp(a), _strip_tmp(b)
    ta, tb = _tokens(a), _tokens(b)
    shared = len(ta & tb)
    small = min(len(ta), len(tb))
    overlap = shared / small if small and (shared >= 3 or shared == small) else 0.0
    la, lb = (a or "").lower(), (b or "").lower()
    ratio = difflib.SequenceMatcher(None, la[:400], lb[:400]).ratio()
    # The same message template (a shared opening clause) with different details after it.
    head = difflib.SequenceMatcher(None, la[:50], lb[:50]).ratio() if min(len(la), len(lb)) >= 30 else 0.0
    return max(overlap, ratio, 1.0 if head >= 0.9 else 0.0)


def same_meaning(oracle_msg: str, pack_msg: str) -> bool:
    """Two refusals mean the same thing when they share >= 60% of the keywords of the shorter one
    (flag names, backends, values, split into word pieces) or read >= 60% alike. The pack's
    ``Fix:`` and ``[refused by ...]`` suffixes are not part of its message."""
    return similarity(oracle_msg, pack_msg) >= 0.6


# -- the pack ----------------------------------------------------------------------------------
class _PackParserError(Exception):
    pass


def run_pack(case: dict, model_dir: str, *, lenient: bool = False) -> dict:
    """The pack's answer to one case; never raises.

    ``lenient=True`` drops the flags the pack's parser does not know (as if they were accepted
    and "not modelled"): a forecast of the agreement once the parser covers sglang's surface."""
    import argparse as ap

    from resolvable import Platform
    from resolvable.sglang import add_cli_args, from_cli_args

    class Parser(ap.ArgumentParser):
        def error(self, message):
            raise _PackParserError(message)

    out: dict = {}
    # --as-release: the pack answers as that release (a stand-in for one it does not resolve)
    version = (case.get("pack_release") or case.get("sglang_version")) if _pack_is_version_aware() else None
    try:
        parser = Parser(prog="resolvable")
        add_cli_args(parser, release=version)
        try:
            argv = ["--model-path", model_dir, *case["flags"]]
            if lenient:
                ns, dropped = parser.parse_known_args(argv)
                if dropped:
                    out["dropped"] = dropped
            else:
                ns = parser.parse_args(argv)
        except _PackParserError as exc:
            return {"outcome": "parser_error", "exc_type": "ArgumentError", "message": str(exc)}
        except SystemExit as exc:  # an action that exits (e.g. --help, --version)
            return {"outcome": "parser_error", "exc_type": "SystemExit", "message": str(exc)}
        inputs = {"platform": Platform.preset(case["preset"]), "env": dict(case.get("env") or {})}
        if version:
            inputs["sglang_version"] = version
        obj = from_cli_args(ns, **inputs)
        out["outcome"] = "accepted"
        out["fields"] = {f: getattr(obj, f) for f in (*SIX, *EXTRA) if hasattr(obj, f)}
    except ValueError as exc:
        out.update(
            outcome="refused",
            exc_type=getattr(exc, "upstream", None) or type(exc).__name__,
            pack_error=type(exc).__name__,
            message=getattr(exc, "message", None) or str(exc),
            rule=getattr(exc, "rule", None),
        )
    except Exception as exc:  # a crash of the pack is a finding
        import traceback

        out.update(
            outcome="crash",
            exc_type=type(exc).__name__,
            message=str(exc)[:500],
            where=traceback.format_exc().strip().splitlines()[-3:],
        )
    return out


def _pack_is_version_aware() -> bool:
    """Whether the pack takes ``sglang_version`` (issue 10); if not, it answers for its release."""
    import inspect

    from resolvable.sglang import ServerArgs

    return "sglang_version" in inspect.signature(ServerArgs).parameters


def samples_text(model: str) -> str:
    """The bundled sample's config.json text, as the plain cases were keyed by."""
    from resolvable.sglang.models import MODELS_DIR

    with open(os.path.join(MODELS_DIR, f"{model}.json"), encoding="utf-8") as fh:
        return fh.read()


# -- the oracle --------------------------------------------------------------------------------
def load_oracle_cache(path: str) -> dict:
    """The oracle answers cached in the JSON-lines file ``path`` (key -> result); empty when absent."""
    cache: dict = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                cache[r["key"]] = r["result"]
    return cache


def config_key_text(case: dict, name: str, files: dict) -> str:
    """The checkpoint part of a case's cache key (``case_key``), from its materialized
    ``(name, files)``: a plain sample keeps its old key, its config.json text alone, so old caches
    still hit; a derived checkpoint is keyed on its files and directory name."""
    plain = name == case["model"] and list(files) == ["config.json"] and not case.get("derive")
    return samples_text(case["model"]) if plain else json.dumps([name, files], sort_keys=True)


def materialize_dirs(cases: list, samples: dict, tmp: str) -> tuple[dict, dict]:
    """Write each case's checkpoint under ``tmp``: ``(id -> model dir, id -> cache-key text)``.

    One directory per distinct checkpoint (files + directory name); the cache key holds the file
    texts and the name, so a derived checkpoint never reuses a sample's answer."""
    model_dirs, config_text, by_content = {}, {}, {}
    for c in cases:
        name, files = materialize(c, samples[c["model"]])
        blob = json.dumps([name, files], sort_keys=True)
        if blob not in by_content:
            d = os.path.join(tmp, "models", f"{len(by_content):05d}", name)
            os.makedirs(d)
            for fname, text in files.items():
                with open(os.path.join(d, fname), "w", encoding="utf-8") as fh:
                    fh.write(text)
            by_content[blob] = d
        model_dirs[c["id"]] = by_content[blob]
        config_text[c["id"]] = config_key_text(c, name, files)
    return model_dirs, config_text


def _worker_revision() -> str:
    """``WORKER_REVISION`` of oracle_worker.py (read, not imported: it runs in another venv)."""
    with open(os.path.join(HERE, "oracle_worker.py"), encoding="utf-8") as fh:
        m = re.search(r'^WORKER_REVISION = "([^"]+)"', fh.read(), re.M)
    return m.group(1) if m else "?"


def case_key(case: dict, config_text: str, platform: dict, version: str) -> str:
    """Cache key: the release, the worker's revision, and everything the case feeds sglang."""
    blob = json.dumps(
        [version, _worker_revision(), config_text, platform, case["flags"], case.get("env") or {}],
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def run_oracle(groups: dict, venv: str, workdir: str, jobs: int, timeout: int, on_group=None) -> dict:
    """``groups``: (platform_json, env_json) → [worker case]. Returns id → result.
    ``on_group(results)`` is called as each group finishes (the caller caches them at once, so
    an interrupted run keeps what it measured)."""
    python = os.path.join(venv, "bin", "python")
    worker = os.path.join(HERE, "oracle_worker.py")
    results: dict = {}

    def one(index_group):
        index, ((platform_json, env_json), cases) = index_group
        cases_path = os.path.join(workdir, f"group{index}.jsonl")
        out_path = os.path.join(workdir, f"group{index}.out.jsonl")
        with open(cases_path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(c) + "\n" for c in cases)
        cmd = [python, worker, "--platform-json", platform_json, "--env-json", env_json]
        cmd += ["--cases", cases_path, "--out", out_path]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "VIRTUAL_ENV"))}
        env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore")
        with contextlib.suppress(subprocess.TimeoutExpired):  # the cases it did not reach say so
            subprocess.run(cmd, cwd=workdir, env=env, timeout=timeout, capture_output=True, check=False)
        got = {}
        if os.path.exists(out_path):
            with open(out_path, encoding="utf-8") as fh:
                for line in fh:
                    r = json.loads(line)
                    got[r["id"]] = r
        for c in cases:  # a worker that died mid-group: the rest are oracle errors
            got.setdefault(c["id"], {"id": c["id"], "outcome": "oracle_error", "message": "worker died"})
        return got

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, item) for item in enumerate(groups.items())]
        for done in concurrent.futures.as_completed(futures):
            got = done.result()
            results.update(got)
            if on_group is not None:
                on_group(got)
    return results


# -- comparison --------------------------------------------------------------------------------
def _flag_of_parser_message(msg: str) -> str:
    m = re.search(r"unrecognized arguments: (\S+)", msg)
    if m:
        return f"unknown flag {m.group(1)}"
    m = re.search(r"argument (\S+?)(?:/\S+)?: invalid choice: '([^']*)'", msg)
    if m:
        return f"invalid choice {m.group(1)} {m.group(2)}"
    m = re.search(r"argument (\S+?)(?:/\S+)?:", msg)
    if m:
        return f"argument {m.group(1)}"
    return msg[:80]


def _short(msg: str, n: int = 70) -> str:
    msg = re.sub(r"/tmp/\S+", "<dir>", msg or "")
    msg = re.sub(r"\d{3,}", "N", msg)
    return msg.split("\n")[0][:n]


def oracle_text(oracle: dict) -> str:
    """sglang's refusal text; a bare ``assert`` has none, so its source line stands in."""
    msg = oracle.get("message") or ""
    return msg if msg.strip() else (oracle.get("source_line") or "")


def classify(oracle: dict, pack: dict) -> tuple[bool, str]:
    """(agree, category). Categories are short, stable strings grouping similar disagreements."""
    o, p = oracle["outcome"], pack["outcome"]
    if p == "crash":
        return False, f"pack crash: {pack['exc_type']}: {_short(pack['message'], 60)}"
    if o == "parser_error" and p == "parser_error":
        return True, "both parsers reject"
    if o != "parser_error" and p == "parser_error":
        return False, f"pack parser rejects: {_flag_of_parser_message(pack['message'])}"
    if o == "parser_error":
        return False, f"sglang parser rejects, pack does not: {_flag_of_parser_message(oracle['message'])}"
    if o == "accepted" and p == "accepted":
        diffs = [f for f in SIX if oracle["fields"].get(f) != pack["fields"].get(f)]
        if not diffs:
            return True, "both accept, six fields equal"
        f = diffs[0]
        return False, f"field {f}: sglang {oracle['fields'].get(f)!r} vs pack {pack['fields'].get(f)!r}"
    if o == "refused" and p == "refused":
        if same_meaning(oracle_text(oracle), pack["message"]):
            return True, "both refuse, same meaning"
        return False, f"both refuse, different reason: sglang {_short(oracle_text(oracle), 60)!r}"
    if o == "refused":
        where = (oracle.get("where") or "?").rsplit(":", 1)[-1]
        return (
            False,
            f"sglang refuses ({oracle['exc_type']} in {where}), pack accepts: {_short(oracle_text(oracle))}",
        )
    rule = pack.get("rule") or pack.get("pack_error")
    return False, f"pack refuses ({rule}), sglang accepts"


def draw(seed: int, n: int, *, plain: bool = False, without_preset=()) -> tuple[list, dict, dict]:
    """(cases, presets, samples) of one draw: the generator's ``n`` cases of ``seed`` over the
    bundled models and the presets less ``without_preset`` (derived checkpoints unless ``plain``)."""
    from resolvable import Platform
    from resolvable.sglang import catalog

    presets = {k: v for k, v in Platform.presets().items() if k not in without_preset}
    models = sorted(catalog())
    samples = load_samples(models)
    cases = generate(seed, n, models, {k: v.vendor for k, v in presets.items()}, None if plain else samples)
    return cases, presets, samples


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Measure the pack's agreement with real sglang.")
    ap.add_argument("--sglang-version", default="0.5.15")
    ap.add_argument("--venv", help="oracle venv (default /work/oracle/venv-<version>)")
    ap.add_argument("--split", choices=["dev", "heldout"], default="dev")
    ap.add_argument("--seed", type=int)
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per oracle group")
    ap.add_argument(
        "--oracle-cache",
        help="JSON-lines cache of oracle results (default /work/oracle/cache-<version>.jsonl)",
    )
    ap.add_argument(
        "--report", help="report path stem (default tools/agreement/reports/sglang-<version>-<split>)"
    )
    ap.add_argument(
        "--plain", action="store_true", help="bundled samples unchanged (the generator before derivations)"
    )
    ap.add_argument(
        "--oracle-only",
        action="store_true",
        help="only fill the oracle cache (no pack run, no report): warm a held-out set without looking",
    )
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="compare only the cases the oracle cache already answers (the rest are counted as not measured)",
    )
    ap.add_argument(
        "--as-release",
        metavar="RELEASE",
        help="the pack resolves as RELEASE while the oracle is --sglang-version (e.g. 0.5.11 standing "
        "in for a parse-only 0.5.9: sizes the step before it is modelled); report stem gets -as-RELEASE",
    )
    ap.add_argument("--examples", type=int, default=1, help="examples per category in the report")
    ap.add_argument(
        "--without-preset",
        action="append",
        default=[],
        metavar="NAME",
        help="draw cases from the presets less NAME (repeatable): regenerates the cases of a cache "
        "filled before NAME was added (the dev caches of 0.5.11/0.5.12 predate the gb10 preset)",
    )
    opts = ap.parse_args(argv)

    version = opts.sglang_version
    venv = opts.venv or f"/work/oracle/venv-{version}"
    seed = opts.seed if opts.seed is not None else default_seed(opts.split, plain=opts.plain)
    cache_path = opts.oracle_cache or f"/work/oracle/cache-{version}.jsonl"
    suffix = "" if opts.plain else "-derived"
    if opts.as_release:
        suffix += f"-as-{opts.as_release}"
    stem = opts.report or os.path.join(HERE, "reports", f"sglang-{version}-{opts.split}{suffix}")

    cases, presets, samples = draw(seed, opts.n, plain=opts.plain, without_preset=opts.without_preset)
    for c in cases:
        c["sglang_version"] = version
        if opts.as_release:
            c["pack_release"] = opts.as_release

    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        model_dirs, config_text = materialize_dirs(cases, samples, tmp)

        cache = load_oracle_cache(cache_path)
        keys, groups = {}, collections.defaultdict(list)
        for c in cases:
            pdict = presets[c["preset"]].to_dict()
            k = case_key(c, config_text[c["id"]], pdict, version)
            keys[c["id"]] = k
            if k not in cache and not opts.cached_only:
                gk = (json.dumps(pdict, sort_keys=True), json.dumps(c.get("env") or {}, sort_keys=True))
                groups[gk].append({"id": c["id"], "model_dir": model_dirs[c["id"]], "flags": c["flags"]})

        def store(got: dict) -> None:
            with open(cache_path, "a", encoding="utf-8") as fh:
                for cid, r in got.items():
                    if r["outcome"] != "oracle_error":
                        fh.write(json.dumps({"key": keys[cid], "result": r}) + "\n")
                    cache[keys[cid]] = r

        fresh = run_oracle(groups, venv, tmp, opts.jobs, opts.timeout, on_group=store) if groups else {}
        t_oracle = time.time() - t0
        if opts.oracle_only:
            print(
                json.dumps({"oracle_cached": len(cases), "fresh": len(fresh), "seconds": round(t_oracle, 1)})
            )
            return 0

        rows = []
        lenient_rows = []
        opts.not_measured = sum(1 for c in cases if keys[c["id"]] not in cache)
        for c in cases:
            if keys[c["id"]] not in cache:  # --cached-only: the oracle never answered it
                continue
            oracle = cache[keys[c["id"]]]
            pack = run_pack(c, model_dirs[c["id"]])
            rows.append((c, oracle, pack))
            if pack["outcome"] == "parser_error":
                pack = run_pack(c, model_dirs[c["id"]], lenient=True)
            lenient_rows.append((c, oracle, pack))
    t_total = time.time() - t0

    write_report(stem, rows, version, seed, opts, t_oracle, t_total)
    write_report(stem + "-lenient", lenient_rows, version, seed, opts, t_oracle, t_total, lenient=True)
    return 0


def _display(case: dict) -> str:
    env = " ".join(f"{k}={v}" for k, v in (case.get("env") or {}).items())
    derive = ",".join(f"{op}={arg}" for op, arg in case.get("derive") or ())
    model = f"{case['model']}[{derive}]" if derive else case["model"]
    return f"{env + ' ' if env else ''}{model} @ {case['preset']}: {' '.join(case['flags']) or '(no flags)'}"


def _answer(r: dict) -> str:
    if r["outcome"] == "accepted":
        return "accepted " + json.dumps({f: r["fields"].get(f) for f in SIX})
    text = oracle_text(r) if "source_line" in r else r.get("message", "")
    where = f" [{r['where']}]" if r.get("where") and isinstance(r["where"], str) else ""
    rule = f" [rule {r['rule']}]" if r.get("rule") else ""
    return f"{r['outcome']} {r.get('exc_type')}: {_short(text, 300)}{where}{rule}"


def write_report(stem, rows, version, seed, opts, t_oracle, t_total, lenient=False) -> None:
    usable = [(c, o, p) for c, o, p in rows if o["outcome"] != "oracle_error"]
    approx = [(c, o, p) for c, o, p in usable if o.get("oracle_notes")]
    verdicts = [(c, o, p, *classify(o, p)) for c, o, p in usable]
    agree = sum(1 for v in verdicts if v[3])
    crashes = sum(1 for _, _, p, *_ in verdicts if p["outcome"] == "crash")
    approx_ids = {c["id"] for c, _, _ in approx}
    exact = [v for v in verdicts if v[0]["id"] not in approx_ids]
    agree_exact = sum(1 for v in exact if v[3])
    type_mismatch = sum(
        1
        for _, o, p, ok, cat in verdicts
        if ok and cat == "both refuse, same meaning" and o["exc_type"] != p["exc_type"]
    )
    by_cat = collections.defaultdict(list)
    for c, o, p, ok, cat in verdicts:
        by_cat[(ok, cat)].append((c, o, p))
    outcomes = collections.Counter((o["outcome"], p["outcome"]) for _, o, p in usable)
    dis = sorted(((k, v) for k, v in by_cat.items() if not k[0]), key=lambda kv: -len(kv[1]))
    families = collections.Counter()
    for (_, cat), items in dis:
        families[cat.split(":")[0].split(" (")[0]] += len(items)

    ext_diff = collections.Counter()
    ext_examples: dict = {}
    ext_agree = 0
    for c, o, p, ok, _cat in verdicts:
        if not ok:
            continue
        if o["outcome"] == "accepted" and p["outcome"] == "accepted":
            diffs = [f for f in EXTENDED if f in p["fields"] and o["fields"].get(f) != p["fields"].get(f)]
            if diffs:
                key = f"field {diffs[0]}: sglang {o['fields'].get(diffs[0])!r} vs pack {p['fields'].get(diffs[0])!r}"
                ext_diff[key] += 1
                ext_examples.setdefault(key, _display(c))
                continue
        ext_agree += 1
    summary = {
        "sglang_version": version,
        "pack_release": opts.as_release or version,
        "split": opts.split,
        "lenient": lenient,
        "seed": seed,
        "derived": not opts.plain,
        "n": len(rows),
        "drawn": opts.n,
        "not_measured": getattr(opts, "not_measured", 0),
        "oracle_errors": len(rows) - len(usable),
        "compared": len(usable),
        "agree": agree,
        "agreement": round(agree / len(usable), 4) if usable else None,
        "compared_exact_configs": len(exact),
        "agreement_exact_configs": round(agree_exact / len(exact), 4) if exact else None,
        "agree_extended": ext_agree,
        "agreement_extended": round(ext_agree / len(usable), 4) if usable else None,
        "extended_fields": list(EXTENDED),
        "extended_differences": dict(ext_diff.most_common()),
        "pack_crashes": crashes,
        "pack_version_aware": _pack_is_version_aware(),
        "refusals_same_meaning_different_type": type_mismatch,
        "outcomes_oracle_vs_pack": {f"{a} / {b}": n for (a, b), n in sorted(outcomes.items())},
        "disagreement_families": dict(families.most_common()),
        "seconds_oracle": round(t_oracle, 1),
        "seconds_total": round(t_total, 1),
    }
    cats = [
        {
            "category": cat,
            "count": len(items),
            "examples": [
                {"case": c, "launch": _display(c), "sglang": o, "pack": p}
                for c, o, p in items[: opts.examples]
            ],
        }
        for (_, cat), items in dis
    ]
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    with open(stem + ".json", "w", encoding="utf-8") as fh:
        json.dump({"summary": summary, "disagreements": cats}, fh, indent=1, default=str)

    lines = [
        f"# Agreement with sglang {version} ({opts.split} split, seed {seed}, n={len(rows)}"
        + (", bundled samples unchanged)" if opts.plain else ", derived checkpoints)")
        + (" — LENIENT: flags unknown to the pack's parser dropped" if lenient else "")
        + (
            f" — the pack resolving as {opts.as_release} (stand-in, not this release's rules)"
            if opts.as_release
            else ""
        ),
        "",
        "Generated by `tools/agreement/compare.py`; see tools/agreement/README.md."
        + (
            " Lenient = a forecast: where the pack's parser rejects an unknown flag, the case is re-run"
            " without it (as if it were accepted and not modelled); invalid choices stay rejections."
            if lenient
            else ""
        ),
        "",
        f"- compared: {len(usable)} (oracle could not run: {len(rows) - len(usable)})"
        + (
            f"; not measured: {opts.not_measured} of the {opts.n} drawn (--cached-only: no oracle answer yet)"
            if getattr(opts, "not_measured", 0)
            else ""
        ),
        f"- **agreement: {agree}/{len(usable)} = {100 * agree / max(1, len(usable)):.1f}%**",
        f"- agreement on cases whose config loads without approximation: "
        f"{agree_exact}/{len(exact)} = {100 * agree_exact / max(1, len(exact)):.1f}%",
        f"- agreement with {', '.join(EXTENDED)} also equal (both accept): "
        f"{ext_agree}/{len(usable)} = {100 * ext_agree / max(1, len(usable)):.1f}%",
        f"- pack crashes (non-ValueError): {crashes}",
        f"- refusals with the same meaning but another exception type: {type_mismatch}",
        "",
        "| outcome sglang / pack | cases |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in summary["outcomes_oracle_vs_pack"].items()),
        "",
        "| disagreement family | cases |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in families.most_common()),
        "",
        "## Disagreement categories (most frequent first)",
        "",
    ]
    if ext_diff:
        lines += ["## Extended fields that differ (cases agreeing on the six)", ""]
        lines += [f"- {n} × {k}: e.g. `{ext_examples[k]}`" for k, n in ext_diff.most_common()]
        lines.append("")
    for item in cats:
        lines.append(f"### {item['count']} × {item['category']}")
        for ex in item["examples"]:
            lines += [
                "",
                f"- launch: `{ex['launch']}`",
                f"- sglang: {_answer(ex['sglang'])}",
                f"- pack: {_answer(ex['pack'])}",
            ]
            if ex["sglang"].get("oracle_notes"):
                lines.append(f"- oracle approximation: {'; '.join(ex['sglang']['oracle_notes'])}")
        lines.append("")
    with open(stem + ".md", "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    print(json.dumps({k: summary[k] for k in ("split", "lenient", "compared", "agreement", "pack_crashes")}))


if __name__ == "__main__":
    sys.exit(main())
