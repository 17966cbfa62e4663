"""Bundled model configs, shared with the SGLang pack (one set of files, two packs).

Invariant: the vLLM pack keeps no copies: its ``Samples`` reads the files of
``resolvable/sglang/models`` by path, without importing the SGLang rules.
"""

from __future__ import annotations

import os

from ..rules import Samples

#: The SGLang pack's sample directory (data shared by path; no import of that pack).
SAMPLES = Samples(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sglang", "models")
)
bundled = SAMPLES.bundled
catalog = SAMPLES.catalog
load_model = SAMPLES.load_model

__all__ = ["bundled", "catalog", "load_model"]
