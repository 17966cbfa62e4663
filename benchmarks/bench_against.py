"""Benchmark: per-resolution cost of this checkout against another checkout's code, in one process.

Usage (repository root, package installed)::

    python benchmarks/bench_against.py --other /path/to/other/src [--quick] [--cases N] [--imports N]

``--other`` is the ``src`` directory of another checkout (e.g. ``git archive main src | tar -x -C
/tmp/main``): its ``resolvable`` package is copied under the name ``resolvable_other`` and imported
next to this one, so both run in the same interpreter under the same load. The cases are an
evenly spaced sample of this checkout's grid (model × platform preset × flag variant); each side
builds its own config and platform objects. After a warm-up pass (plans), every round times each
case under every release on both sides, alternating which side goes first. Reported per release:
the median cost of each side and the median of the per-case ratios (this / other).

``--imports N`` also times ``import resolvable.sglang`` N times per side in fresh interpreters,
alternating sides, each with up-to-date bytecode (``_common.child_env``, as after ``pip
install``) and its own source tree first on ``PYTHONPATH``: the CPU time of the import statement
alone (the interpreter's start-up excluded), median per side and their ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import FULL, QUICK, ROOT, child_env, log, median, perf_ns

import resolvable.sglang as this_pack
from resolvable.sglang import grid


def load_other(src: str) -> Any:
    """Import ``<src>/resolvable`` as ``resolvable_other`` (its imports are relative)."""
    root = tempfile.mkdtemp(prefix="resolvable-other-")
    shutil.copytree(os.path.join(src, "resolvable"), os.path.join(root, "resolvable_other"))
    sys.path.insert(0, root)
    return importlib.import_module("resolvable_other.sglang")


_IMPORT_PROBE = (
    "import time; t = time.process_time(); import resolvable.sglang; print((time.process_time() - t) * 1000)"
)


def import_times(sources: dict[str, str], runs: int, warmup: int = 2) -> dict[str, list[float]]:
    """CPU ms of ``import resolvable.sglang`` per side (fresh interpreters, sides alternating)."""
    import subprocess

    out: dict[str, list[float]] = {side: [] for side in sources}
    for i in range(warmup + runs):
        for side, src in sources.items():
            env = child_env()
            env["PYTHONPATH"] = src
            proc = subprocess.run(
                [sys.executable, "-c", _IMPORT_PROBE],
                env=env,
                capture_output=True,
                text=True,
                cwd=ROOT,
                check=True,
            )
            if i >= warmup:
                out[side].append(float(proc.stdout.strip()))
    return out


def _side(pack: Any, models: Any, platform_cls: Any) -> Any:
    configs: dict[str, Any] = {}
    platforms: dict[str, Any] = {}

    def run(model: str, preset: str, flags: dict[str, Any], release: str) -> None:
        hf = configs.get(model) or configs.setdefault(model, models.bundled(model))
        plat = platforms.get(preset) or platforms.setdefault(preset, platform_cls.preset(preset))
        with contextlib.suppress(ValueError):  # a refusal is timed like an answer
            pack.resolve_server_args(hf, plat, sglang_version=release, **flags)

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", required=True, help="the src directory of the other checkout")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and cases")
    parser.add_argument(
        "--cases", type=int, default=None, help="grid cases (default: the release sample size)"
    )
    parser.add_argument(
        "--imports", type=int, default=0, help="also time the import this many times per side"
    )
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    if args.imports:
        this_src = os.path.dirname(os.path.dirname(os.path.abspath(this_pack.__file__)))
        times = import_times({"this": this_src, "other": os.path.abspath(args.other)}, args.imports)
        mine, theirs = median(times["this"]), median(times["other"])
        print(f"import resolvable.sglang, CPU ms, median of {args.imports} fresh interpreters per side:")
        print(f"  this {mine:.1f}  other {theirs:.1f}  this/other {mine / theirs:.3f}")
    other = load_other(args.other)
    import resolvable
    import resolvable.sglang.models as this_models

    other_models = importlib.import_module("resolvable_other.sglang.models")
    other_platform = importlib.import_module("resolvable_other").Platform
    sides = {
        "this": _side(this_pack, this_models, resolvable.Platform),
        "other": _side(other, other_models, other_platform),
    }
    # Only the cases both trees can state (a platform preset or bundled model added since the
    # other tree was cut, e.g. gb200, is left out: the comparison is the same work on both sides).
    other_presets = set(other_platform.presets()) if hasattr(other_platform, "presets") else None
    other_names = set(other_models.catalog())
    cases = [
        (m, p, f)
        for m, p, _, _, _, f in grid.cases()
        if m in other_names and (other_presets is None or p in other_presets)
    ]
    n = args.cases or s.release_cases
    work = cases[:: max(1, len(cases) // n)][:n]
    releases = [r for r in this_pack.SGLANG_RELEASES if r in other.SGLANG_RELEASES]
    log(f"{len(work)} cases × {len(releases)} releases, warm-up …")
    for run in sides.values():
        for release in releases:
            for case in work:
                run(*case, release)
    costs = {(side, r): [[] for _ in work] for side in sides for r in releases}
    for round_no in range(s.case_rounds):
        order = ("this", "other") if round_no % 2 == 0 else ("other", "this")
        for i, case in enumerate(work):
            for release in releases:
                for side in order:
                    run = sides[side]
                    t0 = perf_ns()
                    for _ in range(s.case_calls):
                        run(*case, release)
                    costs[(side, release)][i].append((perf_ns() - t0) / s.case_calls / 1000)
    print(
        f"\nthis checkout vs {args.other} ({len(work)} grid cases, {s.case_rounds} rounds × {s.case_calls} calls):"
    )
    print(f"  {'release':<8} {'this µs':>9} {'other µs':>9} {'this/other':>11}")
    all_ratios = []
    for release in releases:
        mine = [median(x) for x in costs[("this", release)]]
        theirs = [median(x) for x in costs[("other", release)]]
        ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
        all_ratios += ratios
        print(f"  {release:<8} {median(mine):9.1f} {median(theirs):9.1f} {median(ratios):11.3f}")
    print(f"  {'all':<8} {'':>9} {'':>9} {median(all_ratios):11.3f}  (median of per-case ratios)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
