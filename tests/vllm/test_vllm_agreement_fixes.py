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


def test_h17o_repro_00297_dtype_half_through_the_api():
    """h17o findings #1, case selector-3117-00297-5c6f228e (vLLM 0.34.0): llama-3.1-8b with 16 KV
    heads and a compressed-tensors fp8 checkpoint on A100, --dtype half --attention-backend
    FLASH_ATTN --block-size 32 -tp 2 --kv-cache-dtype bfloat16, flashinfer absent: vLLM picks
    FLASH_ATTN (FA2), block 32."""
    import json

    from resolvable._bundled import MODELS_DIR
    from resolvable.vllm import resolve_vllm_args
    from resolvable.vllm.platforms import platform

    with open(f"{MODELS_DIR}/llama-3.1-8b.json", encoding="utf-8") as fh:
        config = json.load(fh)
    config["num_key_value_heads"] = 16
    config["quantization_config"] = {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {
                    "num_bits": 8,
                    "type": "float",
                    "strategy": "channel",
                    "symmetric": True,
                    "dynamic": False,
                },
                "input_activations": {
                    "num_bits": 8,
                    "type": "float",
                    "strategy": "token",
                    "symmetric": True,
                    "dynamic": True,
                },
            }
        },
        "ignore": ["lm_head"],
    }
    r = resolve_vllm_args(
        config,
        platform("a100"),
        {},
        vllm_version="0.34.0",
        dtype="half",
        attention_backend="FLASH_ATTN",
        block_size=32,
        tensor_parallel_size=2,
        kv_cache_dtype="bfloat16",
        kernels="flashinfer=0",
    )
    assert (r["attn_backend_full"], r["block_size"], r["flash_attn_version"]) == ("FLASH_ATTN", 32, 2)
