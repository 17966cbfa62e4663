"""Golden tests: every worked example of vllm-config-spec.md §7 (E1-E12), 0.33.0 unless noted."""

from __future__ import annotations

import pytest
from config_cases import refusal, res

from resolvable.errors import ConflictError
from resolvable.vllm import load_model
from resolvable.vllm.config.startup import check_startup

GRID_512 = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]


def test_e1_llama_8b_on_h100():
    r = res("llama-3.1-8b", "h100")
    assert r["dtype"] == "bfloat16"
    assert r["max_model_len"] == 131072  # llama3 rope is not multiplied
    assert r["runner_type"] == "generate" and r["attn_type"] == "decoder"
    assert r["enable_chunked_prefill"] is True and r["enable_prefix_caching"] is True
    assert r["kv_cache_dtype"] == "auto"
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (8192, 1024)
    assert r["distributed_executor_backend"] == "uni" and r["async_scheduling"] is True
    assert r["use_v2_model_runner"] is True
    assert r["compilation_mode"] == "VLLM_COMPILE" and r["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert r["cudagraph_capture_sizes"] == GRID_512 and len(GRID_512) == 51
    assert r["max_cudagraph_capture_size"] == 512
    assert r["block_size"] == 16 and r["gpu_memory_utilization"] == 0.92


def test_e1_on_0_34():
    r = res("llama-3.1-8b", "h100", "0.34.0")
    assert r["block_size"] == 64
    assert r["gpu_memory_utilization"] == 1.0  # extensible KV cache on CUDA
    assert r["cudagraph_capture_sizes"] == GRID_512  # not SM10x: unchanged


def test_e2_b200():
    r = res("llama-3.1-8b", "b200")
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (16384, 1024)
    assert len(r["cudagraph_capture_sizes"]) == 83 and r["max_cudagraph_capture_size"] == 1024
    assert r["attn_backend_full"] == "FLASHINFER"
    r34 = res("llama-3.1-8b", "b200", "0.34.0")
    assert len(r34["cudagraph_capture_sizes"]) == 91 and r34["max_cudagraph_capture_size"] == 8192
    assert r34["block_size"] == 64


def test_e3_a100_and_gb10():
    r = res("llama-3.1-8b", "a100")
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (2048, 256)
    assert len(r["cudagraph_capture_sizes"]) == 51 and 256 in r["cudagraph_capture_sizes"]
    assert (res("llama-3.1-8b", "gb10")["max_num_batched_tokens"]) == 2048  # 0.33: small tier
    assert (res("llama-3.1-8b", "gb10", "0.32.0")["max_num_batched_tokens"]) == 8192  # mid tier


def test_e4_max_model_len_above_derived():
    exc = refusal("llama-3.1-8b", max_model_len=200000)
    assert exc.message.startswith(
        "User-specified max_model_len (200000) is greater than the derived max_model_len "
        "(max_position_embeddings=131072 or model_max_length=None in model's config.json). To allow "
        "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."
    )
    assert exc.upstream == "ValueError" and exc.rule == "max_model_len"
    assert res("llama-3.1-8b", max_model_len=128000)["max_model_len"] == 128000
    allowed = res("llama-3.1-8b", env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, max_model_len=200000)
    assert allowed["max_model_len"] == 200000


def test_e5_chunked_prefill_off():
    r = res("llama-3.1-8b", enable_chunked_prefill=False, max_model_len=32768)
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (32768, 1024)
    exc = refusal(
        "llama-3.1-8b", enable_chunked_prefill=False, max_model_len=32768, max_num_batched_tokens=8192
    )
    assert exc.message.startswith("max_num_batched_tokens (8192) is smaller than max_model_len (32768).")


def test_e6_gemma2_on_t4():
    assert res("gemma-2-9b", "t4")["dtype"] == "float32"  # fp16 excluded for gemma2
    exc = refusal("gemma-2-9b", "t4", dtype="half")
    assert exc.message == (
        "The model type 'gemma2' does not support float16. Reason: Numerical instability. "
        "Please use bfloat16 or float32 instead."
    )
    hf = load_model("gemma-2-9b")
    accepted = res("gemma-2-9b", "t4", dtype="bfloat16")  # passes the config …
    with pytest.raises(ConflictError) as info:  # … and fails at worker start
        check_startup(accepted, hf)
    assert info.value.phase == "startup"
    assert info.value.message.startswith(
        "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
        "has compute capability 7.5."
    )


def test_e7_hybrid_defaults():
    r = res("qwen3-next-80b-a3b", tensor_parallel_size=4)
    assert r["attn_type"] == "hybrid" and r["enable_prefix_caching"] is True
    assert r["mamba_cache_mode"] == "align" and r["mamba_block_size"] == 16
    assert res("qwen3-next-80b-a3b", "h100", "0.34.0", tensor_parallel_size=4)["mamba_block_size"] == 64
    off = res("qwen3-next-80b-a3b", tensor_parallel_size=4, enable_prefix_caching=False)
    assert off["mamba_cache_mode"] == "none" and off["mamba_block_size"] == off["max_model_len"]
    exc = refusal(
        "qwen3-next-80b-a3b", tensor_parallel_size=4, enable_prefix_caching=False, mamba_block_size=256
    )
    assert exc.message == "--mamba-block-size can only be set with --enable-prefix-caching"


def test_e8_deepseek_v3_on_cpu_without_amx():
    r = res("deepseek-v3", "cpu")
    assert r["enable_chunked_prefill"] is False and r["enable_prefix_caching"] is False
    assert r["max_num_batched_tokens"] == 163840 and r["block_size"] == 16
    assert r["async_scheduling"] is False and r["cudagraph_mode"] == "NONE"
    assert r["compilation_mode"] == "DYNAMO_TRACE_ONCE"
    exc = refusal("deepseek-v3", "cpu", kv_cache_dtype="fp8")
    assert exc.message == "--kv-cache-dtype fp8 is not supported by MLA attention on CPU."


def test_e9_dcp_with_gqa():
    exc = refusal("llama-3.1-8b", tensor_parallel_size=4, decode_context_parallel_size=2)
    assert exc.message.startswith(
        "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (4) to be greater than "
        "the model's total number of KV heads (8)."
    )
    exc = refusal("llama-3.1-8b", tensor_parallel_size=6, decode_context_parallel_size=4)
    assert exc.message == "tp_size=6 must be divisible by dcp_size=4."


def test_e10_world_size_above_gpu_count():
    exc = refusal("llama-3.1-8b", gpus=2, tensor_parallel_size=4)
    assert exc.message.startswith(
        "World size (4) is larger than the number of available GPUs (2) in this node."
    )
    assert res("llama-3.1-8b", gpus=2, tensor_parallel_size=2)["distributed_executor_backend"] == "mp"
    assert (
        res("llama-3.1-8b", gpus=2, tensor_parallel_size=4, distributed_executor_backend="ray")["world_size"]
        == 4
    )


def test_e11_ngram_speculative_async_by_release():
    spec = '{"method": "ngram", "num_speculative_tokens": 3}'
    for version, on in (("0.30.0", False), ("0.32.0", False), ("0.33.0", True), ("0.34.0", True)):
        r = res("llama-3.1-8b", "h100", version, speculative_config=spec)
        assert r["speculative_method"] == "ngram" and r["num_speculative_tokens"] == 3
        assert r["max_num_scheduled_tokens"] == r["max_num_batched_tokens"]
        assert r["async_scheduling"] is on, version
    v1 = res("llama-3.1-8b", "h100", "0.33.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, speculative_config=spec)
    assert v1["use_v2_model_runner"] is False and v1["async_scheduling"] is False


def test_e12_optimization_levels():
    o0 = res("llama-3.1-8b", optimization_level=0)
    assert (o0["compilation_mode"], o0["cudagraph_mode"], o0["cudagraph_capture_sizes"]) == (
        "NONE",
        "NONE",
        [],
    )
    o1 = res("llama-3.1-8b", optimization_level=1)
    assert (o1["compilation_mode"], o1["cudagraph_mode"]) == ("VLLM_COMPILE", "PIECEWISE")
    dropped = res("llama-3.1-8b", compilation_mode="NONE", cudagraph_mode="PIECEWISE")
    assert dropped["cudagraph_mode"] == "NONE"
    step = dropped.explain("cudagraph_mode").steps[-1]
    assert step.outcome == "forced" and "VLLM_COMPILE" in step.reason
