"""Agreement of the vLLM pack's engine configuration with each release's real ``create_engine_config``.

Usage (repository venv; the oracle venvs are separate, see ``tools/agreement_vllm/README.md``)::

    python tools/agreement_vllm_config/compare.py --vllm-version 0.33.0 --split dev -n 600
    python tools/agreement_vllm_config/compare.py --vllm-version 0.34.0 --split heldout -n 600

Cases come from ``tools/agreement_vllm/generate.py`` (kind ``config``). The oracle
(``oracle_worker.py``, one process per install variant, in ``/work/oracle-vllm/v<V>``) runs
vLLM's parser and ``create_engine_config`` on ``--model DIR <argv>``; the pack answers through
``pack_adapter.pack_values``. A case agrees when both refuse with the same meaning, or both accept
and every key the pack exposes equals the oracle's. Oracle answers are cached in
``/work/oracle-vllm/cache-config-<V>.jsonl``. Reports: ``reports/config-<V>-<split>.{md,json}``.
Not collected by pytest; nothing here is imported by the package.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "agreement_vllm"))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import pack_adapter  # noqa: E402

ORACLE_ROOT = Path(os.environ.get("VLLM_ORACLE_ROOT", "/work/oracle-vllm"))
RELEASES = ("0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")
WORKER_REVISION = 5  # keep equal to oracle_worker.WORKER_REVISION (no vLLM import here)
STOP = {
    "the",
    "a",
    "an",
    "is",
    "of",
    "to",
    "for",
    "and",
    "or",
    "in",
    "with",
    "be",
    "not",
    "on",
    "by",
    "it",
    "this",
}

#: oracle errors that are the oracle's limits, not vLLM's answer for a real checkpoint
ORACLE_LIMITS = re.compile(
    r"No such file|does not appear to have a file|trust_remote_code|Unrecognized model|"
    r"not supported by the transformers|ModuleNotFoundError|ImportError|has no attribute|"
    # ("tokenizer", but not vLLM's own draft-vocabulary refusal "… different tokenizers can cause …")
    r"Can't load|tokenizer(?!s can cause)|failed to be inspected|"
    # transformers refuses the mutated config itself (sliding_window None where it must be an
    # int; a sample's Mamba dimensions): no real checkpoint reaches vLLM like this
    r"StrictDataclass|integer modulo by zero|"
    # the shared transformers (5.20) is newer than 0.27.1's: its Gemma-4 config makes head_dim a
    # per-layer attribute, which 0.27.1's Gemma4Config hook still reads globally (0.28 reads it
    # per layer); not vLLM's answer with the transformers it was released with
    r"AmbiguousGlobalPerLayerAttributeError"
)


def _tokens(text: str) -> set[str]:
    out = set()
    for word in re.split(r"[^A-Za-z0-9_.\-]+", text.lower()):
        for piece in re.split(r"[_.\-]", word):
            if len(piece) >= 2 and piece not in STOP:
                out.add(piece[:-1] if piece.endswith("s") and len(piece) > 3 else piece)
    return out


def _core(msg: str) -> str:
    msg = re.sub(r"^\w+(Error|Exception): ", "", msg)
    msg = re.sub(r"\d+ validation error for \w+\s+Value error, ", "", msg)
    # pydantic's trailer "[type=value_error, ..." or "[type=assertion_error, ..." is not the message
    msg = re.split(r" \[type=\w+| Fix: | \[refused by ", msg)[0]
    return msg.strip()


def same_meaning(oracle_msg: str, pack_msg: str) -> bool:
    a, b = _core(oracle_msg), _core(pack_msg)
    if oracle_msg.startswith("KeyError: "):  # a KeyError's message is the key alone
        return bool(a) and a in b
    ta, tb = _tokens(a), _tokens(b)
    shared = ta & tb
    if ta and tb and len(shared) >= 3 and len(shared) / min(len(ta), len(tb)) >= 0.6:
        return True
    if difflib.SequenceMatcher(None, a, b).ratio() >= 0.6:
        return True
    return difflib.SequenceMatcher(None, a[:50], b[:50]).ratio() >= 0.9


def _platform(name: str) -> dict:
    p = pack_adapter.platform_for(name)
    out = {
        "vendor": "cuda",
        "cc": list(p.capability or (0, 0)),
        "device_name": p.device_name,
        "memory_gib": p.memory_gib,
        "device_count": p.device_count,
    }
    if p.vendor in ("hip", "cpu"):  # the oracle fakes vLLM's own RocmPlatform / CpuPlatform
        out["vendor"] = p.vendor
        out["gcn_arch"] = p.gcn_arch
        out["amx"] = bool(p.cpu_amx)
        out["fake_revision"] = 2  # in the cache key: 2 = Triton usable under the ROCm fake
    return out


def _family(platform: dict) -> dict:
    """What one oracle process is started for: CUDA serves every capability in one process; a
    ROCm GCN arch (read once, at ``vllm.platforms.rocm``'s import) and a CPU's ISA need their own."""
    if platform["vendor"] == "hip":
        return {"vendor": "hip", "gcn_arch": platform["gcn_arch"]}
    if platform["vendor"] == "cpu":
        return {"vendor": "cpu", "amx": platform["amx"]}
    return {"vendor": "cuda"}


def _kernels_for(install: str | None, vendor: str = "cuda") -> list[str]:
    from resolvable import Platform
    from resolvable.vllm.kernels import parse_overrides, standard_install

    if vendor != "cuda":  # the oracle venvs hold CUDA kernel packages only: none on ROCm/CPU
        return []
    kernels = set(standard_install(Platform.preset("h100")))
    for name, on in parse_overrides(install).items():
        (kernels.add if on else kernels.discard)(name)
    return sorted(kernels)


def _key(release: str, case: dict, platform: dict) -> str:
    body = [release, WORKER_REVISION, case["install"], platform, case["env"], case["config"], case["argv"]]
    return hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()


def run_oracle(release: str, cases: list[dict], workers: int) -> dict[str, dict]:
    cache_path = ORACLE_ROOT / f"cache-config-{release}.jsonl"
    cache: dict[str, dict] = {}
    if cache_path.exists():
        for line in cache_path.read_text().splitlines():
            try:  # two runs of one release may append at once: skip a torn line
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            cache[row["key"]] = row["answer"]
    results: dict[str, dict] = {}
    todo: dict = defaultdict(dict)
    keys = {}
    for case in cases:
        platform = _platform(case["platform"])
        key = _key(release, case, platform)
        keys[case["id"]] = key
        if key in cache:
            results[case["id"]] = cache[key]
            continue
        gk = json.dumps([platform, case["env"]], sort_keys=True)
        proc_key = json.dumps([case["install"], _family(platform)], sort_keys=True)
        group = todo[proc_key].setdefault(gk, {"platform": platform, "env": case["env"], "cases": []})
        group["cases"].append({"id": case["id"], "config": case["config"], "argv": case["argv"]})
    python = str(ORACLE_ROOT / f"v{release}" / "bin" / "python")

    def one(proc_key, groups):
        install, family = json.loads(proc_key)
        payload = {
            "kernels": _kernels_for(install, family["vendor"]),
            "family": family,
            "groups": list(groups.values()),
        }
        proc = subprocess.run(
            [python, str(HERE / "oracle_worker.py")],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=7200,
        )
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-3000:])
        return [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool, cache_path.open("a", buffering=1) as fh:
        for rows in pool.map(lambda item: one(*item), list(todo.items())):
            for row in rows:
                answer = {k: v for k, v in row.items() if k != "id"}
                results[row["id"]] = answer
                fh.write(json.dumps({"key": keys[row["id"]], "answer": answer}) + "\n")
    return results


#: the pack's attention-selection refusals: vLLM refuses those when the model is built, after
#: create_engine_config (the selector harness measures them), so they are not config answers
#: (the CPU's: ``CpuPlatform.get_attn_backend_cls``, ``platforms/cpu.py``, raised at model build too)
ATTENTION_REFUSAL = re.compile(
    r"Selected backend \S+ is not valid|No valid attention backend found|"
    r"Sparse Attention is not supported on CPU|is not supported by MLA attention on CPU|"
    r"No valid MLA prefill backend found|MLA is not supported on CPU|"
    # 0.20: MLACommonImpl.__init__ without flash_attn_varlen_func (model build; h32u, after its
    # held-out run 1796466693, which counted one such case as a miss)
    r"MLA attention requires FlashAttention"
)


def classify(oracle: dict | None, pack: dict) -> tuple[str, list]:
    """(status, diffs): agree | disagree | crash | oracle_limit | oracle_missing | after_config."""
    if oracle is None:
        return "oracle_missing", []
    if "crash" in pack:
        return "crash", [("crash", pack["crash"][:200], None)]
    if "error" in pack and "error" not in oracle and ATTENTION_REFUSAL.search(pack["error"]):
        return "after_config", [("after_config", pack["error"][:200], None)]
    if "error" in oracle and ORACLE_LIMITS.search(oracle["error"]):
        return "oracle_limit", [("oracle_limit", None, oracle["error"][:200])]
    if "error" in oracle or "error" in pack:
        if "error" in oracle and "error" in pack:
            parse_errors = oracle["error"].startswith("ArgumentError:") and pack["error"].startswith(
                "VllmArgumentError:"
            )  # both refuse the command line while parsing it (argparse stops at its first error)
            if parse_errors or same_meaning(oracle["error"], pack["error"]):
                return "agree", []
            return "disagree", [("refusal_reason", pack["error"][:200], oracle["error"][:200])]
        return "disagree", [
            ("refusal", pack.get("error", "accepted")[:200], oracle.get("error", "accepted")[:200])
        ]
    diffs = []
    for key in pack["exposed"]:
        mine = pack["values"].get(key)
        theirs = pack_adapter.normalise(key, oracle["values"].get(key))
        if mine != theirs:
            diffs.append((key, mine, theirs))
    return ("disagree" if diffs else "agree"), diffs


def cause(diffs: list) -> str:
    kind, a, b = diffs[0]
    if kind == "refusal":
        if a == "accepted":
            return "vLLM refuses, pack accepts: " + _core(str(b))[:80]
        return "pack refuses, vLLM accepts: " + _core(str(a))[:80]
    if kind == "refusal_reason":
        return "both refuse, different reason: vLLM " + _core(str(b))[:60]
    if kind in ("crash", "oracle_limit"):
        return f"{kind}: " + str(a or b)[:80]
    return f"{kind}: pack {str(a)[:40]} vs vLLM {str(b)[:40]}"


def _slim(row: dict) -> dict:
    """A miss as kept in the JSON report: the case and the differences, not every value."""
    slim = {k: v for k, v in row.items() if k not in ("pack", "oracle")}
    for side in ("pack", "oracle"):
        answer = row.get(side) or {}
        if "error" in answer or "crash" in answer:
            slim[side] = {k: answer[k] for k in ("error", "crash") if k in answer}
    return slim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-version", default="0.33.0", choices=RELEASES)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument(
        "--kind",
        choices=("config", "operators"),
        default="config",
        help="generator kind (issue 28: operators)",
    )
    parser.add_argument("--seed", type=int)
    parser.add_argument("-n", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=25)
    parser.add_argument("--out", default=str(HERE / "reports"))
    args = parser.parse_args()
    # draft directories in a case's --speculative-config are relative to the repository root
    # (generate.DRAFTS_DIR): the pack and the oracle processes resolve them from there
    os.chdir(HERE.parents[1])
    release = args.vllm_version
    seed = generate.seed_for(args.split, args.seed, args.kind)
    cases = generate.generate(args.kind, seed, args.n)
    t0 = time.time()
    oracle = run_oracle(release, cases, args.workers)
    t_oracle = time.time() - t0
    rows, status = [], Counter()
    not_exposed: Counter = Counter()
    per_key: Counter = Counter()
    for case in cases:
        pack = pack_adapter.pack_values(case, release)
        got = oracle.get(case["id"])
        st, diffs = classify(got, pack)
        status[st] += 1
        if "exposed" in pack:
            for key in pack_adapter.FIELDS:
                if key not in pack["exposed"]:
                    not_exposed[key] += 1
        for d in diffs:
            per_key[d[0]] += 1
        rows.append(
            {
                "id": case["id"], "status": st, "model": case["model"], "mutations": case["mutations"],
                "platform": case["platform"], "install": case["install"], "env": case["env"],
                "argv": case["argv"], "pack": pack, "oracle": got, "diffs": diffs,
                "cause": cause(diffs) if diffs else None,
            }
        )  # fmt: skip
    compared = status["agree"] + status["disagree"] + status["crash"]
    agree = status["agree"]
    by_cause = Counter(r["cause"] for r in rows if r["status"] in ("disagree", "crash"))
    kind = "" if args.kind == "config" else f" --kind {args.kind}"
    cmd = f"python tools/agreement_vllm_config/compare.py --vllm-version {release}{kind} --split {args.split} -n {args.n}"
    lines = [
        f"# vLLM {release} engine-configuration agreement, {args.kind} cases, {args.split} split (seed {seed})",
        "",
        f"Command: `{cmd}`  ",
        f"Cases: {len(rows)}; compared: {compared}; agree: {agree} ({100.0 * agree / max(1, compared):.2f}%); "
        f"pack crashes: {status['crash']}; oracle limits (excluded): {status['oracle_limit']}; "
        f"oracle missing: {status['oracle_missing']}; pack refuses at attention selection, after "
        f"create_engine_config (excluded, see the selector harness): {status['after_config']}; "
        f"oracle {t_oracle:.0f}s",
        "",
        "Keys the pack does not expose (cases): "
        + (", ".join(f"{k} ({v})" for k, v in sorted(not_exposed.items())) or "none"),
        "",
        "Differences per key: " + (", ".join(f"{k} {v}" for k, v in per_key.most_common()) or "none"),
        "",
        "## Disagreements by cause (count, one repro)",
        "",
    ]
    for text, k in by_cause.most_common():
        ex = next(r for r in rows if r["cause"] == text)
        lines.append(f"- **{k}** × {text}  ")
        if args.split == "heldout":
            continue  # held-out cases are never shown (nobody fixing may look at them)
        lines.append(
            f"  repro: `{ex['id']}` {ex['model']} {ex['mutations']} on {ex['platform']}, install "
            f"{ex['install']}, env {ex['env']}: `vllm serve MODEL {' '.join(ex['argv'])}`; diffs {ex['diffs'][:3]}"
        )
    limits = Counter(r["cause"] for r in rows if r["status"] == "oracle_limit")
    if limits:
        lines += ["", "## Oracle limits (excluded)", ""]
        lines += [f"- {k} × {t}" for t, k in limits.most_common(10)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = (
        f"config-{release}-{args.split}" if args.kind == "config" else f"{args.kind}-{release}-{args.split}"
    )
    for suffix, text in (
        (".md", "\n".join(lines) + "\n"),
        (".json", json.dumps({"release": release, "split": args.split, "seed": seed, "status": status, "n": compared, "agree": agree, "crashes": status["crash"], "misses": [_slim(r) for r in rows if r["status"] in ("disagree", "crash")] if args.split == "dev" else [], "causes": dict(by_cause)}, indent=1, default=str)),
    ):  # fmt: skip
        tmp = out / f".{stem}{suffix}.tmp"
        tmp.write_text(text)
        tmp.replace(out / f"{stem}{suffix}")
    print("\n".join(lines[:8]))
    for text, k in by_cause.most_common(args.show):
        print(f"  {k:5d}  {text[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
