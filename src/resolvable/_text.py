"""Plain-text tables for the CLI (no third-party dependency).

Invariant: output is deterministic (no terminal probing), so it can be tested and diffed.
"""

from __future__ import annotations

from collections.abc import Sequence


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[("-" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def short(value: object, limit: int = 48) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def checks_passed(count: int) -> str:
    """``"1 check passed"`` / ``"21 checks passed"`` (the start-up lines and the verdict line)."""
    return f"{count} check passed" if count == 1 else f"{count} checks passed"
