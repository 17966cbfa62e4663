"""Bundled model configs, shared with the SGLang pack (one set of files, two packs).

Invariant: the vLLM pack keeps no copies: ``resolvable._bundled`` reads the files of
``resolvable/sglang/models`` by path, without importing the SGLang rules.
"""

from __future__ import annotations

from .._bundled import bundled, catalog, load_model

__all__ = ["bundled", "catalog", "load_model"]
