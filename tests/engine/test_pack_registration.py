"""The shipped packs' registration checks, run here once instead of on every import.

``resolvable.sglang`` freezes its registry with ``check=False`` (import cost that grows with the
release count: docs/benchmarks.md §9), so the checks ``freeze`` would make run here: every
release chain (series) has no overlap and no gap, and the rules registered in the declared
module order. A broken chain or a module imported early fails this test.
"""

from __future__ import annotations

import pytest

from resolvable import packs
from resolvable.errors import RegistrationError


def _registries():
    import resolvable.sglang as sglang
    import resolvable.vllm as vllm

    del vllm  # imported for the pack registry
    return {"sglang": sglang.registry, "vllm": packs.get("vllm").registry}


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_release_chains_valid(engine):
    registry = _registries()[engine]
    assert registry.releases  # release-aware: validate() has chains to check
    registry.validate()  # raises RegistrationError on an overlap or a gap


def test_sglang_registration_order_is_the_declared_order():
    import resolvable.sglang as sglang

    registry = sglang.registry
    assert registry.declared_order == tuple(f"resolvable.sglang.{m}" for m in sglang.RULE_MODULES)
    registry.check_order(registry.declared_order)
    # The check can fail: the same rules against the declared order reversed.
    with pytest.raises(RegistrationError, match="registered after the rules of"):
        registry.check_order(registry.declared_order[::-1])


def test_shipped_pack_is_frozen_without_the_import_time_checks():
    import resolvable.sglang as sglang

    with pytest.raises(RegistrationError, match="is frozen"):
        sglang.registry.rule("model")(lambda ctx: {})
