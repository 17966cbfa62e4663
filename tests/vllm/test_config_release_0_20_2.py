"""vLLM 0.20.2's engine configuration (issue 32): the configuration changes 0.21.0 brought
(``vllm/config/changes.py``, block "0.20.2 -> 0.21.0"), one test per change, 0.20.2 against
0.21.0. Facts from the two wheels' diff (``platforms/rocm.py``; ``docs/releases/vllm-0.21.0.md``)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.vllm.changes import CHANGES


def test_the_0_21_configuration_changes_are_named():
    assert {"ROCM_QUANTIZATION_MODELOPT_ONLINE", "CPU_QUANTIZED_KV_CACHE"} <= {
        c.name for c in CHANGES.introduced("0.21.0")
    }


def test_rocm_quantization_list_before_0_21():
    """platforms/rocm.py : RocmPlatform.supported_quantization: 0.21 adds modelopt (and seven
    more); 0.20.2's ModelConfig._verify_quantization refuses it on ROCm before any file is read."""
    with pytest.raises(ValueError, match="modelopt quantization is currently not supported in rocm"):
        res("llama-3.1-8b", "mi300x", quantization="modelopt", vllm_version="0.20.2")
    with pytest.raises(ValueError, match="Cannot find the config file for modelopt"):
        res("llama-3.1-8b", "mi300x", quantization="modelopt", vllm_version="0.21.0")


def test_cpu_quantized_kv_cache_before_0_21():
    """platforms/cpu.py : CpuPlatform.check_and_update_config: 0.20.2 refuses an fp8 cache with
    chunked prefill or prefix caching (both on by default) and otherwise falls back to auto; 0.21
    keeps it (found on the 0.20.2 configuration-operators held-out run, docs/vllm.md)."""
    with pytest.raises(ValueError, match="not compatible with FP8 KV cache"):
        res("llama-3.1-8b", "cpu", kv_cache_dtype="fp8", vllm_version="0.20.2")
    off = dict(kv_cache_dtype="fp8", enable_chunked_prefill=False, enable_prefix_caching=False)
    assert res("llama-3.1-8b", "cpu", vllm_version="0.20.2", **off)["kv_cache_dtype"] == "auto"
    assert res("llama-3.1-8b", "cpu", kv_cache_dtype="fp8", vllm_version="0.21.0")["kv_cache_dtype"] == "fp8"
