"""Flag values as ``vllm serve`` reads them: vLLM's argparse converters and its input
normalisations (vllm-config-spec.md §1.2, §1.3, §3.1).

Invariants: each converter accepts and rejects the same strings as the vLLM function it is named
after (``argparse.ArgumentTypeError`` on a bad value, so argparse reports it the way vLLM does);
``normalise`` applies only the rewrites vLLM makes to the *user's input* before any model or
platform rule runs, each citing where vLLM does it, and returns a note per rewrite. It never reads
the model or the platform; rules do that.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..choices import DTYPE_SPELLINGS  # one table for the CLI and the library (api.resolve_vllm_args)

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def human_readable_int(value: str) -> int:
    """vllm/utils/argparse_utils.py:human_readable_int: ``1k`` → 1000, ``1K`` → 1024; decimals only
    with a lower-case (decimal) suffix (``25.6k`` → 25600)."""
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if match:
        number, suffix = match.groups()
        if suffix.isupper():
            if "." in number:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with binary suffixes like {suffix}. Did you mean to use "
                    f"{number}{suffix.lower()} instead?"
                )
            return int(number) * _SUFFIX[suffix]
        return int(float(number) * _SUFFIX[suffix])
    return int(value)  # a ValueError: argparse says "invalid human_readable_int value", as vLLM's does


def human_readable_int_or_auto(value: str) -> int:
    """vllm/utils/argparse_utils.py:human_readable_int_or_auto: ``auto`` and ``-1`` mean −1 (fit
    the length to the KV memory), else ``human_readable_int``."""
    if value.strip().lower() in ("auto", "-1"):
        return -1
    return human_readable_int(value)


def json_value(value: str) -> Any:
    """``json.loads`` (``parse_type(json.loads)``)."""
    try:
        return json.loads(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Value {value} cannot be converted to {json.loads}.") from None


_NUMBER = re.compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")


def config_json(value: str) -> dict[str, Any]:
    """engine/arg_utils.py:_compute_kwargs ``parse_dataclass``: JSON with bare ``80m``/``1K``
    numbers expanded (``_expand_json_human_readable_numbers``), an object of the config class's
    keys (the keys are checked by the rules that read them, as pydantic does in vLLM)."""
    parts = re.split(r'("(?:[^"\\]|\\.)*")', value)
    for i in range(0, len(parts), 2):  # outside string literals only
        parts[i] = _NUMBER.sub(lambda m: str(human_readable_int(m.group())), parts[i])
    try:
        parsed = json.loads("".join(parts))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {value!r}")
    return parsed


def dict_or_str(value: str) -> Any:
    """engine/arg_utils.py:union_dict_and_str: JSON when the value looks like ``{...}``, else the string."""
    if not re.match(r"(?s)^\s*{.*}\s*$", value):
        return str(value)
    if value in ("", "None"):
        return None
    return json_value(value)


def reasoning_parser(value: str) -> str:
    """engine/arg_utils.py:parse_reasoning_parser (0.33+): ``none`` (any case) is unset (``""``)."""
    return "" if value.lower() == "none" else value


def lower_snake(value: str) -> str:
    """``--moe-backend``/``--linear-backend``/``--sparse-indexer-topk-backend``: lower case, ``-`` → ``_``."""
    return value.lower().replace("-", "_")


def device_ids(value: str) -> list[Any]:
    """``--device-ids 2,3,5,7``: digits become ints, anything else (a UUID) stays a string."""
    return [int(p) if p.isdigit() else p for p in (part.strip() for part in value.split(","))]


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "json": json_value,
    "config": config_json,
    "dict_or_str": dict_or_str,
    "human_readable_int": human_readable_int,
    "human_readable_int_or_auto": human_readable_int_or_auto,
    "reasoning_parser": reasoning_parser,
    "lower_snake": lower_snake,
    "device_ids": device_ids,
    # 0.11's deprecated --guided-decoding-disable-* flags: argparse's type=bool (any non-empty
    # string is True; the parse-only tables only)
    "bool": bool,
}
for _name, _fn in CONVERTERS.items():  # argparse names the type in "invalid <name> value"
    if _fn not in (str, int, float, bool):
        _fn.__name__ = _name


def optional(fn: Callable[[str], Any]) -> Callable[[str], Any]:
    """engine/arg_utils.py:optional_type: ``""`` and ``"None"`` are None."""

    def convert(value: str) -> Any:
        if value in ("", "None"):
            return None
        try:
            return fn(value)
        except ValueError as exc:
            if isinstance(exc, argparse.ArgumentTypeError):
                raise
            raise argparse.ArgumentTypeError(f"Value {value} cannot be converted to {fn}.") from None

    convert.__name__ = getattr(fn, "__name__", "value")
    return convert


def converter(type_name: str | None, is_optional: bool) -> Callable[[str], Any]:
    fn = CONVERTERS.get(type_name or "str", str)
    return optional(fn) if is_optional else fn


# -- normalisations of the user's input -------------------------------------------------------


def normalise(values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The user's flag values (dest → value) after vLLM's input rewrites, and a note for each."""
    out = dict(values)
    notes: list[str] = []

    # config/model.py:_get_and_verify_dtype maps the name through _STR_DTYPE_TO_TORCH_DTYPE:
    # "half" is torch.float16 and "float" torch.float32 (the rules speak torch's names).
    dtype = out.get("dtype")
    if isinstance(dtype, str) and dtype.lower() in DTYPE_SPELLINGS:
        out["dtype"] = DTYPE_SPELLINGS[dtype.lower()]
        notes.append(f"--dtype {dtype} is read as {out['dtype']} (vLLM's dtype names)")

    # config/cache.py: CacheDType literal "fp8" is the platform's default fp8 format; kept as
    # given (the rules read "fp8"), but "FP8" etc. are not vLLM spellings: no rewrite here.

    # config/attention.py:AttentionConfig.validate_backend_before: backend names are enum names,
    # case-insensitive; "auto" is unset.
    backend = out.get("attention_backend")
    if isinstance(backend, str):
        upper = backend.strip().upper()
        if upper == "AUTO":
            out.pop("attention_backend")
            notes.append(f"--attention-backend {backend} is automatic selection (vLLM reads it as unset)")
        elif upper != backend:
            out["attention_backend"] = upper
            notes.append(f"--attention-backend {backend} is read as {upper} (enum names, any case)")

    # engine/arg_utils.py:parse_reasoning_parser (0.33+) turned "none" into "": unset.
    if out.get("reasoning_parser") == "":
        out.pop("reasoning_parser")
        notes.append("--reasoning-parser none disables reasoning parsing (vLLM reads it as unset)")

    # human_readable_int_or_auto: -1 means "fit max_model_len to the KV memory".
    if out.get("max_model_len") == -1:
        notes.append("--max-model-len auto/-1: vLLM fits the length to the KV-cache memory after profiling")
    return out, notes


# -- bounds of the sizes the memory fit and the parallel layout divide by (issue 29) ------------

#: Engine arguments that must be a positive integer, with the flag that sets each. vLLM itself
#: divides by the parallel sizes (``config/model.py: verify_with_parallel_config``: a
#: ZeroDivisionError at -tp 0), and sizes its batches by the other two.
POSITIVE_SIZES = {
    "tensor_parallel_size": "--tensor-parallel-size/-tp",
    "pipeline_parallel_size": "--pipeline-parallel-size/-pp",
    "data_parallel_size": "--data-parallel-size/-dp",
    "max_num_seqs": "--max-num-seqs",
    "max_num_batched_tokens": "--max-num-batched-tokens",
}


#: The largest ``--max-cudagraph-capture-size`` answered: the capture grid is listed, one size per
#: 16 tokens (``config/compilation.py : _set_cudagraph_sizes``), so a user number must not make a
#: list of billions (issue 29). Real values are 512 to 8192.
MAX_CAPTURE_SIZE = 1 << 16


def check_sizes(values: Mapping[str, Any], *, fit: bool = False) -> None:
    """Raise an ``InvalidArgumentError`` naming the flag and the fix for a parallel or batch size
    that is not a positive integer, and for a ``--gpu-memory-utilization`` that is not a finite
    number (a finite one outside (0, 1] is vLLM's own refusal, a rule); with ``fit`` also
    ``--gpu-memory-utilization`` outside (0, 1] and ``--max-model-len`` (a positive integer,
    ``-1`` or ``auto``)."""
    import math

    from ...errors import InvalidArgumentError

    for key, flag in POSITIVE_SIZES.items():
        value = values.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            continue  # a wrong type is the schema's error ("argument tensor_parallel_size: ...")
        if not 1 <= value <= 2**31:
            raise InvalidArgumentError(
                f"{flag} {value!r}: must be a positive integer (at most 2**31); pass {flag.split('/')[0]} 1 or more"
            )
    largest = values.get("max_cudagraph_capture_size")
    if isinstance(largest, int) and not isinstance(largest, bool) and largest > MAX_CAPTURE_SIZE:
        raise InvalidArgumentError(
            f"--max-cudagraph-capture-size {largest}: vLLM would capture a CUDA graph for every 16th size up "
            f"to it ({largest // 16:,} graphs); resolvable answers up to {MAX_CAPTURE_SIZE:,}: pass at most "
            f"that, or --enforce-eager"
        )
    util = values.get("gpu_memory_utilization")
    if isinstance(util, float) and not math.isfinite(util):  # a finite value out of range is vLLM's refusal
        raise InvalidArgumentError(
            f"--gpu-memory-utilization {util!r}: must be a fraction in (0, 1]; pass e.g. 0.9"
        )
    if not fit:
        return
    if util is not None:
        number = util if isinstance(util, (int, float)) and not isinstance(util, bool) else math.nan
        if not (math.isfinite(number) and 0 < number <= 1):
            raise InvalidArgumentError(
                f"--gpu-memory-utilization {util!r}: must be a fraction in (0, 1]; pass e.g. 0.9"
            )
    length = values.get("max_model_len")
    if length is not None and str(length).lower() not in ("-1", "auto"):
        try:
            number = int(str(length).strip()) if not isinstance(length, (bool, float)) else 0
        except ValueError:
            number = 0
        if number <= 0:
            raise InvalidArgumentError(
                f"--max-model-len {length!r}: must be a positive integer, -1 or auto; pass e.g. 8192"
            )
