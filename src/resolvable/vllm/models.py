"""Bundled model configs, shared with the SGLang pack (one set of files, two packs).

Invariant: the vLLM pack never keeps its own copies; it reads ``resolvable/sglang/models``
through the SGLang pack's loader (``resolvable.sglang.models`` imports no SGLang rule), so a
sample added there is available to both packs.
"""

from __future__ import annotations

from ..sglang.models import bundled, catalog, load_model

__all__ = ["bundled", "catalog", "load_model"]
