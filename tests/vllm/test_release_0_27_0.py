"""vLLM 0.27.0 (issue 32 item 1): a patch release below 0.27.1 with nothing modelled that differs
(docs/releases/vllm-0.27.1.md: only the DSpark draft head changed), so no change arrives in 0.27.1
and every answer equals 0.27.1's; measured against the 0.27.0 oracle (docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES
from resolvable.vllm.flags import load_table


def test_0_27_0_is_resolved_with_no_change_of_its_own():
    i = registry.releases.index("0.27.0")
    assert registry.releases[i : i + 2] == ("0.27.0", "0.27.1")
    assert not CHANGES.introduced("0.27.1")
    assert [f.dest for f in load_table("0.27.0")] == [f.dest for f in load_table("0.27.1")]


@pytest.mark.parametrize(
    ("model", "preset", "flags"),
    [
        ("qwen3-next-80b-a3b", "b200", {"tensor_parallel_size": 4, "attention_backend": "FLASH_ATTN"}),
        ("gpt-oss-120b", "rtxpro6000", {}),
        ("deepseek-v3", "h100", {"tensor_parallel_size": 8}),
    ],
)
def test_answers_equal_0_27_1(model, preset, flags):
    keys = ("attn_backend_full", "attn_backend_mla", "block_size", "flash_attn_version", "cudagraph_mode")
    old = res(model, preset, vllm_version="0.27.0", **flags)
    new = res(model, preset, vllm_version="0.27.1", **flags)
    assert [old[k] for k in keys] == [new[k] for k in keys]
