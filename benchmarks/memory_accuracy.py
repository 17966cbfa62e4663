"""Accuracy of the memory model over the start-up log corpus (tests/memory/corpus).

Run: ``python benchmarks/memory_accuracy.py`` — prints, per entry, the relative error of the
predicted weights per rank, KV tokens end to end, KV tokens from the logged KV memory, vLLM's
available KV memory and sglang's default ``mem_fraction_static``; then median, p90, worst and the
share within 10 %, and how many logged refusals are predicted; last, the splits side by side,
one row each (tuned, held-out, and held-out-s4: h27f's fresh batch, collected while the model was
tuned on the others; KV tokens and weights within 10 %, logged failures predicted). ``--markdown`` prints
the per-entry table of docs/memory.md instead, ``--splits`` the split table alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "memory"))
sys.path.insert(0, str(ROOT / "src"))

from corpus_eval import markdown_table, report, split_report  # noqa: E402

if __name__ == "__main__":
    args = sys.argv[1:]
    print(markdown_table() if "--markdown" in args else split_report() if "--splits" in args else report())
