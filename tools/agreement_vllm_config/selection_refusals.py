"""Issue 28 item 3: the pack's attention-selection refusals that ``create_engine_config`` accepts.

Usage (repository venv)::

    python tools/agreement_vllm_config/selection_refusals.py --vllm-version 0.34.0 --kind operators --seed 7001 -n 300

The config comparer (``compare.py``) excludes a case as ``after_config`` when the pack refuses it
at attention-backend selection while the real ``create_engine_config`` accepts it: vLLM selects
the backends when the model is built (``get_attn_backend`` from each attention layer), after the
engine configuration. This tool checks each such case against the **selector oracle**
(``tools/agreement_vllm/oracle.py``: vLLM's own ``get_attn_backend`` on the same layer arguments,
built by the selector comparer's ``pack_side``) and sorts them:

* ``vllm_refuses_same``: vLLM's selector refuses too, with the same meaning (``same_meaning``);
* ``vllm_refuses_other``: vLLM's selector refuses, with another message;
* ``vllm_accepts``: vLLM's selector picks a backend — the pack's refusal is its own (a miss);
* ``oracle_missing``: no oracle case could be built (the pack refuses on every device it tries).

ROCm and CPU cases run vLLM's own ``RocmPlatform`` / ``CpuPlatform`` selection (the oracle's
family fakes, one process per GCN arch or CPU ISA).

Writes ``reports/selection-refusals-<V>-<split>.md``. Nothing here is imported by the package.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "agreement_vllm"))

import compare  # noqa: E402  (this directory's: the config comparer)
import generate  # noqa: E402


def _selector():
    """The selector comparer (``tools/agreement_vllm/compare.py``, same module name as ours)."""
    path = HERE.parent / "agreement_vllm" / "compare.py"
    spec = importlib.util.spec_from_file_location("selector_compare", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def message_class(msg: str) -> str:
    """A refusal without its layer details: the class the report groups by."""
    msg = re.sub(r"\s*\[refused by .*", "", msg)
    msg = re.sub(r"^\w+Error: ", "", msg)
    head = re.match(r"(Selected backend \S+ is not valid|No valid attention backend found for \S+ with \S+ layers)", msg)
    if not head:
        return msg[:90]
    reasons = sorted(set(re.findall(r"'([^']*not supported[^']*)'", msg)))
    return f"{head.group(1)}: {', '.join(reasons[:3]) or msg[len(head.group(1)) :][:60]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-version", default="0.34.0", choices=compare.RELEASES)
    parser.add_argument("--kind", choices=("config", "operators"), default="operators")
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--seed", type=int)
    parser.add_argument("-n", type=int, default=300)
    parser.add_argument("--out", default=str(HERE / "reports"))
    args = parser.parse_args()
    release = args.vllm_version
    seed = generate.seed_for(args.split, args.seed, args.kind)
    cases = generate.generate(args.kind, seed, args.n)
    config_answers = compare.run_oracle(release, cases, 1)
    selector = _selector()
    picked, groups, expected = [], defaultdict(list), {}
    for case in cases:
        pack = compare.pack_adapter.pack_values(case, release)
        status, _ = compare.classify(config_answers.get(case["id"]), pack)
        if status != "after_config":
            continue
        picked.append((case, pack["error"]))
        exp, ocase = selector.pack_side(case, release)
        expected[case["id"]] = exp
        if ocase is None:
            continue
        platform = selector.oracle_platform(selector.platform_for(case["platform"]))
        key = selector._cache_key(release, case["install"], platform, case["env"], ocase)
        unit = case["install"] if platform["vendor"] == "cuda" else f"{case['install']}|{selector.oracle_family(platform)}"
        groups[unit].append((key, platform, case["env"], ocase))
    answers = selector.run_oracle(release, groups, 1)
    verdicts: Counter = Counter()
    by_class: dict[tuple, list] = defaultdict(list)
    for case, error in picked:
        got = answers.get(case["id"])
        if got is None:
            verdict, theirs = "oracle_missing", None
        elif "error" in got:
            # the oracle's missing kernel package is an entry of None in sys.modules (oracle.py):
            # a real host without it says "No module named …"
            theirs = re.sub(r"import of (\S+) halted; None in sys.modules", r"No module named '\1'", got["error"])
            verdict = "vllm_refuses_same" if compare.same_meaning(theirs, error) else "vllm_refuses_other"
        else:
            verdict, theirs = "vllm_accepts", json.dumps(got.get("backends"))
        verdicts[verdict] += 1
        by_class[(message_class(error), verdict)].append((case, theirs))
    lines = [
        f"# vLLM {release}: the pack's selection refusals that create_engine_config accepts ({args.kind}, {args.split}, seed {seed})",
        "",
        f"Command: `python tools/agreement_vllm_config/selection_refusals.py --vllm-version {release} "
        f"--kind {args.kind} --split {args.split} --seed {seed} -n {args.n}`  ",
        f"Cases: {len(cases)}; after_config: {len(picked)}; verdicts: "
        + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
        "",
        "| count | pack's refusal (class) | verdict | one case | vLLM's selector |",
        "|---|---|---|---|---|",
    ]
    for (cls, verdict), items in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        case, theirs = items[0]
        shown = "" if args.split == "heldout" else f"{case['model']} on {case['platform']}: `{' '.join(case['argv'])}`"
        lines.append(
            f"| {len(items)} | {cls.replace('|', '/')} | {verdict} | {shown.replace('|', '/')} | "
            f"{(theirs or '')[:160].replace('|', '/')} |"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"selection-refusals-{release}-{args.split}.md"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
