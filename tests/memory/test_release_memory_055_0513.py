"""Issue 32 item 4 (h34m): the memory model's differences for sglang 0.5.5-0.5.13, read in the
wheels (server_args.py : _handle_gpu_memory_settings; model_executor/model_runner.py and
model_runner_kv_cache_mixin.py : init_memory_pool / _resolve_max_num_reqs / MemoryPoolConfig;
managers/tp_worker.py of 0.5.5). Every expected number is worked out by hand from the release's
formula (reserved MiB, then round((gpu - reserved) / gpu, 3)), not taken from the code under test.

H100 80 GB: 81,559 MiB (nvidia-smi). Llama-3.1-8B at TP 1: chunked prefill 8192, decode max_bs 256;
reserved = 512 + 1.5 × 8192 + 2 × 256 + 1 × 1 / 8 × 1024 = 13,440 MiB before the prefill graph.
The prefill (piecewise) graph up to 8192 tokens captures 8 + 14 + 8 + 8 + 12 + 8 = 58 sizes,
464 MiB at 8 MiB each.
"""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable.sglang import load_model, resolve_server_args
from resolvable.sglang.memory import capacity, default_mem_fraction_static, max_running_requests

H100_MIB = 81559.0
H200_MIB = 143771.0
LLAMA_TP1 = {
    "tp_size": 1,
    "chunked_prefill_size": 8192,
    "cuda_graph_backend_decode": "full",
    "cuda_graph_backend_prefill": "tc_piecewise",
}


def _mfs(values, version, model="llama-3.1-8b", gpu=H100_MIB):
    return default_mem_fraction_static(values, load_model(model), gpu, None, version)


def test_prefill_graph_reserve_is_opt_in_before_0_5_10():
    """0.5.5-0.5.9 reserve for the piecewise prefill graph only with --enable-piecewise-cuda-graph
    (0.5.10's _handle_gpu_memory_settings: "if not self.disable_piecewise_cuda_graph").
    0.5.9: (81559 - 13440) / 81559 = 0.83521 → 0.835; 0.5.10 and 0.5.14: 13440 + 464 = 13904,
    (81559 - 13904) / 81559 = 0.82952 → 0.830."""
    for v in ("0.5.5", "0.5.6", "0.5.7", "0.5.8", "0.5.8.post1", "0.5.9"):
        assert _mfs(LLAMA_TP1, v) == 0.835, v
    for v in ("0.5.10", "0.5.13", "0.5.14", None):
        assert _mfs(LLAMA_TP1, v) == 0.830, v


def test_mla_prefill_graph_reserve_from_0_5_10():
    """DeepSeek-V3 (MLA) on an H200 (143,771 MiB) at TP 8: chunked prefill 8192, max_bs 512;
    reserved = 512 + 12288 + 1024 + 8 / 8 × 1024 = 14,848. 0.5.9: (143771 - 14848) / 143771 =
    0.89672 → 0.897; from 0.5.10 + 1.5 GiB for an MLA backend: 16,384 → 0.88604 → 0.886."""
    values = {**LLAMA_TP1, "tp_size": 8}
    assert _mfs(values, "0.5.9", "deepseek-v3", H200_MIB) == 0.897
    assert _mfs(values, "0.5.10", "deepseek-v3", H200_MIB) == 0.886


def test_opt_in_piecewise_reserve_per_release():
    """--enable-piecewise-cuda-graph with --chunked-prefill-size 4096 (H100, TP 1): reserved =
    512 + 6144 + 512 + 128 = 7,296 before the piecewise term.
    0.5.5: nothing; floor 10,240 → (81559 - 10240) / 81559 = 0.87445 → 0.874.
    0.5.5.post1-0.5.6: max_tokens (default 4096) // 4 = 1024 after the floor: 11,264 → 0.86189 → 0.862.
    0.5.7: max_tokens (default the chunk, 4096) // 8 = 512 after the floor: 10,752 → 0.86817 → 0.868.
    0.5.8-0.5.9: 50 sizes up to 4096 × 8 = 400 before the floor: 7,696 → floor 10,240 → 0.874."""
    values = {**LLAMA_TP1, "chunked_prefill_size": 4096, "enable_piecewise_cuda_graph": True}
    assert _mfs(values, "0.5.5") == 0.874
    assert _mfs(values, "0.5.6") == 0.862
    assert _mfs(values, "0.5.7") == 0.868
    assert _mfs(values, "0.5.8") == _mfs(values, "0.5.9") == 0.874


def test_draft_model_reserve_before_0_5_14():
    """Speculative decoding adds after the 10 GiB floor: EAGLE (any algorithm but NGRAM and
    STANDALONE) 2 GiB in 0.5.5-0.5.9, 4 GiB in 0.5.10-0.5.13; STANDALONE 6 GiB; nothing from 0.5.14.
    0.5.9 EAGLE: 13440 + 2048 = 15,488 → (81559 - 15488) / 81559 = 0.81010 → 0.810;
    0.5.10 EAGLE: 13904 + 4096 = 18,000 → 0.77930 → 0.779; 0.5.9 STANDALONE: 19,584 → 0.75988 → 0.760;
    NGRAM: no reserve (0.835 at 0.5.9); 0.5.14: 0.830 whatever the algorithm."""
    eagle = {**LLAMA_TP1, "speculative_algorithm": "EAGLE"}
    assert _mfs(eagle, "0.5.9") == 0.810
    assert _mfs(eagle, "0.5.10") == _mfs(eagle, "0.5.13") == 0.779
    assert _mfs({**LLAMA_TP1, "speculative_algorithm": "STANDALONE"}, "0.5.9") == 0.760
    assert _mfs({**LLAMA_TP1, "speculative_algorithm": "NGRAM"}, "0.5.9") == 0.835
    assert _mfs(eagle, "0.5.14") == 0.830


def test_draft_reserve_is_added_after_the_floor():
    """--chunked-prefill-size 2048 on an H100 at 0.5.9: 512 + 3072 + 512 + 128 = 4,224, floored to
    10,240, then + 2048 for EAGLE = 12,288 → (81559 - 12288) / 81559 = 0.84934 → 0.849 (added
    before the floor it would vanish in it: 0.874)."""
    values = {**LLAMA_TP1, "chunked_prefill_size": 2048, "speculative_algorithm": "EAGLE"}
    assert _mfs(values, "0.5.9") == 0.849


def test_max_running_requests_and_the_request_table_per_release():
    """Unset, every release runs min(clamp(tokens / context × 512, 2048, 4096), tokens // 2).
    Given 1024 with 8 DP-attention ranks (500,000 tokens, context 163,840: estimate 1562 → 2048):
    0.5.5-0.5.9 size the request table by 1024 (undivided) and run min(1024 // 8, 1024) = 128;
    0.5.10-0.5.13 run min(128, 2048) = 128 with a table of 128; 0.5.14 min(128, 250000) = 128.
    Given 4096 on 3,000 tokens (DP 1): 0.5.9 runs min(4096, 4096) = 4096 (table 4096);
    0.5.10-0.5.13 min(4096, 2048) = 2048; 0.5.14 min(4096, 1500) = 1500."""
    dp = {"max_running_requests": 1024}
    assert max_running_requests(dp, 500_000, 163_840, 8, "0.5.9") == (128, 1024)
    assert max_running_requests(dp, 500_000, 163_840, 8, "0.5.10") == (128, None)
    assert max_running_requests(dp, 500_000, 163_840, 8, "0.5.14") == (128, None)
    small = {"max_running_requests": 4096}
    assert max_running_requests(small, 3000, 8192, 1, "0.5.9") == (4096, 4096)
    assert max_running_requests(small, 3000, 8192, 1, "0.5.13") == (2048, None)
    assert max_running_requests(small, 3000, 8192, 1, "0.5.14") == (1500, None)
    assert max_running_requests({}, 3000, 8192, 1, "0.5.5") == (1500, 2048)
    assert max_running_requests({}, 3000, 8192, 1, "0.5.10") == (1500, None)


def test_request_table_bytes_follow_the_undivided_value_before_0_5_10():
    """The req_to_token table is (rows + 1) × (context + 4) int32: 0.5.9 with
    --max-running-requests 1024 and 8 DP ranks holds 1025 rows, 0.5.10 129."""
    hf = load_model("llama-3.1-8b")
    platform = Platform.preset("h100")
    res = resolve_server_args(hf, platform, {}, tp_size=8, dp_size=8, enable_dp_attention=True)
    values = {**{k: res[k] for k in res}, "max_running_requests": 1024}

    def table(version):
        rep = capacity(
            values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
        )
        (alloc,) = [a for a in rep.allocations if a.name == "req_to_token table"]
        return alloc.bytes, rep.context_length

    old, ctx = table("0.5.9")
    new, _ = table("0.5.10")
    assert old == 1025 * (ctx + 4) * 4
    assert new == 129 * (ctx + 4) * 4


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.5.9", "Current value: self.server_args.mem_fraction_static=0.5"),
        ("0.5.13", "Current value: mem_fraction_static=0.5"),
    ],
)
def test_empty_pool_refusal_text_per_release(version, expected):
    """Llama-3.1-8B (~15 GiB bf16) on an RTX 4090 at --mem-fraction-static 0.5: the weights take the
    whole fraction. Before 0.5.14 the pool comes out empty and sglang says "Not enough memory…",
    with the value printed as init_memory_pool's f-string expression before 0.5.10
    (model_runner.py / model_runner_kv_cache_mixin.py) and as MemoryPoolConfig's
    "mem_fraction_static=" from 0.5.10; 0.5.14 has the "Loaded weights leave no GPU memory" check."""
    hf = load_model("llama-3.1-8b")
    platform = Platform.preset("rtx4090")
    res = resolve_server_args(hf, platform, {}, mem_fraction_static=0.5)
    values = {k: res[k] for k in res}
    rep = capacity(
        values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
    )
    assert rep.status == "refused" and not rep.fits
    assert rep.refusal == "Not enough memory. Please try to increase --mem-fraction-static. " + expected
    later = capacity(
        values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version="0.5.14"
    )
    assert later.refusal.startswith("Loaded weights leave no GPU memory")


def test_symmetric_memory_pool_from_0_5_9():
    """--enable-symm-mem: 0.5.9's ModelRunner.prealloc_symmetric_memory_pool allocates
    SGLANG_SYMM_MEM_PREALLOC_GB_SIZE GiB after the graphs, 4 unless set (server_args.py); the
    0.5.5-0.5.8 wheels have no such pool (the variable does not exist in them)."""
    hf = load_model("llama-3.1-8b")
    platform = Platform.preset("h100")
    res = resolve_server_args(hf, platform, {})
    values = {**{k: res[k] for k in res}, "enable_symm_mem": True}

    def pools(version):
        rep = capacity(
            values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
        )
        return [a.bytes for a in rep.allocations if a.name == "symmetric-memory pool"]

    assert pools("0.5.8") == []
    assert pools("0.5.9") == pools("0.5.23") == [4 * 1024**3]


def test_prefill_graph_allocation_listed_from_0_5_10_or_when_enabled():
    """After the pool, the piecewise prefill graphs are captured by default from 0.5.10 only;
    before, with --enable-piecewise-cuda-graph (an unmodelled flag: ``extra``)."""
    hf = load_model("llama-3.1-8b")
    platform = Platform.preset("h100")
    res = resolve_server_args(hf, platform, {})
    values = {k: res[k] for k in res}

    def names(version, **extra):
        rep = capacity(
            values,
            hf,
            device_name=platform.device_name,
            memory_gib=platform.memory_gib,
            version=version,
            extra=extra,
        )
        return {a.name for a in rep.allocations}

    graph = "prefill (piecewise) CUDA graphs"
    assert graph not in names("0.5.9")
    assert graph in names("0.5.9", enable_piecewise_cuda_graph=True)
    assert graph in names("0.5.10")


def test_dsa_fp8_cell_per_release():
    """DeepSeek-V3.2 with an fp8 KV cache (61 layers): 0.5.5-0.5.8's profile_max_num_token counts
    (kv_lora_rank 512 + rope 64) × 1 B = 576 B + the indexer's 128 + 128 // 128 × 4 = 132 B,
    708 B a layer; calculate_mla_kv_cache_dim (0.5.9) sizes 512 + 512 // 128 × 4 + 64 × 2 = 656 B,
    788 B a layer; on ROCm with the tilelang DSA kernels 0.5.10 keeps 708, 0.5.9 does not."""
    from resolvable.sglang.memory import kv_cell

    hf = load_model("deepseek-v3.2")
    platform = Platform.preset("h200")
    res = resolve_server_args(hf, platform, {}, tp_size=8, kv_cache_dtype="fp8_e4m3")
    v = {k: res[k] for k in res}
    assert kv_cell(v, hf, "0.5.8")[0] == 708 * 61
    assert kv_cell(v, hf, "0.5.9")[0] == kv_cell(v, hf, "0.5.13")[0] == kv_cell(v, hf)[0] == 788 * 61
    rocm = {**v, "device": "hip", "dsa_prefill_backend": "tilelang", "dsa_decode_backend": "tilelang"}
    assert kv_cell(rocm, hf, "0.5.9")[0] == 788 * 61
    assert kv_cell(rocm, hf, "0.5.10")[0] == 708 * 61
