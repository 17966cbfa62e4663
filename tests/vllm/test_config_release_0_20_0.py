"""vLLM 0.20.0 (issue 32 item 1): resolved with 0.20.1's rules minus the configuration change
0.20.1 brought (``vllm/config/changes.py``, block "0.20.0 -> 0.20.1"; ``docs/releases/vllm-0.20.1.md``),
0.20.0 against 0.20.1. 0.20.1 -> 0.20.2 changes nothing the pack reads."""

from __future__ import annotations

from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES


def test_0_20_0_and_0_20_1_are_resolved():
    assert registry.releases[:4] == ("0.20.0", "0.20.1", "0.20.2", "0.21.0")
    assert {c.name for c in CHANGES.introduced("0.20.1")} == {"CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET"}
    assert not list(CHANGES.introduced("0.20.2"))


def test_token_budget_joins_the_capture_sizes_from_0_20_1():
    """config/vllm.py : VllmConfig._set_cudagraph_sizes: 0.20.1 appends an off-stride
    max_num_batched_tokens (300) that fits under the capture limit; 0.20.0 stops at 288."""
    kw = dict(max_num_batched_tokens=300, max_num_seqs=256)
    new = res("llama-3.1-8b", "h100", vllm_version="0.20.1", **kw)
    old = res("llama-3.1-8b", "h100", vllm_version="0.20.0", **kw)
    assert new["cudagraph_capture_sizes"][-2:] == [288, 300] and new["max_cudagraph_capture_size"] == 300
    assert old["cudagraph_capture_sizes"][-2:] == [272, 288] and old["max_cudagraph_capture_size"] == 288
