"""Agreement per platform family (CUDA, ROCm, CPU) of one config-comparer run, from its cache.

Usage (after ``compare.py`` ran the same arguments; every oracle answer then comes from
``/work/oracle-vllm/cache-config-<V>.jsonl``, no oracle process starts)::

    python tools/agreement_vllm_config/family_counts.py --vllm-version 0.34.0 --kind operators --split heldout -n 400

Prints counts only (agree / compared, crashes, excluded per family, and the same for the cases
whose ``--speculative-config`` names a bundled draft directory, ``generate.DRAFTS_DIR``): held-out
cases are never shown. Runs from the repository root (the draft directories are relative to it).
Nothing here is imported by the package.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "agreement_vllm"))

import compare  # noqa: E402  (this directory's)
import generate  # noqa: E402


def family(name: str) -> str:
    vendor = compare.pack_adapter.platform_for(name).vendor
    return {"cuda": "CUDA", "hip": "ROCm", "cpu": "CPU"}.get(vendor, vendor)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-version", default="0.34.0", choices=compare.RELEASES)
    parser.add_argument("--kind", choices=("config", "operators"), default="operators")
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--seed", type=int)
    parser.add_argument("-n", type=int, default=400)
    args = parser.parse_args()
    os.chdir(HERE.parents[1])  # draft directories are relative to the repository root
    seed = generate.seed_for(args.split, args.seed, args.kind)
    cases = generate.generate(args.kind, seed, args.n)
    answers = compare.run_oracle(args.vllm_version, cases, 1)
    counts: dict[str, Counter] = defaultdict(Counter)
    for case in cases:
        pack = compare.pack_adapter.pack_values(case, args.vllm_version)
        status, _ = compare.classify(answers.get(case["id"]), pack)
        counts[family(case["platform"])][status] += 1
        spec = case["flags"].get("speculative_config")
        if isinstance(spec, dict) and str(spec.get("model", "")).startswith(generate.DRAFTS_DIR):
            counts["draft directories"][status] += 1
    for fam in ("CUDA", "ROCm", "CPU", "draft directories"):
        c = counts.get(fam, Counter())
        compared = c["agree"] + c["disagree"] + c["crash"]
        print(
            f"{args.vllm_version} {fam}: {c['agree']}/{compared} agree, crashes {c['crash']}, "
            f"after_config {c['after_config']}, oracle_limit {c['oracle_limit']}, missing {c['oracle_missing']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
