"""The ``vllm serve`` flag tables of every vLLM release the pack resolves (``VLLM_RELEASES``):
every command-line flag, as data.

One generated file per release, ``vllm-<version>.json`` in this directory, written by
``tools/extract_vllm_flags.py`` from that release's wheel (facts only: option strings and
aliases, negative spellings, dest, action, vLLM's converter name, choices, default, nargs,
JSON-config class, deprecation). The layout follows the SGLang tables
(``resolvable.sglang.flags``): ``releases()``, ``load_table()``, ``option_history()``,
``modelled_dests()``. Invariants:

* the table is the only list of vLLM's flags; the argparse integration (``vllm.cli_args``), the
  CLI and the pasted-command parser all read it;
* a flag is *modelled* when its dest is a CLI field of ``VllmArgs`` or one of the flags the pack
  translates into fields (``TRANSLATED``) — derived on every call, never kept by hand;
* loading is lazy (json is imported on first use, not by ``import resolvable.vllm``).
"""

from __future__ import annotations

import functools
import os
from collections import namedtuple

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

_DIR = os.path.dirname(os.path.abspath(__file__))

#: A default the table does not store (argparse.SUPPRESS, a factory, or a machine-dependent one).
NO_DEFAULT = object()

#: Flags the pack reads although no ``VllmArgs`` field has their dest: the JSON config flags it
#: flattens (``--attention-config``, ``--compilation-config``, ``--speculative-config``,
#: ``--kv-transfer-config``), the positional model, the speculative shorthands and
#: ``--optimization-level`` (the -O level selects the CUDA-graph defaults).
TRANSLATED = frozenset(
    {
        "model_tag",
        "attention_config",
        "compilation_config",
        "speculative_config",
        "kv_transfer_config",
        "spec_method",
        "spec_tokens",
        "spec_model",
        "language_model_only",
        "hf_overrides",
    }
)


class Flag(
    namedtuple(
        "Flag",
        "dest options negatives action type choices default nargs const optional config_class "
        "deprecated positional group dynamic",
    )
):
    """One argparse action of ``vllm serve``. ``action`` is ``store``, ``store_true``,
    ``boolean_optional`` (``--x``/``--no-x``, and from 0.33 the ``--enable-``/``--disable-``
    inverse, all in ``negatives``), ``append`` or ``lora_modules``; ``type`` names vLLM's
    converter (``str``, ``int``, ``float``, ``json``, ``config`` (a JSON object validated as
    ``config_class``), ``dict_or_str``, ``human_readable_int``, ``human_readable_int_or_auto``,
    ``reasoning_parser``, ``lower_snake``, ``device_ids``); ``optional``: ``""``/``"None"`` read
    as None; ``dynamic``: a value that depends on the machine or plugins (source text)."""

    __slots__ = ()

    @property
    def flag(self) -> str:
        return self.options[0]

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", "append", "lora_modules")

    @property
    def takes_json(self) -> bool:
        """Whether the value is JSON that the dotted form (``--x.key v``) can build."""
        return self.type in ("json", "config", "dict_or_str")


class FlagTable:
    """The flags of one vLLM release, looked up by option string (negatives included) or dest."""

    def __init__(
        self,
        release: str,
        flags: tuple[Flag, ...],
        enable_disable: bool,
        environment: frozenset[str] = frozenset(),
        removed_environment: dict[str, str] | None = None,
    ) -> None:
        self.release = release
        #: ``vllm/envs.py : environment_variables`` names, and ``removed_environment_variables``
        #: (name → vLLM's migration hint; 0.34+).
        self.environment = environment
        self.removed_environment = dict(removed_environment or {})
        self.flags = flags
        self.enable_disable = enable_disable
        self.by_option = {o: f for f in flags for o in (*f.options, *f.negatives) if not f.positional}
        self.by_dest = {f.dest: f for f in flags}

    def __len__(self) -> int:
        return len(self.flags)

    def __iter__(self):
        return iter(self.flags)

    def options(self) -> list[str]:
        return sorted(self.by_option)

    def default(self, dest: str) -> Any:
        flag = self.by_dest.get(dest)
        return NO_DEFAULT if flag is None else flag.default


def releases() -> list[str]:
    """The vLLM releases that have a table, oldest first."""
    from ...rules import release_key

    names = [n[len("vllm-") : -len(".json")] for n in os.listdir(_DIR) if n.startswith("vllm-")]
    return sorted(names, key=release_key)


def newest() -> str:
    return releases()[-1]


def load_table(release: str | None = None) -> FlagTable:
    """The flag table of ``release`` (default: the newest)."""
    if release is None:
        release = newest()
    return _load_table(release)


def _full_table(release: str) -> dict[str, Any]:
    """The committed table of ``release`` as the extractor wrote it (a dict)."""
    path = os.path.join(_DIR, f"vllm-{release}.json")
    if not os.path.isfile(path):
        from ...errors import InvalidArgumentError

        raise InvalidArgumentError(f"no flag table for vLLM {release}; tables exist for {releases()}")
    import json

    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def history() -> Any:
    """The parse-only releases before the oldest full table (``resolvable.flag_history``)."""
    from ...flag_history import History

    return History("vllm", os.path.join(_DIR, "history"), _full_table)


def parse_only_releases() -> tuple[str, ...]:
    """The vLLM releases whose flags are known but which no rule resolves (0.11.0 … 0.27.1),
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
            negatives=tuple(f.get("negatives", ())),
            action=f.get("action", "store"),
            type=f.get("type"),
            choices=tuple(f["choices"]) if "choices" in f else None,
            default=f.get("default", NO_DEFAULT),
            nargs=f.get("nargs"),
            const=f.get("const"),
            optional=bool(f.get("optional", False)),
            config_class=f.get("config_class"),
            deprecated=bool(f.get("deprecated", False)),
            positional=bool(f.get("positional", False)),
            group=f.get("group"),
            dynamic=f.get("dynamic_choices") or f.get("dynamic_default"),
        )
        for f in data["flags"]
    )
    return FlagTable(
        data["vllm"],
        flags,
        bool(data.get("enable_disable_inverses")),
        frozenset(data.get("environment", ())),
        data.get("removed_environment"),
    )


def option_history(option: str, release: str) -> str | None:
    """Why ``option`` is not a flag of ``release`` although another table has it, in words, with
    what replaces it: ``"it was added in vLLM 0.33.0"``, ``"it was removed in vLLM 0.12.0 (last in
    0.11.2), use --cudagraph-capture-sizes"``, ``"… and vLLM names no replacement: drop the
    flag"``; a flag retired before the first table (0.11.0) is read from ``RETIRED_BEFORE_TABLES``.
    None when ``release`` has it or nothing knows it. Reads every table (the error path only)."""
    from ...rules import release_key

    key = release_key(release)
    tables = all_releases()  # the parse-only tables too: "removed in vLLM 0.18.0"
    has = {r: option in load_table(r).by_option for r in tables}
    if has.get(release):
        return None
    earlier = [r for r in tables if release_key(r) < key and has[r]]
    later = [r for r in tables if release_key(r) > key and has[r]]
    if earlier:
        last = earlier[-1]
        removed = next(r for r in tables[tables.index(last) + 1 :] if not has[r])  # (.postN: see sglang's)
        text = f"it was removed in vLLM {removed} (last in {last})" + _successor_words(option, release)
        if later:
            text += f"; it is back in {later[0]}"
        return text
    if later:
        return f"it was added in vLLM {later[0]}"
    retired = RETIRED_BEFORE_TABLES.get(option)
    if retired is not None and key >= release_key(retired[0]):
        removed, last, _ = retired
        return f"it was removed in vLLM {removed} (last in {last})" + _successor_words(option, release)
    return None


def _successor_words(option: str, release: str) -> str:
    """``", use X"`` (X: the named successor, followed while ``release`` no longer accepts it
    either) or ``", and vLLM names no replacement: drop the flag"``."""
    current = load_table(release).by_option if release in all_releases() else {}
    successor, seen = replacement_source(option)[0], set()
    while successor and current and successor.split()[0] not in current and successor not in seen:
        seen.add(successor)  # the replacement went too: what replaced it, in this release
        successor = replacement_source(successor.split()[0])[0]
    return f", use {successor}" if successor else ", and vLLM names no replacement: drop the flag"


#: Flags of ``vllm serve`` retired before the first flag table (0.11.0): option → (the release
#: that removed it, the last release with it, its successor or None). Read from the wheels of vLLM
#: 0.10.0, 0.10.1, 0.10.1.1 and 0.10.2 (``engine/arg_utils.py : EngineArgs.add_cli_args``, the
#: literal ``add_argument("--…")`` calls) against the 0.11.0 table; none of their wheels names a
#: successor (``config.py`` / ``config/scheduler.py`` field docs, no deprecation message).
#: ``tests/vllm/test_vllm_flags.py`` checks the entries against the 0.11.0 table.
RETIRED_BEFORE_TABLES: dict[str, tuple[str, str, str | None]] = {
    # 0.10.0 SchedulerConfig.num_scheduler_steps / multi_step_stream_outputs (multi-step
    # scheduling of the V0 engine), gone from 0.10.1's arg_utils
    "--num-scheduler-steps": ("0.10.1", "0.10.0", None),
    "--multi-step-stream-outputs": ("0.10.1", "0.10.0", None),
    # 0.10.1.1 ModelConfig.override_neuron_config, gone from 0.10.2's arg_utils
    "--override-neuron-config": ("0.10.2", "0.10.1.1", None),
    # 0.10.2 ModelConfig.max_seq_len_to_capture, SchedulerConfig.preemption_mode / delay_factor,
    # ModelConfig.disable_async_output_proc (V0 engine), gone from 0.11.0's arg_utils
    "--max-seq-len-to-capture": ("0.11.0", "0.10.2", None),
    "--preemption-mode": ("0.11.0", "0.10.2", None),
    "--scheduler-delay-factor": ("0.11.0", "0.10.2", None),
    "--disable-async-output-proc": ("0.11.0", "0.10.2", None),
}


def modelled_dests() -> frozenset[str]:
    """Dests this pack reads: the CLI fields of ``VllmArgs`` and the translated flags."""
    from ...rules import schema_of
    from ..args import VllmArgs

    fields = frozenset(n for n, spec in schema_of(VllmArgs).fields.items() if spec.arg.cli)
    return fields | TRANSLATED


def is_modelled(dest: str) -> bool:
    return dest in modelled_dests()


#: Flags that left ``vllm serve`` between 0.11.0 and the newest table, with the successor vLLM
#: names (each from the wheel of the last release with the flag: its deprecation warning or help),
#: or None when vLLM names none. A flag missing here has no successor named in its wheel.
REMOVED_REPLACEMENTS: dict[str, str | None] = {
    # 0.12.0 engine/arg_utils.py: "--cuda-graph-sizes is deprecated ... Please use
    # --cudagraph-capture-sizes instead."
    "--cuda-graph-sizes": "--cudagraph-capture-sizes",
    # 0.12.0 engine/arg_utils.py: "Please use `--mm-processor-cache-gb 0` instead."
    "--disable-mm-preprocessor-cache": "--mm-processor-cache-gb 0",
    # 0.12.0 engine/arg_utils.py: "Please use `--mm-encoder-tp-mode data` instead."
    "--enable-multimodal-encoder-data-parallel": "--mm-encoder-tp-mode data",
    # 0.11.2 config/parallel.py: "has been replaced with `eplb_config.<key>`"
    "--num-redundant-experts": "--eplb-config.num_redundant_experts",
    "--eplb-window-size": "--eplb-config.window_size",
    "--eplb-step-interval": "--eplb-config.step_interval",
    "--eplb-log-balancedness": "--eplb-config.log_balancedness",
    "--no-eplb-log-balancedness": "--eplb-config.log_balancedness false",
    # 0.11.x engine/arg_utils.py forwards the deprecated guided-decoding flags to
    # StructuredOutputsConfig (backend, disable_any_whitespace, disable_additional_properties);
    # its disable_fallback is gone by 0.30.0 (config/structured_outputs.py)
    "--guided-decoding-backend": "--structured-outputs-config.backend",
    "--guided-decoding-disable-any-whitespace": "--structured-outputs-config.disable_any_whitespace",
    "--guided-decoding-disable-additional-properties": (
        "--structured-outputs-config.disable_additional_properties"
    ),
    # 0.11.2 config/model.py: "`override_pooler_config` is deprecated ... Please use
    # `pooler_config` instead."
    "--override-pooler-config": "--pooler-config",
    # 0.11.0 config/model.py: "`--rope-scaling` / `--rope-theta` will be removed ... Please instead
    # use `--hf-overrides`"
    "--rope-scaling": "--hf-overrides",
    "--rope-theta": "--hf-overrides",
    # 0.12.0 config/model.py: "The 'task' option has been deprecated ... Please remove this option."
    "--task": None,
    # 0.27.1 config/cache.py: the scales are loaded from the checkpoint (else 1.0)
    "--calculate-kv-scales": None,
    "--no-calculate-kv-scales": None,
    # 0.16.0 engine/arg_utils.py: --disable-log-requests is the inverse of --enable-log-requests
    "--no-disable-log-requests": "--enable-log-requests",
    # 0.11.x: -O was --compilation-config's short form; from 0.12.0 utils/argparse_utils.py
    # rewrites -O N to --optimization-level N
    "-O": "--optimization-level",
}


def replacement_source(option: str) -> tuple[str | None, str]:
    """(what replaces the removed flag ``option``, where it is named)."""
    if option in REMOVED_REPLACEMENTS:
        return REMOVED_REPLACEMENTS[option], "resolvable.vllm.flags.REMOVED_REPLACEMENTS"
    return None, "vLLM names no successor in the wheel"


def all_releases() -> list[str]:
    """Every vLLM release with a flag table, parse-only ones first, oldest first."""
    return [*parse_only_releases(), *releases()]


def removed_between(old: str, new: str) -> tuple[Any, ...]:
    """Every flag of vLLM ``old`` that ``new`` does not accept, with the release that dropped it
    and its replacement (``resolvable.flag_history.FlagChange``)."""
    from ...flag_history import removed_between as walk

    def options(release: str) -> frozenset[str]:
        return frozenset(o for o, f in load_table(release).by_option.items() if not f.positional)

    return walk(all_releases(), options, replacement_source, old, new)
