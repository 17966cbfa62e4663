"""Which resolved vLLM fields a launch makes irrelevant (``Pack.not_applicable``): ``explain`` and
``resolve`` leave them out unless ``--all`` (issue 26, "only what applies"), as the SGLang pack
does (``resolvable.sglang.applicable``).

vLLM's ``VllmConfig.__post_init__`` fills some attention settings for every model although only
one kind of layer reads them; each group applies only where the resolution has that kind of
layer (the same facts the selector reads, ``resolvable.vllm.layers.kinds_of``):

* MLA (``attn_backend_mla``, ``mla_prefill_backend``): only with ``use_mla``
  (``ModelConfig.use_mla``);
* sparse MLA (``sparse_mla_prefill_workspace_factor``, resolved from ``max_model_len`` for every
  model since 0.32, ``config/vllm.py``; ``attn_backend_indexer``): only for an MLA model with the
  DeepSeek sparse indexer (``index_topk``), i.e. where an indexer backend was chosen.

Invariants: standard library only; reads the resolution alone (the CLI passes no config); a field
the resolution does not hold is never named.
"""

from __future__ import annotations

from typing import Any

MLA_FIELDS = ("attn_backend_mla", "mla_prefill_backend")
SPARSE_MLA_FIELDS = ("sparse_mla_prefill_workspace_factor", "attn_backend_indexer")


def not_applicable(res: Any, hf: Any = None) -> frozenset[str]:
    """The fields of ``res`` that the model or launch makes irrelevant (``hf`` is not needed)."""
    out: list[str] = []
    mla = bool(res["use_mla"]) if "use_mla" in res else True
    if not mla:
        out += MLA_FIELDS
    indexer = "attn_backend_indexer" in res and res["attn_backend_indexer"] not in (None, "")
    if not (mla and indexer):
        out += SPARSE_MLA_FIELDS
    return frozenset(f for f in out if f in res)
