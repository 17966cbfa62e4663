"""Support matrices: models × platforms, one cell per resolution, in five formats.

Invariants: a matrix is resolved for one sglang release (``compute(sglang_version=…)``); every
cell records it and every format names it (``release_of``). A cell holds the resolved values of
the chosen fields or the refusal: the rule and its ``file:line``, the whole message, a short
form of it, and the fix checked by resolving again (``resolvable._fixes``); a cell ServerArgs
accepts also says whether sglang would start (the start-up check, after ServerArgs: "accepted,
refused at start-up" keeps the values). The JSON and CSV carry the whole message and fix; only
the text, Markdown and HTML tables show the short form. Rendering is deterministic (same rules →
same bytes), so the generated docs can be checked for staleness; the HTML page is
self-contained (no network assets). Two releases' matrices are compared in ``matrix_diff``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Iterable, Mapping, Sequence

from ..errors import ConflictError, InvalidArgumentError, ResolvableError
from ..rules import Platform
from ._base import registry
from .api import check_startup, resolve_server_args, rule_releases, sglang_release
from .fixes import check_refusal
from .models import bundled, catalog

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_FIELDS = ("attention_backend", "page_size")


@dataclasses.dataclass(frozen=True)
class Cell:
    model: str
    platform: str
    values: Mapping[str, Any] | None  # None when refused
    refusal: str | None = None
    refused_by: str | None = None
    chain: tuple[str, ...] = ()  # "field: rule -> value" lines, for hover text
    #: The whole refusal (``refusal`` is its short form), the fix (checked by resolving again),
    #: where the refusing rule is, and the fix check (``FixCheck.to_dict()``: status, accepted changes …).
    message: str | None = None
    fix: str | None = None
    refused_at: str | None = None
    fix_check: Mapping[str, Any] | None = None
    #: The rule that decided each field, in ``values`` order (shown beside the value in HTML).
    deciders: tuple[str, ...] = ()
    #: Accepted by ServerArgs but refused at start-up: sglang's whole message, the rule, the fix.
    startup_refusal: str | None = None
    startup_refused_by: str | None = None
    startup_fix: str | None = None
    startup_refused_at: str | None = None
    #: Where each rule of ``deciders`` is (``file:line``; None for "user", "default", an adjustment).
    decided_at: tuple[str | None, ...] = ()
    #: The sglang release the cell was resolved for (``None``: built by hand, the pack's default).
    release: str | None = None
    #: The release range behind each decider's value in words (its rule's range, narrowed by the
    #: named changes it asked); None for "user", "default", an adjustment.
    decided_ranges: tuple[str | None, ...] = ()

    @property
    def text(self) -> str:
        if self.values is None:
            return f"refused: {self.refusal}"
        shown = " / ".join(_show(v) for v in self.values.values())
        if self.startup_refusal is not None:
            return f"{shown} ✗ start-up: {_short_reason(self.startup_refusal)}"
        return shown


#: A pseudo-field of ``--fields``: the KV-cache tokens per GPU the memory model predicts
#: (``sglang/memory.py``), "OOM" when sglang would refuse for memory, "-" without device memory.
KV_TOKENS_FIELD = "kv_tokens"


def _kv_tokens(res: Any, hf: Any, platform: Platform) -> Any:
    from ..memory import MemoryModelError
    from .memory import capacity

    try:
        rep = capacity(
            {k: res[k] for k in res}, hf, device_name=platform.device_name, memory_gib=platform.memory_gib
        )
    except MemoryModelError:
        return None
    return rep.kv_tokens if rep.fits else "OOM"


def _range_words(releases: Any) -> str | None:
    return None if releases is None else releases.describe(registry.releases)


def _show(value: Any) -> str:
    return "-" if value is None else str(value)


def _short_reason(exc: Exception | str) -> str:
    message = getattr(exc, "message", None) or str(exc)
    first = message.split(". ")[0].split("\n")[0]
    return first if len(first) <= 90 else first[:87] + "..."


def compute(
    models: Sequence[str],
    platforms: Sequence[str],
    fields: Sequence[str] = DEFAULT_FIELDS,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    hf_loader: Any = bundled,
    startup: bool = True,
    sglang_version: str | None = None,
) -> list[Cell]:
    """Resolve every (model, platform) pair with the same flags for one sglang release
    (``sglang_version``, as ``resolve_server_args`` takes it; default: the pack's default release);
    ``startup`` also runs the start-up checks (after ServerArgs) of each accepted cell."""
    release = sglang_release(sglang_version)  # an unsupported release fails here, before any cell
    cells = []
    plats = [(name, Platform.preset(name)) for name in platforms]
    for model in models:
        hf = hf_loader(model)
        for pname, platform in plats:
            try:
                res = resolve_server_args(hf, platform, env, sglang_version=release, **dict(flags or {}))
            except ConflictError as exc:
                check = check_refusal(exc, hf, platform, env, flags, sglang_version=release)
                cells.append(
                    Cell(
                        model,
                        pname,
                        None,
                        _short_reason(exc),
                        exc.rule,
                        message=exc.message,
                        fix=check.text,
                        refused_at=exc.location,
                        fix_check=check.to_dict(),
                        release=release,
                    )
                )
                continue
            except ResolvableError as exc:
                cells.append(Cell(model, pname, None, _short_reason(exc), message=str(exc), release=release))
                continue
            values = {f: _kv_tokens(res, hf, platform) if f == KV_TOKENS_FIELD else res[f] for f in fields}
            decided = [("memory model", None) if f == KV_TOKENS_FIELD else res.decided_by(f) for f in fields]
            deciders = tuple(who for who, _ in decided)
            chain = tuple(f"{f}: {who} -> {_show(values[f])}" for f, who in zip(fields, deciders))
            late: dict[str, Any] = {}
            if startup:
                try:
                    check_startup(res, hf, env)
                except ConflictError as exc:
                    late = {
                        "startup_refusal": exc.message,
                        "startup_refused_by": exc.rule,
                        "startup_fix": exc.fix,
                        "startup_refused_at": exc.location,
                    }
            ranges = tuple(
                None if where is None else _range_words(rule_releases(who, where, res))
                for who, where in decided
            )
            cells.append(
                Cell(
                    model,
                    pname,
                    values,
                    chain=chain,
                    deciders=deciders,
                    decided_at=tuple(where for _, where in decided),
                    decided_ranges=ranges,
                    release=release,
                    **late,
                )
            )
    return cells


def release_of(cells: Iterable[Cell]) -> str:
    """The sglang release the cells were resolved for (the pack's default for hand-made cells)."""
    from ._base import registry

    releases = {c.release for c in cells if c.release is not None}
    if len(releases) > 1:
        raise InvalidArgumentError(
            f"the cells of one matrix come from one sglang release, got {', '.join(sorted(releases))}; "
            "compare two releases with resolvable.sglang.matrix_diff.compare"
        )
    return releases.pop() if releases else str(registry.default_release)


def _grid(cells: Iterable[Cell]) -> tuple[list[str], list[str], dict[tuple[str, str], Cell]]:
    models: list[str] = []
    platforms: list[str] = []
    by_key = {}
    for c in cells:
        if c.model not in models:
            models.append(c.model)
        if c.platform not in platforms:
            platforms.append(c.platform)
        by_key[(c.model, c.platform)] = c
    return models, platforms, by_key


def _cell_text(c: Cell) -> str:
    return "✗ " + (c.refusal or "") if c.values is None else c.text


def render(cells: Sequence[Cell], fmt: str, *, fields: Sequence[str], title: str = "") -> str:
    renderers = {"text": _text, "md": _markdown, "csv": _csv, "json": _json, "html": _html}
    return renderers[fmt](cells, fields, title)


def _text(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    from ..rules import table

    models, platforms, by_key = _grid(cells)
    rows = []
    for m in models:
        rows.append(
            [m]
            + [
                _cell_text(by_key[(m, p)])
                if len(_cell_text(by_key[(m, p)])) < 40
                else _cell_text(by_key[(m, p)])[:37] + "..."
                for p in platforms
            ]
        )
    head = (f"{title}\n" if title else "") + f"sglang {release_of(cells)}\ncells: {' / '.join(fields)}\n\n"
    return head + table(["model", *platforms], rows) + "\n"


def _markdown(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    models, platforms, by_key = _grid(cells)
    out = [f"# {title}", ""] if title else []
    out += [
        f"sglang release: **{release_of(cells)}** (`--sglang-version`; what changes between two releases: "
        "`--vs-sglang-version`).",
        "",
        f"Cells: `{' / '.join(fields)}`; ✗ = sglang refuses the configuration (reason in short); "
        "`values ✗ start-up: …` = accepted by ServerArgs, refused at start-up (the start-up check, "
        "after ServerArgs).",
        "",
    ]
    out.append("| model | architecture | " + " | ".join(platforms) + " |")
    out.append("|---|---|" + "---|" * len(platforms))
    cat = catalog()
    for m in models:
        arch = bundled(m).architecture if m in cat else ""
        row = [_cell_text(by_key[(m, p)]).replace("|", "\\|") for p in platforms]
        out.append(f"| {m} | `{arch}` | " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def _csv(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "model",
            "platform",
            *fields,
            "refused",
            "refused_by",
            "refused_at",
            "fix",
            "fix_status",
            "startup_refused",
            "startup_refused_by",
            "sglang",
        ]
    )
    release = release_of(cells)
    for c in cells:
        values = [_show(c.values[f]) for f in fields] if c.values is not None else [""] * len(fields)
        status = (c.fix_check or {}).get("status", "")
        writer.writerow(
            [
                c.model,
                c.platform,
                *values,
                c.message or "",
                c.refused_by or "",
                c.refused_at or "",
                c.fix or "",
                status,
                c.startup_refusal or "",
                c.startup_refused_by or "",
                release,
            ]
        )
    return buf.getvalue()


def cell_record(c: Cell) -> dict[str, Any]:
    """One cell as the JSON documents carry it (``resolvable.matrix/1``, docs/cli-json.md)."""
    return {
        "model": c.model,
        "platform": c.platform,
        "values": dict(c.values) if c.values is not None else None,
        "refused": c.message,
        "refused_short": c.refusal,
        "refused_by": c.refused_by,
        "refused_at": c.refused_at,
        "fix": c.fix,
        "fix_check": dict(c.fix_check) if c.fix_check is not None else None,
        "chain": list(c.chain),
        "startup_refused": c.startup_refusal,
        "startup_refused_by": c.startup_refused_by,
        "startup_fix": c.startup_fix,
    }


def _json(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    data = {
        "schema": "resolvable.matrix/1",
        "sglang": release_of(cells),
        "fields": list(fields),
        "cells": [cell_record(c) for c in cells],
    }
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def _html(cells: Sequence[Cell], fields: Sequence[str], title: str) -> str:
    from .matrix_html import render_html  # its own module: the page's CSS/JS are long

    return render_html(cells, fields, title)


#: Public names of the cell helpers the diff and HTML views share (the same functions).
show = _show
short_reason = _short_reason
grid = _grid
