"""The selector input of one layer kind: vLLM's ``AttentionSelectorConfig`` plus the hidden inputs.

vLLM's backends read more than the 18 fields of ``v1/attention/selector.py :
AttentionSelectorConfig``: the current ``VllmConfig`` (HF dims, heads per rank, DCP size, the
run-wide cache dtype), the platform and the install (spec §1.3). A ``LayerQuery`` carries all of
them explicitly, so every candidate check is a pure function of one immutable record.

Invariants: a query is built only from the rule context (view, hf config, platform, env), never
from the process; ``cc`` is None off CUDA/ROCm; capability helpers follow vLLM's
``DeviceCapability`` comparisons and ``is_device_capability_family`` (major*10+minor // 10).
"""

from __future__ import annotations

from collections import namedtuple

FIELDS = (
    # -- AttentionSelectorConfig (v1/attention/selector.py) ---------------------------------
    "head_size",
    "dtype",  # "float16" | "bfloat16" | "float32"
    "kv_cache_dtype",  # the layer's cache dtype ("auto" when unquantized)
    "block_size",  # the user's --block-size, else None
    "use_mla",
    "has_sink",
    "use_sparse",
    "use_mm_prefix",
    "use_per_head_quant_scales",
    "attn_type",  # decoder | encoder | encoder_only | encoder_decoder
    "has_sliding_window",
    "use_non_causal",
    "use_batch_invariant",
    "use_kv_connector",
    "use_pcp",
    "use_adaptive_verification",
    "use_dcp",
    "use_rswa",
    # -- hidden inputs (spec §1.3) ---------------------------------------------------------------
    "kind",  # this pack's layer kind: full, sliding_window, mla, indexer, encoder, cross
    "vendor",  # Platform.vendor
    "cc",  # (major, minor) or None
    "gcn_arch",
    "kernels",  # frozenset of installed optional kernels
    "num_heads",  # query heads per TP rank
    "num_kv_heads",  # KV heads per TP rank
    "dcp_size",
    "pcp_size",
    "head_size_v",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "kv_lora_rank",
    "index_topk",  # None when absent
    "softcap",  # HF attn_logit_softcapping is set
    "is_diffusion",
    "is_encoder_decoder",  # the model is encoder-decoder (ModelConfig.attn_type == "encoder_decoder")
    "flash_attn_version_cfg",  # attention_config.flash_attn_version (None: auto)
    "use_trtllm",  # attention_config.use_trtllm_attention (None: auto)
    "cache_dtype",  # the run-wide cache_config.cache_dtype
    "env",  # frozenset of enabled boolean env switches (VLLM_ROCM_USE_AITER, ...)
    "model_type",
    # -- the release (vllm/changes.py) -----------------------------------------------------------
    "changes",  # frozenset: "NAME" for a change the release has, "!NAME" for one it lacks
)


class LayerQuery(namedtuple("LayerQuery", FIELDS)):
    """Everything a candidate check may read for one layer kind (immutable)."""

    __slots__ = ()

    # -- device capability, as vLLM compares it ------------------------------------------------
    @property
    def major(self) -> int:
        return self.cc[0] if self.cc else -1

    def cc_at_least(self, major: int, minor: int = 0) -> bool:
        return self.cc is not None and tuple(self.cc) >= (major, minor)

    def family(self, family: int) -> bool:
        """``Platform.is_device_capability_family(90|100|110|120)``."""
        return self.cc is not None and (self.cc[0] * 10 + self.cc[1]) // 10 == family // 10

    def is_cc(self, major: int, minor: int) -> bool:
        """``Platform.is_device_capability(90)``: exactly this capability."""
        return self.cc is not None and tuple(self.cc) == (major, minor)

    def has(self, kernel: str) -> bool:
        return kernel in self.kernels

    def flag(self, name: str) -> bool:
        return name in self.env

    def changed(self, change: object) -> bool:
        """Whether the release has ``change`` (a ``Change`` of ``vllm.changes.CHANGES``). The
        query carries the answers of its vendor's ``SELECTION`` list, read from ``ctx.release``
        (traced) when the query was built; a change outside that list is a pack bug."""
        name = getattr(change, "name", change)
        if name in self.changes:
            return True
        if "!" + str(name) in self.changes:
            return False
        raise LookupError(f"change {name} is not in vllm.changes.SELECTION[{self.vendor!r}]")

    def replace(self, **changes: object) -> LayerQuery:
        return self._replace(**changes)
