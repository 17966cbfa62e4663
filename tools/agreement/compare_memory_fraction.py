"""sglang's default ``--mem-fraction-static`` per release against the pack's memory model.

Issue 32 item 4 ("memory per release"), measured with the real code: the oracle worker records
``ServerArgs.mem_fraction_static`` for every case sglang accepts, on the preset's faked GPU
memory (``get_*_memory_capacity`` and ``mem_get_info`` answer the preset's memory), so the
cached answers of a draw hold sglang's own default fraction of that release
(``_handle_gpu_memory_settings``, 0.5.19+ ``memory_hook``). The pack's figure is the one an
operator reads: ``resolvable fit --json --sglang-version V --platform P -- <the launch>``,
``memory.inputs.mem_fraction_static``.

Compared: the cases both accept whose flags do not set ``--mem-fraction-static`` (a user value
is copied on both sides). Equal means within 0.0015 (sglang rounds to 3 decimals). Reads the
oracle cache only (the same draw as compare.py; nothing is run in an oracle venv). Writes
``reports/memory-fraction-sglang-<version>-<split>-seed<seed>.{md,json}``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from compare import _display, case_key, default_seed, draw, load_oracle_cache, materialize_dirs  # noqa: E402
from real_launches import _atomic_write  # noqa: E402

TOLERANCE = 0.0015


def pack_fraction(case: dict, model_dir: str, version: str) -> tuple[float | None, str]:
    """(the fraction ``fit --json`` reports, its source line) or (None, why not)."""
    from resolvable.cli import main as cli

    argv = ["fit", "--json", "--sglang-version", version, "--platform", case["preset"]]
    launch = ["python", "-m", "sglang.launch_server", "--model-path", model_dir, *case["flags"]]
    env = {k: str(v) for k, v in (case.get("env") or {}).items()}
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli([*argv, "--", *launch])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        doc = json.loads(out.getvalue())
    except ValueError:
        return None, (err.getvalue().strip().splitlines() or ["no answer"])[-1][:160]
    inputs = (doc.get("memory") or {}).get("inputs") or {}
    value = inputs.get("mem_fraction_static")
    return (float(value) if value is not None else None), str(inputs.get("mem_fraction_static_from", ""))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sglang-version", required=True)
    ap.add_argument("--split", choices=["dev", "heldout"], default="dev")
    ap.add_argument("--seed", type=int)
    ap.add_argument("-n", type=int, default=300)
    ap.add_argument("--oracle-cache", help="default /work/oracle/cache-<version>.jsonl")
    ap.add_argument("--report-dir", default=os.path.join(HERE, "reports"))
    ap.add_argument("--show", type=int, default=12, help="differing cases listed in the report")
    opts = ap.parse_args(argv)

    version = opts.sglang_version
    seed = opts.seed if opts.seed is not None else default_seed(opts.split, plain=False)
    cache = load_oracle_cache(opts.oracle_cache or f"/work/oracle/cache-{version}.jsonl")
    cases, presets, samples = draw(seed, opts.n)
    rows, skipped = [], collections.Counter()
    with tempfile.TemporaryDirectory(prefix="memfrac-") as tmp:
        dirs, texts = materialize_dirs(cases, samples, tmp)
        for c in cases:
            c["sglang_version"] = version
            oracle = cache.get(case_key(c, texts[c["id"]], presets[c["preset"]].to_dict(), version))
            if oracle is None:
                skipped["not in the oracle cache"] += 1
                continue
            if oracle["outcome"] != "accepted":
                skipped["sglang refuses"] += 1
                continue
            if any(f.split("=")[0] == "--mem-fraction-static" for f in c["flags"]):
                skipped["the launch sets --mem-fraction-static"] += 1
                continue
            real = (oracle.get("fields") or {}).get("mem_fraction_static")
            if real is None:
                skipped["sglang recorded no fraction"] += 1
                continue
            ours, source = pack_fraction(c, dirs[c["id"]], version)
            if ours is None:
                skipped["the pack gives no fraction"] += 1
                continue
            rows.append((c, float(real), ours, source))
    equal = [r for r in rows if abs(r[1] - r[2]) <= TOLERANCE]
    diffs = sorted((r for r in rows if abs(r[1] - r[2]) > TOLERANCE), key=lambda r: -abs(r[1] - r[2]))
    over = sum(1 for r in diffs if r[2] > r[1])  # the pack's fraction larger: a bigger KV pool predicted
    summary = {
        "sglang_version": version,
        "split": opts.split,
        "seed": seed,
        "n": opts.n,
        "compared": len(rows),
        "equal": len(equal),
        "within_0_01": sum(1 for r in rows if abs(r[1] - r[2]) <= 0.01),
        "pack_larger": over,
        "pack_smaller": len(diffs) - over,
        "skipped": dict(skipped),
    }
    stem = os.path.join(opts.report_dir, f"memory-fraction-sglang-{version}-{opts.split}-seed{seed}")
    items = [
        {"case": _display(c), "sglang": real, "pack": ours, "pack_from": src} for c, real, ours, src in diffs
    ]
    os.makedirs(opts.report_dir, exist_ok=True)
    _atomic_write(stem + ".json", json.dumps({"summary": summary, "differing": items}, indent=1))
    pct = 100 * len(equal) / max(1, len(rows))
    lines = [
        f"# Default mem_fraction_static: sglang {version} vs the pack ({opts.split}, seed {seed}, n={opts.n})",
        "",
        "Generated by `tools/agreement/compare_memory_fraction.py` from the oracle cache (see its docstring).",
        "",
        f"- compared (both accept, no --mem-fraction-static): {len(rows)}",
        f"- **equal within {TOLERANCE}: {len(equal)}/{len(rows)} = {pct:.1f}%**; within 0.01: "
        f"{summary['within_0_01']}/{len(rows)}",
        f"- differing: {len(diffs)} (pack larger, i.e. a bigger KV pool predicted: {over}; pack smaller: "
        f"{len(diffs) - over})",
        *(f"- skipped, {why}: {k}" for why, k in sorted(skipped.items())),
        "",
    ]
    if opts.split == "dev":  # held-out cases are never shown (nobody fixing may look at them)
        lines += ["## Largest differences", ""]
        lines += [f"- `{i['case']}`: sglang {i['sglang']}, pack {i['pack']}" for i in items[: opts.show]]
    _atomic_write(stem + ".md", "\n".join(lines) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
