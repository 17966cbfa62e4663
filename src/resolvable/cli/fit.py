"""`resolvable fit MODEL --platform P [engine flags]` or `resolvable fit -- <launch command>`:
will it fit, how many KV tokens, and the smallest TP that fits, for every registered pack.

Invariants: the launch is read by the front door (``cli.frontdoor``: tool flags, a pasted command,
``docker run``; the release option; ``--gpus``, ``--env``) and judged by ``Pack.verdict``, the same
verdict and exit code as ``explain`` (0 would start, 1 refused or does not fit, 2 the tool's own
input error); the memory figures are the memory model's (``resolvable.sglang.memory`` /
``resolvable.vllm.memory``) for the resolved launch; every fix is checked by judging the launch
again with it; every profiling-only figure is printed as an estimate with its range; ``--json``
prints ``resolvable.fit/1`` with the top-level ``verdict``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

TP_CANDIDATES = (1, 2, 4, 8, 16)


def _index_size(model: str) -> int | None:
    """``metadata.total_size`` of the checkpoint index next to a local model, if any."""
    from ..memory import checkpoint_total_size

    return checkpoint_total_size(model)


def build_parser() -> argparse.ArgumentParser:
    """``resolvable fit``'s own options (the engine's flags are read by the pack)."""
    from .frontdoor import command_parser

    p = command_parser("resolvable fit", description=__doc__.split("\n\n")[0], platform_default="h100")
    return p


def main(argv: Sequence[str]) -> int:
    """``argv`` after ``fit``: one ``Launch`` (any input form, any pack), its ``Verdict``, the
    memory report, the smallest TP that fits and checked fixes. Exit 0 would start, 1 would not."""
    from . import _split_pasted
    from .frontdoor import read_launch

    argv, pasted = _split_pasted(list(argv))
    args, extra = build_parser().parse_known_args(argv)
    pack, launch = read_launch(args, extra, pasted)
    res, verdict = pack.verdict(launch)
    report = verdict.memory
    if verdict.status == "refused":
        return _refused(pack, launch, verdict, args.json)
    if report is None:  # the memory model cannot size this model: the tool's own input limit
        from ..memory import MemoryModelError

        reason = verdict.unknowns[0] if verdict.unknowns else "memory: not modelled here"
        raise MemoryModelError(reason.removeprefix("memory: "))
    tp_field = pack.tp_field
    tp_now = int(res[tp_field] or 1)

    def trial(**fields: Any) -> Any:
        rep = pack.verdict(launch.with_user(**fields))[1]
        return rep if rep.status != "refused" else None

    smallest = None
    for tp in TP_CANDIDATES:
        tried = trial(**{tp_field: tp}) if tp != tp_now else verdict
        # an unknown memory answer (an allocation sized only at run time) still names the
        # smallest TP whose sized allocations hold one full-context request
        known = tried is not None and (tried.starts or tried.status == "unknown")
        if known and tried.memory is not None and tried.memory.concurrency_at_context >= 1.0:
            smallest = tp
            break
    fixes: list[str] = []
    if not report.fits or report.concurrency_at_context < 1.0:
        if smallest and smallest > tp_now:
            kv = trial(**{tp_field: smallest}).memory.kv_tokens
            fixes.append(f"{_flag(tp_field)} {smallest} (checked: {kv:,} KV tokens)")
        for field, values, why in pack.fit_trials:
            if field in launch.user:
                continue
            for value in values:
                tried = trial(**{field: value})
                if (
                    tried is not None
                    and tried.starts
                    and tried.memory.kv_tokens > (report.kv_tokens if report.fits else 0)
                ):
                    fixes.append(
                        f"{_flag(field)} {value} (checked: {tried.memory.kv_tokens:,} KV tokens{why})"
                    )
                    break
        if not report.fits and report.kv_tokens >= 0 and verdict.allocation != "weights":
            for length in _shorter_contexts(report):
                tried = trial(**{pack.context_field: length})
                if tried is not None and tried.starts:
                    fixes.append(
                        f"{_flag(pack.context_field)} {length} (checked: {tried.memory.kv_tokens:,} KV tokens, "
                        "one request of that length fits)"
                    )
                    break
        if report.fits and report.kv_tokens:
            fixes.append(
                f"{_flag(pack.context_field)} {report.kv_tokens // 1024 * 1024} (one request of the full context fits)"
            )
    if fixes and not verdict.starts:
        verdict = dataclasses.replace(verdict, fix=fixes[0])
    header = [
        f"model     {launch.model}  [{res.arch}]",
        f"platform  {res.platform.name}: {res.platform.describe()}",
        f"engine    {pack.name} {launch.release_text()}",
    ]
    if launch.model_config is not None:
        header.append(
            f"config    read from {launch.model_config} (--model-config), standing for {launch.model}"
        )
    if args.json:
        data = {
            "schema": "resolvable.fit/1",
            "engine": pack.name,
            "model": launch.model,
            "platform": res.platform.name,
            "release": launch.release,
            "release_from": launch.release_from,
            "verdict": verdict.to_dict(),
            "launch": launch.to_dict(),
            "memory": report.to_dict(),
            "fixes": fixes,
            "smallest_tp": smallest,
        }
        print(json.dumps(data, indent=2, default=repr))
        return _said(verdict)
    print("\n".join(header + report.lines()))
    for name, e in report.estimates.items():
        if hasattr(e, "why"):
            print(
                f"estimate  {name}: {e.value / (1 << 30):.2f} GiB (range {e.low / (1 << 30):.2f}–{e.high / (1 << 30):.2f}): {e.why}"
            )
    print(f"smallest TP that fits one full-context request: {smallest if smallest else 'none up to 16'}")
    for f in fixes:
        print(f"fix       {f}")
    print(verdict.line())
    return _said(verdict)


def _said(verdict: Any) -> int:
    from .verdicts import say

    return say(verdict)


def _shorter_contexts(report: Any) -> list[int]:
    """Context lengths to try when the KV cache cannot hold one full-context request: the length
    the engine's own message estimates (vLLM: "the estimated maximum model length is N"), then
    halvings of the current length."""
    import re

    found = re.search(r"estimated maximum model length is (\d+)", report.refusal or "")
    lengths = [int(found.group(1))] if found else []
    length = int(report.context_length or 0)
    for _ in range(4):
        length //= 2
        if length >= 1024:
            lengths.append(length)
    return lengths


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _refused(pack: Any, launch: Any, verdict: Any, as_json: bool) -> int:
    """A launch the engine refuses before memory: the same verdict and exit code as ``explain``."""
    if as_json:
        data = {
            "schema": "resolvable.fit/1",
            "engine": pack.name,
            "model": launch.model,
            "platform": launch.platform,
            "release": launch.release,
            "release_from": launch.release_from,
            "verdict": verdict.to_dict(),
            "launch": launch.to_dict(),
            "memory": None,
            "fixes": [verdict.fix] if verdict.fix else [],
            "smallest_tp": None,
        }
        print(json.dumps(data, indent=2, default=repr))
    else:
        print(f"model     {launch.model}")
        print(f"engine    {pack.name} {launch.release_text()}")
        print(verdict.line())
    return _said(verdict)


def verdict_memory_section(
    pack: Any, res: Any, verdict: Any, launch: Any, *, context: str, fit_command: str
) -> tuple[list[str], dict[str, Any]]:
    """The memory section of ``explain`` from ``Pack.verdict``'s own memory report (or its reason
    for none); a launch refused before memory is sized by ``Pack.memory_report`` here, so that
    the section is shown whatever the verdict."""
    from ..memory import MemoryModelError
    from ..packs import MEMORY_UNKNOWN

    def capacity() -> Any:
        if verdict.memory is not None:
            return verdict.memory
        for item in verdict.unknowns:
            if item.startswith(MEMORY_UNKNOWN):
                raise MemoryModelError(item[len(MEMORY_UNKNOWN) :])
        return pack.memory_report(res, pack.launch_config(launch), launch)

    lines, data, _report = _memory_summary(capacity, context=context, fit_command=fit_command)
    return lines, data


def _memory_summary(
    capacity: Callable[[], Any], *, context: str, fit_command: str
) -> tuple[list[str], dict[str, Any], Any]:
    """One line, the ``memory`` object for ``explain`` and the report (None: not modelled),
    whichever engine's capacity report."""
    from ..memory import MemoryModelError

    try:
        rep = capacity()
    except MemoryModelError as exc:
        return [f"memory    not modelled here: {exc}"], {"error": str(exc)}, None
    if not rep.fits:
        return (
            [
                f"memory    {'unknown' if rep.status == 'unknown' else 'would not fit'}: {rep.message} (`{fit_command}` for a checked fix)"
            ],
            rep.to_dict(),
            rep,
        )
    est = " (estimate)" if rep.weights_estimated else ""
    line = (
        f"memory    weights {rep.weights_bytes / (1 << 30):.1f} GiB/rank{est}, KV cache {rep.kv_tokens:,} tokens, "
        f"{rep.concurrency_at_context:.2f}× the {rep.context_length:,}-token {context} (`{fit_command}` for details)"
    )
    return [line], rep.to_dict(), rep
