"""Shared fakes for the engine tests: a small schema and a fresh registry per test.

The fake schema mirrors the one SGLang's own override tests use (upstream notes §1.1): a plain
int, a resolvable string published under a group leaf, a resolvable optional int published
flat, and a bool that carries metadata but is not resolvable. Registries are plain objects, so
every test gets its own; nothing here touches ``resolvable.sglang``.
"""

from __future__ import annotations

import dataclasses

import pytest

# ``platform.is_sm90`` (Hopper with CUDA >= 12.3) is the SGLang pack's predicate, not an engine
# fact (resolvable.sglang.platform_facts); these tests use it as their example predicate.
import resolvable.sglang.platform_facts  # noqa: F401
from resolvable import HFConfig, Platform, Registry, Stage, arg

BACKENDS = ("auto", "fa3", "flashinfer", "triton", "dsv4")
ARCH = "FakeForCausalLM"


@dataclasses.dataclass
class FakeArgs:
    plain: int = arg(0, help="A plain, non-resolvable integer.")
    resolved_by_model: str = arg(
        "auto", resolvable=True, leaf="attn.backend", choices=BACKENDS, help="Attention kernel."
    )
    also_resolved: int | None = arg(None, resolvable=True, help="Resolved, published flat.")
    metadata_but_not_resolvable: bool = arg(False, help="Has metadata, but rules may not declare it.")


def _new_registry(name: str = "fake", version: str = "1") -> Registry:
    return Registry(
        FakeArgs,
        stages=["device", Stage("model", isolated=True), "passes"],
        model_stage="model",
        name=name,
        version=version,
    )


@pytest.fixture
def fake_args() -> type[FakeArgs]:
    """The fake schema class (tests take it from here rather than importing conftest)."""
    return FakeArgs


@pytest.fixture
def arch() -> str:
    return ARCH


@pytest.fixture
def new_registry():
    """Factory for extra fresh registries (same schema and stages as ``registry``)."""
    return _new_registry


@pytest.fixture
def registry() -> Registry:
    """A fresh, empty registry over ``FakeArgs``: stages device → model (isolated) → passes."""
    return _new_registry()


@pytest.fixture
def h100() -> Platform:
    return Platform.preset("h100")


@pytest.fixture
def hf() -> HFConfig:
    return HFConfig({"architectures": [ARCH], "model_type": "fake", "num_layers": 2})
