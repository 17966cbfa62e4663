"""Agreement of the vLLM pack with the real vLLM 0.33.0 selector (the oracle), on a case grid.

Usage (repository venv; the oracle venv is separate)::

    python tools/agreement_vllm/compare.py [--oracle /work/oracle/venv-vllm/bin/python] [--limit N] [--json OUT]

For every case (bundled model × CUDA capability × flag variant × install variant), the pack
resolves; the same layer arguments go to ``oracle.py`` (one process per platform, install and
environment), which runs vLLM's own selector. Compared per case: the backend of every layer
kind, the block size, the FlashAttention version of FLASH_ATTN layers and the MLA prefill
backend; a refusal must be a refusal on both sides. Not collected by pytest (no ``test_``
prefix); nothing here is imported by the package.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from resolvable import Platform
from resolvable.errors import ConflictError
from resolvable.vllm import KIND_FIELDS, load_model, resolve_vllm_args
from resolvable.vllm.layers import layer_queries, use_mla

HERE = Path(__file__).resolve().parent
ORACLE = "/work/oracle/venv-vllm/bin/python"

#: CUDA capabilities: SM75 … SM121 (presets where they exist, else a custom platform).
CAPABILITIES = [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1)]

MODELS = [
    "llama-3.1-8b",
    "qwen3-8b",
    "gemma-2-9b",
    "gemma-3-27b",
    "gemma-4-31b",
    "gpt-oss-120b",
    "mimo-v2-flash",
    "exaone-4.0-32b",
    "olmo-3-7b",
    "step-3.5-flash",
    "deepseek-v3",
    "deepseek-v2-lite",
    "kimi-k2-instruct",
    "deepseek-v3.2",
    "glm-5",
    "qwen3-next-80b-a3b",
    "llama-4-scout",
    "minimax-m2",
]

VARIANTS = [
    {},
    {"tensor_parallel_size": 8},
    {"kv_cache_dtype": "fp8"},
    {"block_size": 16},
    {"block_size": 128},
    {"tensor_parallel_size": 8, "block_size": 16},
    {"tensor_parallel_size": 8, "kv_cache_dtype": "fp8"},
    {"attention_backend": "FLASH_ATTN"},
    {"attention_backend": "TRITON_ATTN"},
    {"attention_backend": "FLASHINFER"},
    {"attention_backend": "TRITON_MLA"},
    {"dtype": "float16"},
    {"kv_cache_dtype": "fp8_e5m2"},
]

ENVS = [{}, {"VLLM_BATCH_INVARIANT": "1"}]
INSTALLS = [None, "flashinfer=0", "fa3=0,fa4=0", "cute_dsl=0,tokenspeed_mla=0"]


def platform_for(cc: tuple[int, int]) -> Platform:
    for p in Platform.presets().values():
        if p.vendor == "cuda" and tuple(p.capability) == cc:
            return p
    return Platform.preset("h100").replace(name=f"sm{cc[0]}{cc[1]}", capability=cc)


def oracle_case(case_id: str, hf, res, flags: dict, *, refused: bool = False) -> dict:
    args = _View(res)
    kernels = frozenset(res["installed_kernels"])
    qs = layer_queries(hf, args, res.platform, {}, user_block_size=flags.get("block_size"), kernels=kernels)
    t = hf.text_config
    heads = int(t.get("num_attention_heads") or 1)
    mla = bool(res["use_mla"])
    keys = (
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
        "kv_lora_rank",
        "index_topk",
        "attn_logit_softcapping",
    )
    text = {k: t[k] for k in keys if t.get(k) is not None}
    text["model_type"] = t.get("model_type")
    layers = []
    for q in qs:
        if q.kind == "indexer":
            continue  # a fixed backend, not selected
        layers.append(
            {
                "kind": q.kind,
                "head_size": q.head_size,
                "dtype": q.dtype,
                "kv_cache_dtype": q.kv_cache_dtype,
                "use_mla": q.use_mla,
                "has_sink": q.has_sink,
                "use_sparse": q.use_sparse,
                "use_mm_prefix": q.use_mm_prefix,
                "attn_type": q.attn_type,
                "num_heads": q.num_heads if q.use_mla else None,
                "has_sliding_window": q.has_sliding_window,
            }
        )
    return {
        "id": case_id,
        "tp": int(flags.get("tensor_parallel_size", 1)),
        "kv_cache_dtype": res["kv_cache_dtype"] if layers else flags.get("kv_cache_dtype", "auto"),
        "block_size": flags.get("block_size"),
        # the pack's model overrides (verify_and_update_config) decide the selected backend;
        # the oracle runs only the selector, so it gets the backend after those overrides
        "attention": {
            "backend": flags.get("attention_backend") if refused or not layers else res["attention_backend"],
            "flash_attn_version": _override_fa_version(res),
        },
        "model": {
            "hf_text": text,
            "num_heads": heads,
            "num_kv_heads": int(t.get("num_key_value_heads") or heads),
            "head_size": qs[0].head_size if qs else 0,
            "use_mla": mla,
            "mm_prefix": any(q.use_mm_prefix for q in qs),
            "dtype": res["dtype"],
        },
        "layers": layers,
    }


def _override_fa_version(res) -> int | None:
    """The FA version a model override put into attention_config (Gemma4: FA4 for every layer)."""
    for step in res.explain("flash_attn_version").steps:
        if step.stage == "model_overrides" and step.outcome == "applied":
            return step.value
    return None


class _View(dict):
    """The resolved values as the attribute view layer_queries expects."""

    def __init__(self, res) -> None:
        super().__init__(res)
        self.__dict__ = self


def build_cases(limit: int | None, installs=None, envs=None):
    jobs: dict[tuple, list] = defaultdict(list)
    expected: dict[str, dict] = {}
    n = 0
    for model, cc, flags, env, kernels in itertools.product(
        MODELS, CAPABILITIES, VARIANTS, envs or ENVS, installs or INSTALLS
    ):
        if env and kernels:
            continue  # keep the grid small: one axis at a time besides the flags
        hf = load_model(model)
        if flags.get("attention_backend") == "TRITON_MLA" and not use_mla(hf, env):
            continue
        if flags.get("attention_backend") in ("FLASHINFER", "TRITON_ATTN") and use_mla(hf, env):
            continue
        case_id = f"{model}|sm{cc[0]}{cc[1]}|{json.dumps(flags, sort_keys=True)}|{json.dumps(env)}|{kernels}"
        platform = platform_for(cc)
        all_flags = dict(flags, **({"kernels": kernels} if kernels else {}))
        try:
            res = resolve_vllm_args(hf, platform, env, **all_flags)
        except ConflictError as exc:
            expected[case_id] = {"error": str(exc)[:200]}
            # the oracle still needs the layer arguments: resolve without the failing check
            try:
                res = resolve_vllm_args(
                    hf, platform, env, **{k: v for k, v in all_flags.items() if k != "attention_backend"}
                )
            except ConflictError:
                continue
            ocase = oracle_case(case_id, hf, res, flags, refused=True)
        else:
            expected[case_id] = {
                "backends": {
                    q: res[f] for q, f in KIND_FIELDS.items() if res[f] is not None and q != "indexer"
                },
                "block_size": res["block_size"],
                "flash_attn_version": res["flash_attn_version"],
                "mla_prefill_backend": res["mla_prefill_backend"],
            }
            ocase = oracle_case(case_id, hf, res, flags)
        key = (cc, tuple(sorted(res["installed_kernels"])), tuple(sorted(env.items())))
        jobs[key].append(ocase)
        n += 1
        if limit and n >= limit:
            return jobs, expected
    return jobs, expected


def _run_group(python: str, key: tuple, cases: list) -> list[dict]:
    cc, kernels, env = key
    payload = {
        "platform": {"vendor": "cuda", "cc": list(cc)},
        "kernels": list(kernels),
        "env": dict(env),
        "cases": cases,
    }
    proc = subprocess.run(
        [python, str(HERE / "oracle.py")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=3000,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"oracle failed for sm{cc}: rc={proc.returncode}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def run_oracle(python: str, jobs: dict, workers: int = 12, on_group=None) -> dict[str, dict]:
    """One oracle process per (capability, install, env) group, ``workers`` at a time;
    ``on_group(results_so_far)`` runs after each group (partial figures survive an interruption)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    results = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run_group, python, key, cases) for key, cases in jobs.items()]
        for i, future in enumerate(as_completed(futures), 1):
            for row in future.result():
                results[row["id"]] = row
            print(f"  oracle groups done: {i}/{len(futures)}", file=sys.stderr, flush=True)
            if on_group is not None:
                on_group(results)
    return results


def compare(expected: dict, results: dict) -> list[dict]:
    rows = []
    for case_id, exp in expected.items():
        got = results.get(case_id)
        if got is None:
            continue
        diffs = []
        if "error" in exp or "error" in got:
            if ("error" in exp) != ("error" in got):
                diffs.append(("refusal", exp.get("error", "accepted"), got.get("error", "accepted")))
        else:
            if exp["backends"] != got["backends"]:
                diffs.append(("backends", exp["backends"], got["backends"]))
            if exp["block_size"] != got.get("block_size"):
                diffs.append(("block_size", exp["block_size"], got.get("block_size")))
            if (
                got.get("flash_attn_version") is not None
                and exp["flash_attn_version"] != got["flash_attn_version"]
            ):
                diffs.append(("flash_attn_version", exp["flash_attn_version"], got["flash_attn_version"]))
            if got.get("mla_prefill_backend") and exp["mla_prefill_backend"] != got["mla_prefill_backend"]:
                diffs.append(("mla_prefill_backend", exp["mla_prefill_backend"], got["mla_prefill_backend"]))
        rows.append({"id": case_id, "agree": not diffs, "diffs": diffs})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", default=ORACLE)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--json", help="write every row to this file")
    parser.add_argument("--show", type=int, default=25, help="disagreements to print")
    parser.add_argument("--workers", type=int, default=12, help="oracle processes at a time")
    parser.add_argument("--default-install-only", action="store_true", help="skip the install variants")
    parser.add_argument("--models", help="comma-separated subset of the models")
    args = parser.parse_args()
    installs = [None] if args.default_install_only else None
    if args.models:
        MODELS[:] = [m for m in args.models.split(",") if m]
    jobs, expected = build_cases(args.limit, installs=installs)

    def progress(results):
        rows = compare(expected, results)
        agree = sum(r["agree"] for r in rows)
        print(f"  so far: {agree}/{len(rows)} agree", file=sys.stderr, flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))

    results = run_oracle(args.oracle, jobs, args.workers, progress)
    rows = compare(expected, results)
    agree = sum(r["agree"] for r in rows)
    print(f"cases compared: {len(rows)}  agree: {agree}  ({100.0 * agree / max(1, len(rows)):.2f}%)")
    for r in [r for r in rows if not r["agree"]][: args.show]:
        print(f"  {r['id']}: {r['diffs']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
