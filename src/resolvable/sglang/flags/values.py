"""Flag values as sglang 0.5.15 reads them: argparse converters and input normalisations.

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


_CUDA_GRAPH_KEYS = {
    "decode": ("backend", "max_bs", "bs", "tc_compiler"),
    "prefill": ("backend", "max_bs", "bs", "tc_compiler", "full_prefill_max_req"),
}


def cuda_graph_config(value: str) -> dict[str, dict[str, Any]]:
    """sglang/srt/model_executor/cuda_graph_config.py:parse_cuda_graph_config_arg: a JSON object
    phase → settings, phases and keys checked."""
    try:
        parsed = json.loads(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--cuda-graph-config must be JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError("--cuda-graph-config must be a JSON object")
    for phase, settings in parsed.items():
        if phase not in _CUDA_GRAPH_KEYS:
            raise argparse.ArgumentTypeError(
                f"--cuda-graph-config: unknown phase {phase!r}, expected one of {tuple(_CUDA_GRAPH_KEYS)}"
            )
        if not isinstance(settings, dict):
            raise argparse.ArgumentTypeError(f"--cuda-graph-config[{phase!r}] must be a JSON object")
        for key in settings:
            if key not in _CUDA_GRAPH_KEYS[phase]:
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config[{phase!r}]: unknown key {key!r}, expected one of "
                    f"{_CUDA_GRAPH_KEYS[phase]}"
                )
    return parsed


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "json": json_value,
    "json_list": json_list,
    "human_readable_int": human_readable_int,
    "nullable_str": nullable_str,
    "cuda_graph_config": cuda_graph_config,
}
for _name, _fn in CONVERTERS.items():  # argparse names the type in "invalid <name> value"
    if _fn not in (str, int, float):
        _fn.__name__ = _name


# -- normalisations of the user's input -------------------------------------------------------

_LEGACY_CP_MODE = {"in-seq-split": "zigzag", "round-robin-split": "interleave"}
_DEPRECATED_TOOL_CALL_PARSERS = {"qwen25": "qwen", "glm45": "glm"}


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
