"""HRM-Text load-time adjustment (spec §3.19, §6.10; since 0.5.15, §9 #12).

Invariant: not a rule — sglang's ModelRunner applies it after ``__post_init__``. Here it is
an ``adjust`` of the resolution (recorded like any declaration), so the published
``attn.backend`` always equals the final value.
"""

from __future__ import annotations

from ..._release import ReleaseRange
from ..._resolution import Resolution

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

SOURCE = "ModelRunner.model_specific_adjustment"
#: The releases whose ModelRunner makes the adjustment (0.5.14 has no HRM-Text rule, §9 #12).
RELEASES = ReleaseRange(since="0.5.15")


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
    if not RELEASES.contains(res.release):
        return res
    fields = {k: v for k, v in hrm_text_adjustments(hf).items() if res[k] != v}
    return res.adjust(SOURCE, **fields) if fields else res
