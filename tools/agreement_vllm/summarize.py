"""Summarise the agreement reports of every release: figures per release, misses grouped by cause.

Usage::

    python tools/agreement_vllm/summarize.py --split dev [--kind selector|config] [--out FILE]

Reads ``reports/<kind>-<V>-<split>.json`` (written by the comparers) and prints, per release,
n / agreement / crashes, then each cause of disagreement with its count per release and one
repro (release, model and mutations, device, install, env, flags, vLLM's answer vs the pack's).
Only for the *dev* split are repros meant to be read while fixing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RELEASES = ("0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")


def _load(kind: str, release: str, split: str) -> dict | None:
    folder = HERE / "reports" if kind == "selector" else HERE.parent / "agreement_vllm_config" / "reports"
    path = folder / f"{kind}-{release}-{split}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _short(value, n: int = 220) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= n else text[: n - 1] + "…"


def summarize(kind: str, split: str) -> str:
    lines = [
        f"## {kind} agreement, {split} split",
        "",
        "| release | n | agree | % | pack crashes |",
        "|---|---|---|---|---|",
    ]
    causes: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for release in RELEASES:
        data = _load(kind, release, split)
        if data is None:
            continue
        if "rows" in data:  # a report written before the compact format (every row kept)
            rows = data["rows"]
            if kind == "config":
                rows = [r for r in rows if r["status"] in ("agree", "disagree", "crash")]
                data["agree"] = sum(r["status"] == "agree" for r in rows)
                data["crashes"] = sum(r["status"] == "crash" for r in rows)
                data["misses"] = [r for r in rows if r["status"] != "agree"]
            else:
                data["agree"] = sum(r["agree"] for r in rows)
                data["misses"] = [r for r in rows if not r["agree"]]
            data["n"] = len(rows)
        n, agree, crashes = data["n"], data["agree"], data.get("crashes", 0)
        misses = data.get("misses", [])  # held-out reports keep counts by cause only
        lines.append(f"| {release} | {n} | {agree} | {100.0 * agree / max(1, n):.2f} | {crashes} |")
        for r in misses:
            causes[r["cause"]][release].append(r)
    lines += ["", "### Misses by cause (count per release; one repro)", ""]
    ordered = sorted(causes.items(), key=lambda kv: -sum(len(v) for v in kv[1].values()))
    for text, per in ordered:
        counts = ", ".join(f"{rel}: {len(rs)}" for rel, rs in sorted(per.items()))
        rel, rs = next(iter(sorted(per.items())))
        r = rs[0]
        lines.append(f"- **{text}** ({counts})")
        lines.append(
            f"  - repro `{r['id']}`: vLLM {rel}, model `{r['model']}` mutations {r['mutations']}, "
            f"device {r['platform']}, install {r['install']}, env {r['env']}, flags `{' '.join(r['argv'])}`"
        )
        lines.append(f"  - vLLM: `{_short(r['oracle'])}`")
        lines.append(f"  - pack: `{_short(r['pack'])}`")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--kind", choices=("selector", "config"), default="selector")
    parser.add_argument("--out")
    args = parser.parse_args()
    text = summarize(args.kind, args.split)
    if args.out:
        tmp = Path(args.out + ".tmp")
        tmp.write_text(text)
        tmp.replace(args.out)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
