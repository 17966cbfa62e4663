"""Benchmark 7: per-resolution cost of the vLLM pack over its grid (bundled models × presets × flags).

Run by ``run.py`` (step 7) or alone.

Usage (repository root, package installed)::

    python benchmarks/bench_vllm.py [--quick]

The grid: every bundled model × the CUDA/ROCm/XPU/CPU presets the vLLM pack knows × a few flag
variants (default, TP 8, fp8 KV, --block-size 16, FLASH_ATTN selected). Every case is timed
``case_calls`` times per round over ``case_rounds`` rounds after a warm-up; refusals (no valid
backend, not modelled) are timed too, as they cost a full selection. Also timed: the same
cases resolved by the SGLang pack in the same process, interleaved (``bench_vllm_vs_sglang``: the
vLLM/SGLang cost ratio, bound 2×), the same grid with ``trace=True`` (what ``explain`` pays) and, run alone, the cold import of ``resolvable.vllm``
(``run.py`` takes it from its import benchmark).
Standard library only (plus the package); nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import FULL, QUICK, Settings, log, median, percentile, perf_ns

from resolvable.errors import ConflictError
from resolvable.vllm import catalog, load_model, resolve_vllm_args
from resolvable.vllm.platforms import platform

PRESETS = (
    "t4",
    "a100",
    "l40s",
    "h100",
    "b200",
    "b300",
    "thor",
    "rtx5090",
    "gb10",
    "mi300x",
    "mi355x",
    "xpu",
    "cpu",
    "cpu-amx",
)
VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"tensor_parallel_size": 8},
    {"kv_cache_dtype": "fp8"},
    {"block_size": 16},
    {"attention_backend": "FLASH_ATTN"},
)


def grid() -> list[tuple[Any, Any, dict[str, Any]]]:
    return [(load_model(m), platform(p), dict(v)) for m in catalog() for p in PRESETS for v in VARIANTS]


def _once(hf: Any, plat: Any, flags: dict[str, Any], trace: bool) -> bool:
    try:
        resolve_vllm_args(hf, plat, trace=trace, **flags)
    except ConflictError:
        return False
    return True


def bench_vllm_resolution(s: Settings, *, trace: bool = False) -> dict[str, Any]:
    work = grid()
    accepted = [_once(hf, p, f, trace) for hf, p, f in work]  # warm-up (plan caches)
    per_case: list[list[float]] = [[] for _ in work]
    calls = range(s.case_calls)
    for _ in range(s.case_rounds):
        for i, (hf, plat, flags) in enumerate(work):
            t0 = perf_ns()
            for _ in calls:
                _once(hf, plat, flags, trace)
            per_case[i].append((perf_ns() - t0) / s.case_calls / 1000)
    costs = [median(x) for x in per_case]
    ok = [c for c, a in zip(costs, accepted) if a]
    return {
        "cases": len(work),
        "refused": accepted.count(False),
        "median_us": median(costs),
        "p95_us": percentile(costs, 95),
        "max_us": max(costs),
        "accepted_median_us": median(ok) if ok else float("nan"),
        "total_ms": sum(costs) / 1000,
    }


#: Presets both packs model; the cases of the vLLM/SGLang comparison.
SHARED_PRESETS = ("a100", "h100", "h200", "b200", "mi300x", "cpu")


def bench_vllm_vs_sglang(s: Settings) -> dict[str, Any]:
    """The same cases (every bundled model × ``SHARED_PRESETS``, default flags) resolved by both
    packs in the same process, interleaved per case (SGLang first, then vLLM, in every round),
    so load on a shared machine falls on both alike. A vLLM resolution now also derives the
    engine configuration (vllm-config-spec.md §3). Ratio of the medians, and the median over
    cases of the per-case ratio (the acceptance bound is 2×)."""
    from resolvable.sglang import resolve_server_args

    def sglang(hf: Any, plat: Any) -> None:
        with contextlib.suppress(ValueError):  # a refusal is timed too
            resolve_server_args(hf, plat)

    def vllm(hf: Any, plat: Any) -> None:
        with contextlib.suppress(ValueError):
            resolve_vllm_args(hf, plat)

    work = [(load_model(m), platform(p)) for m in catalog() for p in SHARED_PRESETS]
    for hf, plat in work:  # warm-up (plan caches, derived config facts)
        sglang(hf, plat)
        vllm(hf, plat)
    per: dict[str, list[list[float]]] = {"sglang": [[] for _ in work], "vllm": [[] for _ in work]}
    calls = range(s.case_calls)
    for _ in range(s.case_rounds):
        for i, (hf, plat) in enumerate(work):
            for name, fn in (("sglang", sglang), ("vllm", vllm)):
                t0 = perf_ns()
                for _ in calls:
                    fn(hf, plat)
                per[name][i].append((perf_ns() - t0) / s.case_calls / 1000)
    sg = [median(x) for x in per["sglang"]]
    vl = [median(x) for x in per["vllm"]]
    return {
        "cases": len(work),
        "presets": SHARED_PRESETS,
        "sglang_median_us": median(sg),
        "vllm_median_us": median(vl),
        "ratio_of_medians": median(vl) / median(sg),
        "median_case_ratio": median([v / g for v, g in zip(vl, sg)]),
        "p95_case_ratio": percentile([v / g for v, g in zip(vl, sg)], 95),
    }


#: The acceptance bound of issue 21: a vLLM resolution costs at most this many SGLang ones.
BOUND = 2.0


def print_vs_sglang(r: dict[str, Any]) -> None:
    ok = "ok" if r["ratio_of_medians"] <= BOUND else "MISSED"
    print(
        f"  vLLM vs SGLang, same {r['cases']} cases, same process: {r['vllm_median_us']:.0f} µs vs "
        f"{r['sglang_median_us']:.0f} µs = {r['ratio_of_medians']:.2f}× (median per-case ratio "
        f"{r['median_case_ratio']:.2f}×, p95 {r['p95_case_ratio']:.2f}×; bound ≤ {BOUND:g}×: {ok})"
    )


def bench_vllm_import(runs: int) -> dict[str, Any]:
    """Cold import of resolvable.vllm in fresh interpreters, minus the bare interpreter start
    (interleaved, cached bytecode: ``bench_startup.spawn_times``)."""
    from bench_startup import spawn_times

    times = spawn_times(
        {"bare": [sys.executable, "-c", "pass"], "vllm": [sys.executable, "-c", "import resolvable.vllm"]},
        runs,
    )
    return {"import_ms": median(times["vllm"]) - median(times["bare"])}


def print_vllm(plain: dict[str, Any], traced: dict[str, Any], import_ms: float) -> None:
    print(
        f"\nvLLM pack, {plain['cases']} cases ({plain['refused']} refused): "
        f"median {plain['median_us']:.0f} µs, p95 {plain['p95_us']:.0f} µs, max {plain['max_us']:.0f} µs, "
        f"accepted median {plain['accepted_median_us']:.0f} µs; whole grid {plain['total_ms']:.0f} ms"
    )
    print(f"  with trace=True (explain): median {traced['median_us']:.0f} µs, p95 {traced['p95_us']:.0f} µs")
    print(f"  cold import of resolvable.vllm: {import_ms:.0f} ms over the bare interpreter")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    log("vLLM pack: per-resolution cost …")
    plain = bench_vllm_resolution(s)
    traced = bench_vllm_resolution(s, trace=True)
    versus = bench_vllm_vs_sglang(s)
    imp = bench_vllm_import(max(5, s.import_runs // 2))
    print_vllm(plain, traced, imp["import_ms"])
    print_vs_sglang(versus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
