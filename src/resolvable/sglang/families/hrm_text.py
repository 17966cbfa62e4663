"""HRM-Text adjustment (spec §3.19, §6.10; since 0.5.15, §9 #12).

Invariant: not a rule — it runs after every rule of ``__post_init__``: in 0.5.15 sglang's
ModelRunner applies it when the model loads (``LOAD_TIME``); since 0.5.16 it is the last step
of ``ServerArgs.__post_init__`` (``POST_INIT``, ``_handle_model_capability_adjustments``), so
``load_time=False`` includes it too. Here it is an ``adjust`` of the resolution (recorded
like any declaration), so the published ``attn.backend`` always equals the final value.
"""

from __future__ import annotations

from ...rules import ReleaseRange, Resolution

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

SOURCE = "ModelRunner.model_specific_adjustment"
POST_INIT_SOURCE = "ServerArgs._handle_model_capability_adjustments"
#: The releases that make the adjustment (0.5.14 has no HRM-Text rule, §9 #12).
RELEASES = ReleaseRange(since="0.5.15")
#: ... at model load (the ModelRunner) ...
LOAD_TIME = ReleaseRange(since="0.5.15", until="0.5.16")
#: ... or at the end of ``ServerArgs.__post_init__`` (0.5.16 moved it there).
POST_INIT = ReleaseRange(since="0.5.16")


def is_prefix_lm_hrm_text(hf: Any) -> bool:
    return (hf.get("model_type") == "hrm_text" or "HrmTextForCausalLM" in hf.architectures) and bool(
        hf.get("prefix_lm", True)
    )


def hrm_text_adjustments(hf: Any) -> dict[str, Any]:
    """The fields the model runner forces for a prefix-LM HRM-Text model (empty otherwise)."""
    if not is_prefix_lm_hrm_text(hf):
        return {}
    return {
        "attention_backend": "triton",
        "chunked_prefill_size": -1,
        "disable_radix_cache": True,
        "disable_cuda_graph": True,
        "cuda_graph_backend_prefill": "disabled",
        "cuda_graph_backend_decode": "disabled",
    }


def apply_load_time_adjustments(res: Resolution, hf: Any) -> Resolution:
    """§3.19: force triton etc. for prefix-LM HRM-Text (target worker), in ``RELEASES``."""
    if not (adjustments := hrm_text_adjustments(hf)) or not RELEASES.contains(res.release):  # model first
        return res
    source = POST_INIT_SOURCE if POST_INIT.contains(res.release) else SOURCE
    fields = {k: v for k, v in adjustments.items() if res[k] != v}
    return res.adjust(source, **fields) if fields else res


def apply_post_init_adjustments(res: Resolution, hf: Any) -> Resolution:
    """The part of the adjustment that ``ServerArgs.__post_init__`` already makes (``POST_INIT``)."""
    return apply_load_time_adjustments(res, hf) if POST_INIT.contains(res.release) else res
