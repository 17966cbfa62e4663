"""Golden tests: the rows of the decision tables of vllm-config-spec.md §3 (0.33.0 unless noted)."""

from __future__ import annotations

import pytest
from config_cases import SPEC_RELEASE, cfg_refusal, cfg_res, llama, refusal, res

from resolvable.vllm.config.batch import device_tier
from resolvable.vllm.config.facts import platform_supported_dtypes
from resolvable.vllm.platforms import platform


# -- §3.1 dtype --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("plat", "expected"),
    [
        ("h100", ("bfloat16", "float16", "float32")),  # cc >= 8.0
        ("t4", ("float16", "float32")),  # 6.0 <= cc < 8.0
        ("mi300x", ("bfloat16", "float16", "float32")),
        ("xpu", ("bfloat16", "float16", "float32")),
        ("cpu", ("bfloat16", "float16", "float32")),
    ],
)
def test_3_1_platform_dtype_lists(plat, expected):
    assert platform_supported_dtypes(platform(plat)) == expected


@pytest.mark.parametrize(
    ("overrides", "plat", "flags", "expected"),
    [
        ({"torch_dtype": "bfloat16"}, "h100", {}, "bfloat16"),  # checkpoint dtype kept
        ({"torch_dtype": "float32"}, "h100", {}, "bfloat16"),  # fp32 downcast to the preferred
        ({"torch_dtype": None}, "h100", {}, "bfloat16"),  # no dtype: float32 → preferred
        ({"torch_dtype": "bfloat16"}, "t4", {}, "float16"),  # not supported: fallback
        (
            {"torch_dtype": "float16", "model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"]},
            "h100",
            {},
            "bfloat16",
        ),
        (
            {"torch_dtype": "float16", "model_type": "glm4", "architectures": ["Glm4ForCausalLM"]},
            "t4",
            {},
            "float32",
        ),
        ({"torch_dtype": "bfloat16"}, "h100", {"dtype": "half"}, "float16"),  # explicit mapped
        ({"torch_dtype": "bfloat16"}, "h100", {"dtype": "float"}, "float32"),
        (
            {"torch_dtype": "float32", "architectures": ["LlamaForSequenceClassification"]},
            "h100",
            {},
            "float16",
        ),
    ],
)
def test_3_1_dtype_rows(overrides, plat, flags, expected):
    assert cfg_res(llama(**overrides), plat, **flags)["dtype"] == expected


def test_3_1_float16_refused_for_listed_model_types():
    for model_type in ("gemma2", "gemma3", "gemma3_text", "glm4"):
        exc = cfg_refusal(llama(model_type=model_type), dtype="float16")
        assert exc.message.startswith(f"The model type '{model_type}' does not support float16.")


# -- §3.2 max_model_len ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "flags", "expected"),
    [
        ({"max_position_embeddings": 8192, "seq_length": 4096}, {}, 4096),  # smallest key
        ({"max_position_embeddings": 8192, "model_max_length": 131072}, {}, 131072),  # Command-R override
        ({"sliding_window": 1024}, {"disable_sliding_window": True}, 1024),
        ({"max_position_embeddings": None}, {}, 2048),  # no key at all
        ({"max_position_embeddings": None}, {"max_model_len": 9000}, 9000),
        ({"rope_scaling": {"rope_type": "linear", "factor": 4.0}}, {}, 16384),
        ({"rope_scaling": {"type": "dynamic", "factor": 2.0}}, {}, 8192),
        ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, {}, 4096),  # already scaled
        ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, {}, 4096),
        ({"rope_scaling": {"rope_type": "linear", "factor": None}}, {}, 4096),  # null factor → 1.0
        (
            {
                "rope_scaling": {"rope_type": "longrope", "factor": 32.0},
                "original_max_position_embeddings": 2048,
            },
            {},
            2048,
        ),
        ({"encoder_config": {"max_seq_length": 512}}, {}, 512),
        ({}, {"max_model_len": -1}, 4096),  # auto: the derived length (fitted at start)
        ({}, {"max_model_len": 1000}, 1000),
    ],
)
def test_3_2_max_model_len_rows(overrides, flags, expected):
    assert cfg_res(llama(**overrides), **flags)["max_model_len"] == expected


def test_3_2_gemma3_rope_not_multiplied():
    r = res("gemma-3-27b")
    assert r["max_model_len"] == 131072  # linear factor 8 not applied for gemma3


def test_3_2_user_value_above_derived():
    exc = cfg_refusal(llama(), max_model_len=8192)
    assert "(max_position_embeddings=4096 or model_max_length=None" in exc.message
    assert (
        cfg_res(llama(model_max_length=16384, max_position_embeddings=4096), max_model_len=8192)[
            "max_model_len"
        ]
        == 8192
    )
    assert (
        cfg_res(llama(), env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, max_model_len=8192)["max_model_len"]
        == 8192
    )
    assert (
        cfg_refusal(llama(), max_model_len=-5).message == "max_model_len must be a positive integer, got -5"
    )


# -- §3.3 kv_cache_dtype -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("quant", "expected"),
    [
        ({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}, "fp8_e4m3"),
        ({"quant_method": "modelopt_fp4", "kv_cache_scheme": {"num_bits": 4, "type": "float"}}, "nvfp4"),
        (
            {
                "quant_method": "modelopt",
                "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": False},
            },
            "fp8_e4m3",
        ),
        ({"quant_method": "modelopt", "kv_cache_quant_algo": "int8"}, "auto"),  # unknown → auto
        ({"quant_method": "fp8"}, "auto"),  # other methods leave auto at config time
    ],
)
def test_3_3_kv_cache_dtype_from_checkpoint(quant, expected):
    assert cfg_res(llama(quantization_config=quant), "b200")["kv_cache_dtype"] == expected


def test_3_3_float_kv_mismatch_by_release():
    exc = cfg_refusal(llama(), kv_cache_dtype="float16")
    assert (
        exc.message
        == 'kv_cache_dtype="float16" is incompatible with dtype="bfloat16". Please set `--kv-cache-dtype` to `auto` or `bfloat16`.'
    )
    assert cfg_res(llama(), version="0.32.0", kv_cache_dtype="float16")["kv_cache_dtype"] == "float16"


def test_3_3_nvfp4_with_mla_refused():
    exc = refusal("deepseek-v3", "b200", tensor_parallel_size=8, kv_cache_dtype="nvfp4")
    assert exc.message.startswith(
        "nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends."
    )


# -- §3.5 batch defaults -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("plat", "tier"),
    [
        ("b200", "large"),
        ("b300", "large"),
        ("mi300x", "large"),
        ("h100", "mid"),
        ("h200", "mid"),
        ("a100", "small"),
        ("l40s", "small"),
        ("t4", "small"),
        ("gb10", "small"),
    ],
)
def test_3_5_device_tiers(plat, tier):
    assert device_tier(platform(plat)) == tier


@pytest.mark.parametrize(
    ("plat", "usage", "version", "expected"),
    [
        ("b200", "OPENAI_API_SERVER", None, (16384, 1024)),
        ("b200", "LLM_CLASS", None, (16384, 1024)),
        ("h100", "OPENAI_API_SERVER", None, (8192, 1024)),
        ("h100", "LLM_CLASS", None, (16384, 1024)),
        ("a100", "OPENAI_API_SERVER", None, (2048, 256)),
        ("a100", "LLM_CLASS", None, (8192, 256)),
        ("gb10", "OPENAI_API_SERVER", "0.32.0", (8192, 1024)),  # before the GB10 rule
        ("gb10", "OPENAI_API_SERVER", "0.33.0", (2048, 256)),
        ("h100", "OPENAI_BATCH_RUNNER", None, (2048, 128)),  # other contexts: scheduler defaults
        ("cpu", "OPENAI_API_SERVER", None, (2048, 128)),
        ("cpu", "LLM_CLASS", None, (4096, 256)),
    ],
)
def test_3_5_table(plat, usage, version, expected):
    r = cfg_res(llama(max_position_embeddings=131072), plat, version, usage_context=usage)
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == expected


def test_3_5_cpu_scales_with_world_size():
    r = cfg_res(llama(max_position_embeddings=131072), "cpu", tensor_parallel_size=2)
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (4096, 256)


def test_3_5_steps():
    big = llama(max_position_embeddings=131072)
    moe = llama(max_position_embeddings=131072, num_experts=8, num_experts_per_tok=2)
    batched_dp = cfg_res(
        moe, data_parallel_size=2, enable_expert_parallel=True, all2all_backend="deepep_low_latency"
    )
    assert batched_dp["max_num_batched_tokens"] == 256 and batched_dp["max_num_seqs"] == 256
    doubled = cfg_res(big, performance_mode="throughput")
    assert (doubled["max_num_batched_tokens"], doubled["max_num_seqs"]) == (16384, 2048)
    capped = cfg_res(big, max_model_len=4)
    assert capped["max_num_batched_tokens"] == 4096  # max_num_seqs × max_model_len
    seqs_capped = cfg_res(big, max_num_batched_tokens=512)
    assert seqs_capped["max_num_seqs"] == 512  # capped at the token budget
    exc = cfg_refusal(big, max_num_batched_tokens=512, max_num_seqs=1024)
    assert exc.message == "max_num_batched_tokens (512) must be greater than or equal to max_num_seqs (1024)."


# -- §3.6/§3.7 chunked prefill, prefix caching, Mamba mode --------------------------------------
@pytest.mark.parametrize(
    ("model", "attn_type", "chunked", "prefix"),
    [
        ("llama-3.1-8b", "decoder", True, True),
        ("qwen3-next-80b-a3b", "hybrid", True, True),
        ("nemotron-h-8b", "hybrid", True, True),
        ("granite-4.0-micro", "decoder", True, True),  # hybrid class, attention-only layer_types
        ("whisper-large-v3", "encoder_decoder", False, False),
    ],
)
def test_3_6_3_7_defaults_by_attn_type(model, attn_type, chunked, prefix):
    r = res(model, tensor_parallel_size=4 if model.startswith("qwen3-next") else 1)
    assert (r["attn_type"], r["enable_chunked_prefill"], r["enable_prefix_caching"]) == (
        attn_type,
        chunked,
        prefix,
    )


def test_3_7_attention_free_and_pooling():
    mamba = cfg_res(
        {
            "architectures": ["Mamba2ForCausalLM"],
            "model_type": "mamba2",
            "hidden_size": 2048,
            "num_heads": 64,
            "max_position_embeddings": 4096,
        }
    )
    assert (mamba["attn_type"], mamba["enable_chunked_prefill"], mamba["enable_prefix_caching"]) == (
        "attention_free",
        True,
        False,
    )
    assert mamba["mamba_cache_mode"] == "none" and mamba["mamba_block_size"] == 4096
    bert = cfg_res(
        {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "hidden_size": 768,
            "num_attention_heads": 12,
            "max_position_embeddings": 512,
            "is_causal": False,
        }
    )
    assert (bert["runner_type"], bert["attn_type"]) == ("pooling", "encoder_only")
    assert (bert["enable_chunked_prefill"], bert["enable_prefix_caching"], bert["async_scheduling"]) == (
        False,
        False,
        False,
    )
    causal = cfg_res(llama(architectures=["LlamaForSequenceClassification"]))
    assert (causal["runner_type"], causal["enable_chunked_prefill"], causal["enable_prefix_caching"]) == (
        "pooling",
        True,
        True,
    )


def test_3_7_mm_encoder_only_and_mamba_chunked_requirement():
    assert res("qwen3-vl-8b", mm_encoder_only=True)["enable_prefix_caching"] is False
    exc = refusal("nemotron-h-8b", enable_chunked_prefill=False)
    assert (
        exc.message == "Chunked prefill is required for Mamba prefix caching."
        and exc.upstream == "AssertionError"
    )
    assert refusal("nemotron-h-8b", "h100", "0.32.0", enable_chunked_prefill=False).message == (
        "Chunked prefill is required for mamba cache mode 'align'."
    )


# -- §3.9 async scheduling ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("version", "env", "flags", "expected"),
    [
        ("0.33.0", None, {}, True),
        ("0.33.0", None, {"tensor_parallel_size": 2}, True),  # mp supports it
        ("0.31.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"pipeline_parallel_size": 2}, False),
        ("0.30.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"pipeline_parallel_size": 2}, True),  # 0.30: spec only
        ("0.33.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, {"pipeline_parallel_size": 2}, False),
        ("0.33.0", None, {"pipeline_parallel_size": 2}, True),  # V2 runner
        ("0.32.0", None, {"speculative_config": '{"method": "suffix", "num_speculative_tokens": 2}'}, False),
        (
            "0.32.0",
            None,
            {"speculative_config": '{"method": "eagle3", "model": "x/eagle3", "num_speculative_tokens": 2}'},
            True,
        ),
        (
            "0.30.0",
            None,
            {"speculative_config": '{"method": "dflash", "model": "x/dflash", "num_speculative_tokens": 2}'},
            False,
        ),
        (
            "0.31.0",
            None,
            {"speculative_config": '{"method": "dflash", "model": "x/dflash", "num_speculative_tokens": 2}'},
            True,
        ),
        ("0.34.0", None, {"speculative_config": '{"method": "suffix", "num_speculative_tokens": 2}'}, True),
    ],
)
def test_3_9_async_default(version, env, flags, expected):
    assert cfg_res(llama(), "h100", version, env, **flags)["async_scheduling"] is expected


def test_3_9_refusals_and_platform():
    spec = '{"method": "ngram", "num_speculative_tokens": 3}'
    exc = cfg_refusal(llama(), "h100", "0.32.0", async_scheduling=True, speculative_config=spec)
    assert exc.message.startswith(
        "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash"
    )
    exc = cfg_refusal(
        llama(),
        "h100",
        "0.33.0",
        {"VLLM_USE_V2_MODEL_RUNNER": "0"},
        async_scheduling=True,
        speculative_config=spec,
    )
    assert (
        exc.message
        == "Async scheduling is not supported by the V1 model runner with ngram-based speculative decoding."
    )
    assert cfg_res(llama(), "cpu")["async_scheduling"] is False  # CPU hook


# -- §3.10 compilation and cudagraph mode -----------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "plat", "env", "flags", "mode", "cudagraph"),
    [
        ("llama-3.1-8b", "h100", None, {"enforce_eager": True}, "NONE", "NONE"),  # rule 1
        ("llama-3.1-8b", "h100", {"TORCH_COMPILE_DISABLE": "1"}, {}, "NONE", "FULL_DECODE_ONLY"),  # 2 then 9
        (
            "deepseek-v3.2",
            "h100",
            None,
            {"tensor_parallel_size": 8},
            "NONE",
            "FULL_AND_PIECEWISE",
        ),  # 3 breakable
        (
            "deepseek-v3.2",
            "h100",
            {"VLLM_USE_BREAKABLE_CUDAGRAPH": "0"},
            {"tensor_parallel_size": 8},
            "VLLM_COMPILE",
            "FULL_AND_PIECEWISE",
        ),
        ("llama-3.1-8b", "h100", None, {"optimization_level": 0}, "NONE", "NONE"),  # 5, 7
        ("llama-3.1-8b", "h100", None, {"optimization_level": 1}, "VLLM_COMPILE", "PIECEWISE"),
        ("llama-3.1-8b", "h100", None, {"optimization_level": 3}, "VLLM_COMPILE", "FULL_AND_PIECEWISE"),
        ("llama-3.1-8b", "h100", None, {"compilation_mode": "NONE"}, "NONE", "FULL_DECODE_ONLY"),  # 9
        ("whisper-large-v3", "h100", None, {}, "VLLM_COMPILE", "FULL_DECODE_ONLY"),  # 10 encoder-decoder
        ("llama-3.1-8b", "cpu", None, {}, "DYNAMO_TRACE_ONCE", "NONE"),  # 10, 11 CPU
    ],
)
def test_3_10_rows(model, plat, env, flags, mode, cudagraph):
    r = res(model, plat, None, env, **flags)
    assert (r["compilation_mode"], r["cudagraph_mode"]) == (mode, cudagraph)


def test_3_10_pooling_and_stock_compile():
    pooled = cfg_res(llama(architectures=["LlamaForSequenceClassification"]))
    assert pooled["cudagraph_mode"] == "PIECEWISE"
    stock = cfg_res(llama(), compilation_mode="STOCK_TORCH_COMPILE")
    assert stock["cudagraph_mode"] == "NONE" and stock["cudagraph_capture_sizes"] == []
    assert (
        cfg_res(llama(), "h100", "0.31.0", compilation_mode="STOCK_TORCH_COMPILE")["cudagraph_mode"]
        == "FULL_DECODE_ONLY"
    )


# -- §3.11 capture sizes -----------------------------------------------------------------------
def test_3_11_capture_sizes():
    big = llama(max_position_embeddings=131072)
    spec = cfg_res(big, speculative_config='{"method": "ngram", "num_speculative_tokens": 2}', max_num_seqs=8)
    # q = 3: max = min(8·3·2, 512) = 48, uniform decode sizes n·3 for n in 1, 2, 4, 8
    assert spec["cudagraph_capture_sizes"] == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48]
    small = cfg_res(big, max_num_seqs=100)
    assert small["max_cudagraph_capture_size"] == 200 and 100 in small["cudagraph_capture_sizes"]
    assert 100 not in cfg_res(big, "h100", "0.30.0", max_num_seqs=100)["cudagraph_capture_sizes"]
    user = cfg_res(big, cudagraph_capture_sizes=[4, 4, 1, 99999])
    assert user["cudagraph_capture_sizes"] == [1, 4] and user["max_cudagraph_capture_size"] == 4
    exc = cfg_refusal(big, cudagraph_capture_sizes=[1, 4], max_cudagraph_capture_size=8)
    assert exc.message.startswith("customized max_cudagraph_capture_size(=8) should be consistent")
    fast = cfg_res(big, performance_mode="interactivity")
    assert fast["cudagraph_capture_sizes"][:33] == [*range(1, 33), 40]


# -- §3.13 model runner ------------------------------------------------------------------------
def test_3_13_model_runner():
    assert cfg_res(llama())["use_v2_model_runner"] is True
    assert cfg_res(llama(), env={"VLLM_USE_V2_MODEL_RUNNER": "0"})["use_v2_model_runner"] is False
    suffix = '{"method": "suffix", "num_speculative_tokens": 2}'
    assert cfg_res(llama(), speculative_config=suffix)["use_v2_model_runner"] is False
    exc = cfg_refusal(llama(), "h100", "0.34.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"})
    assert exc.message.startswith(
        "VLLM_USE_V2_MODEL_RUNNER=0 is no longer supported: Model Runner V1 has been removed."
    )


# -- §3.14 memory ------------------------------------------------------------------------------
def test_3_14_gpu_memory_utilization():
    assert cfg_res(llama(), "h100", "0.33.0")["gpu_memory_utilization"] == 0.92
    assert cfg_res(llama(), "h100", "0.34.0")["gpu_memory_utilization"] == 1.0
    assert cfg_res(llama(), "h100", "0.34.0", kv_connector=True)["gpu_memory_utilization"] == 0.92
    assert cfg_res(llama(), "cpu", "0.34.0")["gpu_memory_utilization"] == 0.92
    assert cfg_res(llama(), "h100", "0.34.0", gpu_memory_utilization=0.8)["gpu_memory_utilization"] == 0.8


# -- §3.15 parallel layout ---------------------------------------------------------------------
def test_3_15_parallel_rows():
    assert cfg_res(llama())["distributed_executor_backend"] == "uni"
    r = cfg_res(llama(), tensor_parallel_size=2, pipeline_parallel_size=2)
    assert (r["world_size"], r["distributed_executor_backend"]) == (4, "mp")
    assert cfg_res(llama(), data_parallel_size=2)["distributed_executor_backend"] == "mp"
    assert cfg_res(llama(), "cpu")["distributed_executor_backend"] == "mp"  # CPU hook: uni → mp
    exc = cfg_refusal(llama(), tensor_parallel_size=3)
    assert (
        exc.message == "Total number of attention heads (32) must be divisible by tensor parallel size (3)."
    )
    exc = cfg_refusal(llama(num_key_value_heads=2), tensor_parallel_size=8, decode_context_parallel_size=8)
    assert exc.message.startswith(
        "`--decode-context-parallel-size` (8) exceeds the maximum supported value (4)"
    )
    exc = cfg_refusal(
        llama(), tensor_parallel_size=4, decode_context_parallel_size=4, prefill_context_parallel_size=2
    )
    assert exc.message == (
        "When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis. "
        "Got TP=4, PCP=2, DCP=4; valid DCP sizes are [1, 2, 8]."
    )
    assert cfg_res(llama(), "h100", tensor_parallel_size=8, decode_context_parallel_size=1)["world_size"] == 8


def test_3_15_query_heads_per_kv_head():
    config = llama(num_attention_heads=12, num_key_value_heads=2, hidden_size=1536)
    exc = cfg_refusal(
        config, tensor_parallel_size=12, decode_context_parallel_size=4, distributed_executor_backend="ray"
    )
    assert exc.message == (
        "The model's number of query heads per KV head (6) must be divisible by "
        "`--decode-context-parallel-size` (4) for GQA/MQA."
    )


# -- §3.16 speculative decoding ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "method", "tokens"),
    [
        ('{"model": "ngram", "num_speculative_tokens": 4}', "ngram", 4),
        ('{"method": "[ngram]", "num_speculative_tokens": 2}', "ngram", 2),
        ('{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}', "eagle3", 3),
        ('{"model": "some/draft-1b", "num_speculative_tokens": 5}', "draft_model", 5),
        ('{"method": "deepseek_mtp", "num_speculative_tokens": 1}', "mtp", 1),
        ('{"method": "mtp", "num_speculative_tokens": 2}', "mtp", 2),
    ],
)
def test_3_16_method_inference(spec, method, tokens):
    # 0.30-0.33 refuse MTP on a target without an MTP draft (Llama): test_config_oracle_misses.py
    r = cfg_res(llama(), version="0.34.0" if method == "mtp" else SPEC_RELEASE, speculative_config=spec)
    assert (r["speculative_method"], r["num_speculative_tokens"]) == (method, tokens)


@pytest.mark.parametrize(
    ("spec", "start"),
    [
        (
            '{"method": "eagle", "num_speculative_tokens": 2}',
            "num_speculative_tokens was provided but without speculative model.",
        ),
        (
            '{"method": "ngram", "num_speculative_tokens": 2, "tensor_parallel_size": 2}',
            "'tensor_parallel_size' is not a valid argument",
        ),
        ('{"method": "ngram"}', "num_speculative_tokens must be provided with speculative model"),
        (
            '{"method": "ngram", "num_speculative_tokens": 0}',
            "Expected num_speculative_tokens to be greater than zero (0).",
        ),
        (
            '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 6, "prompt_lookup_max": 3}',
            "prompt_lookup_min=6 must be <= prompt_lookup_max=3",
        ),
    ],
)
def test_3_16_refusals(spec, start):
    assert cfg_refusal(llama(), speculative_config=spec).message.startswith(start)


# -- §3.17 quantization ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("quant", "plat", "expected"),
    [
        ({"quant_method": "gptq", "bits": 4}, "h100", "auto_gptq"),
        ({"quant_method": "awq", "bits": 4}, "h100", "auto_awq"),
        ({"quant_method": "awq", "bits": 4}, "cpu", "awq"),  # the override methods are not used on CPU
        ({"quant_method": "fp8"}, "h100", "fp8"),
        ({"quant_method": "compressed-tensors"}, "h100", "compressed-tensors"),
        ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "b200", "modelopt_fp4"),
        ({"quant_method": "modelopt", "quant_algo": "FP8"}, "h100", "modelopt"),
    ],
)
def test_3_17_detection(quant, plat, expected):
    assert cfg_res(llama(quantization_config=quant), plat)["quantization"] == expected


def test_3_17_hooks_and_refusals():
    assert res("gpt-oss-20b")["quantization"] == "gpt_oss_mxfp4"  # model hook rename
    exc = cfg_refusal(llama(quantization_config={"quant_method": "fp8"}), quantization="awq")
    assert exc.message == (
        "Quantization method specified in the model config (fp8) does not match the quantization method "
        "specified in the `quantization` argument (awq)."
    )
    assert (
        cfg_res(llama(quantization_config={"quant_method": "gptq"}), quantization="gptq")["quantization"]
        == "auto_gptq"
    )
    exc = refusal("gpt-oss-20b", "t4")
    assert exc.message == (
        "The quantization method gpt_oss_mxfp4 is not supported for the current GPU. Minimum capability: 80. "
        "Current capability: 75."
    )
    exc = cfg_refusal(llama(quantization_config={"quant_method": "fp8"}), dtype="float32")
    assert (
        exc.message
        == "torch.float32 is not supported for quantization method fp8. Supported dtypes: [torch.bfloat16, torch.float16]"
    )


# -- §3.19 hybrid KV-cache manager -------------------------------------------------------------
def test_3_19_hybrid_kv_cache_manager():
    assert cfg_res(llama())["disable_hybrid_kv_cache_manager"] is False
    chunked = llama(attention_chunk_size=8192)
    assert cfg_res(chunked)["disable_hybrid_kv_cache_manager"] is False  # the env default is 1
    deny = {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"}
    assert cfg_res(chunked, env=deny)["disable_hybrid_kv_cache_manager"] is True
    eagle = '{"model": "x/eagle-head", "num_speculative_tokens": 2}'
    assert cfg_res(chunked, speculative_config=eagle)["disable_hybrid_kv_cache_manager"] is True
    exc = cfg_refusal(chunked, env=deny, disable_hybrid_kv_cache_manager=False)
    assert exc.message.startswith("Hybrid KV cache manager was explicitly enabled but is not supported")


@pytest.mark.parametrize(
    ("version", "plat", "model", "flags", "v2"),
    [
        (
            "0.30.0",
            "h100",
            None,
            {"speculative_config": '{"model": "some/draft-1b", "num_speculative_tokens": 2}'},
            False,
        ),
        (
            "0.31.0",
            "h100",
            None,
            {"speculative_config": '{"model": "some/draft-1b", "num_speculative_tokens": 2}'},
            True,
        ),
        (
            "0.31.0",
            "h100",
            None,
            {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 2}'},
            False,
        ),
        (
            "0.32.0",
            "h100",
            None,
            {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 2}'},
            True,
        ),
        ("0.31.0", "h100", None, {"compilation_mode": "STOCK_TORCH_COMPILE"}, False),
        ("0.32.0", "h100", None, {"compilation_mode": "STOCK_TORCH_COMPILE"}, True),
        ("0.31.0", "mi300x", "deepseek-v3.2", {"tensor_parallel_size": 8}, False),
        ("0.32.0", "mi300x", "deepseek-v3.2", {"tensor_parallel_size": 8}, True),
    ],
)
def test_3_13_model_runner_by_release(version, plat, model, flags, v2):
    r = res(model, plat, version, **flags) if model else cfg_res(llama(), plat, version, **flags)
    assert r["use_v2_model_runner"] is v2


# -- §5 model hooks ----------------------------------------------------------------------------
def test_5_gpt_oss_capture_sizes():
    r = res("gpt-oss-20b", "h100")
    assert r["max_cudagraph_capture_size"] == 1024 and len(r["cudagraph_capture_sizes"]) == 83
    assert r.decided_by("max_cudagraph_capture_size")[0] == "gpt_oss_capture_sizes"
    capped = res("gpt-oss-20b", "h100", max_cudagraph_capture_size=256)
    assert capped["max_cudagraph_capture_size"] == 256  # a user value keeps the hook out
    r34 = res("gpt-oss-20b", "h100", "0.34.0")
    assert r34["max_decode_cudagraph_capture_requests"] == 1024
    assert r34["prefill_cudagraph_capture_token_sizes"][-1] == 1024
    assert (
        len(r34["prefill_cudagraph_capture_token_sizes"]) == 83 and len(r34["cudagraph_capture_sizes"]) == 93
    )
    assert (
        res("gpt-oss-20b", "b200", "0.34.0")["prefill_cudagraph_capture_token_sizes"] is None
    )  # SM10x: wide defaults


def test_5_mamba_ssm_cache_dtype_and_other_hooks():
    assert res("nemotron-h-8b")["mamba_ssm_cache_dtype"] == "float32"
    assert res("nemotron-h-8b", mamba_ssm_cache_dtype="bfloat16")["mamba_ssm_cache_dtype"] == "bfloat16"
    qwen35 = {
        **llama(architectures=["Qwen3_5ForCausalLM"], model_type="qwen3_5_text"),
        "mamba_ssm_dtype": "float32",
    }
    assert cfg_res(qwen35)["mamba_ssm_cache_dtype"] == "float32"
    longcat = llama(architectures=["LongcatFlashNgramForCausalLM"], model_type="longcat_flash_ngram")
    r = cfg_res(longcat)
    assert (r["compilation_mode"], r["cudagraph_mode"]) == ("NONE", "FULL")
    gemma = llama(
        architectures=["EmbeddingGemma2Model"], model_type="gemma3_text", max_position_embeddings=32768
    )
    assert cfg_res(gemma, "h100", "0.32.0")["max_model_len"] == 8192
    assert cfg_res(gemma, "h100", "0.31.0")["max_model_len"] == 32768
    assert cfg_res(gemma, "h100", "0.33.0", max_model_len=16384)["max_model_len"] == 16384
    ocr = llama(architectures=["UnlimitedOCRForCausalLM"], model_type="unlimited_ocr")
    assert cfg_res(ocr)["enable_prefix_caching"] is False


@pytest.mark.parametrize(
    ("config", "plat", "user", "expected"),
    [
        ({"compression_config": {"quant_method": "compressed_tensors"}}, "h100", None, "compressed-tensors"),
        (
            {
                "quantization_config": {
                    "producer": {"name": "modelopt"},
                    "quantization": {"quant_algo": "NVFP4"},
                }
            },
            "b200",
            None,
            "modelopt_fp4",
        ),
        ({"quantization_config": {"quant_method": "gptq"}}, "cpu", None, "auto_gptq"),  # no CPU exception
        ({"quantization_config": {"quant_method": "gptq"}}, "h100", "marlin", "auto_gptq"),
        ({"quantization_config": {"quant_method": "awq"}}, "cpu", "awq", "awq"),
    ],
)
def test_3_17_normalisation_and_overrides(config, plat, user, expected):
    flags = {"quantization": user} if user else {}
    assert cfg_res(llama(**config), plat, **flags)["quantization"] == expected


def test_3_17_unknown_method_by_release():
    exc = cfg_refusal(llama(), quantization="w4afp8")
    assert exc.message.startswith("Unknown quantization method: w4afp8. Must be one of ['awq', 'auto_awq',")
    assert cfg_res(llama(), "h100", "0.34.0", quantization="w4afp8")["quantization"] == "w4afp8"
    exc = cfg_refusal(llama(quantization_config={"quant_method": "gptq"}), quantization="awq")
    assert "model config (gptq) does not match" in exc.message


# -- §3.4 block size when create_engine_config returns -----------------------------------------
@pytest.mark.parametrize(
    ("model", "plat", "version", "flags", "expected"),
    [
        ("llama-3.1-8b", "h100", "0.33.0", {}, 16),
        ("llama-3.1-8b", "h100", "0.34.0", {}, 64),
        ("llama-3.1-8b", "h100", "0.34.0", {"block_size": 32}, 32),
        ("llama-3.1-8b", "cpu", "0.32.0", {}, 128),  # CPU hook before 0.33
        ("llama-3.1-8b", "cpu", "0.33.0", {}, 16),  # 128 comes with the backend preference
        ("deepseek-v3", "cpu", "0.34.0", {"block_size": 64}, 16),  # reference CPU MLA forces 16
        ("deepseek-v3", "cpu-amx", "0.33.0", {}, 16),  # AMX MLA: the default
    ],
)
def test_3_4_block_size_at_config_time(model, plat, version, flags, expected):
    assert res(model, plat, version, **flags)["block_size_config"] == expected


def test_3_10_config_time_cudagraph_mode_and_batch_invariance():
    r = res("deepseek-v3", "b200", tensor_parallel_size=8, optimization_level=1)
    assert r["cudagraph_mode_config"] == "PIECEWISE"
    env = {"VLLM_BATCH_INVARIANT": "1"}
    assert (
        res("llama-3.1-8b", "h100", "0.33.0", env)["compilation_mode"] == "NONE"
    )  # tuned shape (6144, 4096)
    assert res("llama-3.1-8b", "h100", "0.30.0", env)["compilation_mode"] == "VLLM_COMPILE"
    assert res("llama-3.1-8b", "a100", "0.33.0", env)["compilation_mode"] == "VLLM_COMPILE"  # no sm80 table
    assert res("qwen3.5-397b-a17b", "h100", "0.34.0", tensor_parallel_size=8)["compilation_mode"] == "NONE"
    assert (
        res("qwen3.5-397b-a17b", "h100", "0.33.0", tensor_parallel_size=8)["compilation_mode"]
        == "VLLM_COMPILE"
    )
