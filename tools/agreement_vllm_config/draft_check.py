"""Draft directories against vLLM's own ``create_engine_config`` (issue 28 item 2, h28e).

Usage (repository venv; oracle venvs under /work/oracle-vllm, see ``compare.py``)::

    python tools/agreement_vllm_config/draft_check.py 0.28.0 0.34.0 ...

Seventeen ``--speculative-config`` launches on llama-3.1-8b (two MTP ones on Qwen3-Next and
GLM-4.5 with PP 2, an EAGLE3 head on Qwen3-30B-A3B with expert parallelism) / h100 x8 whose draft is a local
directory (the real drafts of tests/vllm/drafts, a synthetic draft with ``n_predict`` 4, and a
real EAGLE3 head given YaRN RoPE): the pack's method, ``num_speculative_tokens`` and
``max_model_len`` (h28f: the draft's length, ``config/draft_length.py``) or refusal message
against the oracle's. The oracle answers are cached in a temporary ORACLE_ROOT of links to the oracle
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
from stand_ins import platform  # noqa: E402  (the harness's stand-ins, then the presets)


def main(releases: list[str]) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="draft-check-"))
    target = json.loads((ROOT / "src/resolvable/sglang/models/llama-3.1-8b.json").read_text())
    (tmp / "np4").mkdir()
    (tmp / "np4" / "config.json").write_text(json.dumps({**target, "n_predict": 4}))
    eagle3 = str(ROOT / "tests/vllm/drafts/qwen3-4b-eagle3")
    drafts = ROOT / "tests/vllm/drafts"
    (tmp / "yarn").mkdir()
    yarn = json.loads((drafts / "llama3.1-8b-eagle3" / "config.json").read_text())
    yarn["rope_scaling"] = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 2048}
    (tmp / "yarn" / "config.json").write_text(json.dumps(yarn))
    specs = {
        "eagle3-k3": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3}, 1),
        "eagle3-nok": ({"method": "eagle3", "model": eagle3}, 1),
        "np4-nok": ({"model": str(tmp / "np4")}, 1),
        "np4-k6": ({"model": str(tmp / "np4"), "num_speculative_tokens": 6}, 1),
        "np4-k8": ({"model": str(tmp / "np4"), "num_speculative_tokens": 8}, 1),
        "dtp2-tp4": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2}, 4),
        "dtp1-tp4": ({"method": "eagle3", "model": eagle3, "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}, 4),
        # h28f: the draft's length (max_model_len is compared too)
        "q06-auto": ({"model": str(drafts / "qwen3-0.6b"), "num_speculative_tokens": 4}, 1),
        "q06-dm-k8": ({"method": "draft_model", "model": str(drafts / "qwen3-0.6b"), "num_speculative_tokens": 8}, 1),
        "l8-eagle3": ({"method": "eagle3", "model": str(drafts / "llama3.1-8b-eagle3"), "num_speculative_tokens": 5}, 1),
        "l70-eagle3": ({"method": "eagle3", "model": str(drafts / "llama3.3-70b-eagle3"), "num_speculative_tokens": 2}, 1),
        "q8-eagle3-nok": ({"method": "eagle3", "model": str(drafts / "qwen3-8b-eagle3")}, 1),
        "yarn-eagle3": ({"method": "eagle3", "model": str(tmp / "yarn"), "num_speculative_tokens": 3}, 1),
        "q06-dtp2-tp4": ({"model": str(drafts / "qwen3-0.6b"), "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2}, 4),
        # h28f: an MTP draft without SupportsPP under PP 2 (the draft's PP is 1 from 0.30)
        "qnext-mtp-pp2": ({"method": "mtp", "num_speculative_tokens": 1}, 1, "qwen3-next-80b-a3b", 2),
        "glm45-mtp-pp2": ({"method": "mtp", "num_speculative_tokens": 1}, 4, "glm-4.5", 2),
        # h28f: a dense EAGLE3 head under --enable-expert-parallel on an MoE target (0.30 only)
        "q30-eagle3-ep": ({"method": "eagle3", "model": str(drafts / "qwen3-8b-eagle3"), "num_speculative_tokens": 3}, 2, "qwen3-30b-a3b", 1, True),
    }  # fmt: skip
    targets = {
        name: json.loads((ROOT / f"src/resolvable/sglang/models/{name}.json").read_text())
        for name in ("llama-3.1-8b", "qwen3-next-80b-a3b", "glm-4.5", "qwen3-30b-a3b")
    }
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
            {"id": cid, "config": targets[(rest or ["llama-3.1-8b"])[0]], "platform": "h100", "env": {},
             "install": None,
             "argv": ["--speculative-config", json.dumps(spec), "--tensor-parallel-size", str(tp),
                      "--pipeline-parallel-size", str(rest[1] if rest else 1),
                      *(["--enable-expert-parallel"] if rest[2:] else [])]}
            for cid, (spec, tp, *rest) in specs.items()
        ]  # fmt: skip
        answers = compare.run_oracle(release, cases, 1)
        for cid, (spec, tp, *rest) in specs.items():
            try:
                r = resolve_vllm_args(
                    targets[(rest or ["llama-3.1-8b"])[0]], with_gpus(platform("h100"), 8),
                    vllm_version=release, speculative_config=json.dumps(spec), tensor_parallel_size=tp,
                    pipeline_parallel_size=rest[1] if rest else 1, enable_expert_parallel=bool(rest[2:]),
                )  # fmt: skip
                keys = ("speculative_method", "num_speculative_tokens", "max_model_len")
                pack = [r[k] for k in keys]
                ok = "values" in answers[cid] and pack == [answers[cid]["values"].get(k) for k in keys]
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
