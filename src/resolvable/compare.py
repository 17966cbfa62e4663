"""Two engines side by side for one launch: the verdict and the resolved settings of each, row by
row, each differing row with the rule that decided it on each side.

Each side is one engine's form of the launch, judged as every command judges a launch
(``Pack.build_launch`` → ``Pack.verdict``: docs/architecture.md, "One launch, one verdict"), so
``compare`` shows, for each engine, the values and the verdict that ``explain`` gives for the
same command (tests/cli/test_compare.py checks it over both engines' real-command corpora). The
rows (``resolvable.translate.Row``) come from the pair's translation table, held by a pack; this
module names no engine.

Invariants:

* one verdict per side (``resolvable.verdict.Verdict``): ``starts``, ``refused`` (the rule, the
  engine's message, the fix) or ``does-not-fit``; a memory size that cannot be derived is said to
  be unknown, never taken as "fits";
* a row differs when the two sides' values, read in one vocabulary (``Row.same_*``), differ; a
  differing row carries, for each side, the rule (file:line) that decided each of its fields, or
  "your flag", or "the default";
* the matched memory budget (``matched_fraction``) is derived from the memory model's own
  figures (KV bytes per token × KV tokens per rank, the device's memory), linear in the knob.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Side", "compare_rows", "decided_by", "matched_fraction", "memory_rows", "verdict_text"]

GIB = float(1 << 30)
_NOT_RESOLVED = object()  # a side refused before resolution: its rows are not compared


@dataclass(frozen=True)
class Side:
    """One engine's answer for its form of the launch (``Pack.verdict(Pack.build_launch(...))``):
    its release, the command, the resolved values (empty when the launch was refused before
    resolution), who decided each field, the memory model's report (``FitReport.to_dict()``), the
    one verdict (``resolvable.verdict.Verdict``) and the resolution's fingerprint."""

    engine: str
    release: str
    command: tuple[str, ...]
    values: Mapping[str, Any]
    decided: Mapping[str, str]
    memory: Mapping[str, Any]
    verdict: Any
    fingerprint: str | None = None
    notes: tuple[str, ...] = field(default=())
    arch: str = ""
    #: The tool's input error for this side's command (an unknown model, say): no verdict then.
    error: str = ""

    def provenance(self, field_name: str) -> str:
        """Who decided ``field_name``: the last rule that wrote it (file:line), "your flag" or
        "the default"."""
        return self.decided.get(field_name, "the default")

    def to_dict(self) -> dict[str, Any]:
        return {
            "release": self.release,
            "command": list(self.command),
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "error": self.error or None,
            "fingerprint": self.fingerprint,
            "arch": self.arch,
            "values": dict(self.values),
            "memory": dict(self.memory),
            "notes": list(self.notes),
        }


def decided_by(res: Any) -> dict[str, str]:
    """field → "rule (file:line)" of the last declaration that set it, or "your flag"."""
    out: dict[str, str] = {}
    for decl in res.declarations:
        for write in decl.writes:
            if write.outcome in ("applied", "forced"):
                out[write.field] = f"{decl.rule} ({decl.location})"
    for name in res.user:
        out.setdefault(name, "your flag")
    return out


def verdict_text(verdict: Any) -> str:
    """The verdict in a table cell: the status, then why (the rule, the engine's words)."""
    if verdict is None:
        return "not judged (input error)"
    if verdict.status == "starts":
        return "starts"
    why = verdict.message or ""
    if verdict.status == "does-not-fit":
        short = f" by {verdict.shortfall_bytes / GIB:.2f} GiB" if verdict.shortfall_bytes else ""
        return f"does-not-fit ({verdict.allocation or 'memory'}{short}): {why}"
    if verdict.status == "unknown":
        return f"unknown ({verdict.allocation or 'memory'}): {why}"
    return f"refused: {why}" + (f" [{verdict.rule}]" if verdict.rule else "")


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "unknown" if value is None else str(value)


def memory_rows(side: Side, knob: str) -> dict[str, tuple[str, Any]]:
    """The memory rows of a side: name → (text, the value compared)."""
    mem = side.memory
    if not mem or "error" in mem:
        why = mem.get("error", "") if mem else "not judged: refused before memory"
        return {
            name: (f"unknown ({why})" if why else "unknown", None)
            for name in ("memory budget", "KV-cache tokens", "max concurrency at the context length")
        }
    inputs = mem.get("inputs") or {}
    budget = inputs.get(knob)
    kv_bytes = (mem.get("kv_tokens") or 0) * (mem.get("kv_bytes_per_token_per_rank") or 0)
    budget_text = f"{knob} {budget}: weights {_number(mem.get('weights_gib_per_rank'))} + KV {kv_bytes / GIB:,.2f} GiB/rank"
    concurrency = mem.get("concurrency_at_context")
    return {
        "memory budget": (budget_text, round(kv_bytes / GIB, 1)),
        "KV-cache tokens": (_number(mem.get("kv_tokens")), mem.get("kv_tokens")),
        "max concurrency at the context length": (
            f"{_number(concurrency)}× at {_number(mem.get('context_length'))} tokens",
            None if concurrency is None else round(concurrency, 2),
        ),
    }


def compare_rows(
    rows: Sequence[Any], sides: Mapping[str, tuple[str, Side]], knobs: Mapping[str, tuple[str, str]]
) -> list[dict[str, Any]]:
    """The comparison rows: ``sides`` is engine → (the table's side ``a``/``b``, the Side).
    Each row: name, the text per engine, whether it differs, and the reasons per engine."""
    out: list[dict[str, Any]] = []
    verdicts = {e: s.verdict for e, (_, s) in sides.items()}
    out.append(
        {
            "row": "verdict",
            "values": {e: verdict_text(v) for e, v in verdicts.items()},
            "differs": len({getattr(v, "status", None) for v in verdicts.values()}) > 1,
            "reasons": {
                e: ([f"{v.rule} ({v.location})" if v.location else str(v.rule)] if v.rule else [])
                if v is not None
                else [sides[e][1].error]
                for e, v in verdicts.items()
            },
        }
    )
    for row in rows:
        texts: dict[str, str] = {}
        same: dict[str, Any] = {}
        reasons: dict[str, list[str]] = {}
        for engine, (key, side) in sides.items():
            if not side.values:  # refused before resolution, or not read: nothing to compare
                texts[engine], same[engine], reasons[engine] = "-", _NOT_RESOLVED, []
                continue
            texts[engine] = row.show(key, side.values)
            same[engine] = row.same(key, side.values)
            reasons[engine] = [
                f"{f}: {side.provenance(f)}"
                for f in row.fields(key)
                if f in side.values and side.values[f] is not None
            ]
        resolved = [v for v in same.values() if v is not _NOT_RESOLVED]
        differs = len(resolved) == len(same) and len({repr(v) for v in resolved}) > 1
        out.append(
            {"row": row.name, "values": texts, "differs": differs, "reasons": reasons if differs else {}}
        )
    memory = {e: memory_rows(s, knobs.get(e, ("", ""))[0]) for e, (_, s) in sides.items()}
    for name in ("memory budget", "KV-cache tokens", "max concurrency at the context length"):
        vals = {e: memory[e][name] for e in memory}
        differs = _apart([v[1] for v in vals.values()])
        reasons = {
            e: _memory_reasons(s, knobs.get(e, ("", ""))[0], name) if differs else []
            for e, (_, s) in sides.items()
        }
        out.append(
            {
                "row": name,
                "values": {e: v[0] for e, v in vals.items()},
                "differs": differs,
                "reasons": reasons,
            }
        )
    return out


def _apart(values: Sequence[Any]) -> bool:
    """Whether memory figures differ: numbers more than 1 % apart (a matched budget lands within
    a page or two of the other side's), anything else when unequal."""
    if any(v is None for v in values):  # a side's figure is unknown: not compared
        return False
    if all(isinstance(v, (int, float)) for v in values) and values:
        low, high = min(values), max(values)
        return high > low * 1.01 if low > 0 else high != low
    return len({repr(v) for v in values}) > 1


def _memory_reasons(side: Side, knob: str, row: str) -> list[str]:
    """Why a side's memory figure of ``row`` is what it is: who set the knob (the budget); the
    KV bytes per token and the page size too (the KV tokens); the context length (concurrency)."""
    mem = side.memory
    if not mem or "error" in mem:
        return []
    inputs = mem.get("inputs") or {}
    who = side.provenance(knob) if knob else ""
    if who == "the default" and inputs.get(f"{knob}_from"):  # the memory model's own default
        who = str(inputs[f"{knob}_from"])
    out = [f"{knob} {inputs.get(knob)}: {who}"] if knob else []
    if row == "max concurrency at the context length":
        return [f"KV-cache tokens ÷ the context length {_number(mem.get('context_length'))}"]
    if row != "KV-cache tokens":
        return out
    if inputs.get("kv_formula"):
        out.append(f"KV per token per rank: {inputs['kv_formula']}")
    for name in ("page_size", "block_size"):
        if name in inputs:
            out.append(f"{name} {inputs[name]}: {side.provenance(name)}")
    return out


def matched_fraction(source: Side, target: Side, knob: str) -> float | None:
    """The target's memory knob that gives it the source's KV pool per rank (bytes), from the
    memory model's figures: KV bytes grow by the device's memory per unit of the knob in both
    engines (vLLM: utilization × total − weights − activations; SGLang: fraction × total −
    weights), so the knob moves by the difference over the device's memory. None when either
    side's memory is unknown."""
    sm, tm = source.memory, target.memory
    need = ("kv_tokens", "kv_bytes_per_token_per_rank", "device_total_gib")
    if not sm or not tm or any(sm.get(k) is None for k in need) or any(tm.get(k) is None for k in need):
        return None
    base = (tm.get("inputs") or {}).get(knob)
    if not isinstance(base, (int, float)):
        return None
    want = sm["kv_tokens"] * sm["kv_bytes_per_token_per_rank"]
    have = tm["kv_tokens"] * tm["kv_bytes_per_token_per_rank"]
    fraction = base + (want - have) / (tm["device_total_gib"] * GIB)
    return round(min(max(fraction, 0.01), 0.99), 4)
