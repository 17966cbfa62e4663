"""Copy one release's cached oracle answers to a release whose ServerArgs code is identical.

    python tools/agreement/rekey_cache.py OLD NEW [--split dev] [-n 300] [--seed S]

Runs in the repo venv. For each generated case (the draw of ``compare.py`` with the same split,
seed and ``-n``), the answer cached under OLD's key is appended to ``/work/oracle/cache-NEW.jsonl``
under NEW's key (keys hold the release). Only for a ``.postN`` whose wheel differs from its
sibling in files ``ServerArgs`` construction never reads — shown with ``diff -rq`` and recorded in
tools/agreement/README.md (0.5.8 → 0.5.8.post1). Keys already in NEW's cache are left alone;
the write appends whole lines, as ``compare.py`` does.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare as C  # noqa: E402
from compare_oracles import pair_cases  # noqa: E402
from generate import materialize  # noqa: E402


def main(argv=None) -> int:
    opts, cases, samples, presets, _seed = pair_cases(argv, __doc__.split("\n\n")[0])
    old = C.load_oracle_cache(f"/work/oracle/cache-{opts.old}.jsonl")
    new_path = f"/work/oracle/cache-{opts.new}.jsonl"
    new = C.load_oracle_cache(new_path)
    copied = missing = 0
    lines = []
    for c in cases:
        text = C.config_key_text(c, *materialize(c, samples[c["model"]]))
        platform = presets[c["preset"]].to_dict()
        answer = old.get(C.case_key(c, text, platform, opts.old))
        key = C.case_key(c, text, platform, opts.new)
        if answer is None:
            missing += 1
        elif key not in new:
            lines.append(json.dumps({"key": key, "result": answer}) + "\n")
            new[key] = answer
            copied += 1
    with open(new_path, "a", encoding="utf-8") as fh:
        fh.writelines(lines)
    print(json.dumps({"copied": copied, "not_cached_for_old": missing, "cache": new_path}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
