"""Whether two oracle caches give the same answers on the keys they share (a worker-change check).

    python tools/agreement/same_answers.py CACHE_A.jsonl CACHE_B.jsonl

Runs anywhere (standard library). Answers are compared without the per-case timing and with the
temporary directory of each run (``/tmp/...``, in FileNotFoundError messages) normalised. Used to
show that a worker patch for older wheels leaves a newer release's answers unchanged: fill one
cache with the worker of main and one with the patched worker, same release, split and draw
(``compare.py --oracle-only --oracle-cache ...``). Exit status 1 when any shared key differs.
"""

from __future__ import annotations

import json
import re
import sys

_TMP = re.compile(r"/tmp/[^\s,'\"]*/")


def load(path: str) -> dict[str, str]:
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            result = {k: v for k, v in row["result"].items() if k not in ("seconds", "id")}
            out[row["key"]] = _TMP.sub("<tmp>/", json.dumps(result, sort_keys=True))
    return out


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: same_answers.py CACHE_A.jsonl CACHE_B.jsonl", file=sys.stderr)
        return 2
    a, b = load(args[0]), load(args[1])
    shared = sorted(set(a) & set(b))
    differ = [k for k in shared if a[k] != b[k]]
    print(
        f"{len(a)} and {len(b)} answers, {len(shared)} shared, identical {len(shared) - len(differ)}, different {len(differ)}"
    )
    for k in differ[:5]:
        print(f"  {k}:\n    {a[k][:300]}\n    {b[k][:300]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
