"""How two sglang releases' real ``ServerArgs`` answers differ on the same generated launches.

    python tools/agreement/compare_oracles.py OLD NEW [--split dev] [-n 300] [--seed S]

Runs in the repo venv and reads only the oracle caches (``/work/oracle/cache-<release>.jsonl``,
filled by ``compare.py`` or ``compare.py --oracle-only``): nothing is run. Each case is classified
as ``compare.classify`` classifies the pack against the oracle, with NEW in the pack's place, so
the categories name what NEW does differently from OLD. Used to size a release step before
modelling it (docs/fidelity.md "Older sglang releases": 0.5.11 against 0.5.12).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare as C  # noqa: E402
from generate import default_seed, generate, load_samples, materialize  # noqa: E402


def pair_cases(argv, description: str):
    """``OLD NEW [--split] [--seed] [-n]`` read from ``argv``, and the generated cases of that draw
    (the draw ``compare.py`` makes for the same split, seed and size):
    ``(opts, cases, samples, presets, seed)``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--split", choices=["dev", "heldout"], default="dev")
    ap.add_argument("--seed", type=int)
    ap.add_argument("-n", type=int, default=300)
    opts = ap.parse_args(argv)

    from resolvable import Platform
    from resolvable.sglang import catalog

    presets, models = Platform.presets(), sorted(catalog())
    samples = load_samples(models)
    seed = opts.seed if opts.seed is not None else default_seed(opts.split, plain=False)
    cases = generate(seed, opts.n, models, {k: v.vendor for k, v in presets.items()}, samples)
    return opts, cases, samples, presets, seed


def main(argv=None) -> int:
    opts, cases, samples, presets, seed = pair_cases(argv, __doc__.split("\n\n")[0])
    old = C.load_oracle_cache(f"/work/oracle/cache-{opts.old}.jsonl")
    new = C.load_oracle_cache(f"/work/oracle/cache-{opts.new}.jsonl")
    cats: collections.Counter = collections.Counter()
    example: dict[str, str] = {}
    same = total = 0
    for c in cases:
        text = C.config_key_text(c, *materialize(c, samples[c["model"]]))
        platform = presets[c["preset"]].to_dict()
        a = old.get(C.case_key(c, text, platform, opts.old))
        b = new.get(C.case_key(c, text, platform, opts.new))
        if a is None or b is None:
            continue
        total += 1
        b = dict(b)
        if b["outcome"] == "refused":
            b["message"] = C.oracle_text(b)
        agree, category = C.classify(a, b)
        if agree:
            same += 1
        else:
            cats[category] += 1
            example.setdefault(category, f"{c['model']} @ {c['preset']}: {' '.join(c['flags'])}")
    print(f"sglang {opts.old} vs {opts.new} (real ServerArgs, {opts.split} seed {seed}): same {same}/{total}")
    for category, count in cats.most_common():
        print(f"{count} x {category}  (e.g. {example[category]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
