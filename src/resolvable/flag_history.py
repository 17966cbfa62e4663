"""Flag tables of the releases a pack parses but does not resolve, stored as deltas.

The releases before the first modelled one (vLLM 0.11.0–0.19.1, sglang 0.5.1–0.5.6; sglang
0.5.8–0.5.9 sit between resolved releases for now) are
*parse-only*: a pasted command of such a release is read with that release's own flags, and
``upgrade --from`` lists what was removed or renamed on the way, but no rule resolves it. Their
tables are generated from each wheel by the pack's extractor (``tools/extract_*_flags.py``) and
stored by ``tools/flag_history.py`` as one small delta file per release,
``<pack>/flags/history/<engine>-<version>.json``, against the table of the next newer release
(``base``: another delta, or a committed full table). Invariants:

* applying a release's delta to its base gives exactly the dict the extractor wrote for that
  wheel (``tests/*/test_flag_history.py`` regenerates a pinned sample from the wheels in CI, and
  every release when its wheel is present; each delta records the wheel's sha256);
* a delta holds only the flags that differ, as sequence operations on the base's flag list
  (keep ``n`` / drop ``n`` / insert rows), so order and content come back unchanged;
* ``.postN`` and four-part ``.N`` patch releases are releases of their own here (``version_key``
  orders them after their base), unlike ``rules.release_key``, which maps them to their base;
* ``removed_between`` lists every flag of an older release that a newer one lacks, with the
  replacement the pack names and where it is named (a deprecation in a table, or the pack's
  list of removals, each entry citing the wheel file that names the successor);
* nothing is read before it is asked for: the deltas are files read on first use, and
  ``import resolvable`` does not import this module.

Standard library only.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = [
    "HISTORY_SCHEMA",
    "FlagChange",
    "History",
    "apply_delta",
    "flag_name",
    "release_of_tag",
    "removed_between",
    "version_key",
]

HISTORY_SCHEMA = "resolvable.flag-delta/1"


def version_key(text: str) -> tuple[int, ...]:
    """``"0.5.1.post2"`` → ``(0, 5, 1, 0, 2)``; ``"0.10.1.1"`` → ``(0, 10, 1, 1, 0)``: a sort key
    that keeps ``.postN`` and ``.N`` patch releases apart from their base release."""
    numbers: list[int] = []
    post = 0
    for piece in text.strip().lstrip("vV").split("."):
        if piece.startswith("post") and piece[4:].isdigit():
            post = int(piece[4:])
        elif piece.isdigit():
            numbers.append(int(piece))
        else:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError(f"{text!r} is not a release version (expected e.g. '0.5.1.post2')")
    return (*numbers, *([0] * (4 - len(numbers))), post)


def _apply_ops(base: list[Any], ops: list[list[Any]]) -> list[Any]:
    out: list[Any] = []
    at = 0
    for op, arg in ops:
        if op == "=":
            out.extend(base[at : at + arg])
            at += arg
        elif op == "-":
            at += arg
        elif op == "+":
            out.extend(arg)
        else:
            raise ValueError(f"unknown delta operation {op!r}")
    out.extend(base[at:])
    return out


def apply_delta(base: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The table ``delta`` describes, given its base table (both as the extractor's dicts)."""
    table = {k: v for k, v in base.items() if k not in delta.get("unset", ())}
    table.update(delta.get("set", {}))
    for key, ops in delta.get("lists", {}).items():
        table[key] = _apply_ops(base.get(key, []), ops)
    return table


class History:
    """The parse-only releases of one engine: their deltas in ``directory``, the newest one's
    base read by ``load_full(release)`` (the pack's loader of a committed full table)."""

    def __init__(self, engine: str, directory: str, load_full: Callable[[str], dict[str, Any]]) -> None:
        self.engine = engine
        self.directory = directory
        self._load_full = load_full

    @functools.cached_property
    def releases(self) -> tuple[str, ...]:
        """The parse-only releases, oldest first (``.postN`` after their base)."""
        prefix = self.engine + "-"
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return ()
        found = [
            n[len(prefix) : -len(".json")] for n in names if n.startswith(prefix) and n.endswith(".json")
        ]
        return tuple(sorted(found, key=version_key))

    def __contains__(self, release: object) -> bool:
        return isinstance(release, str) and release in self.releases

    def delta(self, release: str) -> dict[str, Any]:
        import json

        path = os.path.join(self.directory, f"{self.engine}-{release}.json")
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("schema") != HISTORY_SCHEMA:
            raise ValueError(f"{path}: not a {HISTORY_SCHEMA} file")
        return data

    def table(self, release: str) -> dict[str, Any]:
        """The extractor's table of ``release``, rebuilt from its chain of deltas."""
        return self._table(release)

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one History per pack, kept for the process
    def _table(self, release: str) -> dict[str, Any]:
        delta = self.delta(release)
        base = delta["base"]
        return apply_delta(self._table(base) if base in self else self._load_full(base), delta)


@dataclass(frozen=True)
class FlagChange:
    """One flag of the older release that the newer one no longer has: ``option`` (as the older
    release spells it), ``last`` (the last release with it), ``removed_in`` (the first without
    it), ``replacement`` (what replaces it on the newer release, as the engine names it, or None
    when the engine names none) and ``source`` (where the replacement is named)."""

    option: str
    last: str
    removed_in: str
    replacement: str | None
    source: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def flag_name(text: str) -> str:
    """The option a replacement starts with: ``--moe-runner-backend triton_kernel`` →
    ``--moe-runner-backend``; ``--eplb-config.window_size`` → ``--eplb-config``."""
    word = text.split()[0].split("=")[0]
    return word.split(".")[0] if word.startswith("--") else word


def removed_between(
    releases: Sequence[str],
    options_of: Callable[[str], frozenset[str]],
    replacement: Callable[[str], tuple[str | None, str]],
    old: str,
    new: str,
) -> tuple[FlagChange, ...]:
    """Every option of ``old`` that ``new`` does not accept, with the release that dropped it and
    its replacement on ``new``. ``releases`` are the releases with a table, oldest first;
    ``replacement(option)`` is (successor or None, where it is named). A successor that ``new``
    does not accept either is followed to its own successor (a flag renamed twice)."""
    span = [r for r in releases if version_key(old) <= version_key(r) <= version_key(new)]
    target = options_of(new)
    changes = []
    for option in sorted(options_of(old) - target):
        last = [r for r in span if option in options_of(r)][-1]
        removed_in = span[span.index(last) + 1]
        successor, source = replacement(option)
        seen: set[str] = set()
        while successor and flag_name(successor) not in target and successor not in seen:
            seen.add(successor)
            following, more = replacement(flag_name(successor))
            if following is None:  # the successor went too, and nothing replaced it
                successor, source = None, f"{source}; {successor} was removed too ({more})"
                break
            successor, source = following, f"{source}; then {more}"
        changes.append(FlagChange(option, last, removed_in, successor, source))
    return tuple(changes)


def release_of_tag(tag: str) -> str | None:
    """The release a docker image tag names, ``.postN`` kept: ``v0.5.5.post3-cu126`` →
    ``0.5.5.post3``, ``v0.11.0-rocm`` → ``0.11.0``; None for ``latest``, ``nightly-…`` and
    other tags that name no release."""
    head = tag.strip().lstrip("vV").split("-")[0].split("+")[0]
    pieces = head.split(".")
    if len(pieces) < 2 or not all(p.isdigit() for p in pieces[:2]):
        return None
    kept = []
    for piece in pieces:
        if piece.isdigit() or (piece.startswith("post") and piece[4:].isdigit() and kept):
            kept.append(piece)
        else:
            return None
    return ".".join(kept)
