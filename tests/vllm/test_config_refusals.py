"""Refusals of vllm-config-spec.md §6: vLLM's message, its exception type, and a fix that holds
when resolving again (``resolvable.vllm.config.fixes``)."""

from __future__ import annotations

import pytest

from resolvable.errors import ConflictError
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.config.fixes import check_refusal
from resolvable.vllm.config.parallel import with_gpus
from resolvable.vllm.config.startup import check_startup
from resolvable.vllm.platforms import platform

CASES = [
    # (model, platform, gpus, flags, message start, upstream exception, fix status)
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"max_model_len": 200000},
        "User-specified max_model_len (200000)",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"enable_chunked_prefill": False, "max_model_len": 32768, "max_num_batched_tokens": 8192},
        "max_num_batched_tokens (8192) is smaller",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"max_num_batched_tokens": 512, "max_num_seqs": 1024},
        "max_num_batched_tokens (512) must be greater",
        "ValueError",
        "verified",
    ),
    (
        "gemma-2-9b",
        "t4",
        None,
        {"dtype": "half"},
        "The model type 'gemma2' does not support float16.",
        "ValueError",
        "verified",
    ),
    (
        "qwen3-next-80b-a3b",
        "h100",
        None,
        {"tensor_parallel_size": 4, "enable_prefix_caching": False, "mamba_block_size": 256},
        "--mamba-block-size can only be set",
        "ValueError",
        "verified",
    ),
    (
        "nemotron-h-8b",
        "h100",
        None,
        {"enable_chunked_prefill": False},
        "Chunked prefill is required for Mamba prefix caching.",
        "AssertionError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
        "Decode context parallelism for GQA/MQA requires",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"tensor_parallel_size": 6, "decode_context_parallel_size": 4},
        "tp_size=6 must be divisible by dcp_size=4.",
        "ValueError",
        "corrected",
    ),
    (
        "llama-3.1-8b",
        "h100",
        2,
        {"tensor_parallel_size": 4},
        "World size (4) is larger than the number of available GPUs (2)",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"tensor_parallel_size": 3},
        "Total number of attention heads (32) must be divisible",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"kv_cache_dtype": "float16"},
        'kv_cache_dtype="float16" is incompatible with dtype="bfloat16"',
        "ValueError",
        "verified",
    ),
    (
        "deepseek-v3",
        "b200",
        None,
        {"tensor_parallel_size": 8, "kv_cache_dtype": "nvfp4"},
        "nvfp4 KV cache is not supported with MLA",
        "ValueError",
        "verified",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"speculative_config": '{"method": "eagle", "num_speculative_tokens": 2}'},
        "num_speculative_tokens was provided but without speculative model.",
        "ValueError",
        "unchecked",
    ),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {"optimization_level": 2, "cudagraph_capture_sizes": [1, 4], "max_cudagraph_capture_size": 8},
        "customized max_cudagraph_capture_size(=8)",
        "ValueError",
        "verified",
    ),
    (
        "gemma-2-9b",
        "t4",
        None,
        {"dtype": "bfloat16"},
        "Bfloat16 is only supported on GPUs with compute capability of at least 8.0.",
        "ValueError",
        "corrected",
    ),
]


@pytest.mark.parametrize(("model", "plat", "gpus", "flags", "start", "upstream", "status"), CASES)
def test_refusal_message_type_and_checked_fix(model, plat, gpus, flags, start, upstream, status):
    hf, p = load_model(model), with_gpus(platform(plat), gpus)
    with pytest.raises(ConflictError) as info:
        check_startup(resolve_vllm_args(hf, p, vllm_version="0.33.0", **flags), hf)
    exc = info.value
    assert exc.message.startswith(start)
    assert exc.upstream == upstream
    assert exc.rule and exc.location.startswith("resolvable/vllm/")
    check = check_refusal(exc, hf, p, {}, flags, vllm_version="0.33.0")
    assert check.status == status, check.text
    if status in ("verified", "corrected"):
        assert check.accepted  # at least one alternative resolves (and would start)
