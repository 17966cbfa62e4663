"""Draft directories against vLLM's own ``create_engine_config`` (issue 28 item 2, h28e).

Usage (repository venv; oracle venvs under /work/oracle-vllm, see ``compare.py``)::

    python tools/agreement_vllm_config/draft_check.py 0.28.0 0.34.0 ...

Seven ``--speculative-config`` launches on llama-3.1-8b / h100 x8 whose draft is a local directory
(the real EAGLE3 draft tests/vllm/drafts/qwen3-4b-eagle3, and a synthetic draft with
``n_predict`` 4): the pack's method and ``num_speculative_tokens`` or refusal message against
the oracle's. The oracle answers are cached in a temporary ORACLE_ROOT of links to the oracle
venvs, so the shared caches are not written.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "agreement_vllm"))
sys.path.insert(0, str(HERE))

import compare  # noqa: E402

from resolvable.errors import ConflictError  # noqa: E402
from resolvable.vllm import resolve_vllm_args  # noqa: E402
from resolvable.vllm.config.parallel import with_gpus  # noqa: E402
from resolvable.vllm.platforms import platform  # noqa: E402


def main(releases: list[str]) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="draft-check-"))
    target = json.loads((ROOT / "src/resolvable/sglang/models/llama-3.1-8b.json").read_text())
    (tmp / "np4").mkdir()
    (tmp / "np4" / "config.json").write_text(json.dumps({**target, "n_predict": 4}))
    eagle3 = str(ROOT / "tests/vllm/drafts/qwen3-4b-eagle3")
    specs = {
        "eagle3-k3": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3}, 1),
        "eagle3-nok": ({"method": "eagle3", "model": eagle3}, 1),
        "np4-nok": ({"model": str(tmp / "np4")}, 1),
        "np4-k6": ({"model": str(tmp / "np4"), "num_speculative_tokens": 6}, 1),
        "np4-k8": ({"model": str(tmp / "np4"), "num_speculative_tokens": 8}, 1),
        "dtp2-tp4": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2}, 4),
        "dtp1-tp4": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}, 4),
    }  # fmt: skip
    root = tmp / "oracle"
    root.mkdir()
    for release in releases:
        (root / f"v{release}").symlink_to(compare.ORACLE_ROOT / f"v{release}")
    compare.ORACLE_ROOT = root
    base = compare._platform
    compare._platform = lambda name: {**base(name), "device_count": 8}
    agree = total = 0
    for release in releases:
        cases = [
            {"id": cid, "config": target, "platform": "h100", "env": {}, "install": None,
             "argv": ["--speculative-config", json.dumps(spec), "--tensor-parallel-size", str(tp)]}
            for cid, (spec, tp) in specs.items()
        ]  # fmt: skip
        answers = compare.run_oracle(release, cases, 1)
        for cid, (spec, tp) in specs.items():
            try:
                r = resolve_vllm_args(
                    target, with_gpus(platform("h100"), 8), vllm_version=release,
                    speculative_config=json.dumps(spec), tensor_parallel_size=tp,
                )  # fmt: skip
                pack = [r["speculative_method"], r["num_speculative_tokens"]]
                ok = "values" in answers[cid] and pack == [
                    answers[cid]["values"].get("speculative_method"),
                    answers[cid]["values"].get("num_speculative_tokens"),
                ]
            except ConflictError as exc:
                pack = f"refused: {exc.message}"
                ok = exc.message in " ".join(answers[cid].get("error", "").split())
            total += 1
            agree += ok
            print(release, cid, "agree" if ok else "MISS", pack, "|", str(answers[cid])[:200])
    print(f"{agree}/{total} agree")
    return 0 if agree == total else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or ["0.34.0"]))
