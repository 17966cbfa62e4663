"""Shared helpers of the per-release golden tests (``test_release_<V>.py``): resolve one input
for a named sglang release, and read a refusal's text."""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable.errors import ConflictError
from resolvable.sglang import resolve_server_args
from resolvable.sglang.models import load_model

#: The six attention fields the agreement measurements compare.
SIX = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "page_size",
    "dtype",
    "kv_cache_dtype",
)


def resolve_at(model, preset: str, version: str, **flags):
    """Resolve a bundled model name (or a config mapping) on a preset for one sglang release."""
    hf = load_model(model) if isinstance(model, str) else model
    return resolve_server_args(hf, Platform.preset(preset), sglang_version=version, **flags)


def refusal_at(model, preset: str, version: str, exc=ConflictError, **flags) -> str:
    """The text of the refusal ``resolve_at`` must raise."""
    with pytest.raises(exc) as info:
        resolve_at(model, preset, version, **flags)
    return str(info.value)
