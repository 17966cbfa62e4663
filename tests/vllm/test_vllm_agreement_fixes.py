"""Golden cases for the misses the selector agreement found (h17o, dev seed 3117, vLLM 0.33.0 and
0.34.0): each is the repro of its cause, with the real vLLM's answer."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm import load_model


@pytest.mark.parametrize("release", ["0.33.0", "0.34.0"])
def test_dtype_half_is_float16_for_the_selector(release):
    """selector-3117-00173 (llama-3.1-8b, head_dim 96, --dtype half): vLLM reads "half" as
    torch.float16 before any backend sees it; the pack refused "dtype not supported"."""
    hf = load_model("llama-3.1-8b")
    r = res(hf, "h100", vllm_version=release, dtype="half", tensor_parallel_size=8)
    assert r["dtype"] == "float16"
    assert r["attn_backend_full"] == "FLASH_ATTN"
    assert r["block_size"] == (64 if release == "0.34.0" else 16)


def test_dtype_half_on_mla_a100():
    """selector-3117-00524 (kimi-k2-instruct, --dtype half on A100): accepted, TRITON_MLA."""
    r = res("kimi-k2-instruct", "a100", vllm_version="0.34.0", dtype="half")
    assert r["dtype"] == "float16" and r["attn_backend_mla"] == "TRITON_MLA"


def test_dtype_float_is_float32():
    r = res("llama-3.1-8b", "h100", vllm_version="0.34.0", dtype="float")
    assert r["dtype"] == "float32"
