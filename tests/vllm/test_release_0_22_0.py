"""vLLM 0.22.0 (issue 32 item 1): a patch release below 0.22.1 with nothing modelled that differs
(docs/releases/vllm-0.22.1.md), so no change arrives in 0.22.1 and the answers equal 0.22.1's;
measured against the 0.22.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES
from resolvable.vllm.flags import load_table


def test_0_22_0_is_resolved_with_no_change_of_its_own():
    i = registry.releases.index("0.22.0")
    assert registry.releases[i : i + 2] == ("0.22.0", "0.22.1")
    assert not CHANGES.introduced("0.22.1")
    assert [f.dest for f in load_table("0.22.0")] == [f.dest for f in load_table("0.22.1")]


@pytest.mark.parametrize(
    ("model", "preset", "flags"),
    [
        ("glm-5", "h100", {"tensor_parallel_size": 8}),
        ("gemma-3-27b", "b200", {"tensor_parallel_size": 4}),
        ("llama-3.1-8b", "mi300x", {"kv_connector": True}),
    ],
)
def test_answers_equal_0_22_1(model, preset, flags):
    keys = (
        "attn_backend_full",
        "attn_backend_mla",
        "block_size",
        "flash_attn_version",
        "mla_prefill_backend",
    )
    old = res(model, preset, vllm_version="0.22.0", **flags)
    new = res(model, preset, vllm_version="0.22.1", **flags)
    assert [old[k] for k in keys] == [new[k] for k in keys]
