"""Two engines side by side for one launch: the verdict and the resolved settings of each, row by
row, each differing row with the rule that decided it on each side.

The input of each side is what ``resolvable explain --json`` and ``resolvable resolve --json``
print for that engine's form of the launch (docs/cli-json.md): this module reads those documents
and nothing else, so that ``compare`` shows, for each engine, exactly the values and the verdict
that ``explain`` gives for the same command (tests/cli/test_compare.py checks it over both
engines' real-command corpora). The rows (``resolvable.translate.Row``) come from the pair's
translation table, held by a pack; this module names no engine.

Invariants:

* one verdict per side: ``starts``, ``refused`` (the rule, the engine's message, the fix) or
  ``does-not-fit`` (the memory model's refusal); a memory size that cannot be derived is said to
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

__all__ = ["Side", "Verdict", "compare_rows", "matched_fraction", "memory_rows", "verdict_of"]

GIB = float(1 << 30)


@dataclass(frozen=True)
class Verdict:
    """``starts`` / ``refused`` / ``does-not-fit`` / ``error`` (the tool could not read the
    launch), with the reason and the rule (file:line) where there is one."""

    outcome: str
    reason: str = ""
    rule: str = ""
    fix: str = ""

    def text(self) -> str:
        out = self.outcome
        if self.reason:
            out += f": {self.reason}"
        if self.rule:
            out += f" [{self.rule}]"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "reason": self.reason, "rule": self.rule, "fix": self.fix}


@dataclass(frozen=True)
class Side:
    """One engine's answer: its release, the command it was given, the ``explain --json`` and
    ``resolve --json`` documents (None when the command was refused or not read) and the
    error line of a command that was not read."""

    engine: str
    release: str
    command: tuple[str, ...]
    explain: Mapping[str, Any] | None
    resolve: Mapping[str, Any] | None
    exit_code: int
    error: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def values(self) -> Mapping[str, Any]:
        """Every resolved value (``resolve --json``); without it, the fields ``explain`` shows."""
        if self.resolve:
            return self.resolve.get("values", {})
        fields = (self.explain or {}).get("fields")
        if not isinstance(fields, dict):  # a refusal document lists the fields in conflict
            return {}
        return {f: e.get("value") for f, e in fields.items()}

    @property
    def memory(self) -> Mapping[str, Any]:
        doc = self.explain or {}
        return doc.get("memory") or {}

    def provenance(self, field_name: str) -> str:
        """Who decided ``field_name``: the last rule that wrote it (file:line), "your flag" or
        "the default"."""
        doc = self.resolve or {}
        fields = (self.explain or {}).get("fields")
        explained = fields.get(field_name) if isinstance(fields, dict) else None
        if not doc and explained:
            if explained.get("user_set"):
                return "your flag"
            return (
                f"{explained.get('decided_by')} ({explained.get('location')})"
                if explained.get("decided_by")
                else "the default"
            )
        last = None
        for decl in doc.get("declarations", ()):
            for write in decl.get("writes", ()):
                if write.get("field") == field_name and write.get("outcome") in ("applied", "forced"):
                    last = f"{decl.get('rule')} ({decl.get('location')})"
        if last is not None:
            return last
        if field_name in (doc.get("user_args") or {}):
            return "your flag"
        return "the default"


def verdict_of(side: Side) -> Verdict:
    """The one verdict of a side, read from its ``explain --json`` document."""
    doc = side.explain
    if doc is None:  # explain printed no document: a flag the release refuses, or unreadable input
        if side.error.startswith("error: refused"):
            return Verdict("refused", side.error.partition(": ")[2].partition(": ")[2])
        return Verdict("error", side.error.removeprefix("error: ") or f"exit status {side.exit_code}")
    if doc.get("schema") == "resolvable.refusal/1":
        return Verdict(
            "refused",
            str(doc.get("message")),
            f"{doc.get('rule')} ({doc.get('location')})",
            str(doc.get("fix") or ""),
        )
    startup = doc.get("startup") or {}
    refusal = startup.get("refusal")
    if startup.get("outcome") == "refused" or startup.get("would_start") is False:
        refusal = refusal or {}
        return Verdict(
            "refused",
            str(refusal.get("message")),
            f"{refusal.get('rule')} ({refusal.get('location')})",
            str(refusal.get("fix") or ""),
        )
    memory = doc.get("memory") or {}
    if memory.get("fits") is False:
        return Verdict("does-not-fit", str(memory.get("refusal")), "memory model")
    if "error" in memory:
        return Verdict("starts", f"memory unknown: {memory['error']}")
    return Verdict("starts")


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
        why = mem.get("error", "not resolved") if mem else "not resolved"
        return {
            name: (f"unknown ({why})", None)
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
    verdicts = {e: verdict_of(s) for e, (_, s) in sides.items()}
    out.append(
        {
            "row": "verdict",
            "values": {e: v.text() for e, v in verdicts.items()},
            "differs": len({v.outcome for v in verdicts.values()}) > 1,
            "reasons": {e: [v.rule] if v.rule else [] for e, v in verdicts.items()},
        }
    )
    for row in rows:
        texts: dict[str, str] = {}
        same: dict[str, Any] = {}
        reasons: dict[str, list[str]] = {}
        for engine, (key, side) in sides.items():
            if not side.values:
                texts[engine], same[engine], reasons[engine] = "-", None, []
                continue
            texts[engine] = row.show(key, side.values)
            same[engine] = row.same(key, side.values)
            reasons[engine] = [
                f"{f}: {side.provenance(f)}"
                for f in row.fields(key)
                if f in side.values and side.values[f] is not None
            ]
        differs = len({repr(v) for v in same.values()}) > 1
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
    out = [f"{knob} {inputs.get(knob)}: {side.provenance(knob)}"] if knob else []
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
