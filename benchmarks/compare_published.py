"""Published two-engine comparisons (tests/memory/corpus pairs) reproduced with ``resolvable compare``.

Run: ``python benchmarks/compare_published.py`` — per pair, each engine's logged and predicted
KV-cache tokens, the release used (and a note when the logged one is not modelled), the same
launch translated into the other engine, and the ratio between the engines (docs/compare.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "memory"))
sys.path.insert(0, str(ROOT / "src"))

from compare_published import report  # noqa: E402

if __name__ == "__main__":
    print(report())
