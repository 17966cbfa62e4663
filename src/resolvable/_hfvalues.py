"""Config values checked where a model config is read (issue 29 item 4): the sizes, counts,
dtype, quantization parameters and RoPE factors that the engines compute with.

Invariant: a config that ``load_hf_config`` (and the ``resolve`` entry points given a dict)
returns has, at its top level and in its language sub-config (``text_config``, ``llm_config``,
``language_config``), for every key below that is present and not null:

* counts and sizes (``COUNTS``): an integer (a whole float such as ``4096.0`` is accepted, a
  bool or a string is not) within ``1..2**31-1`` — ``0`` where the key allows it
  (``ZERO_ALLOWED``), elements of a per-layer list within ``0..2**31-1``; ``max_position_embeddings``
  up to ``2**40``;
* ``torch_dtype``/``dtype``: the name of a torch dtype (``float128`` is none: transformers fails
  on it, ``transformers/configuration_utils.py`` resolves the name with ``getattr(torch, name)``);
* ``quantization_config``: ``bits``/``w_bit``/``weight_bits`` an integer in 1..64,
  ``group_size``/``q_group_size`` an integer (``-1`` is "per channel"), as GPTQ/AWQ read them
  (``vllm/model_executor/layers/quantization/gptq.py: GPTQConfig.from_config``);
* ``rope_scaling``/``rope_parameters``: ``factor`` a finite number > 0, ``rope_theta`` a finite
  number > 0, ``original_max_position_embeddings`` a count.

Anything else is a ``ConfigError`` (a ``ValueError``) whose one-line message names the file, the
key and its value, and the fix. Standard library only; nothing here mutates the config.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ._files import shown
from .errors import ConfigError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["COUNTS", "TORCH_DTYPES", "check_config_values"]

_MAX_COUNT = 2**31 - 1
#: Keys that hold a count or a size, with the largest value a real config may hold.
COUNTS: Mapping[str, int] = {
    "num_attention_heads": _MAX_COUNT,
    "num_key_value_heads": _MAX_COUNT,
    "num_hidden_layers": _MAX_COUNT,
    "hidden_size": _MAX_COUNT,
    "intermediate_size": _MAX_COUNT,
    "vocab_size": _MAX_COUNT,
    "head_dim": _MAX_COUNT,
    "max_position_embeddings": 2**40,
    "num_experts": _MAX_COUNT,
    "num_local_experts": _MAX_COUNT,
    "n_routed_experts": _MAX_COUNT,
    "num_experts_per_tok": _MAX_COUNT,
    "moe_intermediate_size": _MAX_COUNT,
    "n_shared_experts": _MAX_COUNT,
    "kv_lora_rank": _MAX_COUNT,
    "q_lora_rank": _MAX_COUNT,
    "qk_nope_head_dim": _MAX_COUNT,
    "qk_rope_head_dim": _MAX_COUNT,
    "v_head_dim": _MAX_COUNT,
}
#: Counts that may be 0 (no shared expert, no LoRA rank, no rope part of the head).
ZERO_ALLOWED = frozenset(
    {"n_shared_experts", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "num_experts", "num_local_experts",
     "n_routed_experts", "moe_intermediate_size", "num_experts_per_tok", "intermediate_size", "head_dim"}
)  # fmt: skip

#: torch dtype names (``torch.<name>``) a config may give; "auto" and the "torch." prefix too.
TORCH_DTYPES = frozenset(
    {"float16", "half", "bfloat16", "float32", "float", "float64", "double", "int8", "uint8", "int16",
     "short", "int32", "int", "int64", "long", "bool", "complex64", "complex128", "cfloat", "cdouble",
     "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
     "float4_e2m1fn_x2", "auto"}
)  # fmt: skip

_SUBCONFIGS = ("text_config", "llm_config", "language_config")
_QUANT_BITS = ("bits", "w_bit", "weight_bits")
_QUANT_GROUP = ("group_size", "q_group_size")
_ROPE = ("rope_scaling", "rope_parameters")


def check_config_values(config: Mapping[str, Any], source: str = "config.json") -> None:
    """Raise a ``ConfigError`` naming ``source`` and the key for the first value outside the
    ranges of the module docstring."""
    _check(config, source, "", 0)


def _fail(source: str, key: str, value: Any, fix: str) -> ConfigError:
    text = shown(repr(value))
    if len(text) > 60:
        text = text[:57] + "..."
    return ConfigError(f"{shown(source)}: {key} = {text} {fix}; correct it in the config.json")


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _check(config: Mapping[str, Any], source: str, prefix: str, depth: int) -> None:
    for key, limit in COUNTS.items():
        value = config.get(key)
        if value is None:
            continue
        name = prefix + key
        low = 0 if key in ZERO_ALLOWED else 1
        if isinstance(value, (list, tuple)):
            if len(value) > 1_000_000:
                raise _fail(source, name, f"[{len(value)} values]", "is not a per-layer list of a model")
            for item in value:
                n = _as_int(item)
                if item is not None and (n is None or not 0 <= n <= limit):
                    raise _fail(source, name, item, f"holds a value that is not an integer in 0..{limit}")
            continue
        n = _as_int(value)
        if n is None:
            raise _fail(source, name, value, f"is not an integer ('{name}' must be int, in {low}..{limit})")
        if not low <= n <= limit:
            raise _fail(source, name, value, f"is not an integer in {low}..{limit}")
    for key in ("torch_dtype", "dtype"):
        value = config.get(key)
        if value is None or isinstance(value, Mapping):  # a per-module dtype map is not checked
            continue
        name = value.removeprefix("torch.") if isinstance(value, str) else None
        if name not in TORCH_DTYPES:
            raise _fail(source, prefix + key, value, "is not a torch dtype (e.g. bfloat16, float16, float32)")
    quant = config.get("quantization_config")
    if isinstance(quant, Mapping):
        for key in _QUANT_BITS:
            value = quant.get(key)
            n = _as_int(value)
            if value is not None and (n is None or not 1 <= n <= 64):
                raise _fail(
                    source,
                    f"{prefix}quantization_config.{key}",
                    value,
                    "is not a bit width (an integer, e.g. 4 or 8)",
                )
        for key in _QUANT_GROUP:
            value = quant.get(key)
            n = _as_int(value)
            if value is not None and (n is None or not (n == -1 or 1 <= n <= _MAX_COUNT)):
                raise _fail(
                    source,
                    f"{prefix}quantization_config.{key}",
                    value,
                    "is not a group size (an integer, or -1)",
                )
    for key in _ROPE:
        rope = config.get(key)
        if isinstance(rope, Mapping):
            _check_rope(rope, source, f"{prefix}{key}")
    theta = config.get("rope_theta")
    thetas = theta if isinstance(theta, (list, tuple)) else [theta]  # per-layer lists (Step3p5)
    if theta is not None and not all(_positive_number(t) for t in thetas):
        raise _fail(source, prefix + "rope_theta", theta, "is not a finite number > 0")
    if depth == 0:
        for key in _SUBCONFIGS:
            sub = config.get(key)
            if isinstance(sub, Mapping):
                _check(sub, source, f"{key}.", depth + 1)


def _positive_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _check_rope(rope: Mapping[str, Any], source: str, where: str) -> None:
    for key in ("factor", "rope_theta"):
        value = rope.get(key)
        if value is not None and not _positive_number(value):
            raise _fail(source, f"{where}.{key}", value, "is not a finite number > 0")
    value = rope.get("original_max_position_embeddings")
    n = _as_int(value)
    if value is not None and (n is None or not 1 <= n <= 2**40):
        raise _fail(source, f"{where}.original_max_position_embeddings", value, "is not a positive integer")
