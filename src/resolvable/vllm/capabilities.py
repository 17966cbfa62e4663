"""The vLLM backend capability table, generated from the candidates' checks.

``capability_table()`` returns one row per backend (CUDA, ROCm, XPU/CPU ones): the platforms it
is a candidate on, and, read from the ``facts`` of its checks, the dtypes, kv-cache dtypes, head
sizes, kernel block sizes, MLA/sparse, sinks, sliding window, compute capability and other
limits. ``capability_markdown()`` renders it. Invariant: nothing here is written by hand per
backend; a change to a backend's declaration changes its row.
"""

from __future__ import annotations

from .backends import cuda as CUDA
from .backends import rocm as ROCM
from .select import CPU_BACKENDS, XPU_FLASH_ATTN_MLA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COLUMNS = (
    "backend",
    "platforms",
    "MLA",
    "sparse",
    "dtypes",
    "kv dtypes",
    "head sizes",
    "block sizes",
    "compute capability",
    "sinks",
    "sliding window",
    "mm_prefix",
    "non-causal",
    "batch invariant",
    "attention types",
    "needs",
    "other limits",
    "source",
)


def _platforms(name: str) -> str:
    out = []
    if name in CUDA.BACKENDS:
        out.append("cuda")
    if name in ROCM.BACKENDS:
        out.append("rocm")
    if name in CPU_BACKENDS:
        out.append("cpu")
    if name in ("FLASH_ATTN", "TRITON_ATTN", "TRITON_MLA", "TRITON_FLASH_ATTN", "TURBOQUANT"):
        out.append("xpu")
    return ", ".join(out)


def _row(entry: Any, platforms: str) -> dict[str, Any]:
    facts = entry.candidate.facts()
    return {
        "backend": entry.name,
        "platforms": platforms,
        "MLA": facts.get("MLA", False),
        "sparse": facts.get("sparse", False),
        "dtypes": facts.get("dtypes", ""),
        "kv dtypes": facts.get("kv dtypes", ""),
        "head sizes": facts.get("head sizes", ""),
        "block sizes": facts.get("block sizes", ""),
        "compute capability": facts.get("compute capability", "any"),
        "sinks": facts.get("sinks", "False"),
        "sliding window": facts.get("sliding window", False),
        "mm_prefix": facts.get("mm_prefix", "False"),
        "non-causal": facts.get("non-causal", False),
        "batch invariant": facts.get("batch invariant", False),
        "attention types": facts.get("attention types", ""),
        "needs": facts.get("needs", ""),
        "other limits": facts.get("other limits", "none"),
        "source": entry.candidate.doc,
    }


def capability_table() -> list[dict[str, Any]]:
    """One row per backend (see the module docstring), CUDA first, then ROCm, XPU, CPU."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for table in (CUDA.BACKENDS, ROCM.BACKENDS, CPU_BACKENDS):
        for name, entry in table.items():
            if name in seen:
                continue
            seen.add(name)
            rows.append(_row(entry, _platforms(name)))
    rows.append(_row(XPU_FLASH_ATTN_MLA, "xpu") | {"backend": "FLASH_ATTN_MLA (XPU)"})
    return rows


def _cell(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False or value == "False":
        return "no"
    if value == "True":
        return "yes"
    return str(value).replace("|", "\\|")


def capability_markdown(rows: list[dict[str, Any]] | None = None) -> str:
    """The table as GitHub markdown."""
    rows = capability_table() if rows is None else rows
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"
