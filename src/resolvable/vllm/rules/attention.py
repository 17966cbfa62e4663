"""Stage "attention": the backend of every layer kind, chosen from candidates (spec §1, §3).

One rule declares every per-kind field at once, each as ``Chosen(backend, choice)``, so
``explain`` shows, per kind, every candidate of the platform's priority list with the reasons it
was rejected (vLLM's "invalid reasons", before launching). The selected backend of a kind is
``backend_per_kind[kind]`` if given, else ``--attention-backend`` (``selector.py :
get_attn_backend`` step 3). Stage "attention_late" then applies the sparse-MLA kv-cache dtype
canonicalisation (spec §5).
"""

from __future__ import annotations

from ...rules import Chosen, Force
from .._base import registry
from ..args import KIND_FIELDS
from ..select import select
from ._inputs import queries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: This pack's kinds → vLLM's ``KVCacheSpecKind`` (the ``backend_per_kind`` keys).
SPEC_KIND = {
    "full": "full_attention",
    "sliding_window": "sliding_window",
    "mla": "mla_attention",
    "encoder": "encoder_only_attention",
    "cross": "cross_attention",
}


def per_kind_overrides(entries: list[str]) -> dict[str, str]:
    out = {}
    for entry in entries or ():
        kind, _, name = str(entry).partition("=")
        out[kind.strip()] = name.strip().upper()
    return out


@registry.rule("attention")
def select_backends(ctx: Any) -> dict[str, Any]:
    """Spec §1 steps 3-4 and §3: per layer kind, validate the selected backend or choose the first
    valid candidate of the platform's priority list."""
    if ctx.hf is None:
        return {}
    overrides = per_kind_overrides(ctx.args.backend_per_kind)
    out: dict[str, Any] = {}
    for q in queries(ctx):
        selected = overrides.get(SPEC_KIND.get(q.kind, ""), ctx.args.attention_backend)
        label = f"{q.kind} layers"
        choice = select(q, selected, label)
        out[KIND_FIELDS[q.kind]] = Chosen(choice.chosen, choice)
    return out


@registry.rule("attention_late")
def sparse_mla_cache_dtype(ctx: Any) -> dict[str, Any]:
    """Spec §5 (``mla_attention.py : _canonicalize_sparse_mla_kv_cache_dtype``): FLASHMLA_SPARSE serves a
    quantized cache as fp8_ds_mla; FLASHINFER_MLA_SPARSE_SM120 serves auto/fp8 as fp8_ds_mla."""
    backend, kv = ctx.args.attn_backend_mla, ctx.args.kv_cache_dtype
    new = kv
    if (backend == "FLASHMLA_SPARSE" and kv not in ("auto", "float16", "bfloat16", "nvfp4_ds_mla")) or (
        backend == "FLASHINFER_MLA_SPARSE_SM120" and kv in ("auto", "fp8", "fp8_e4m3")
    ):
        new = "fp8_ds_mla"
    if new == kv:
        return {}
    return {"kv_cache_dtype": Force(new, f"{backend} stores the sparse-MLA cache as {new}")}
