"""Golden tests: the statements of the worked examples of vllm-config-spec.md §7 that
``test_config_examples.py`` (E1-E12) does not assert yet, one test per example. 0.33.0 unless noted."""

from __future__ import annotations

from config_cases import res

from resolvable.vllm.config.compilation import decode_grid, prefill_grid
from resolvable.vllm.config.report import config_time_value

GRID_512 = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]


def test_e1_flash_attn_fa3_keeps_full_and_piecewise():
    r = res("llama-3.1-8b", "h100")
    assert r["attn_backend_full"] == "FLASH_ATTN" and r["flash_attn_version"] == 3
    assert config_time_value(r, "cudagraph_mode") == r["cudagraph_mode"] == "FULL_AND_PIECEWISE"  # ALWAYS
    assert r["max_cudagraph_capture_size"] == 512  # min(1024 · 1 · 2, 512)
    r34 = res("llama-3.1-8b", "h100", "0.34.0")
    assert r34["max_cudagraph_capture_size"] == 512 and r34["cudagraph_capture_sizes"] == GRID_512


def test_e2_b200_0_34_split_grids():
    assert len(decode_grid(1024)) == 64 and decode_grid(1024)[:6] == [1, 2, 3, 4, 5, 6]
    prefill = prefill_grid(8192)
    assert len(prefill) == 54 and prefill[-1] == 8192
    assert prefill[:4] == [1, 2, 4, 8] and all(s % 256 == 0 for s in prefill if s > 1024)
    r = res("llama-3.1-8b", "b200", "0.34.0")
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (16384, 1024)
    # recorded sizes: the decode token counts (q = 1: the request grid) with the prefill sizes
    assert r["cudagraph_capture_sizes"] == sorted(set(decode_grid(1024)) | set(prefill))
    assert len(r["cudagraph_capture_sizes"]) == 91 and r["max_cudagraph_capture_size"] == 8192
    r33 = res("llama-3.1-8b", "b200")
    sizes = r33["cudagraph_capture_sizes"]
    assert sizes == [1, 2, 4, *range(8, 256, 8), *range(256, 1025, 16)] and len(sizes) == 83


def test_e3_a100_capture_max_512_with_max_num_seqs_in_the_grid():
    r = res("llama-3.1-8b", "a100")
    assert r["max_cudagraph_capture_size"] == 512  # min(256 · 2, 512)
    assert r["cudagraph_capture_sizes"] == GRID_512  # 256 is already a grid size: still 51


def test_e4_k_suffix_is_thousands():
    from resolvable.vllm.flags.values import human_readable_int

    assert human_readable_int("128k") == 128000  # --max-model-len 128k (k = 1000)
    assert res("llama-3.1-8b", max_model_len=human_readable_int("128k"))["max_model_len"] == 128000


def test_e5_0_30_to_0_32_negative_flag_form():
    r = res("llama-3.1-8b", "h100", "0.32.0", enable_chunked_prefill=False, max_model_len=32768)
    assert r["enable_chunked_prefill"] is False
    assert (r["max_num_batched_tokens"], r["max_num_seqs"]) == (32768, 1024)


def test_e7_hybrid_ssm_cache_dtype_from_the_hook():
    assert res("nemotron-h-8b")["mamba_ssm_cache_dtype"] == "float32"  # NemotronH: HF value or float32
    r = res("qwen3-next-80b-a3b", tensor_parallel_size=4)
    assert r["enable_chunked_prefill"] is True  # required by Mamba prefix caching


def test_e8_cpu_mla_compile_and_capture():
    r = res("deepseek-v3", "cpu")
    assert r["max_model_len"] == 163840 and r["cudagraph_capture_sizes"] == []
    assert r["attn_backend_mla"] == "CPU_MLA"


def test_e9_parallel_config_accepts_tp4_dcp2_before_the_model_check():
    exc = None
    try:
        res("llama-3.1-8b", tensor_parallel_size=4, decode_context_parallel_size=2)
    except ValueError as e:
        exc = e
    assert exc is not None and "tp_size=4 must be divisible" not in str(exc)  # 4 % 2 == 0 passes
    assert str(exc).startswith("Decode context parallelism for GQA/MQA")


def test_e11_ngram_v1_on_0_33():
    spec = '{"method": "ngram", "num_speculative_tokens": 3}'
    r = res("llama-3.1-8b", "h100", "0.33.0", speculative_config=spec)
    assert r["use_v2_model_runner"] is True and r["async_scheduling"] is True


def test_e12_level_o1_capture_sizes_and_o0_eager_equivalence():
    o1 = res("llama-3.1-8b", optimization_level=1)
    assert o1["cudagraph_capture_sizes"] == GRID_512
    o0 = res("llama-3.1-8b", optimization_level=0)
    assert o0["max_cudagraph_capture_size"] == 0
