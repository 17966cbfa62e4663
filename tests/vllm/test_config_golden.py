"""Golden tests: one case per row of the decision tables of vllm-config-spec.md §3 (the tables of
§3.4 block size, §3.5 batch defaults, §3.10 compilation/CUDA-graph mode, §3.20 other derived values,
and the "resulting defaults" list of §3.4), 0.33.0 unless the row names a release.

Each row is ``(row id, model, preset, release, env, flags, expected values)``; the id is the table
and row number of the spec. Rows whose value the pack does not model are listed in ``NOT_MODELLED``
with the reason, and ``test_every_row_is_covered`` checks that every row of every table is either a
golden case or listed there (docs/vllm.md "Not modelled (engine configuration)" says the same).
Worked examples (§7) are in ``test_config_examples.py``.
"""

from __future__ import annotations

import pytest
from config_cases import SPEC_RELEASE, res

from resolvable.vllm.config.report import config_time_value

#: Rows per table of §3 (the spec's tables, counted as printed).
TABLE_ROWS = {"3.4": 7, "3.5": 6, "3.10": 16, "3.20": 13}

DEEPEP_HT = {
    "data_parallel_size": 2,
    "all2all_backend": "deepep_high_throughput",
    "enable_expert_parallel": True,
}

# (row id, model, preset, release, env, flags, {field: value}); "config:<field>" is the value when
# create_engine_config returns (report.config_time_value), a bare field the final value.
ROWS = [
    # -- §3.4 block size -------------------------------------------------------------------------
    ("3.4-1 user value kept", "llama-3.1-8b", "h100", None, None, {"block_size": 32}, {"block_size": 32}),
    ("3.4-1 one backend: its preference", "deepseek-v3", "b200", None, None, {}, {"block_size": 32}),
    (
        "3.4-1 several backends: the default all accept",
        "gpt-oss-120b",
        "h100",
        None,
        None,
        {"attention_config": {"backend_per_kind": {"sliding_window": "TRITON_ATTN"}}},
        {"block_size": 16},
    ),
    (
        "3.4-1 several backends: the smallest common size",
        "deepseek-v3.2",
        "h100",
        None,
        None,
        {},
        {"block_size": 64},  # FLASH_ATTN_MLA_SPARSE (64) with the indexer
    ),
    (
        "3.4-2 CPU default 128 at selection (0.33+)",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {},
        {"block_size": 128},
    ),
    (
        "3.4-2 CPU 128 from the platform hook (0.30-0.32)",
        "llama-3.1-8b",
        "cpu",
        "0.32.0",
        None,
        {},
        {"config:block_size": 128, "block_size": 128},
    ),
    # -- §3.4 resulting defaults (no --block-size) -------------------------------------------------
    ("3.4-d 0.33 FLASH_ATTN 16", "llama-3.1-8b", "h100", None, None, {}, {"block_size": 16}),
    ("3.4-d 0.33 FLASHINFER 16", "llama-3.1-8b", "b200", None, None, {}, {"block_size": 16}),
    (
        "3.4-d 0.33 TRITON_ATTN 16",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"attention_backend": "TRITON_ATTN"},
        {"block_size": 16},
    ),
    (
        "3.4-d 0.33 TRITON_MLA 16",
        "deepseek-v3",
        "h100",
        None,
        None,
        {"attention_backend": "TRITON_MLA"},
        {"block_size": 16},
    ),
    ("3.4-d 0.33 FLASH_ATTN_MLA 16", "deepseek-v3", "h100", None, None, {}, {"block_size": 16}),
    ("3.4-d 0.33 FLASHINFER_MLA 32", "deepseek-v3", "b200", None, None, {}, {"block_size": 32}),
    (
        "3.4-d 0.33 FLASHMLA 64",
        "deepseek-v3",
        "h100",
        None,
        None,
        {"attention_backend": "FLASHMLA"},
        {"block_size": 64},
    ),
    (
        "3.4-d 0.33 CUTLASS_MLA 128",
        "deepseek-v3",
        "b200",
        None,
        None,
        {"attention_backend": "CUTLASS_MLA"},
        {"block_size": 128},
    ),
    ("3.4-d 0.33 sparse MLA 64", "deepseek-v3.2", "h100", None, None, {}, {"block_size": 64}),
    ("3.4-d 0.33 ROCM_AITER_UNIFIED 64", "gpt-oss-20b", "mi300x", None, None, {}, {"block_size": 64}),
    ("3.4-d 0.33 CPU 128", "llama-3.1-8b", "cpu", None, None, {}, {"block_size": 128}),
    ("3.4-d 0.34 FLASH_ATTN 64", "llama-3.1-8b", "h100", "0.34.0", None, {}, {"block_size": 64}),
    ("3.4-d 0.34 FLASHINFER 64", "llama-3.1-8b", "b200", "0.34.0", None, {}, {"block_size": 64}),
    (
        "3.4-d 0.34 TRITON_ATTN 64",
        "llama-3.1-8b",
        "h100",
        "0.34.0",
        None,
        {"attention_backend": "TRITON_ATTN"},
        {"block_size": 64},
    ),
    ("3.4-d 0.34 FLASHINFER_MLA 64", "deepseek-v3", "b200", "0.34.0", None, {}, {"block_size": 64}),
    (
        "3.4-d 0.34 FLASHMLA 64",
        "deepseek-v3",
        "h100",
        "0.34.0",
        None,
        {"attention_backend": "FLASHMLA"},
        {"block_size": 64},
    ),
    (
        "3.4-d 0.34 TRITON_MLA 64",
        "deepseek-v3",
        "h100",
        "0.34.0",
        None,
        {"attention_backend": "TRITON_MLA"},
        {"block_size": 64},
    ),
    ("3.4-d 0.34 sparse MLA 64", "deepseek-v3.2", "h100", "0.34.0", None, {}, {"block_size": 64}),
    (
        "3.4-d 0.34 CUTLASS_MLA 128",
        "deepseek-v3",
        "b200",
        "0.34.0",
        None,
        {"attention_backend": "CUTLASS_MLA"},
        {"block_size": 128},
    ),
    ("3.4-d 0.34 ROCM_ATTN 16", "llama-3.1-8b", "mi300x", "0.34.0", None, {}, {"block_size": 16}),
    (
        # The spec's list says 16; vLLM 0.34's backend lists kernel sizes 16/32 and no preference of
        # its own, and AttentionBackend.supports_block_size accepts any multiple of a kernel size, so
        # the default 64 stands (v1/attention/backend.py get_preferred_block_size).
        "3.4-d 0.34 ROCM_AITER_FA 64 (spec: 16)",
        "llama-3.1-8b",
        "mi300x",
        "0.34.0",
        {"VLLM_ROCM_USE_AITER": "1"},
        {"attention_backend": "ROCM_AITER_FA"},
        {"block_size": 64},
    ),
    ("3.4-d 0.34 CPU 128", "llama-3.1-8b", "cpu", "0.34.0", None, {}, {"block_size": 128}),
    # -- §3.5 batch defaults (tier × usage context) ----------------------------------------------
    (
        "3.5-1 >= 160 GiB, API server",
        "llama-3.1-8b",
        "b200",
        None,
        None,
        {},
        {"max_num_batched_tokens": 16384, "max_num_seqs": 1024},
    ),
    (
        "3.5-1 >= 160 GiB, LLM class",
        "llama-3.1-8b",
        "b200",
        None,
        None,
        {"usage_context": "LLM_CLASS"},
        {"max_num_batched_tokens": 16384, "max_num_seqs": 1024},
    ),
    (
        "3.5-2 >= 70 GiB not A100, API server",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"max_num_batched_tokens": 8192, "max_num_seqs": 1024},
    ),
    (
        "3.5-2 >= 70 GiB not A100, LLM class",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"usage_context": "LLM_CLASS"},
        {"max_num_batched_tokens": 16384, "max_num_seqs": 1024},
    ),
    (
        "3.5-2 GB10 (cc 12.1) leaves the mid tier (0.33+)",
        "llama-3.1-8b",
        "gb10",
        None,
        None,
        {},
        {"max_num_batched_tokens": 2048, "max_num_seqs": 256},
    ),
    (
        "3.5-2 GB10 in the mid tier (0.30-0.32)",
        "llama-3.1-8b",
        "gb10",
        "0.32.0",
        None,
        {},
        {"max_num_batched_tokens": 8192, "max_num_seqs": 1024},
    ),
    (
        "3.5-3 otherwise (A100 by name), API server",
        "llama-3.1-8b",
        "a100",
        None,
        None,
        {},
        {"max_num_batched_tokens": 2048, "max_num_seqs": 256},
    ),
    (
        "3.5-3 otherwise (A100 by name), LLM class",
        "llama-3.1-8b",
        "a100",
        None,
        None,
        {"usage_context": "LLM_CLASS"},
        {"max_num_batched_tokens": 8192, "max_num_seqs": 256},
    ),
    (
        "3.5-5 CPU, API server, world size 1",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {},
        {"max_num_batched_tokens": 2048, "max_num_seqs": 128},
    ),
    (
        "3.5-5 CPU, API server, world size 2",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {"tensor_parallel_size": 2},
        {"max_num_batched_tokens": 4096, "max_num_seqs": 256},
    ),
    (
        "3.5-5 CPU, LLM class",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {"usage_context": "LLM_CLASS"},
        {"max_num_batched_tokens": 4096, "max_num_seqs": 256},
    ),
    (
        "3.5-6 other usage contexts: scheduler defaults",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"usage_context": "ENGINE_CONTEXT"},
        {"max_num_batched_tokens": 2048, "max_num_seqs": 128},
    ),
    # -- §3.10 compilation mode and cudagraph_mode (ordered rules) ---------------------------------
    (
        "3.10-1 enforce_eager",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"enforce_eager": True},
        {"compilation_mode": "NONE", "cudagraph_mode": "NONE", "cudagraph_capture_sizes": []},
    ),
    (
        "3.10-2 TORCH_COMPILE_DISABLE",
        "llama-3.1-8b",
        "h100",
        None,
        {"TORCH_COMPILE_DISABLE": "1"},
        {},
        {"compilation_mode": "NONE"},
    ),
    (
        "3.10-3 breakable graphs by architecture",
        "deepseek-v3.2",
        "h100",
        None,
        None,
        {"tensor_parallel_size": 8},
        {"compilation_mode": "NONE", "cudagraph_mode": "FULL_AND_PIECEWISE"},
    ),
    (
        "3.10-3 breakable graphs by environment",
        "llama-3.1-8b",
        "h100",
        None,
        {"VLLM_USE_BREAKABLE_CUDAGRAPH": "1"},
        {},
        {"compilation_mode": "NONE", "cudagraph_mode": "FULL_AND_PIECEWISE"},
    ),
    (
        "3.10-5 level above O0: VLLM_COMPILE",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"optimization_level": 1},
        {"compilation_mode": "VLLM_COMPILE"},
    ),
    (
        "3.10-7 O0: cudagraph NONE",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"optimization_level": 0},
        {"compilation_mode": "NONE", "cudagraph_mode": "NONE"},
    ),
    (
        "3.10-7 O1: PIECEWISE",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"optimization_level": 1},
        {"cudagraph_mode": "PIECEWISE"},
    ),
    (
        "3.10-7 O2: FULL_AND_PIECEWISE",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"cudagraph_mode": "FULL_AND_PIECEWISE"},
    ),
    (
        "3.10-7 O3 = O2",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"optimization_level": 3},
        {"compilation_mode": "VLLM_COMPILE", "cudagraph_mode": "FULL_AND_PIECEWISE"},
    ),
    (
        "3.10-9 PIECEWISE without VLLM_COMPILE: NONE",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"compilation_mode": "NONE", "cudagraph_mode": "PIECEWISE"},
        {"cudagraph_mode": "NONE"},
    ),
    (
        "3.10-9 FULL_AND_PIECEWISE without VLLM_COMPILE: FULL_DECODE_ONLY",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"compilation_mode": "NONE"},
        {"cudagraph_mode": "FULL_DECODE_ONLY"},
    ),
    (
        "3.10-10 encoder-decoder: FULL_DECODE_ONLY",
        "whisper-large-v3",
        "h100",
        None,
        None,
        {},
        {"cudagraph_mode": "FULL_DECODE_ONLY"},
    ),
    ("3.10-10 CPU: NONE", "llama-3.1-8b", "cpu", None, None, {}, {"cudagraph_mode": "NONE"}),
    (
        "3.10-11 CPU: VLLM_COMPILE becomes DYNAMO_TRACE_ONCE",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {},
        {"compilation_mode": "DYNAMO_TRACE_ONCE"},
    ),
    (
        "3.10-11 XPU 0.30: graphs need VLLM_XPU_ENABLE_XPU_GRAPH",
        "llama-3.1-8b",
        "xpu",
        "0.30.0",
        None,
        {},
        {"cudagraph_mode": "NONE"},
    ),
    (
        "3.10-12 stock torch.compile on the V2 runner: NONE (0.32+)",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"compilation_mode": "STOCK_TORCH_COMPILE"},
        {"cudagraph_mode": "NONE"},
    ),
    (
        "3.10-12 stock torch.compile before 0.32: piecewise dropped only",
        "llama-3.1-8b",
        "h100",
        "0.31.0",
        None,
        {"compilation_mode": "STOCK_TORCH_COMPILE"},
        {"cudagraph_mode": "FULL_DECODE_ONLY"},
    ),
    (
        "3.10-14 DeepEP high-throughput with DP > 1: NONE",
        "qwen3-30b-a3b",
        "h100",
        None,
        None,
        {**DEEPEP_HT, "_gpus": 8},
        {"cudagraph_mode": "NONE"},
    ),
    (
        "3.10-16 FULL mixed mode without ALWAYS support: FULL_AND_PIECEWISE",
        "deepseek-v3",
        "b200",
        None,
        None,
        {"attention_backend": "TRITON_MLA", "cudagraph_mode": "FULL"},
        {"config:cudagraph_mode": "FULL", "cudagraph_mode": "FULL_AND_PIECEWISE"},
    ),
    (
        "3.10-16 spec decode below UNIFORM_BATCH: PIECEWISE",
        "deepseek-v3",
        "b200",
        None,
        None,
        {"attention_backend": "CUTLASS_MLA", "num_speculative_tokens": 2},
        {"cudagraph_mode": "PIECEWISE"},
    ),
    # -- §3.20 other derived values ----------------------------------------------------------------
    (
        "3.20-1 distributed_executor_backend: uni at world size 1",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"distributed_executor_backend": "uni"},
    ),
    (
        "3.20-1 distributed_executor_backend: mp above 1",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"tensor_parallel_size": 2},
        {"distributed_executor_backend": "mp"},
    ),
    (
        "3.20-5 runner_type from the architecture (pooling)",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"runner": "pooling"},
        {"runner_type": "pooling"},
    ),
    ("3.20-5 runner_type generate", "llama-3.1-8b", "h100", None, None, {}, {"runner_type": "generate"}),
    (
        "3.20-7 max_num_scheduled_tokens with speculative decoding",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 3}'},
        {"max_num_scheduled_tokens": 8192},
    ),
    (
        "3.20-2 worker_cls: GPU worker on CUDA",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"worker_cls": "vllm.v1.worker.gpu_worker.Worker"},
    ),
    (
        "3.20-2 worker_cls: CPU worker",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {},
        {"worker_cls": "vllm.v1.worker.cpu_worker.CPUWorker"},
    ),
    (
        "3.20-2 worker_cls: XPU worker",
        "llama-3.1-8b",
        "xpu",
        None,
        None,
        {},
        {"worker_cls": "vllm.v1.worker.xpu_worker.XPUWorker"},
    ),
    (
        "3.20-10 disable_custom_all_reduce: CUDA has the kernel",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"disable_custom_all_reduce": False},
    ),
    (
        "3.20-10 disable_custom_all_reduce: ROCm MI300 has the kernel",
        "llama-3.1-8b",
        "mi300x",
        None,
        None,
        {},
        {"disable_custom_all_reduce": False},
    ),
    (
        "3.20-10 disable_custom_all_reduce: forced on CPU",
        "llama-3.1-8b",
        "cpu",
        None,
        None,
        {},
        {"disable_custom_all_reduce": True},
    ),
    (
        "3.20-10 disable_custom_all_reduce: forced on XPU",
        "llama-3.1-8b",
        "xpu",
        None,
        None,
        {},
        {"disable_custom_all_reduce": True},
    ),
    (
        "3.20-11 disable_chunked_mm_input: multimodal prefix-LM on CUDA",
        "gemma-3-27b",
        "h100",
        None,
        None,
        {},
        {"disable_chunked_mm_input": True},
    ),
    (
        "3.20-11 disable_chunked_mm_input: text-only serving",
        "gemma-3-27b",
        "h100",
        None,
        None,
        {"disable_multimodal": True},
        {"disable_chunked_mm_input": False},
    ),
    (
        "3.20-11 disable_chunked_mm_input: encoder-decoder",
        "whisper-large-v3",
        "h100",
        None,
        None,
        {},
        {"disable_chunked_mm_input": True},
    ),
    (
        "3.20-11 disable_chunked_mm_input: not on CPU",
        "gemma-3-27b",
        "cpu",
        None,
        None,
        {},
        {"disable_chunked_mm_input": False},
    ),
    (
        "3.20-4 reasoning_parser: GPT-OSS defaults to openai_gptoss",
        "gpt-oss-20b",
        "h100",
        None,
        None,
        {},
        {"reasoning_parser": "openai_gptoss"},
    ),
    (
        "3.20-4 reasoning_parser: a user value is kept",
        "gpt-oss-20b",
        "h100",
        None,
        None,
        {"reasoning_parser": "deepseek_r1"},
        {"reasoning_parser": "deepseek_r1"},
    ),
    (
        "3.20-4 reasoning_parser: empty elsewhere",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"reasoning_parser": ""},
    ),
    (
        "3.20-8 sparse_mla_prefill_workspace_factor: 5 up to 256K",
        "deepseek-v3.2",
        "h100",
        None,
        None,
        {},
        {"sparse_mla_prefill_workspace_factor": 5},
    ),
    (
        "3.20-8 sparse_mla_prefill_workspace_factor: 2 above 256K",
        "qwen2.5-7b-instruct-1m",
        "h100",
        None,
        None,
        {},
        {"max_model_len": 1010000, "sparse_mla_prefill_workspace_factor": 2},
    ),
    (
        "3.20-8 sparse_mla_prefill_workspace_factor: unset before 0.32",
        "deepseek-v3.2",
        "h100",
        "0.31.0",
        None,
        {},
        {"sparse_mla_prefill_workspace_factor": None},
    ),
    (
        "3.20-13 flash_attn_version: FA3 on SM90",
        "llama-3.1-8b",
        "h100",
        None,
        None,
        {},
        {"flash_attn_version": 3},
    ),
    (
        "3.20-13 flash_attn_version: FA2 on SM80",
        "llama-3.1-8b",
        "a100",
        None,
        None,
        {},
        {"flash_attn_version": 2},
    ),
]

#: Rows the pack does not model, with the reason (docs/vllm.md, "Not modelled").
NOT_MODELLED = {
    "3.4-3": "hybrid/Mamba page alignment of the block size (§3.8): the value before alignment is reported",
    "3.4-4": "kv_cache_dtype_skip_layers alignment (TurboQuant/UltraQuant layouts are not modelled)",
    "3.4-5": "the check after alignment (follows rows 3 and 4)",
    "3.4-6": "XPU GDN rounding to 64: applies to the aligned hybrid size of row 3",
    "3.4-7": "DCP cp_kv_cache_interleave_size (not a modelled flag)",
    "3.5-4": "TPU (external tpu_inference; no TPU preset)",
    "3.10-4": "ROCm custom ops (not a derived value of the pack)",
    "3.10-6": "custom-op base (not a derived value of the pack)",
    "3.10-8": "dynamic speculative decoding (not modelled)",
    "3.10-13": "MoonEP (not modelled)",
    "3.10-15": "an assertion that rules 9 and 12 make unreachable from flags",
    "3.20-3": "tokenizer_mode (not modelled)",
    "3.20-6": "enable_cumem_allocator / sleep mode (not modelled)",
    "3.20-9": "fast_moe_cold_start (not modelled)",
    "3.20-12": "kv_cache_dtype_skip_layers (not modelled)",
}


def _value(r, field: str):
    if field.startswith("config:"):
        return config_time_value(r, field.removeprefix("config:"))
    return r[field]


@pytest.mark.parametrize(
    ("row", "model", "plat", "version", "env", "flags", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_decision_table_row(row, model, plat, version, env, flags, expected):
    flags = dict(flags)
    gpus = flags.pop("_gpus", None)
    r = res(model, plat, version or SPEC_RELEASE, env, gpus, **flags)
    got = {field: _value(r, field) for field in expected}
    assert got == expected


def test_every_row_is_covered():
    covered: dict[str, set[int]] = {t: set() for t in TABLE_ROWS}
    for row_id in [r[0].split()[0] for r in ROWS] + list(NOT_MODELLED):
        table, _, number = row_id.partition("-")
        if number != "d":  # the "resulting defaults" list is not a numbered table row
            covered[table].add(int(number))
    for table, rows in TABLE_ROWS.items():
        assert covered[table] == set(range(1, rows + 1)), table
    golden = {r[0].split()[0] for r in ROWS}
    assert not golden & set(NOT_MODELLED)  # a modelled row is not also listed as not modelled


def test_3_4_smallest_common_size_of_several_backends():
    """§3.4 row 1: several backends, the default not accepted by all: the smallest LCM of one size
    per backend that every backend accepts (``_preferred_block_size_for_backends``)."""
    from resolvable.vllm.backends._spec import M
    from resolvable.vllm.rules.block_size import common_block_size

    class _Backend:
        def __init__(self, name, sizes):
            self.name, self._sizes = name, sizes

        def block_sizes(self, q):
            return self._sizes

    assert common_block_size([(None, _Backend("A", (16, 32))), (None, _Backend("B", (M(64),)))], 16) == 64
    assert common_block_size([(None, _Backend("A", (16,))), (None, _Backend("B", (24,)))], 40) == 48
    assert common_block_size([(None, _Backend("A", (16,))), (None, _Backend("B", (M(16),)))], 16) == 16
