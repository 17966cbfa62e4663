"""benchmarks/report.py keeps the sections run.py does not measure (§9) when it rewrites the report."""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from report import kept_sections  # noqa: E402

PREVIOUS = """# Benchmarks

## 8. Cost per sglang release

| a | b |

## 9. Release mechanism: cost against 9604ed3

figures
### sub
more
## Reproduce

```bash
```
"""


def test_section_9_is_carried_over() -> None:
    kept = kept_sections(PREVIOUS)
    assert kept[0] == "## 9. Release mechanism: cost against 9604ed3"
    assert "figures" in kept and "### sub" in kept and "more" in kept
    assert not any(line.startswith(("## 8", "## Reproduce", "| a")) for line in kept)
    assert kept[-1] == ""


def test_nothing_to_keep() -> None:
    assert kept_sections(None) == []
    assert kept_sections("# Benchmarks\n\n## 8. x\n") == []


def test_the_current_report_keeps_its_section_9() -> None:
    with open(os.path.join(ROOT, "docs", "benchmarks.md"), encoding="utf-8") as fh:
        kept = kept_sections(fh.read())
    assert kept and kept[0].startswith("## 9. ")
