"""``--hf-overrides``: the user's changes to the checkpoint's ``config.json``, applied before any rule
reads it (vllm-config-spec.md §3.2 step 1; facts checked in the 0.30.0-0.34.0 wheels).

vLLM (``config/model.py : ModelConfig.__post_init__`` and ``_apply_dict_overrides`` /
``_update_nested``; ``transformers_utils/config.py : get_config``) splits the JSON object in two:

* keys whose value is not an object are set on the top-level config (``config.update``) right
  after it is loaded, so ``max_model_len``, the quantization method, the architecture and the
  model type are all derived from the overridden values (a dtype key: ``DTYPE_KEYS``);
* keys whose value is an object: when the config already holds a sub-config under that key
  (``text_config``, ``vision_config`` …) the object is merged into it, recursively (nested objects
  merge, other values replace); otherwise (``quantization_config``, ``rope_scaling``) the value
  replaces the key whole.

Invariants: standard library only; the original config is not changed (a new ``HFConfig`` with
``raw`` kept and each overridden key's origin recorded as ``--hf-overrides``); a value that is not
a JSON object is refused with the flag's name and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ...errors import InvalidArgumentError
from ...rules import HFConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ORIGIN = "--hf-overrides"

#: transformers' ``attribute_map`` of config classes whose own key names differ: ``config.update``
#: sets the mapped attribute (GPT-2's ``max_position_embeddings`` is its ``n_positions``).
ATTRIBUTE_MAPS = {
    "gpt2": {
        "max_position_embeddings": "n_positions",
        "hidden_size": "n_embd",
        "num_attention_heads": "n_head",
        "num_hidden_layers": "n_layer",
    },
}
#: dtype keys: under transformers 5 ``config.update({"torch_dtype": …})`` leaves the config without
#: a usable dtype, so vLLM resolves ``--dtype auto`` as for a checkpoint that names none (float32,
#: downcast: bfloat16 for generation, float16 for pooling). Checked against ``create_engine_config``
#: 0.30 and 0.34: ``{"torch_dtype": "float16"}`` on Llama-3.1-8B gives bfloat16, and
#: ``{"torch_dtype": "bfloat16"}`` on the Qwen2.5-Math reward model gives float16.
DTYPE_KEYS = frozenset({"torch_dtype", "dtype"})
#: dict-valued config keys that are plain dicts in transformers, never sub-configs (replaced whole)
_PLAIN_DICT_KEYS = frozenset({"quantization_config", "compression_config", "rope_scaling", "rope_parameters"})


class HfOverridesError(InvalidArgumentError):
    """``--hf-overrides`` is not a JSON object."""


def parse_overrides(value: Any) -> dict[str, Any]:
    """The overrides as a dict: a mapping as is, a JSON text parsed (vLLM's ``--hf-overrides``
    takes a JSON object); None or empty → ``{}``."""
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    try:
        parsed = json.loads(str(value))
    except json.JSONDecodeError as exc:
        raise HfOverridesError(
            f"--hf-overrides must be a JSON object, e.g. '{{\"max_position_embeddings\": 65536}}' ({exc.msg})"
        ) from None
    if not isinstance(parsed, dict):
        raise HfOverridesError(
            f"--hf-overrides must be a JSON object, got {type(parsed).__name__}: pass e.g. "
            "'{\"max_position_embeddings\": 65536}'"
        )
    return parsed


def _merge(target: Mapping[str, Any], updates: Mapping[str, Any]) -> dict[str, Any]:
    """``_update_nested``: objects merge into existing objects, everything else replaces."""
    out = dict(target)
    for key, value in updates.items():
        nested = out.get(key)
        if isinstance(value, Mapping) and isinstance(nested, Mapping):
            out[key] = _merge(nested, value)
        else:
            out[key] = value
    return out


def apply_attribute_map(hf: HFConfig) -> HFConfig:
    """``hf`` as transformers loads it: a ``config.json`` key that is an alias of the class's own
    attribute (``ATTRIBUTE_MAPS``) is set through the map after the class's own keys, so the alias
    wins whatever the key order (``GPT2Config`` with ``n_positions`` 1024 and
    ``max_position_embeddings`` 131072 has ``n_positions`` 131072; checked with transformers 5.20
    of the 0.30/0.34 oracles, ``PretrainedConfig.__setattr__``)."""
    mapped = ATTRIBUTE_MAPS.get(str(hf.get("model_type") or ""), {})
    values = {own: hf.get(alias) for alias, own in mapped.items() if hf.get(alias) is not None}
    values = {own: value for own, value in values.items() if hf.get(own) != value}
    if not values:
        return hf
    return hf.overlay(values, dict.fromkeys(values, "config.json (transformers' attribute map)"))


def apply_hf_overrides(hf: HFConfig, overrides: Any) -> HFConfig:
    """``hf`` as vLLM sees it after ``--hf-overrides`` (see the module docstring)."""
    parsed = parse_overrides(overrides)
    if not parsed:
        return hf
    values: dict[str, Any] = {}
    mapped = ATTRIBUTE_MAPS.get(str(hf.get("model_type") or ""), {})
    for key, value in parsed.items():
        if key in DTYPE_KEYS:  # the checkpoint's dtype is lost, not replaced (see DTYPE_KEYS)
            values.update(dict.fromkeys(DTYPE_KEYS))
            continue
        key = mapped.get(key, key)
        current = hf.get(key)
        if isinstance(value, Mapping) and isinstance(current, HFConfig) and key not in _PLAIN_DICT_KEYS:
            values[key] = _merge(current.to_dict(), value)
        else:
            values[key] = value.to_dict() if isinstance(value, HFConfig) else value
    return hf.overlay(values, dict.fromkeys(values, ORIGIN))
