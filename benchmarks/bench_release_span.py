"""Benchmark: import and resolution time of the oldest vs the newest modelled release (issue 32).

Usage (repository root, package installed)::

    python benchmarks/bench_release_span.py [--runs N] [--rounds N]

A release must cost a table row and its named changes, not import or resolution time: the newest
release may not be slower than the oldest because more releases exist (lazy tables). For each
pack (``resolvable.packs``: sglang, vLLM) and each end of the releases it resolves (read from
the pack, so the ends follow the release lists):

* ``import`` and ``first``: in a fresh interpreter (cached bytecode, ``_common.child_env``), the
  CPU time of ``import resolvable.<pack>`` and then of the first resolution of the Llama case for
  that release (which loads the release's flag table and builds its plans); ``--runs`` per
  release, the two releases alternating, median;
* ``warm``: in this process (CPU time of this thread), after a warm-up, the Llama case and an even sample of the bundled
  models on h100 under both releases, alternating, ``--rounds`` rounds; median per case, then
  the median of the per-case ratios (newest / oldest).

Within 10 % (ratio <= 1.10) is the bound the issue sets. Nothing here runs in tests.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import ROOT, child_env, median

CASE_MODEL = "llama-3.1-8b"
PLATFORM = "h100"
BOUND = 1.10

_PROBE = """
import time
t0 = time.process_time()
import resolvable.{pack} as pack
t1 = time.process_time()
from resolvable import Platform
from resolvable.{pack}.models import bundled
hf = bundled({model!r})
plat = Platform.preset({platform!r})
t2 = time.process_time()
pack.{resolve}(hf, plat, {keyword}={release!r})
t3 = time.process_time()
print((t1 - t0) * 1000, (t3 - t2) * 1000)
"""


def _packs() -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """name -> (resolve function of ``resolvable.<name>``, its release keyword, the releases it
    resolves, oldest first), read from each registered pack: the ends follow the packs' release
    lists (parse-only releases, which no rule resolves, are not among them)."""
    from resolvable import packs

    out = {}
    for name in packs.names():
        pack = packs.get(name)
        out[name] = (pack.resolve_launch.__name__, pack.release_keyword, tuple(pack.releases))
    return out


def cold(pack: str, resolve: str, keyword: str, releases: tuple[str, str], runs: int) -> dict[str, Any]:
    """(import ms, first-resolution ms) medians per release, fresh interpreters."""
    env = child_env()
    out: dict[str, dict[str, list[float]]] = {r: {"import": [], "first": []} for r in releases}
    for i in range(runs + 2):
        for release in releases if i % 2 == 0 else releases[::-1]:
            code = _PROBE.format(
                pack=pack,
                model=CASE_MODEL,
                platform=PLATFORM,
                resolve=resolve,
                keyword=keyword,
                release=release,
            )
            proc = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, check=True
            )
            if i >= 2:  # the first two fill the bytecode cache
                imp, first = (float(x) for x in proc.stdout.split())
                out[release]["import"].append(imp)
                out[release]["first"].append(first)
    return {r: {k: median(v) for k, v in d.items()} for r, d in out.items()}


def warm(pack: Any, resolve: str, keyword: str, releases: tuple[str, str], rounds: int) -> dict[str, Any]:
    """Per-case medians of the warm resolution cost (µs) under both releases, same process."""
    import importlib

    from resolvable import Platform

    models = importlib.import_module(f"{pack.__name__}.models")
    names = sorted(models.catalog())
    sample = [CASE_MODEL, *[n for n in names[:: max(1, len(names) // 12)] if n != CASE_MODEL]]
    plat = Platform.preset(PLATFORM)
    configs = {n: models.bundled(n) for n in sample}
    fn = getattr(pack, resolve)

    def once(model: str, release: str) -> None:
        with contextlib.suppress(ValueError):  # a refusal is timed like an answer
            fn(configs[model], plat, **{keyword: release})

    for model in sample:  # warm-up: tables and plans
        for release in releases:
            once(model, release)
    costs: dict[tuple[str, str], list[float]] = {(m, r): [] for m in sample for r in releases}
    calls = 20
    for round_no in range(rounds):
        for model in sample:
            for release in releases if round_no % 2 == 0 else releases[::-1]:
                t0 = time.thread_time_ns()
                for _ in range(calls):
                    once(model, release)
                costs[(model, release)].append((time.thread_time_ns() - t0) / calls / 1000)
    per_case = {(m, r): median(v) for (m, r), v in costs.items()}
    oldest, newest = releases
    ratios = [per_case[(m, newest)] / per_case[(m, oldest)] for m in sample]
    return {
        "llama": {r: per_case[(CASE_MODEL, r)] for r in releases},
        "cases": len(sample),
        "median_ratio": median(ratios),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="fresh interpreters per release")
    parser.add_argument("--rounds", type=int, default=7, help="warm rounds")
    args = parser.parse_args(argv)
    import importlib

    worst = 0.0
    for name, (resolve, keyword, releases) in _packs().items():
        ends = (releases[0], releases[-1])
        pack = importlib.import_module(f"resolvable.{name}")
        c = cold(name, resolve, keyword, ends, args.runs)
        w = warm(pack, resolve, keyword, ends, args.rounds)
        print(f"\n{name}: oldest {ends[0]} vs newest {ends[1]} ({CASE_MODEL}, {PLATFORM})")
        print(f"  {'':<34} {ends[0]:>9} {ends[1]:>9} {'newest/oldest':>14}")
        rows = [
            ("import resolvable." + name + " (CPU ms)", c[ends[0]]["import"], c[ends[1]]["import"]),
            ("first resolution (CPU ms)", c[ends[0]]["first"], c[ends[1]]["first"]),
            ("warm resolution, Llama (µs)", w["llama"][ends[0]], w["llama"][ends[1]]),
        ]
        for label, old, new in rows:
            worst = max(worst, new / old)
            print(f"  {label:<34} {old:9.2f} {new:9.2f} {new / old:14.3f}")
        worst = max(worst, w["median_ratio"])
        print(
            f"  {'warm, median of per-case ratios':<34} {'':>9} {'':>9} {w['median_ratio']:14.3f}  ({w['cases']} models)"
        )
    verdict = "within" if worst <= BOUND else "OUTSIDE"
    print(f"\nlargest newest/oldest ratio {worst:.3f}: {verdict} the {BOUND:.2f} bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
