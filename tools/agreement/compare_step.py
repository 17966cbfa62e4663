"""Whether the pack models one release step: OLD against NEW, on the same generated launches.

    python tools/agreement/compare_step.py OLD NEW [--split dev] [-n 300] [--seed S] [--examples K]

Both releases must be ones the pack resolves (``SGLANG_RELEASES``), and both oracle caches
(``/work/oracle/cache-<release>.jsonl``, filled by ``compare.py --oracle-only``) must hold the
draw: nothing is run but the pack. For each case the pack answers as OLD and as NEW and each
answer is classified against that release's real ``ServerArgs`` (``compare.classify``):

- *agrees at OLD*: the pack and sglang OLD agree;
- *inherited*: it disagrees at OLD exactly as it disagrees at NEW (the same category, values
  included): the miss is not this step's, it is NEW's (or a later step's) and goes when NEW
  agrees;
- *step miss*: any other disagreement at OLD — a change between OLD and NEW that is not
  modelled, or modelled wrong.

The step agreement is (agrees + inherited) / compared. Reported beside it: the cases where the
two real releases answer differently (``compare_oracles``), and how many of those the pack gets
right at OLD. Used to model a step while the steps after it are modelled on other branches; the
release's own agreement is measured with ``compare.py`` once every step after it is merged.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare as C  # noqa: E402
from compare_oracles import pair_cases  # noqa: E402


def _answer_of(oracle: dict) -> dict:
    """An oracle answer standing in the pack's place (``classify`` reads the pack's message)."""
    oracle = dict(oracle)
    if oracle["outcome"] == "refused":
        oracle["message"] = C.oracle_text(oracle)
    return oracle


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    examples = 1
    if "--examples" in argv:
        i = argv.index("--examples")
        examples = int(argv[i + 1])
        del argv[i : i + 2]
    opts, cases, samples, presets, seed = pair_cases(argv, __doc__.split("\n\n")[0])
    old_cache = C.load_oracle_cache(f"/work/oracle/cache-{opts.old}.jsonl")
    new_cache = C.load_oracle_cache(f"/work/oracle/cache-{opts.new}.jsonl")
    counts: collections.Counter = collections.Counter()
    misses: collections.Counter = collections.Counter()
    shown: dict[str, list[str]] = collections.defaultdict(list)
    moved = moved_right = 0
    with tempfile.TemporaryDirectory(prefix="step-") as tmp:
        model_dirs, config_text = C.materialize_dirs(cases, samples, tmp)
        for c in cases:
            platform = presets[c["preset"]].to_dict()
            o_old = old_cache.get(C.case_key(c, config_text[c["id"]], platform, opts.old))
            o_new = new_cache.get(C.case_key(c, config_text[c["id"]], platform, opts.new))
            if o_old is None or o_new is None:
                counts["not in both caches"] += 1
                continue
            p_old = C.run_pack({**c, "sglang_version": opts.old}, model_dirs[c["id"]])
            agree_old, cat_old = C.classify(o_old, p_old)
            step_moved = not C.classify(o_old, _answer_of(o_new))[0]
            moved += step_moved
            if agree_old:
                counts["agrees at OLD"] += 1
                moved_right += step_moved
                continue
            p_new = C.run_pack({**c, "sglang_version": opts.new}, model_dirs[c["id"]])
            agree_new, cat_new = C.classify(o_new, p_new)
            if not agree_new and cat_new == cat_old:
                counts["inherited from NEW"] += 1
                continue
            counts["step miss"] += 1
            misses[cat_old] += 1
            if len(shown[cat_old]) < examples:
                shown[cat_old].append(f"{c['model']} @ {c['preset']}: {' '.join(c['flags'])}")
    compared = counts["agrees at OLD"] + counts["inherited from NEW"] + counts["step miss"]
    ok = compared - counts["step miss"]
    pct = 100.0 * ok / compared if compared else 0.0
    print(
        f"sglang step {opts.old} -> {opts.new} ({opts.split} seed {seed}): step agreement "
        f"{ok}/{compared} = {pct:.1f}%  (agrees at {opts.old} {counts['agrees at OLD']}, "
        f"inherited from {opts.new} {counts['inherited from NEW']}, not in both caches "
        f"{counts['not in both caches']})"
    )
    print(
        f"cases the real releases answer differently: {moved}; the pack right at {opts.old} on {moved_right}"
    )
    for category, count in misses.most_common():
        print(f"{count} x {category}")
        for line in shown[category]:
            print(f"    e.g. {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
