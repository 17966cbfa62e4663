"""Flag values as sglang reads them: argparse converters (per release where they differ) and
input normalisations.

Invariants: each converter accepts and rejects the same strings as the sglang function it is
named after (``argparse.ArgumentTypeError`` on a bad value, so argparse reports it as sglang
would); ``normalise`` applies only the rewrites sglang makes to the *user's input* before any
model or platform rule runs, each citing where sglang does it. It never reads the model or
the platform; rules do that.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any


def human_readable_int(value: str) -> int:
    """sglang/srt/utils/common.py:human_readable_int: ``32k`` → 32000, ``1Mi`` → 1048576 (suffixes
    are case-sensitive; decimals only with SI suffixes)."""
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", value)
    if match:
        number, suffix = match.groups()
        if suffix.endswith("i"):
            if "." in number:
                raise argparse.ArgumentTypeError(f"decimals are not allowed with IEC suffix {suffix!r}")
            return int(number) * 2 ** (10 * ("KMGT".index(suffix[0]) + 1))
        return int(Decimal(number) * 10 ** (3 * ("kMGT".index(suffix) + 1)))
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid integer value: {value!r} (a plain integer, or SI/IEC suffixes such as 32k, 1Mi)"
        ) from None


def nullable_str(value: str) -> str | None:
    """sglang/srt/utils/common.py:nullable_str: empty or ``None`` means unset."""
    return None if not value or value == "None" else value


def json_value(value: str) -> Any:
    """``json.loads`` (sglang's type for JSON-valued flags)."""
    try:
        return json.loads(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid JSON: {exc}") from None


def json_list(value: str) -> Any:
    """sglang/srt/utils/common.py:json_list_type (orjson.loads; any JSON value)."""
    try:
        return json.loads(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid JSON list: {value}") from None


#: sglang/srt/model_executor/cuda_graph_config.py:ALLOWED_KEYS_PER_PHASE, from the release that
#: first has each version (0.5.14 introduced the flag; 0.5.15 adds full_prefill_max_req, 0.5.17
#: a prefill key, 0.5.21 two more, 0.5.22 drops tc_compiler).
_CUDA_GRAPH_KEYS_SINCE: tuple[tuple[str, dict[str, tuple[str, ...]]], ...] = (
    (
        "0.5.14",
        {
            "decode": ("backend", "max_bs", "bs", "tc_compiler"),
            "prefill": ("backend", "max_bs", "bs", "tc_compiler"),
        },
    ),
    (
        "0.5.15",
        {
            "decode": ("backend", "max_bs", "bs", "tc_compiler"),
            "prefill": ("backend", "max_bs", "bs", "tc_compiler", "full_prefill_max_req"),
        },
    ),
    (
        "0.5.17",
        {
            "decode": ("backend", "max_bs", "bs", "tc_compiler"),
            "prefill": (
                *("backend", "max_bs", "bs", "tc_compiler"),
                *("full_prefill_max_req", "full_prefill_prefix_chunk_tokens"),
            ),
        },
    ),
    (
        "0.5.21",
        {
            "decode": ("backend", "max_bs", "bs", "tc_compiler"),
            "prefill": (
                *("backend", "max_bs", "bs", "tc_compiler", "max_context_size"),
                *("full_prefill_max_req", "full_prefill_prefix_chunk_tokens", "max_seq_len"),
            ),
        },
    ),
    (
        "0.5.22",
        {
            "decode": ("backend", "max_bs", "bs"),
            "prefill": (
                *("backend", "max_bs", "bs", "max_context_size"),
                *("full_prefill_max_req", "full_prefill_prefix_chunk_tokens", "max_seq_len"),
            ),
        },
    ),
)
#: From this release a phase's ``backend`` is checked by parse_cuda_graph_backend_arg too.
_CUDA_GRAPH_BACKEND_CHECKED_SINCE = "0.5.22"


def cuda_graph_backend(value: str) -> str:
    """sglang/srt/model_executor/cuda_graph_config.py:parse_cuda_graph_backend_arg (0.5.22+): the
    retired ``tc_piecewise`` is refused with its own message before argparse checks the choices."""
    if value == "tc_piecewise":
        raise argparse.ArgumentTypeError("tc_piecewise was removed; select breakable, full, or disabled")
    return value


def _cuda_graph_config_of(release: str) -> Callable[[str], dict[str, dict[str, Any]]]:
    from ...rules import release_key

    keys = [k for since, k in _CUDA_GRAPH_KEYS_SINCE if release_key(since) <= release_key(release)][-1]
    check_backend = release_key(release) >= release_key(_CUDA_GRAPH_BACKEND_CHECKED_SINCE)

    def cuda_graph_config(value: str) -> dict[str, dict[str, Any]]:
        """sglang/srt/model_executor/cuda_graph_config.py:parse_cuda_graph_config_arg: a JSON
        object phase → settings, phases and keys checked (the keys of ``release``)."""
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"--cuda-graph-config must be JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise argparse.ArgumentTypeError("--cuda-graph-config must be a JSON object")
        for phase, settings in parsed.items():
            if phase not in keys:
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config: unknown phase {phase!r}, expected one of {tuple(keys)}"
                )
            if not isinstance(settings, dict):
                raise argparse.ArgumentTypeError(f"--cuda-graph-config[{phase!r}] must be a JSON object")
            if check_backend and "backend" in settings:
                cuda_graph_backend(settings["backend"])
            for key in settings:
                if key not in keys[phase]:
                    raise argparse.ArgumentTypeError(
                        f"--cuda-graph-config[{phase!r}]: unknown key {key!r}, expected one of {keys[phase]}"
                    )
        return parsed

    return cuda_graph_config


#: The 0.5.15 converter (``converter`` gives the one of another release).
cuda_graph_config = _cuda_graph_config_of("0.5.15")

CONVERTERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "json": json_value,
    "json_list": json_list,
    "human_readable_int": human_readable_int,
    "nullable_str": nullable_str,
    "cuda_graph_config": cuda_graph_config,
    "cuda_graph_backend": cuda_graph_backend,
}
for _name, _fn in CONVERTERS.items():  # argparse names the type in "invalid <name> value"
    if _fn not in (str, int, float):
        _fn.__name__ = _name

#: Converters whose checks differ between releases.
_BY_RELEASE: dict[str, Callable[[str], Callable[[str], Any]]] = {"cuda_graph_config": _cuda_graph_config_of}
_converters: dict[tuple[str, str], Callable[[str], Any]] = {}


def converter(type_name: str, release: str) -> Callable[[str], Any]:
    """The converter sglang ``release`` uses for a flag of type ``type_name`` (the table's ``type``)."""
    if type_name not in _BY_RELEASE:
        return CONVERTERS[type_name]
    key = (type_name, release)
    if key not in _converters:
        fn = _BY_RELEASE[type_name](release)
        fn.__name__ = type_name
        _converters[key] = fn
    return _converters[key]


# -- normalisations of the user's input -------------------------------------------------------

_LEGACY_CP_MODE = {"in-seq-split": "zigzag", "round-robin-split": "interleave"}
_DEPRECATED_TOOL_CALL_PARSERS = {"qwen25": "qwen", "glm45": "glm"}
#: Dests of the releases before 0.5.14 that name a ``ServerArgs`` field by another name: the
#: strategy flag 0.5.14 renamed (``--mamba-scheduler-strategy``, kept there as a deprecated
#: spelling of ``--mamba-radix-cache-strategy``), and the ``nsa_*`` dests of 0.5.12 and older
#: that 0.5.13 renamed ``dsa_*``. No table from 0.5.14 on has these dests. (The
#: parallel sizes that 0.5.13's ``ServerArgs.from_cli_args`` copies are recorded under their
#: field by the extractor.)
_OLD_DESTS = {
    "mamba_scheduler_strategy": "mamba_radix_cache_strategy",
    # 0.5.13 renamed NSA to DSA (server_args.py: the old flags stay as spellings of the new)
    "nsa_prefill_backend": "dsa_prefill_backend",
    "nsa_decode_backend": "dsa_decode_backend",
    "enable_nsa_prefill_context_parallel": "enable_dsa_prefill_context_parallel",
    "nsa_prefill_cp_mode": "dsa_prefill_cp_mode",
}


def normalise(
    values: Mapping[str, Any], defaults: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str], set[str]]:
    """The user's flag values (dest → value) after sglang's input rewrites, a note for each, and
    the dests whose meaning was carried over to other fields (they are modelled through those).

    ``defaults`` gives sglang's default for a dest the user did not pass (used where sglang
    combines a passed flag with another flag's default)."""
    out = dict(values)
    notes: list[str] = []
    consumed: set[str] = set()

    def note(text: str) -> None:
        notes.append(text)

    # The 0.5.14 field renames: an old dest is the field's value.
    for old, field in _OLD_DESTS.items():
        if old in out:
            value = out.pop(old)
            consumed.add(old)
            out[field] = value

    # speculative_hook.py:handle_speculative_decoding upper-cases the algorithm name.
    algo = out.get("speculative_algorithm")
    if isinstance(algo, str) and algo != algo.upper():
        out["speculative_algorithm"] = algo.upper()
        note(f"--speculative-algorithm {algo} is read as {algo.upper()} (sglang upper-cases it)")

    # server_args.py:_handle_missing_default_values strips a device index ("cuda:0" -> "cuda").
    device = out.get("device")
    if isinstance(device, str) and ":" in device:
        out["device"] = device.split(":")[0]
        note(f"--device {device} is read as {out['device']} (sglang drops the device index)")

    # server_args.py:_handle_deprecated_args: the deprecated switch means backend "auto" unless a
    # backend was given; sglang then clears the switch itself.
    if out.get("enable_flashinfer_allreduce_fusion"):
        if out.get("flashinfer_allreduce_fusion_backend") is None:
            out["flashinfer_allreduce_fusion_backend"] = "auto"
            note("--enable-flashinfer-allreduce-fusion is read as --flashinfer-allreduce-fusion-backend auto")
        out["enable_flashinfer_allreduce_fusion"] = False
        consumed.add("enable_flashinfer_allreduce_fusion")

    # server_args.py:_handle_deprecated_args: renamed tool-call parsers.
    parser = out.get("tool_call_parser")
    if parser in _DEPRECATED_TOOL_CALL_PARSERS:
        out["tool_call_parser"] = _DEPRECATED_TOOL_CALL_PARSERS[parser]
        note(f"--tool-call-parser {parser} is read as {out['tool_call_parser']} (deprecated name)")

    # server_args.py:_handle_legacy_cp_arguments (its first call, before any model rule): the
    # legacy context-parallel switches turn on --enable-prefill-cp and pick --cp-strategy from
    # their split mode when no strategy was given.
    legacy = [
        (switch, mode)
        for switch, mode in (
            ("enable_prefill_context_parallel", "prefill_cp_mode"),
            ("enable_dsa_prefill_context_parallel", "dsa_prefill_cp_mode"),
        )
        if out.get(switch)
    ]
    if legacy and not out.get("enable_prefill_cp"):
        out["enable_prefill_cp"] = True
        note(f"--{legacy[0][0].replace('_', '-')} is read as --enable-prefill-cp (deprecated spelling)")
    for switch, mode_dest in legacy:
        consumed.update((switch, mode_dest))
        if out.get("cp_strategy") is None:
            mode = out.get(mode_dest, defaults.get(mode_dest))
            if mode in _LEGACY_CP_MODE:
                out["cp_strategy"] = _LEGACY_CP_MODE[mode]
                note(f"--cp-strategy {out['cp_strategy']} follows from the legacy split mode {mode!r}")
    return out, notes, consumed
