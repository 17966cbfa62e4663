"""Read an engine's start-up log, rebuild the launch, predict it, and compare (``check-log``).

The engine-specific reading lives in each pack (``Pack.startup_log``: a module with
``recognises(text)``, ``read(text) -> dict`` and ``launch(facts, hf, platform) -> (values,
capacity keyword arguments)``); this module holds what is common: the facts record, the
comparison rows and the verdict of the memory model (``resolvable.memory.FitReport``).

Invariants:

* standard library only; nothing here imports an engine pack by name (``resolvable.packs``
  finds the pack whose reader recognises the log);
* a log that cannot be checked gives a ``LogCheck`` with a one-line ``reason`` (never a
  traceback): no engine recognised, no model config, no GPU;
* every compared row names the log line it comes from and the rule or estimate that predicts it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ResolvableError

__all__ = [
    "LogCheck",
    "LogFacts",
    "Row",
    "check_log",
    "command_flags",
    "decode_log",
    "literal_args",
    "read_log",
]

GIB = 1 << 30


@dataclass(frozen=True)
class LogFacts:
    """What a start-up log states (None: not in the log). ``lines`` maps a fact to its line."""

    engine: str
    version: str | None = None
    model: str | None = None
    device_name: str | None = None
    device_total_gib: float | None = None
    flags: Mapping[str, Any] = field(default_factory=dict)
    weights_gib: float | None = None
    kv_tokens: int | None = None
    available_kv_gib: float | None = None
    max_concurrency: float | None = None
    max_running_requests: int | None = None
    context_length: int | None = None
    block_size: int | None = None
    backend: str | None = None
    cuda_graph_sizes: tuple[int, ...] = ()
    cuda_graph_gib: float | None = None
    pre_load_free_gib: float | None = None
    mem_fraction_static: float | None = None
    #: "starts" (the server came up or the KV cache was sized), "out-of-memory", "refused", None
    outcome: str | None = None
    outcome_line: str | None = None
    lines: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if v not in (None, (), {})}
        out["flags"] = dict(self.flags)
        out["lines"] = dict(self.lines)
        if self.cuda_graph_sizes:
            out["cuda_graph_sizes"] = list(self.cuda_graph_sizes)
        return out


@dataclass(frozen=True)
class Row:
    """One compared value: the log's, the prediction, the relative difference and what predicts it."""

    name: str
    logged: Any
    predicted: Any
    diverged: bool
    source: str
    relative: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "logged": self.logged,
            "predicted": self.predicted,
            "diverged": self.diverged,
            "source": self.source,
        }
        if self.relative is not None:
            out["relative"] = round(self.relative, 4)
        return out


@dataclass(frozen=True)
class LogCheck:
    """The result of ``check_log``: the facts, the rebuilt launch, the prediction and the rows, or a
    one-line ``reason`` why the log could not be checked."""

    engine: str | None
    facts: LogFacts | None
    launch: Mapping[str, Any]
    report: Any  # resolvable.memory.FitReport, or None with ``reason``
    rows: tuple[Row, ...]
    reason: str | None = None

    @property
    def diverged(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.diverged)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "resolvable.check-log/1",
            "engine": self.engine,
            "reason": self.reason,
            "facts": self.facts.to_dict() if self.facts else None,
            "launch": dict(self.launch),
            "prediction": self.report.to_dict() if self.report is not None else None,
            "rows": [r.to_dict() for r in self.rows],
            "diverged": [r.name for r in self.diverged],
        }

    def lines(self) -> list[str]:
        if self.reason:
            return [f"cannot check: {self.reason}"]
        out = [f"engine    {self.engine} {self.facts.version or '(version not in the log)'}"]
        if self.report is not None and self.report.inputs.get("compared_at"):
            out.append(f"model     {self.report.inputs['compared_at']}")
        out.append("launch    " + " ".join(f"{k}={v}" for k, v in self.launch.items()))
        width = max([len(r.name) for r in self.rows] + [8])
        out.append(f"{'value':<{width}}  {'log':>16}  {'predicted':>16}  diff     from")
        for r in self.rows:
            diff = (
                f"{r.relative * 100:+.1f}%"
                if r.relative is not None
                else ("differs" if r.diverged else "same")
            )
            mark = "!" if r.diverged else " "
            out.append(
                f"{r.name:<{width}}  {_fmt(r.logged):>16}  {_fmt(r.predicted):>16}  {diff:<8}{mark} {r.source}"
            )
        return out


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


# ---------------------------------------------------------------------------------------------
# Helpers the packs' readers share
# ---------------------------------------------------------------------------------------------


def literal_args(text: str) -> dict[str, Any]:
    """``key=value, key2='x', key3=[1, 2]`` (a Python repr of keyword arguments) as a dict: the
    values read with ``ast.literal_eval``; a value that is not a literal is kept as its text."""
    import ast

    out: dict[str, Any] = {}
    depth = 0
    quote = ""
    start = 0
    parts = []
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", key):
            continue
        value = value.strip()
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            number = re.match(r"-?[0-9]+(?:\.[0-9]+)?(?![\w.])", value)  # "4 ..." in an elided quote
            out[key] = ast.literal_eval(number.group(0)) if number else value
    return out


def command_flags(
    text: str, markers: tuple[str, ...], aliases: Mapping[str, str]
) -> tuple[str | None, dict[str, Any]]:
    """(model, flags) of the first line of ``text`` that holds one of ``markers`` (a launch
    command pasted above the log): ``--flag value``, ``--flag=value`` and bare switches, the
    names as destinations (``--tp-size`` → ``tp_size``, ``aliases`` for short forms), numbers
    read as numbers. A line that does not split as shell words gives nothing."""
    import shlex

    for raw in text.splitlines():
        at = min((raw.find(m) for m in markers if m in raw), default=-1)
        if at < 0:
            continue
        try:
            words = shlex.split(raw[at:].replace("\\\n", " "))
        except ValueError:
            return None, {}
        model = None
        flags: dict[str, Any] = {}
        i = 0
        while i < len(words):
            w = words[i]
            if not w.startswith("-"):
                if (
                    model is None
                    and i > 0
                    and ("/" in w or w[:1].isalnum())
                    and words[i - 1] in ("serve", "serve:")
                ):
                    model = w
                i += 1
                continue
            name, eq, value = w.lstrip("-").partition("=")
            dest = aliases.get(name, name.replace("-", "_"))
            if not eq:
                nxt = words[i + 1] if i + 1 < len(words) else None
                if nxt is not None and not nxt.startswith("--"):
                    value = nxt
                    i += 1
                else:
                    value = "true"
            flags[dest] = _number(value)
            i += 1
        for key in ("model", "model_path"):
            if isinstance(flags.get(key), str):
                model = flags.pop(key)
        return model, flags
    return None, {}


def _number(value: str) -> Any:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def first(pattern: str, text: str, flags: int = 0) -> re.Match[str] | None:
    return re.search(pattern, text, flags)


def last(pattern: str, text: str, flags: int = 0) -> re.Match[str] | None:
    found = None
    for found in re.finditer(pattern, text, flags):  # noqa: B007 - the last match is kept
        pass
    return found


def line_of(m: re.Match[str] | None, text: str) -> str | None:
    if m is None:
        return None
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start : end if end >= 0 else len(text)].strip()[:300]


#: A GPU's name as both engines' logs print it (torch's device name, nvidia-smi's, ROCm's).
#: Torch names the data-centre cards of before the A100 "Tesla …" ("Tesla T4", "Tesla
#: V100-SXM2-32GB"): vLLM quotes it in "Your device 'Tesla T4' (with compute capability 7.5)
#: doesn't support torch.bfloat16" (h27f: mobambas/Agentic-Healthcare-Maps vllm_server.log), a
#: notebook prints "GPU 0    : Tesla T4  (14.6 GB)" (trietnguyeminh/Submission---EXACT--IJCNN
#: download.txt); a name may end at a closing quote.
DEVICE_NAME = (
    r"(NVIDIA (?:GeForce |RTX )?[A-Z]{0,3}[0-9]{2,4}[\w -]*?|AMD Instinct MI[0-9]+X?"
    r"|Tesla [A-Z][0-9]{1,3}[\w-]*)(?=[,)\n:']|$| \(|  \()"
)


class LineRecorder:
    """Takes facts from one log and records the line each was read from (``LogFacts.lines``).

    Invariant: a fact's line is recorded only when its pattern matched; a later ``take`` of the
    same name (a fallback pattern) replaces it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: dict[str, str] = {}

    def take(self, name: str, m: re.Match[str] | None) -> re.Match[str] | None:
        if m is not None:
            self.lines[name] = line_of(m, self.text) or ""
        return m

    def value(self, name: str, m: re.Match[str] | None, convert: Any, group: int = 1) -> Any:
        """``convert`` of the match's ``group``, or None when the pattern did not match."""
        m = self.take(name, m)
        return None if m is None else convert(m.group(group))


def outcome_of(text: str, patterns: tuple[tuple[str, str], ...]) -> tuple[str | None, str | None]:
    """(outcome, its line) of the first ``(outcome, pattern)`` that matches, in order."""
    for name, pattern in patterns:
        m = first(pattern, text)
        if m:
            return name, line_of(m, text)
    return None, None


# ---------------------------------------------------------------------------------------------
# Reading and checking
# ---------------------------------------------------------------------------------------------


class LogError(ResolvableError):
    """A start-up log that cannot be read (names the input and the fix)."""


def _pack_for(text: str, engine: str | None) -> Any:
    from . import packs

    names = [engine] if engine else list(packs.names())
    for name in names:
        pack = packs.get(name)
        reader = getattr(pack, "startup_log", None)
        if reader is None:
            continue
        if engine or reader.recognises(text):
            return pack
    return None


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode_log(data: bytes) -> str:
    """A log file's bytes as text: UTF-8, or the UTF-16/32 a byte-order mark names (PowerShell's
    ``>`` and ``Out-File`` write UTF-16 LE with a BOM: h27f's Kartikeya2046/Invoice-Processor_VLM
    ``vllm_log.txt``), or UTF-16 without one when every other byte of the start is NUL. Bytes that
    do not decode are replaced; CR LF and lone CR (progress bars) end lines."""
    encoding = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            break
    else:
        head = data[:4096]
        if len(head) >= 8 and head[1::2].count(0) > 0.9 * len(head[1::2]):
            encoding = "utf-16-le"
        elif len(head) >= 8 and head[0::2].count(0) > 0.9 * len(head[0::2]):
            encoding = "utf-16-be"
    text = data.decode(encoding, errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_log(text: str, engine: str | None = None) -> LogFacts | None:
    """The facts a start-up log states, read by the pack that recognises it (None: no pack does)."""
    pack = _pack_for(text, engine)
    if pack is None:
        return None
    return pack.startup_log.read(text)


def _platform_for(facts: LogFacts, platform: Any) -> Any:
    if platform is not None:
        if facts.device_total_gib and not facts.device_name:
            return platform.replace(memory_gib=facts.device_total_gib)
        return platform
    if not facts.device_name and not facts.device_total_gib:
        return None
    return platform_for_device(facts.device_name, facts.device_total_gib)


def platform_for_device(
    device_name: str | None, memory_gib: float | None, device_count: int | None = None
) -> Any:
    """The platform a named GPU runs on: the preset whose device name the name contains (word
    match, so "GB10" is the gb10 preset and not a B100, "Tesla T4" the t4 preset), which lends its
    capability (SM, vendor, CPU architecture: what the engines' backend and KV-dtype choices read),
    with the name and memory given; the h100 preset only when no preset matches. check-log and
    the memory corpus (tests/memory/corpus_eval) both build the device this one way."""
    from ._platform import Platform

    name = (device_name or "").lower()
    best = None
    for preset in Platform.presets().values():
        dev = (preset.device_name or "").lower()
        if not dev or preset.vendor not in ("cuda", "hip"):
            continue
        key = dev.replace("nvidia ", "").replace("amd instinct ", "").replace("tesla ", "").split()[0]
        if re.search(r"(?<![a-z0-9])" + re.escape(key) + r"(?![a-z0-9])", name):
            best = preset
            break
    base = best or Platform.preset("h100")
    changes: dict[str, Any] = {}
    if device_name and (best is None or device_name.lower() != (best.device_name or "").lower()):
        # the log's own name: the preset lends its capability, not its memory (an H100 NVL's
        # 93 GiB are not the h100 preset's 79.19; device_memory.device_total_bytes reads the name)
        changes["device_name"] = device_name
    if memory_gib:
        changes["memory_gib"] = memory_gib
        if best is None:
            changes.setdefault("device_name", device_name or "unknown GPU")
    if device_count:
        changes["device_count"] = device_count
    return base.replace(**changes) if changes else base


def _rel(pred: float, obs: float) -> float | None:
    return (pred - obs) / obs if obs else None


def check_log(
    text: str,
    *,
    engine: str | None = None,
    hf: Any = None,
    platform: Any = None,
    release: str | None = None,
    tolerance: float = 0.10,
) -> LogCheck:
    """Read ``text``, rebuild the launch, predict it with the memory model, compare.

    ``hf`` (a model config) and ``platform`` stand in for what the log does not say (its model
    path is not readable here; most logs do not name the GPU). A value diverges when the
    prediction is more than ``tolerance`` away from the log, or the verdicts differ."""
    pack = _pack_for(text, engine)
    if pack is None:
        return LogCheck(None, None, {}, None, (), "no engine recognises this log (pass --engine)")
    facts = pack.startup_log.read(text)
    if hf is None and facts.model:
        try:
            hf = pack.load_model(facts.model)
        except (ResolvableError, OSError) as exc:
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            hint = "" if "--model-config" in msg else " (pass --model-config)"
            return LogCheck(
                pack.name, facts, dict(facts.flags), None, (), f"model {facts.model!r}: {msg}{hint}"
            )
    if hf is None:
        return LogCheck(
            pack.name, facts, dict(facts.flags), None, (), "the log names no model (pass --model-config)"
        )
    plat = _platform_for(facts, platform)
    if plat is None:
        return LogCheck(
            pack.name, facts, dict(facts.flags), None, (), "the log names no GPU (pass --platform)"
        )
    try:
        values, kwargs = pack.startup_log.launch(facts, hf, plat, release)
        report = pack.memory_capacity(
            values, hf, device_name=plat.device_name, memory_gib=plat.memory_gib, **kwargs
        )
    except ResolvableError as exc:
        return LogCheck(pack.name, facts, dict(facts.flags), None, (), str(exc).splitlines()[0])
    rows = compare(facts, report, tolerance)
    launch = {k: v for k, v in values.items() if k in facts.flags or k in ("tp_size", "tensor_parallel_size")}
    return LogCheck(pack.name, facts, launch, report, rows)


def compare(facts: LogFacts, rep: Any, tolerance: float = 0.10) -> tuple[Row, ...]:
    """The rows of a comparison between a log's facts and a ``FitReport``."""
    rows: list[Row] = []
    kv_source = f"KV bytes/token {rep.kv_bytes_per_token:,.0f} ({rep.inputs.get('kv_formula', '')})"
    if facts.weights_gib is not None:
        pred = rep.weights_bytes / GIB
        r = _rel(pred, facts.weights_gib)
        rows.append(
            Row(
                "weights GiB/rank",
                facts.weights_gib,
                round(pred, 2),
                abs(r or 0) > tolerance,
                rep.weights_method,
                r,
            )
        )
    if facts.mem_fraction_static is not None and "mem_fraction_static" in rep.inputs:
        pred = float(rep.inputs["mem_fraction_static"])
        r = _rel(pred, facts.mem_fraction_static)
        rows.append(
            Row(
                "mem_fraction_static",
                facts.mem_fraction_static,
                pred,
                abs(r or 0) > 0.005,
                str(rep.inputs.get("mem_fraction_static_from", "")),
                r,
            )
        )
    if facts.available_kv_gib is not None and "available_kv_bytes" in rep.inputs:
        pred = rep.inputs["available_kv_bytes"] / GIB
        r = _rel(pred, facts.available_kv_gib)
        est = ", ".join(k for k in rep.estimates if hasattr(rep.estimates[k], "why"))
        rows.append(
            Row(
                "available KV GiB",
                facts.available_kv_gib,
                round(pred, 2),
                abs(r or 0) > tolerance,
                f"total × utilization − weights − estimates ({est})",
                r,
            )
        )
    if facts.block_size is not None and "block_size" in rep.inputs:
        pred = int(rep.inputs["block_size"])
        rows.append(
            Row("block size", facts.block_size, pred, pred != facts.block_size, "the resolved block size")
        )
    if facts.kv_tokens is not None:
        r = _rel(rep.kv_tokens, facts.kv_tokens)
        rows.append(Row("KV tokens", facts.kv_tokens, rep.kv_tokens, abs(r or 0) > tolerance, kv_source, r))
    if facts.max_concurrency is not None:
        r = _rel(rep.concurrency_at_context, facts.max_concurrency)
        rows.append(
            Row(
                "max concurrency",
                facts.max_concurrency,
                round(rep.concurrency_at_context, 2),
                abs(r or 0) > tolerance,
                "KV blocks ÷ blocks one max-length request needs",
                r,
            )
        )
    if facts.max_running_requests is not None and rep.engine == "sglang" and rep.max_running_requests:
        r = _rel(rep.max_running_requests, facts.max_running_requests)
        rows.append(
            Row(
                "max running requests",
                facts.max_running_requests,
                rep.max_running_requests,
                abs(r or 0) > tolerance,
                "resolve_max_num_reqs",
                r,
            )
        )
    if facts.outcome is not None:
        logged = "starts" if facts.outcome == "starts" else "does-not-start"
        predicted = (
            "starts"
            if rep.status == "starts"
            else ("unknown" if rep.status == "unknown" else "does-not-start")
        )
        source = rep.failing or (rep.refusal or "every allocation fits")
        rows.append(
            Row(
                "verdict",
                f"{logged} ({facts.outcome})" if facts.outcome != "starts" else logged,
                rep.status,
                predicted not in (logged, "unknown"),
                str(source)[:160],
            )
        )
    return tuple(rows)
