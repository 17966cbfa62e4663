"""Benchmarks 3, 4: full-matrix throughput and engine scaling; the --profile mode."""

from __future__ import annotations

import cProfile
import dataclasses
import io
import itertools
import pstats
from collections.abc import Callable
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import Settings, median, perf_ns
from bench_resolution import time_pack

from resolvable import HFConfig, Platform, Registry, Stage, arg, resolve
from resolvable.sglang import grid


def bench_matrix(s: Settings) -> dict[str, Any]:
    from resolvable.cli import generate_docs

    work = [(hf, plat, flags) for _, _, _, hf, plat, flags in grid.cases()]

    time_pack(work)
    rounds = [time_pack(work) for _ in range(s.matrix_rounds)]
    generate_docs()
    docs = []
    for _ in range(s.docs_rounds):
        t0 = perf_ns()
        generate_docs()
        docs.append((perf_ns() - t0) / 1e9)
    return {
        "resolutions": len(work),
        "seconds": median(rounds),
        "per_second": len(work) / median(rounds),
        "docs_s": median(docs),
    }


@dataclasses.dataclass
class ToyArgs:
    backend: str | None = arg(None, resolvable=True)
    page: int | None = arg(None, resolvable=True)
    level: int = arg(0, resolvable=True)
    flag: bool = arg(False)


def _arch_rule(i: int) -> Callable[[Any], dict]:
    def arch_rule(ctx: Any) -> dict:
        return {"backend": f"b{i}"} if ctx.args.backend is None else {}

    return arch_rule


def _pass(j: int) -> Callable[[Any], dict]:
    def a_pass(ctx: Any) -> dict:  # one pass in ten declares something
        return {"level": j} if j % 10 == 0 and ctx.args.level != j else {}

    return a_pass


def _page_default(ctx: Any) -> dict:
    return {"page": 1} if ctx.args.page is None else {}


def toy_registry(n_archs: int, n_passes: int) -> tuple[Registry, float]:
    """A registry with one exact-arch rule per architecture and ``n_passes`` global passes."""
    t0 = perf_ns()
    reg = Registry(ToyArgs, stages=[Stage("model", isolated=True), "passes", "defaults"], name="toy")
    for i in range(n_archs):
        reg.rule("model", archs=(f"Arch{i}ForCausalLM",))(_arch_rule(i))
    for j in range(n_passes):
        reg.rule("passes")(_pass(j))
    reg.rule("defaults")(_page_default)
    return reg, (perf_ns() - t0) / 1e9


def _time_resolutions(reg: Registry, hf: HFConfig, plat: Platform, calls: int) -> float:
    t0 = perf_ns()
    for _ in range(calls):
        resolve(reg, None, hf, plat)
    return (perf_ns() - t0) / calls / 1000


def bench_scaling(s: Settings) -> dict[str, Any]:
    plat = Platform.preset("h100")
    arch_points = []
    regs = []
    for n in (10, 100, 1_000, 10_000):
        reg, build_s = toy_registry(n, 3)
        hf = HFConfig({"architectures": [f"Arch{n // 2}ForCausalLM"]})
        res = resolve(reg, None, hf, plat)
        assert res["backend"] == f"b{n // 2}", res["backend"]
        # first resolution of not-yet-seen architectures: includes building and caching the plan
        first = []
        for i in range(min(n, 20)):
            cold = HFConfig({"architectures": [f"Arch{i}ForCausalLM"]})
            first.append(_time_resolutions(reg, cold, plat, 1))
        regs.append((n, reg, hf, build_s, median(first)))
    samples: dict[int, list[float]] = {n: [] for n, *_ in regs}
    for _ in range(s.scaling_rounds):  # interleaved, so machine noise hits every size alike
        for n, reg, hf, *_ in regs:
            samples[n].append(_time_resolutions(reg, hf, plat, s.scaling_calls))
    for n, _, _, build_s, first in regs:
        arch_points.append({"archs": n, "us": median(samples[n]), "first_us": first, "register_s": build_s})

    pass_regs = []
    for n in (10, 100, 1_000):
        reg, _ = toy_registry(10, n)
        hf = HFConfig({"architectures": ["Arch5ForCausalLM"]})
        resolve(reg, None, hf, plat)
        pass_regs.append((n, reg, hf))
    psamples: dict[int, list[float]] = {n: [] for n, *_ in pass_regs}
    for _ in range(s.scaling_rounds):
        for n, reg, hf in pass_regs:
            calls = max(10, s.scaling_calls * 10 // n)
            psamples[n].append(_time_resolutions(reg, hf, plat, calls))
    pass_points = [
        {"passes": n, "us": median(psamples[n]), "us_per_pass": median(psamples[n]) / n}
        for n, *_ in pass_regs
    ]
    costs = [p["us"] for p in arch_points]
    flatness = max(costs) / min(costs)
    marginal = [(b["us"] - a["us"]) / (b["passes"] - a["passes"]) for a, b in itertools.pairwise(pass_points)]
    linearity = max(marginal) / min(marginal) if min(marginal) > 0 else float("inf")
    return {
        "archs": arch_points,
        "flatness": flatness,
        "flat": flatness <= 1.25,
        "passes": pass_points,
        "marginal_us_per_pass": marginal,
        "linearity": linearity,
        "linear": linearity <= 1.5,
    }


def profile() -> None:
    work = [(hf, plat, flags) for _, _, _, hf, plat, flags in grid.cases()]

    time_pack(work)
    prof = cProfile.Profile()
    prof.enable()
    time_pack(work)
    prof.disable()
    for key, title in (("cumulative", "cumulative time"), ("tottime", "total (self) time")):
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        stats.strip_dirs().sort_stats(key).print_stats(25)
        print(f"== full matrix ({len(work)} resolutions), top 25 by {title} ==")
        print(out.getvalue().split("\n", 4)[-1].rstrip() if out.getvalue() else "")
        print()
