"""The draft model's length limiting ``max_model_len`` (vllm-config-spec.md §3.2, §3.16; issue 28).

0.33+ ``VllmConfig.__post_init__`` calls ``_limit_max_model_len_to_draft`` (``config/vllm.py``)
after ``verify_with_parallel_config``: when the draft model's ``max_model_len`` is below the
target's, the target's is lowered to it — unless the draft *shares the target's positions*. Facts
read from the wheels (/work/oracle-vllm/v0.33.0, v0.34.0):

* the draft's length is its own ``ModelConfig``'s (``_get_and_verify_max_len`` on the draft's
  ``config.json``; the target's length when the draft config names no length key,
  ``spec_target_max_model_len``), or the speculative config's ``max_model_len``; then
  ``SpeculativeConfig._maybe_override_draft_max_model_len`` takes the smaller of it and the
  target's;
* a draft shares the target's positions when its method is not ``draft_model`` and every RoPE
  parameter set of its config has a type in ``_CACHE_ONLY_ROPE_TYPES`` (``default``, ``linear``,
  ``llama3``, ``ntk``, ``proportional``): vLLM then raises the draft's
  ``max_position_embeddings`` instead (``_maybe_override_draft_max_position_embeddings``).
  0.33: ``SpeculativeConfig.draft_shares_target_positions``; 0.34:
  ``DraftModelSpeculatorConfig.max_model_len`` (``shares_target_positions``, False for the
  stand-alone draft model ``StandaloneARSpeculatorConfig``);
* 0.33 limits only under the V2 model runner (``not self.use_v2_model_runner`` returns); 0.34
  has no other runner. 0.28-0.32 have no such limit (named change ``DRAFT_LIMITS_MAX_MODEL_LEN``).

Invariants: methods without a draft model (n-gram, suffix) never limit; a draft named by a hub
id is not fetched (``draft.load_draft_config``), so nothing is limited then; a draft-less MTP
(or DSpark) draft is the target's own config. Standard library only.
"""

from __future__ import annotations

from ...rules import Force, HFConfig
from .._base import registry
from ..changes import CHANGES
from .draft import load_draft_config
from .facts import rope_parameters
from .model_config import length_facts
from .speculative import NO_MODEL_METHODS, parse_speculative_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``config/speculative.py : _CACHE_ONLY_ROPE_TYPES`` (0.33, 0.34): RoPE types whose
#: ``max_position_embeddings`` only sizes the cos/sin cache
CACHE_ONLY_ROPE_TYPES = frozenset({"default", "linear", "llama3", "ntk", "proportional"})


def rope_only_sizes_cache(hf: HFConfig) -> bool:
    """``_rope_only_sizes_cache``: every RoPE parameter set of the (text) config is cache-only
    (no RoPE parameters at all reads as ``default``)."""
    return all(
        str(rp.get("rope_type", rp.get("type", "default"))) in CACHE_ONLY_ROPE_TYPES
        for rp in rope_parameters(hf.text_config)
    )


def draft_max_model_len(draft: HFConfig, spec: dict[str, Any], target_len: int) -> int:
    """The draft ``ModelConfig``'s length after ``_maybe_override_draft_max_model_len``."""
    explicit = spec.get("max_model_len")
    if isinstance(explicit, int) and not isinstance(explicit, bool) and explicit > 0:
        return explicit  # larger than either side is refused by vLLM (not modelled here)
    missing, derived, _key, longrope = length_facts(draft, False)
    own = target_len if missing else (longrope if longrope is not None else int(derived))
    return min(own, target_len)


@registry.rule("vllm_config")
def limit_max_model_len_to_draft(ctx: Any) -> dict[str, Any]:
    """``VllmConfig._limit_max_model_len_to_draft`` (0.33+): the draft's shorter length wins
    unless the draft shares the target's positions (module docstring)."""
    if not ctx.release.has(CHANGES.DRAFT_LIMITS_MAX_MODEL_LEN):
        return {}
    if not ctx.release.has(CHANGES.MODEL_RUNNER_V1_REMOVED) and not ctx.args.use_v2_model_runner:
        return {}
    method = ctx.args.speculative_method
    target_len = ctx.args.max_model_len
    if not method or method in NO_MODEL_METHODS or not isinstance(target_len, int) or target_len <= 0:
        return {}
    spec = parse_speculative_config(ctx.args.speculative_config)
    model = spec.get("model")
    if model is None:
        draft = ctx.hf  # MTP/DSpark without a model: the target's own checkpoint
    else:
        raw = load_draft_config(model)
        if raw is None:
            return {}  # a hub id: not fetched, nothing known
        draft = HFConfig(raw, source=f"{model}/config.json")
    if method != "draft_model" and rope_only_sizes_cache(draft):
        return {}
    limit = draft_max_model_len(draft, spec, target_len)
    if limit >= target_len:
        return {}
    # vLLM lowers a --max-model-len the user gave too (dev operators-8001-00282, 0.34 oracle)
    return {
        "max_model_len": Force(limit, f"the draft model's length ({limit}): vLLM lowers max_model_len to it")
    }
