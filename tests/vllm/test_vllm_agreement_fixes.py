"""Golden cases for the misses the selector agreement found (h17o, dev seed 3117, vLLM 0.33.0 and
0.34.0): each is the repro of its cause, with the real vLLM's answer."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
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

    from resolvable.sglang.models import MODELS_DIR
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
        kv_cache_dtype="float16",
        kernels="flashinfer=0",
    )
    assert (r["attn_backend_full"], r["block_size"], r["flash_attn_version"]) == ("FLASH_ATTN", 32, 2)
    assert r["dtype"] == "float16"
    # The selector oracle's case had a bfloat16 KV cache: the whole engine (0.33+,
    # VllmConfig._reject_mismatched_float_kv_cache) refuses that with a float16 model.
    with pytest.raises(ConflictError, match='kv_cache_dtype="bfloat16" is incompatible with dtype="float16"'):
        resolve_vllm_args(
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


@pytest.mark.parametrize(
    "release, backend",
    [("0.21.0", "ROCM_ATTN"), ("0.27.0", "ROCM_ATTN"), ("0.31.0", "ROCM_ATTN"), ("0.32.0", "TRITON_ATTN")],
)
def test_rocm_attn_takes_mm_prefix_layers_through_0_31(release, backend):
    """operators-5531-00046 (h32t, dev, vLLM 0.27.0: gemma-3-27b on MI355X, aiter=0, -tp 8):
    rocm_attn.py : RocmAttentionBackend.supports_mm_prefix is True through 0.31 and False from
    0.32 (CHANGES.ROCM_ATTN_NO_MM_PREFIX); the pack refused ROCM_ATTN on every release and picked
    TRITON_ATTN, vLLM 0.27.0 picked ROCM_ATTN for both layer kinds."""
    r = res("gemma-3-27b", "mi355x", vllm_version=release, kernels="aiter=0", tensor_parallel_size=8)
    assert (r["attn_backend_full"], r["attn_backend_sliding_window"]) == (backend, backend)
