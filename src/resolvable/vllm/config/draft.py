"""A speculative draft model's own ``config.json`` (vllm-config-spec.md §3.16).

When ``--speculative-config`` names a draft ``model`` that is a local directory, vLLM builds the
draft's ``ModelConfig`` from that directory (0.28-0.33: ``SpeculativeConfig.__post_init__`` in
``config/speculative.py``; 0.34: ``DraftModelSpeculatorConfig.configure`` in
``v1/worker/gpu/spec_decode/speculator_config.py``). Of that config, what
``create_engine_config``'s fields depend on and is the same in 0.28-0.34:

* ``n_predict`` — the draft's own number of speculative tokens. Unset ``num_speculative_tokens``
  defaults to it; a larger one must be a multiple of it (0.34:
  ``DraftModelSpeculatorConfig.resolve_num_speculative_tokens``). DFlash/DSpark drafts without
  ``n_predict`` use their ``block_size``.
* ``draft_tensor_parallel_size`` is checked against the target's TP once a draft model is set
  (``SpeculativeConfig._verify_and_get_draft_tp``): only 1 or the target's TP.

Invariants: a draft named by a hub id (not a local directory) is not fetched — nothing here is
read then, and the caller keeps its offline behaviour; a directory whose ``config.json`` is not a
JSON object is an input error naming the file. Standard library only.
"""

from __future__ import annotations

from ...errors import InvalidArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load_draft_config(model: Any) -> dict[str, Any] | None:
    """The draft's ``config.json`` when ``model`` is a local directory holding one, else None."""
    if not isinstance(model, str) or not model:
        return None
    import json  # lazily: `import resolvable.vllm` stays light
    import os

    path = os.path.join(os.path.expanduser(model), "config.json")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError) as exc:
        raise InvalidArgumentError(
            f"speculative draft config {path} cannot be read as JSON ({exc}); point "
            '"model" in --speculative-config at a directory with a valid config.json'
        ) from None
    if not isinstance(value, dict):
        raise InvalidArgumentError(
            f"speculative draft config {path} is not a JSON object; point "
            '"model" in --speculative-config at a directory with a valid config.json'
        )
    return value


def draft_n_predict(config: dict[str, Any], method: str) -> int | None:
    """The draft's ``n_predict`` (``block_size`` for a DFlash/DSpark draft without one); None
    when the config names neither (EAGLE/EAGLE3 heads and plain draft models usually don't)."""
    value = config.get("n_predict")
    if value is None and method in ("dflash", "dspark"):
        value = config.get("block_size")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def draft_tp_ok(draft_tp: Any, target_tp: int) -> bool:
    """``_verify_and_get_draft_tp``: an explicit draft TP is 1 or the target's."""
    return draft_tp is None or draft_tp in (1, target_tp)
