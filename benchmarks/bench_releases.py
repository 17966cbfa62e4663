"""Benchmark 8: per-resolution cost of every modelled sglang release, against 0.5.15, in one process.

Usage (repository root, package installed)::

    python benchmarks/bench_releases.py [--quick] [--cases N]

The cases: an evenly spaced sample of the grid of ``resolvable.sglang.grid.cases()`` (every k-th
case, the same sample for every release). After a warm-up pass per release (which builds and
caches the plans), each round times every case ``case_calls`` times under every release, the
releases in a rotated order for each case, so that a load change on a shared machine hits every
release alike. A case's cost under a release is the median over rounds; the table gives, per
release, the median and p90 over cases and two ratios to 0.5.15: of the medians, and the median
of the per-case ratios (the same case under both releases). Refusals are timed too (a refusal
in one release can be an answer in another). Standard library only; nothing here runs in tests.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import FULL, QUICK, Settings, log, median, percentile, perf_ns

from resolvable.errors import ConflictError
from resolvable.sglang import SGLANG_RELEASES, grid, resolve_server_args

#: The release the others are compared with (the first declarative release, the pack's reference).
REFERENCE = "0.5.15"


def sample(n: int) -> list[tuple[Any, Any, dict[str, Any]]]:
    """``n`` evenly spaced cases of the grid (all of them if the grid is smaller)."""
    cases = [(hf, plat, flags) for _, _, _, hf, plat, flags in grid.cases()]
    step = max(1, len(cases) // n)
    return cases[::step][:n]


def _once(hf: Any, plat: Any, flags: dict[str, Any], release: str) -> bool:
    try:
        resolve_server_args(hf, plat, sglang_version=release, **flags)
    except ConflictError:
        return False
    return True


def bench_releases(s: Settings, cases: int | None = None) -> dict[str, Any]:
    n = cases or s.release_cases
    work = sample(n)
    releases = list(SGLANG_RELEASES)
    accepted = {r: sum(_once(hf, p, f, r) for hf, p, f in work) for r in releases}  # warm-up: plans
    per_case = {r: [[] for _ in work] for r in releases}
    calls = range(s.case_calls)
    for round_no in range(s.case_rounds):
        for i, (hf, plat, flags) in enumerate(work):
            shift = (round_no + i) % len(releases)
            for release in releases[shift:] + releases[:shift]:
                t0 = perf_ns()
                for _ in calls:
                    _once(hf, plat, flags, release)
                per_case[release][i].append((perf_ns() - t0) / s.case_calls / 1000)
    costs = {r: [median(x) for x in per_case[r]] for r in releases}
    ref = costs[REFERENCE]
    rows = []
    for r in releases:
        c = costs[r]
        rows.append(
            {
                "release": r,
                "median_us": median(c),
                "p90_us": percentile(c, 90),
                "accepted": accepted[r],
                "ratio": median(c) / median(ref),
                "ratio_per_case": median([a / b for a, b in zip(c, ref)]),
            }
        )
    worst = max((row for row in rows if row["release"] != REFERENCE), key=lambda row: row["ratio"])
    return {
        "cases": len(work),
        "rounds": s.case_rounds,
        "calls": s.case_calls,
        "reference": REFERENCE,
        "rows": rows,
        "worst": worst,
    }


def print_releases(rel: dict[str, Any], imp: dict[str, Any] | None = None) -> None:
    print(
        f"\nper release ({rel['cases']} grid cases, {rel['rounds']} rounds × {rel['calls']} calls, "
        f"releases interleaved per case):"
    )
    print(
        f"  {'release':<8} {'median µs':>10} {'p90 µs':>8} {'accepted':>9} {'× ' + rel['reference']:>8} {'per case':>9}"
    )
    for row in rel["rows"]:
        print(
            f"  {row['release']:<8} {row['median_us']:10.1f} {row['p90_us']:8.1f} {row['accepted']:9d} "
            f"{row['ratio']:8.3f} {row['ratio_per_case']:9.3f}"
        )
    if imp is not None:
        print(
            f"  import resolvable.sglang (every release's rules): {imp['sglang_ms']:.1f} ms over the bare "
            f"interpreter ({imp['sglang_vs_bare']:.2f}× `python -c pass`, {imp['sglang_vs_resolvable']:.2f}× "
            "`import resolvable`)"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and cases")
    parser.add_argument(
        "--cases", type=int, default=None, help="grid cases in the sample (default 400, quick 200)"
    )
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    log("per-release cost …")
    print_releases(bench_releases(s, args.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
