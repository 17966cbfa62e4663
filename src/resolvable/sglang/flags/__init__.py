"""The flag tables of sglang releases: every command-line flag, as data.

One generated file per release, ``sglang-<version>.json`` in this directory, written by
``tools/extract_sglang_flags.py`` from that release's wheel (facts only: option strings,
dest, type, choices, default, fallback, nargs, action, deprecation). Every supported release
(``SGLANG_RELEASES`` and their ``.postN`` patches) has its own file, even when its flags equal the previous release's,
so "which release has this flag" is a lookup (``option_history``); a release without a file (one
newer than the last table, or an unlisted ``.postN``) reads the newest table before it
(``table_release``).
Invariants:

* the table is the only list of sglang's flags; argparse integration, the CLI and the pasted
  command parser all read it;
* a flag is *modelled* when its dest is a CLI field of ``ServerArgs`` — derived from the schema
  on every call, never kept by hand, so a field added to ``ServerArgs`` becomes modelled at once;
* loading is lazy (json is imported on first use, not by ``import resolvable.sglang``).
"""

from __future__ import annotations

import functools
import os

from ...rules import record_tuple

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

_DIR = os.path.dirname(os.path.abspath(__file__))

#: A default the release does not store (argparse.SUPPRESS, or a required flag).
NO_DEFAULT = object()


class Flag(
    record_tuple(
        "Flag",
        "dest options action type choices default nargs const deprecated required origin fallback",
        defaults=(NO_DEFAULT,),
    )
):
    """One argparse action of sglang's parser. ``action`` is ``store``, ``store_true``,
    ``store_const``, ``store_const_value`` (takes one of ``choices`` and stores ``const``: a
    retired valued flag, 0.5.23+), ``boolean_optional``, ``lora_paths`` or ``ignore`` (a
    deprecated no-op); ``type`` names sglang's converter (``str``, ``int``, ``float``, ``json``,
    ``json_list``, ``human_readable_int``, ``nullable_str``, ``cuda_graph_config``,
    ``cuda_graph_backend``); ``deprecated`` is the replacement sglang names (or True);
    ``fallback`` is what the field means when the flag is not given although its argparse
    ``default`` is None (0.5.20+ ``Arg(fallback=...)``), else ``NO_DEFAULT``."""

    __slots__ = ()

    @property
    def flag(self) -> str:
        return self.options[0]

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", "lora_paths", "store_const_value")


class FlagTable:
    """The flags of one sglang release, looked up by option string or dest."""

    def __init__(self, release: str, flags: tuple[Flag, ...]) -> None:
        self.release = release
        self.flags = flags
        self.by_option = {o: f for f in flags for o in f.options}
        self.dests = frozenset(f.dest for f in flags)

    def __len__(self) -> int:
        return len(self.flags)

    def __iter__(self):
        return iter(self.flags)

    def options(self) -> list[str]:
        return sorted(self.by_option)

    def for_dest(self, dest: str) -> list[Flag]:
        return [f for f in self.flags if f.dest == dest]

    def default(self, dest: str) -> Any:
        """sglang's default of ``dest`` (from its primary flag), or ``NO_DEFAULT``."""
        for f in self.for_dest(dest):
            if f.origin == "field" or f.default is not NO_DEFAULT:
                return f.default
        return NO_DEFAULT

    def display_flag(self, dest: str) -> str:
        """The flag sglang documents for ``dest`` (its field's own flag where there is one)."""
        own = [f for f in self.for_dest(dest) if not f.deprecated]
        return (own or self.for_dest(dest) or [None])[0].flag if self.for_dest(dest) else dest


def releases() -> list[str]:
    """The sglang releases that have a table, oldest first."""
    return list(_releases())


@functools.cache
def _releases() -> tuple[str, ...]:
    """The table files are package data (fixed for the process): listed once."""
    names = [n[len("sglang-") : -len(".json")] for n in os.listdir(_DIR) if n.startswith("sglang-")]
    return tuple(sorted(names, key=lambda v: tuple(int(p) if p.isdigit() else p for p in v.split("."))))


@functools.lru_cache(maxsize=256)
def table_release(release: str) -> str:
    """The release whose table describes ``release``: the newest table at or before it (a release
    without its own table kept the flags of the one before), else the oldest table (memoised: a
    pure function of the release and the package's table files)."""
    from ...rules import release_key

    tables = _releases()
    if release in tables or release in history():
        return release  # its own table
    older = [t for t in tables if release_key(t) <= release_key(release)]
    return older[-1] if older else tables[0]


def load_table(release: str | None = None) -> FlagTable:
    """The flag table of ``release`` (default: the pack's default release; via ``table_release``,
    a release without its own table uses the one before it). There is no process-wide "current"
    release: a caller that models another release names it."""
    from .._base import SGLANG_RELEASES, registry

    if release is None:
        release = str(registry.default_release)

    # A modelled release without its own table kept the flags of the table before it.
    return _load_table(table_release(release) if release in SGLANG_RELEASES else release)


def _full_table(release: str) -> dict[str, Any]:
    """The committed table of ``release`` as the extractor wrote it (a dict)."""
    path = os.path.join(_DIR, f"sglang-{release}.json")
    if not os.path.isfile(path):
        from ...errors import InvalidArgumentError

        raise InvalidArgumentError(f"no flag table for sglang {release}; tables exist for {releases()}")
    import json

    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def history() -> Any:
    """The parse-only releases before the oldest full table (``resolvable.flag_history``)."""
    from ...flag_history import History

    return History("sglang", os.path.join(_DIR, "history"), _full_table)


def parse_only_releases() -> tuple[str, ...]:
    """The sglang releases whose flags are known but which no rule resolves (from 0.5.1 up to the oldest resolved release),
    oldest first."""
    return history().releases


def raw_table(release: str) -> dict[str, Any]:
    """The extractor's dict of ``release``: a committed table, or one rebuilt from its deltas."""
    return history().table(release) if release in history() else _full_table(release)


@functools.cache
def _load_table(release: str) -> FlagTable:
    data = raw_table(release)
    flags = tuple(
        Flag(
            dest=f["dest"],
            options=tuple(f["options"]),
            action=f.get("action", "store"),
            type=f.get("type"),
            choices=tuple(f["choices"]) if "choices" in f else None,
            default=f.get("default", NO_DEFAULT),
            nargs=f.get("nargs"),
            const=f.get("const"),
            deprecated=f.get("deprecated"),
            required=bool(f.get("required", False)),
            origin=f.get("origin", "field"),
            fallback=f.get("fallback", NO_DEFAULT),
        )
        for f in data["flags"]
    )
    return FlagTable(data["sglang"], flags)


#: Flags that left sglang without a deprecation note naming their successor in their last table:
#: the successor the release logs (docs/releases/) or the wheels name, or None when sglang dropped
#: the feature. Flags whose last table names one (``Flag.deprecated``) are not listed here.
REMOVED_REPLACEMENTS: dict[str, str | None] = {
    # 0.5.20 arg_groups/parallel_hook.py: "--elastic-ep-rejoin is deprecated, use --elastic-ep-join-mode recover"
    "--elastic-ep-rejoin": "--elastic-ep-join-mode recover",
    # 0.5.16 renamed the DeepEP-only switch (server_args.py: enable_waterfill)
    "--enable-deepep-waterfill": "--enable-waterfill",
    # 0.5.16 (docs/releases/0.5.16.md): --mm-feature-transport supersedes it
    "--keep-mm-feature-on-device": "--mm-feature-transport",
    # 0.5.16 renamed it (disaggregation/prefill.py reads optimistic_prefill_attempts)
    "--optimistic-prefill-retries": "--optimistic-prefill-attempts",
    # 0.5.18 (docs/releases/0.5.18.md): a parser error naming --expert-balancedness-report-mode
    "--enable-expert-distribution-metrics": "--expert-balancedness-report-mode",
    "--collect-tokens-histogram": None,
    "--prefill-round-robin-balance": None,
    "--cuda-graph-tc-compiler": None,
    "--speculative-skip-dp-mlp-sync": None,
    "--torchao-config": None,
}


#: Flags sglang removed before the oldest full table that published launch commands still use,
#: with the flag that replaced each (sglang's MoE flags became --moe-a2a-backend and
#: --moe-runner-backend values; expert parallelism became --ep-size).
REMOVED_BEFORE_TABLES: dict[str, str] = {
    "--enable-deepep-moe": "--moe-a2a-backend deepep",
    "--enable-ep-moe": "--ep-size N",
    "--enable-flashinfer-cutlass-moe": "--moe-runner-backend flashinfer_cutlass",
    "--enable-flashinfer-trtllm-moe": "--moe-runner-backend flashinfer_trtllm",
    "--enable-triton-kernel-moe": "--moe-runner-backend triton_kernel",
}


#: Flags of the parse-only releases that sglang retired with a
#: ``DeprecatedAction`` whose help names the successor (server_args.py of the last release with
#: the flag, quoted in short), beside those of ``REMOVED_BEFORE_TABLES``.
RETIRED_WITH_SUCCESSOR: dict[str, str | None] = {
    # 0.5.4: "--enable-flashinfer-cutedsl-moe is deprecated. Please set `--moe-runner-backend`
    # to 'flashinfer_cutedsl' instead."
    "--enable-flashinfer-cutedsl-moe": "--moe-runner-backend flashinfer_cutedsl",
    # 0.5.4: "... Please set `--moe-runner-backend` to 'flashinfer_mxfp4' instead."
    "--enable-flashinfer-mxfp4-moe": "--moe-runner-backend flashinfer_mxfp4",
    # 0.5.13.post1: "--hybrid-kvcache-ratio is deprecated now. Please use
    # --swa-full-tokens-ratio instead."
    "--hybrid-kvcache-ratio": "--swa-full-tokens-ratio",
    # 0.5.13.post1: "Piecewise cuda graph is enabled by default": nothing to set
    "--enable-piecewise-cuda-graph": None,
}


def replacement(option: str) -> str | None:
    """What replaces the removed flag ``option``: the flag its last table's deprecation names, else
    the one ``REMOVED_REPLACEMENTS`` records, else None (sglang names none)."""
    return replacement_source(option)[0]


def replacement_source(option: str) -> tuple[str | None, str]:
    """(``replacement(option)``, where it is named): a table's deprecation, or one of this
    module's lists of removals (each entry cites the wheel or release log that names it)."""
    for name, known in (
        ("REMOVED_REPLACEMENTS", REMOVED_REPLACEMENTS),
        ("RETIRED_WITH_SUCCESSOR", RETIRED_WITH_SUCCESSOR),
        ("REMOVED_BEFORE_TABLES", REMOVED_BEFORE_TABLES),
    ):
        if option in known:
            return known[option], f"resolvable.sglang.flags.{name}"
    for release in reversed(all_releases()):
        flag = load_table(release).by_option.get(option)
        if flag is not None:
            if isinstance(flag.deprecated, str):
                return flag.deprecated, f"sglang {release}'s deprecation of {option}"
            return None, f"sglang {release}'s table (no successor named)"
    return None, "no table has it"


def all_releases() -> list[str]:
    """Every sglang release with a flag table (parse-only or full), oldest first (``.postN`` after
    its base; while steps are modelled out of order, parse-only releases may lie between full ones)."""
    from ...flag_history import version_key

    return sorted([*parse_only_releases(), *releases()], key=version_key)


def removed_between(old: str, new: str) -> tuple[Any, ...]:
    """Every flag of sglang ``old`` that ``new`` does not accept, with the release that dropped it
    and its replacement (``resolvable.flag_history.FlagChange``)."""
    from ...flag_history import removed_between as walk

    def options(release: str) -> frozenset[str]:
        return frozenset(load_table(release).by_option)

    tables = all_releases()
    old_table, new_table = load_table(old).release, load_table(new).release
    return walk(tables, options, replacement_source, old_table, new_table)


def option_history(option: str, release: str) -> str | None:
    """Why ``option`` is not a flag of ``release`` although another table has it, in words:
    ``"it was added in 0.5.21"``, ``"it was removed in 0.5.20, use --cuda-graph-max-bs-decode"``
    (the replacement, or that sglang names none), or None when ``release`` has it or no table does.

    Reads every table, the parse-only releases' (0.5.1+) too (the error path only), so the
    releases named are those with a table."""
    from ...rules import release_key

    key = release_key(release)
    tables = all_releases()
    has = {r: option in load_table(r).by_option for r in tables}
    if has.get(table_release(release)):
        return None
    earlier = [r for r in tables if release_key(r) < key and has[r]]
    later = [r for r in tables if release_key(r) > key and has[r]]
    if earlier:
        last = earlier[-1]
        # the next table after ``last`` in release order (release_key ignores a .postN suffix,
        # so 0.5.4.post1 does not compare above 0.5.4)
        removed = next(r for r in tables[tables.index(last) + 1 :] if not has[r])
        successor = replacement(option)
        current = load_table(table_release(release)).by_option
        seen: set[str] = set()
        while successor and successor.split()[0].split("=")[0] not in current and successor not in seen:
            seen.add(successor)  # the replacement went too: what replaced it, in this release
            successor = replacement(successor.split()[0].split("=")[0])
        text = f"it was removed in {removed}, " + (
            f"use {successor}" if successor else "and sglang names no replacement: drop the flag"
        )
        if later:
            text += f"; it is back in {later[0]}"
        return text
    if later:
        return f"it was added in {later[0]}"
    if option in REMOVED_BEFORE_TABLES:
        return f"it was removed before {tables[0]}, use {REMOVED_BEFORE_TABLES[option]}"
    return None


def modelled_dests() -> frozenset[str]:
    """Dests this pack reads: the CLI-visible fields of ``ServerArgs`` (derived from the schema)."""
    from ...rules import schema_of
    from ..args import ServerArgs

    return frozenset(n for n, spec in schema_of(ServerArgs).fields.items() if spec.arg.cli)


def is_modelled(dest: str) -> bool:
    return dest in modelled_dests()
