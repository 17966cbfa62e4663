"""Benchmarks of ``resolvable``: run them all, print a table, write ``docs/benchmarks.md``.

Usage (from the repository root, with the package installed)::

    python benchmarks/run.py            # full run (a few minutes), writes docs/benchmarks.md
    python benchmarks/run.py --quick    # fewer repeats (about a minute), same measurements
    python benchmarks/run.py --profile  # only: cProfile over the full matrix, top 25 functions
    python benchmarks/run.py --vllm     # only step 7 (vLLM pack, vLLM/SGLang ratio); prints only

Measurements (every timing is a median over repeated runs; every comparison is a ratio of two
timings taken in the same process, interleaved, on the same cases):

1. per-resolution cost of the SGLang pack over the grid (bundled models × presets × flag
   variants): median and p95 µs; ratio to the hand-written procedural baseline
   (``benchmarks/baseline.py``) on the GPT-OSS / Llama-3 / DeepSeek-V3 cases, after asserting
   that the baseline gives identical values on every such case and refuses exactly where the
   pack refuses;
2. cold import of ``resolvable`` and ``resolvable.sglang`` in fresh interpreters, minus the
   bare interpreter start;
3. full-matrix throughput (resolutions per second) and the time of ``generate_docs()``;
4. scaling of the engine with synthetic registries: 10 … 10,000 architectures (must be flat)
   and 10 … 1,000 passes (must be linear);
5. end-to-end latency of ``resolvable explain llama-3.1-8b --platform h100``;
6. peak RSS of a full-matrix run, in a subprocess;
7. per-resolution cost of the vLLM pack over its grid (plain and traced), and a vLLM resolution
   against an SGLang one on the same cases, interleaved (printed at once with its verdict: the
   bound of issue 21 is at most 2×; ``--vllm`` runs this step alone);
8. per-resolution cost of every modelled sglang release (``SGLANG_RELEASES``) on the same grid
   sample, interleaved per case, as a ratio to 0.5.15.

Modules: ``bench_resolution`` (1), ``bench_startup`` (2, 5, 6), ``bench_throughput`` (3, 4 and
``--profile``), ``bench_vllm`` (7), ``bench_releases`` (8), ``report`` (table and markdown),
``baseline`` (the procedural baseline), ``_common`` (settings and helpers). Standard library only
(plus the package). Nothing here runs in the test suite; no figure is asserted (only the
baseline's parity is).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
import baseline
from _common import FULL, QUICK, ROOT, environment, load_average, log
from bench_releases import bench_releases
from bench_resolution import bench_ratio, bench_resolution, check_parity
from bench_startup import bench_cli, bench_import, bench_memory
from bench_throughput import bench_matrix, bench_scaling, profile
from bench_vllm import bench_vllm_resolution, bench_vllm_vs_sglang, print_vs_sglang
from report import markdown, parity_text, print_report

from resolvable.sglang.args import ServerArgs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="only profile the full matrix with cProfile (top 25 by cumulative and self time)",
    )
    parser.add_argument(
        "--vllm",
        action="store_true",
        help="only step 7: the vLLM pack's cost and its ratio to SGLang's (prints; writes nothing)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=str(ROOT / "docs" / "benchmarks.md"),
        help="where to write the report (default: docs/benchmarks.md)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only; do not write the report")
    parser.add_argument(
        "--note",
        default="",
        help="a sentence for the report, e.g. that the machine was shared with other work",
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile()
        return 0
    s = QUICK if args.quick else FULL
    if args.vllm:
        step_vllm(s)
        return 0
    started = time.perf_counter()
    r: dict[str, Any] = {"settings": s, "environment": environment(), "note": args.note}
    defaults = baseline.defaults_of(ServerArgs)

    log("1/8 baseline parity …")
    r["parity"] = check_parity(defaults)
    if r["parity"]["mismatches"]:
        for line in r["parity"]["mismatches"]:
            log("  MISMATCH " + line)
        raise AssertionError(
            f"the procedural baseline disagrees with the pack on {len(r['parity']['mismatches'])} of "
            f"{r['parity']['compared']} cases (listed above)"
        )
    log(f"    {parity_text(r['parity'])}")
    log("1/8 per-resolution cost …")
    r["resolution"] = bench_resolution(s)
    r["ratio"] = bench_ratio(s, defaults)
    log("2/8 cold import …")
    r["import"] = bench_import(s)
    log("3/8 full matrix …")
    r["matrix"] = bench_matrix(s)
    log("4/8 scaling …")
    r["scaling"] = bench_scaling(s)
    log("5/8 CLI latency …")
    r["cli"] = bench_cli(s)
    log("6/8 memory …")
    r["memory"] = bench_memory()
    log("7/8 vLLM pack …")
    r["vllm"] = step_vllm(s)
    log("8/8 per release …")
    r["releases"] = bench_releases(s)
    r["environment"]["load average at end"] = load_average()
    print_report(r)
    if not args.no_write:
        path = Path(args.output)
        path.parent.mkdir(parents=True, exist_ok=True)
        previous = path.read_text(encoding="utf-8") if path.exists() else None  # keeps §9
        path.write_text(markdown(r, previous), encoding="utf-8")
        print(f"\nwrote {path}")
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


def step_vllm(s: Any) -> dict[str, Any]:
    """Step 7: the vLLM pack over its grid (plain, traced) and against SGLang on the same cases;
    the ratio and its verdict against the 2× bound are printed as soon as they are measured."""
    out = {
        "plain": bench_vllm_resolution(s),
        "traced": bench_vllm_resolution(s, trace=True),
        "versus": bench_vllm_vs_sglang(s),
    }
    print_vs_sglang(out["versus"])
    return out


if __name__ == "__main__":
    sys.exit(main())
