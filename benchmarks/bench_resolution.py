"""Benchmark 1: per-resolution cost over the grid, and the ratio to the procedural baseline (with parity)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
import baseline
from _common import RATIO_MODELS, Settings, median, percentile, perf_ns, raw_config

from resolvable import Platform, Registry, resolve
from resolvable.errors import ConflictError
from resolvable.sglang import grid, registry, resolve_server_args
from resolvable.sglang.args import ServerArgs

#: The release ``baseline.py`` re-implements procedurally: the pack is measured (and its parity
#: checked) at that release; ``bench_releases`` compares every release with it.
BASELINE_RELEASE = "0.5.15"


def time_pack(work: Sequence[tuple[Any, Platform, dict[str, Any]]]) -> float:
    """Seconds for one pass of ``resolve_server_args`` over ``work`` (refusals included)."""
    t0 = perf_ns()
    for hf, plat, flags in work:
        try:  # noqa: SIM105 (contextlib.suppress would add its own cost to every call)
            resolve_server_args(hf, plat, sglang_version=BASELINE_RELEASE, **flags)
        except ConflictError:
            pass
    return (perf_ns() - t0) / 1e9


def bench_resolution(s: Settings) -> dict[str, Any]:
    cases = list(grid.cases())
    work = [(hf, plat, flags) for _, _, _, hf, plat, flags in cases]
    accepted_flags = []
    for hf, plat, flags in work:  # warm-up: plan caches, cached platform predicates
        try:
            resolve_server_args(hf, plat, sglang_version=BASELINE_RELEASE, **flags)
            accepted_flags.append(True)
        except ConflictError:
            accepted_flags.append(False)
    per_case: list[list[float]] = [[] for _ in work]
    calls = range(s.case_calls)
    for _ in range(s.case_rounds):
        for i, (hf, plat, flags) in enumerate(work):
            t0 = perf_ns()
            for _ in calls:
                try:  # noqa: SIM105
                    resolve_server_args(hf, plat, sglang_version=BASELINE_RELEASE, **flags)
                except ConflictError:
                    pass
            per_case[i].append((perf_ns() - t0) / s.case_calls / 1000)
    costs = [median(x) for x in per_case]
    accepted = [c for c, ok in zip(costs, accepted_flags) if ok]
    return {
        "cases": len(cases),
        "refused": accepted_flags.count(False),
        "median_us": median(costs),
        "p95_us": percentile(costs, 95),
        "max_us": max(costs),
        "accepted_median_us": median(accepted) if accepted else float("nan"),
    }


def parity_cases(models: Sequence[str]) -> list[tuple[str, str, str, Any, Platform, dict[str, Any], dict]]:
    raws = {m: raw_config(m) for m in models}
    return [(m, p, v, hf, plat, flags, raws[m]) for m, p, v, hf, plat, flags in grid.cases(list(models))]


def baseline_models() -> list[str]:
    """Every bundled model the baseline covers (its architectures, DeepSeek-V3 without DSA)."""
    out = []
    for model in grid.models():
        raw = raw_config(model)
        arch = (raw.get("architectures") or [None])[0]
        text = raw.get("text_config") or raw
        if arch in baseline.ARCHS and not (
            arch == baseline.DEEPSEEK_V3 and text.get("index_topk") is not None
        ):
            out.append(model)
    return out


def check_parity(defaults: dict[str, Any]) -> dict[str, Any]:
    """Compare the pack with the baseline on every case of the models the baseline covers.

    ``mismatches`` fail the run; ``known`` are cases that differ only in a field of
    ``baseline.KNOWN_DIVERGENCES`` (the baseline follows the spec there), reported, not fatal.
    """
    models = baseline_models()
    mismatches: list[str] = []
    known: dict[str, list[str]] = {}
    compared = refused = 0
    for m, p, v, hf, plat, flags, raw in parity_cases(models):
        compared += 1
        try:
            pack: dict[str, Any] | None = dict(
                resolve_server_args(hf, plat, sglang_version=BASELINE_RELEASE, **flags)
            )
            pack_err = None
        except ConflictError as exc:
            pack, pack_err = None, exc
        try:
            base: dict[str, Any] | None = baseline.resolve(flags, raw, plat, defaults=defaults)
            base_err = None
        except ValueError as exc:
            base, base_err = None, exc
        where = f"{m} on {p} [{v}]"
        if pack is None and base is None:
            refused += 1
            continue
        if pack is None:
            mismatches.append(
                f"{where}: pack refuses ({pack_err.rule}: {_first_line(pack_err)}), baseline accepts"
            )
            continue
        if base is None:
            mismatches.append(f"{where}: baseline refuses ({_first_line(base_err)}), pack accepts")
            continue
        fields = [
            k
            for k in sorted(set(pack) | set(base))
            if pack.get(k) != base.get(k) or type(pack.get(k)) is not type(base.get(k))
        ]
        if not fields:
            continue
        diffs = "; ".join(f"{k}: pack={pack.get(k)!r} baseline={base.get(k)!r}" for k in fields)
        if all(k in baseline.KNOWN_DIVERGENCES for k in fields):
            known.setdefault(diffs, []).append(f"{p} [{v}] {m}")
        else:
            mismatches.append(f"{where}: {diffs}")
    stale = sorted(set(baseline.KNOWN_DIVERGENCES) - {f.split(":")[0] for d in known for f in d.split("; ")})
    return {
        "models": models,
        "compared": compared,
        "refused": refused,
        "fields": len(defaults),
        "mismatches": mismatches,
        "known": known,
        "known_cases": sum(len(v) for v in known.values()),
        "stale": stale,
    }


def _first_line(exc: BaseException | None) -> str:
    return str(exc).split("\n")[0][:120]


def bench_ratio(s: Settings, defaults: dict[str, Any]) -> dict[str, Any]:
    cases = parity_cases(RATIO_MODELS)
    pack_work = [(hf, plat, flags) for _, _, _, hf, plat, flags, _ in cases]
    base_work = [(flags, raw, plat) for _, _, _, _, plat, flags, raw in cases]
    base_resolve = baseline.resolve

    def run_pack() -> float:
        return time_pack(pack_work) / len(pack_work) * 1e6

    def run_base() -> float:
        t0 = perf_ns()
        for flags, raw, plat in base_work:
            try:  # noqa: SIM105
                base_resolve(flags, raw, plat, defaults=defaults)
            except ValueError:
                pass
        return (perf_ns() - t0) / len(base_work) / 1000

    # The engine's fixed cost: the same inputs through a registry with the same schema and
    # stages but no rules (argument validation, copies, the Resolution record).
    empty = Registry(ServerArgs, registry.stages, model_stage=registry.model_stage, name="empty")
    empty_work = [(flags, hf, plat) for hf, plat, flags in pack_work]

    def run_empty() -> float:
        t0 = perf_ns()
        for flags, hf, plat in empty_work:
            resolve(empty, flags, hf, plat)
        return (perf_ns() - t0) / len(empty_work) / 1000

    # What a resolution runs: the rules of its plan (resolution stages) and the declarations made.
    planned, declared = [], []
    for hf, plat, flags in pack_work:
        groups = registry.compiled(hf.architecture, BASELINE_RELEASE).groups
        planned.append(sum(len(rules) for _, _, _, rules in groups))
        with contextlib.suppress(ConflictError):
            declared.append(
                len(resolve_server_args(hf, plat, sglang_version=BASELINE_RELEASE, **flags).declarations)
            )

    run_pack()
    run_base()
    run_empty()
    packs, bases, empties = [], [], []
    for r in range(s.ratio_rounds):
        if r % 2:
            bases.append(run_base())
            packs.append(run_pack())
        else:
            packs.append(run_pack())
            bases.append(run_base())
        empties.append(run_empty())
    return {
        "engine_fixed_us": median(empties),
        "cases": len(cases),
        "models": list(RATIO_MODELS),
        "pack_us": median(packs),
        "baseline_us": median(bases),
        "ratio": median(packs) / median(bases),
        "ratio_of_rounds": median([p / b for p, b in zip(packs, bases)]),
        "rules_per_plan": sum(planned) / len(planned),
        "declarations_per_resolution": sum(declared) / len(declared) if declared else 0.0,
    }
