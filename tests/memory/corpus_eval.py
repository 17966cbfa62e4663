"""Predict each corpus entry (a real start-up log) with the memory model and compare.

Each entry in ``corpus/*.json`` holds the source URL, the command, the GPU, the model (a bundled
sample or the config values it needs), the quoted log lines and what they state (``observed``).
``evaluate(entry)`` returns the relative errors that can be computed for it:

* ``weights``: per-rank weight memory, predicted from config.json vs the log's figure;
* ``kv_tokens``: KV tokens predicted end to end (GPU, flags, weights, estimated overheads) vs the log;
* ``kv_formula``: KV tokens from the log's own KV memory figure and our bytes per token (checks the
  KV-per-token formula and the paging alone);
* ``refusal``: whether the launch is refused, vs whether the log shows a refusal;
* ``mem_fraction_static``: sglang's default fraction vs the logged one.

Splits (``split_of``): an entry with ``"split": "held_out"`` was collected after the constants
were set and no constant may be tuned on it (h27d's 40 logs); ``"split": "tuned_s4"`` marks the
held-out entries whose source logs h27e (s4) read while fixing the KV misses, so they no longer
count as held out; ``"split": "held_out_s4"`` is the fresh batch of h27f (logs collected while
h27e tuned the model on the 88 before them, so the only split that model was never seen against);
``"split": "tuned_s4b"`` marks the entries of that batch whose logs h27g opened while fixing its
misses (each with an ``s4b_note``); ``"split": "held_out_s5"`` is h27h's fresh batch (collected and
committed before any prediction for it was looked at, measured once at the end of h27h);
``"split": "tuned_s5"`` marks the entries of that batch whose logs h27h opened after measuring it
(each with an ``s5_note``);
every other entry is the tuned split (the constants were set, or checked, with these logs in
view). ``split_report`` gives, per split,
the KV tokens and weights within 10 % and how many logged failures (refusals and OOMs) are
predicted.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from resolvable import Platform
from resolvable.memory import GIB

CORPUS = Path(__file__).parent / "corpus"


def entries() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]


def _hf(entry: dict[str, Any]) -> Any:
    from resolvable.sglang import load_model

    model = entry["model"]
    if "bundled" in model:
        hf = load_model(model["bundled"])
        if model.get("config_overrides"):
            from resolvable._hfconfig import HFConfig

            return HFConfig({**hf.to_dict(), **model["config_overrides"]}, source=model.get("repo", "corpus"))
        return hf
    if "config" in model:
        from resolvable._hfconfig import HFConfig

        return HFConfig(model["config"], source=model.get("repo", "corpus"))
    return None


def _platform(entry: dict[str, Any]) -> Platform | None:
    """The entry's GPU as check-log builds it (``startup_log.platform_for_device``): the preset
    its name matches lends the capability (a B200's SM 10 decides sglang's KV dtype, an MI355X is
    ROCm), with the entry's name, memory and GPU count; the h100 preset only for unnamed cards."""
    gpu = entry.get("gpu")
    if not gpu:
        return None
    from resolvable.startup_log import platform_for_device

    return platform_for_device(gpu["device_name"], gpu["memory_gib"], entry.get("gpus", 1))


def vllm_version(entry: dict[str, Any]) -> str | None:
    """ "0.10.1.dev101 (V1, Aug 2025)" → "0.10.1", "0.13 …" → "0.13"; the release decides the
    profile-run defaults (major.minor) and, from 0.20.1, how the log counts tokens (the patch)."""
    import re

    m = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", str(entry.get("engine_version", "")))
    if not m:
        return None
    return ".".join(g for g in m.groups() if g is not None)


def sglang_version(entry: dict[str, Any]) -> str | None:
    """ "0.4.4.post2 (March 2025)" → "0.4.4.post2"; "main …" → None (the modelled 0.5.23)."""
    import re

    m = re.match(r"\s*(\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)", str(entry.get("engine_version", "")))
    return m.group(1) if m else None


def resolved_release(entry: dict[str, Any]) -> str | None:
    """The entry's sglang release when the pack resolves it (a ``.postN`` as its base), so the log
    is compared at its own release; else None (the default release)."""
    from resolvable.sglang import registry

    version = sglang_version(entry)
    if version is None:
        return None
    try:
        return registry.release(version) if registry.release(version) in registry.releases else None
    except ValueError:
        return None


def _rel(pred: float, obs: float) -> float:
    return (pred - obs) / obs


def _with_inputs(entry: dict[str, Any], alt: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with one alternative of its ``open_inputs`` applied: ``gpu`` fields replace the
    entry's, ``config_overrides`` merge one level deep (``quantization_config.group_size``)."""
    import copy

    out = copy.deepcopy(entry)
    out.pop("open_inputs", None)
    out["gpu"] = {**out.get("gpu", {}), **alt.get("gpu", {})}
    over = out["model"].setdefault("config_overrides", {})
    for key, value in alt.get("config_overrides", {}).items():
        over[key] = {**over.get(key, {}), **value} if isinstance(value, dict) else value
    return out


def evaluate(entry: dict[str, Any]) -> dict[str, Any]:
    """The errors for ``entry`` (module docstring). An entry whose source leaves inputs open
    (``open_inputs``: the alternatives it allows, each a ``gpu``/``config_overrides`` patch) is
    also predicted under each alternative; when they disagree on whether the launch starts, the
    verdict is ``unknown`` (counted as not predicted to start, as the tool's own ``unknown`` is)
    and ``verdict`` says why. The error columns use the entry's own inputs."""
    out = _evaluate(entry)
    alts = entry.get("open_inputs") or []
    if alts and out.get("refusal"):
        starts = {not _evaluate(_with_inputs(entry, a))["refusal"][0] for a in alts}
        if len(starts) > 1:
            out["refusal"] = (True, out["refusal"][1])
            out["verdict"] = "unknown: " + str(entry.get("open_inputs_note", "the source leaves inputs open"))
    return out


def _evaluate(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": entry["id"], "engine": entry["engine"]}
    hf = _hf(entry)
    platform = _platform(entry)
    obs = entry["observed"]
    flags = dict(entry.get("flags", {}))
    if entry["engine"] == "vllm" and "flashinfer_sampler" not in flags:
        # the quoted sampler line, read as check-log reads it (vllm.memory.flashinfer_sampler)
        from resolvable.vllm.startup_log import read as read_vllm_log
        from resolvable.vllm.startup_log import used_bytes

        facts = read_vllm_log("\n".join(entry.get("log", [])))
        sampler = facts.flags.get("flashinfer_sampler")
        if sampler is not None:
            flags["flashinfer_sampler"] = sampler
        # the logged free memory at start-up, read as check-log reads it (another process's share)
        used = used_bytes(facts, flags, platform.device_name, platform.memory_gib) if platform else 0.0
        if used and "used_bytes" not in flags:
            flags["used_bytes"] = used
    if entry["engine"] == "sglang":
        from resolvable.sglang import resolve_server_args
        from resolvable.sglang.memory import capacity, default_mem_fraction_static, kv_cell

        if hf is None and (platform is None or "mem_fraction_static" not in flags):
            return out  # a model neither bundled nor quoted, and no fraction: nothing to predict
        if hf is None:  # only the weights the log states: check the refusal arithmetic
            from resolvable.device_memory import device_total_bytes

            total = device_total_bytes(platform.device_name, platform.memory_gib)
            pre = total - 1.0 * GIB
            rest = pre * flags["mem_fraction_static"] - obs["weights_gib"] * GIB
            out["refusal"] = (rest <= 0, obs.get("refused", False))
            return out
        values = dict(flags)
        if platform is not None:
            modelled = {
                k: v
                for k, v in flags.items()
                if k in ("tp_size", "mem_fraction_static", "kv_cache_dtype", "trust_remote_code")
            }
            res = resolve_server_args(hf, platform, {}, sglang_version=resolved_release(entry), **modelled)
            values = {**{k: res[k] for k in res}, **flags}
            if "mem_fraction_static" in obs:
                gpu_mib = capacity(
                    values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib
                ).device_total_bytes / (1 << 20)
                out["mem_fraction_static"] = _rel(
                    default_mem_fraction_static(values, hf, gpu_mib), obs["mem_fraction_static"]
                )
                return out
            rep = capacity(
                values,
                hf,
                device_name=platform.device_name,
                memory_gib=platform.memory_gib,
                version=sglang_version(entry),
            )
            if "weights_gib" in obs:
                out["weights"] = _rel(rep.weights_bytes / GIB, obs["weights_gib"])
            if "kv_tokens" in obs:
                out["kv_tokens"] = _rel(rep.kv_tokens, obs["kv_tokens"])
            if "refused" in obs:
                out["refusal"] = (not rep.fits, obs["refused"])
                if rep.status == "unknown":
                    out["verdict"] = f"unknown: {rep.unknown_reason}"
        full, swa, _ = kv_cell(values, hf)
        pool_tokens = obs.get("kv_tokens", obs.get("kv_tokens_pool_only"))
        if "kv_pool_gib" in obs and pool_tokens:
            out["kv_formula"] = _rel(obs["kv_pool_gib"] * GIB / (full + 0.8 * swa), pool_tokens)
        return out
    from resolvable.vllm.memory import capacity as vcap

    if platform is not None and hf is not None:  # a model neither bundled nor quoted: nothing to predict
        rep = vcap(
            flags,
            hf,
            device_name=platform.device_name,
            memory_gib=platform.memory_gib,
            version=vllm_version(entry),
        )
        if "weights_gib" in obs:
            out["weights"] = _rel(rep.weights_bytes / GIB, obs["weights_gib"])
        if "kv_tokens" in obs:
            out["kv_tokens"] = _rel(max(rep.kv_tokens, 1), obs["kv_tokens"])
        if "available_kv_gib" in obs:
            out["available_kv"] = _rel(rep.inputs["available_kv_bytes"] / GIB, obs["available_kv_gib"])
        if "refused" in obs:  # an entry whose log does not say how the start ended is not compared
            out["refusal"] = (not rep.fits, obs["refused"])
            if rep.status == "unknown":
                out["verdict"] = f"unknown: {rep.unknown_reason}"
    elif "weights_gib" in obs and hf is not None:  # no GPU stated: the weights alone
        from resolvable.memory import weight_estimate

        tp = int(flags.get("tensor_parallel_size") or 1)
        out["weights"] = _rel(weight_estimate(hf).per_rank(tp=tp) / GIB, obs["weights_gib"])
    if "available_kv_gib" in obs and "kv_tokens" in obs and hf is not None:
        # the logged KV memory through the model's own paging (``--kv-cache-memory``): the blocks,
        # the hybrid groups and the release's token count, as vLLM turns that memory into tokens
        formula = vcap(
            {**flags, "kv_cache_memory_bytes": obs["available_kv_gib"] * GIB},
            hf,
            device_name=platform.device_name if platform else None,
            memory_gib=platform.memory_gib if platform else 10_000.0,
            version=vllm_version(entry),
        )
        out["kv_formula"] = _rel(formula.kv_tokens, obs["kv_tokens"])
    return out


def summary(results: list[dict[str, Any]], key: str) -> dict[str, float] | None:
    errs = sorted(abs(r[key]) for r in results if key in r)
    if not errs:
        return None
    p90 = errs[min(len(errs) - 1, round(0.9 * (len(errs) - 1)))]
    return {
        "n": len(errs),
        "median": statistics.median(errs),
        "p90": p90,
        "worst": errs[-1],
        "within_10pct": sum(e <= 0.10 for e in errs) / len(errs),
    }


SPLITS = ("tuned", "tuned_s4", "held_out", "held_out_s4", "tuned_s4b", "held_out_s5", "tuned_s5")


def split_of(entry: dict[str, Any]) -> str:
    """``held_out`` / ``held_out_s4`` for the entries marked so (never tuned on); ``tuned_s4`` /
    ``tuned_s4b`` for the held-out entries whose logs h27e / h27g opened while fixing the KV
    misses (no longer held out); else ``tuned``."""
    split = entry.get("split")
    return split if split in SPLITS else "tuned"


def split_summary(
    results: list[dict[str, Any]], metas: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per split: KV tokens and weights within 10 % (n, share), logged failures predicted, and the
    launches that started but are predicted to fail."""
    out: dict[str, dict[str, Any]] = {}
    for name in SPLITS:
        subset = [r for r in results if split_of(metas[r["id"]]) == name]
        row: dict[str, Any] = {"entries": len(subset)}
        for key in ("kv_tokens", "weights"):
            s = summary(subset, key)
            row[key] = (s["n"], s["within_10pct"], s["median"]) if s else (0, None, None)
        failed = [r["refusal"] for r in subset if r.get("refusal") and r["refusal"][1]]
        started = [r["refusal"] for r in subset if r.get("refusal") and not r["refusal"][1]]
        row["failures_predicted"] = (sum(p for p, _ in failed), len(failed))
        row["failures_unknown"] = sum(
            1 for r in subset if r.get("refusal") and r["refusal"][1] and "verdict" in r
        )
        row["false_failures"] = (sum(p for p, _ in started), len(started))
        out[name] = row
    return out


def split_report(results: list[dict[str, Any]] | None = None) -> str:
    """The tuned vs held-out table of docs/memory.md (``memory_accuracy.py --splits``)."""
    metas = {e["id"]: e for e in entries()}
    results = results if results is not None else [evaluate(e) for e in metas.values()]
    rows = [
        "| split | entries | KV tokens within 10 % | weights within 10 % | logged failures predicted | started, predicted to fail |",
        "|---|---|---|---|---|---|",
    ]

    def share(t: tuple[int, float | None, float | None]) -> str:
        n, within, median = t
        return "–" if not n else f"{round(within * n)} of {n} ({within:.0%}), median {median:.1%}"

    for name, row in split_summary(results, metas).items():
        fp, fn = row["failures_predicted"]
        sp, sn = row["false_failures"]
        rows.append(
            f"| {name.replace('_', '-')} | {row['entries']} | {share(row['kv_tokens'])} | {share(row['weights'])} | "
            f"{fp} of {fn}"
            + (f" ({row['failures_unknown']} unknown)" if row["failures_unknown"] else "")
            + f" | {sp} of {sn} |"
        )
    return "\n".join(rows)


def kv_capacity(r: dict[str, Any]) -> float | None:
    """End-to-end KV capacity error: KV tokens where the log states them, else vLLM's available KV
    memory (the tokens are that memory over the page size; the llm-d and refusal logs print no
    token count). None when the log states neither."""
    if "kv_tokens" in r:
        return r["kv_tokens"]
    return r.get("available_kv")


def markdown_table(results: list[dict[str, Any]] | None = None) -> str:
    """The per-entry table of docs/memory.md (``python benchmarks/memory_accuracy.py --markdown``)."""
    results = results if results is not None else [evaluate(e) for e in entries()]
    meta = {e["id"]: e for e in entries()}
    rows = [
        "| entry | engine release | GPU | weights | KV tokens | KV formula | vLLM avail. KV | refusal (pred/log) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        e = meta[r["id"]]

        def f(k: str, r: dict[str, Any] = r) -> str:
            return f"{r[k]:+.1%}" if k in r else "–"

        ref = r.get("refusal")
        pred = "unknown" if "verdict" in r and ref else (ref[0] if ref else None)
        ref_s = "–" if ref is None else f"{'✓' if ref[0] == ref[1] else '✗'} {pred}/{ref[1]}"
        held = {
            "held_out": " (h27d)",
            "tuned_s4": " (h27d, opened by s4)",
            "held_out_s4": " (h27f)",
            "held_out_s5": " (h27h)",
            "tuned_s5": " (h27h, opened)",
        }.get(split_of(e), "")
        held = " (h18)" if e.get("added") == "h18" else held
        gpu = f"{e.get('gpus', 1)}× {e['gpu']['device_name']}" if e.get("gpu") else "–"
        rows.append(
            f"| [{r['id']}]({e['source']}){held} | {e['engine']} {str(e.get('engine_version', '')).split(' ')[0]} | "
            f"{gpu} | {f('weights')} | {f('kv_tokens')} | {f('kv_formula')} | {f('available_kv')} | {ref_s} |"
        )
    return "\n".join(rows)


def report() -> str:
    results = [evaluate(e) for e in entries()]
    lines = [
        f"{'entry':48s} {'weights':>9s} {'kv e2e':>9s} {'kv form.':>9s} {'avail':>9s} {'mfs':>8s}  refusal"
    ]
    for r in results:

        def f(k: str, r: dict[str, Any] = r) -> str:
            return f"{r[k]:+8.1%}" if k in r else "        -"

        ref = r.get("refusal")
        ref_s = (
            "-"
            if ref is None
            else ("ok" if ref[0] == ref[1] else "MISS")
            + (" (pred unknown" if "verdict" in r else f" (pred {ref[0]}")
            + f", log {ref[1]})"
        )
        lines.append(
            f"{r['id']:48s} {f('weights'):>9s} {f('kv_tokens'):>9s} {f('kv_formula'):>9s} {f('available_kv'):>9s} {f('mem_fraction_static'):>8s}  {ref_s}"
        )
    split = {e["id"]: split_of(e) for e in entries()}
    held = {i for i, name in split.items() if name == "held_out"}
    s4 = {i for i, name in split.items() if name == "tuned_s4"}
    added = {e["id"] for e in entries() if e.get("added") == "h18"}
    for name, subset in (
        ("all entries", results),
        (
            "tuned split (the constants were set with these in view)",
            [r for r in results if split[r["id"]] == "tuned"],
        ),
        (
            "tuned-s4 (h27d held-out logs opened by s4 while fixing the KV misses)",
            [r for r in results if r["id"] in s4],
        ),
        (
            "held-out split (h27d: collected after the constants were set, never tuned on)",
            [r for r in results if r["id"] in held],
        ),
        (
            "fresh held-out split (h27f: a new batch, collected while h27e tuned on all 88 before it)",
            [r for r in results if split[r["id"]] == "held_out_s4"],
        ),
        (
            "tuned-s4b (h27f fresh logs opened by h27g while fixing their misses)",
            [r for r in results if split[r["id"]] == "tuned_s4b"],
        ),
        (
            "fresh held-out split (h27h: a new batch, frozen before any prediction was looked at)",
            [r for r in results if split[r["id"]] == "held_out_s5"],
        ),
        (
            "tuned-s5 (h27h's batch entries opened after the one measurement)",
            [r for r in results if split[r["id"]] == "tuned_s5"],
        ),
        ("entries added by h18 (held out)", [r for r in results if r["id"] in added]),
    ):
        lines.append(f"\n{name}:")
        for key, label in (
            ("weights", "weights per rank"),
            ("kv_tokens", "KV tokens, end to end"),
            ("kv_formula", "KV tokens from the logged KV memory"),
            ("available_kv", "vLLM available KV memory"),
            ("mem_fraction_static", "sglang default mem_fraction_static"),
        ):
            s = summary(subset, key)
            if s:
                lines.append(
                    f"  {label:38s} n={s['n']:2d}  median {s['median']:.1%}  p90 {s['p90']:.1%}  "
                    f"worst {s['worst']:.1%}  within 10%: {s['within_10pct']:.0%}"
                )
    for name, subset in (
        ("all entries", results),
        ("h18 entries", [r for r in results if r["id"] in added]),
    ):
        cap = [{"kv_capacity": c} for c in (kv_capacity(r) for r in subset) if c is not None]
        s = summary(cap, "kv_capacity")
        if s:
            lines.append(
                f"KV capacity end to end ({name}; tokens, else vLLM available KV): n={s['n']}  median "
                f"{s['median']:.1%}  p90 {s['p90']:.1%}  worst {s['worst']:.1%}  within 10%: {s['within_10pct']:.0%}"
            )
    for engine in ("sglang", "vllm"):
        s = summary([r for r in results if r["engine"] == engine], "kv_tokens")
        if s:
            lines.append(
                f"{engine} only, KV tokens end to end: n={s['n']}  median {s['median']:.1%}  p90 {s['p90']:.1%}  "
                f"worst {s['worst']:.1%}  within 10%: {s['within_10pct']:.0%}"
            )
    refusals = [r["refusal"] for r in results if r.get("refusal") and r["refusal"][1]]
    unknown = sum(1 for r in results if r.get("refusal") and r["refusal"][1] and "verdict" in r)
    lines.append(
        f"logged refusals predicted as refusals: {sum(p for p, _ in refusals)}/{len(refusals)} "
        f"({unknown} of them answered unknown, never starts)"
    )
    lines.append(
        "\nsplits (tuned: the constants were set with these in view; held-out: never tuned on; "
        "held-out-s4: the fresh h27f batch; tuned-s4b: its entries h27g opened):"
    )
    lines.append(split_report(results))
    return "\n".join(lines)
