"""Issue 27: the allocations both engines make after the KV pool, and the launches that were
predicted to fit although their logs show an out-of-memory failure or a refusal.

Every test names the report it comes from; the sizes follow the wheels (sglang 0.5.6/0.5.15,
vLLM 0.19/0.25.1/0.31, read, not imported) as cited in ``resolvable/sglang/memory.py`` and
``resolvable/vllm/memory.py``.
"""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable._hfconfig import HFConfig
from resolvable.device_memory import device_total_bytes
from resolvable.memory import GIB, Allocation, after_pool_verdict
from resolvable.sglang import load_model, resolve_server_args
from resolvable.sglang.memory import capacity as sglang_capacity
from resolvable.sglang.memory import kv_cell, req_to_token_bytes
from resolvable.vllm.memory import capacity as vllm_capacity


def _sglang(hf, preset: str, values: dict | None = None, extra: dict | None = None, **resolved):
    platform = Platform.preset(preset)
    res = resolve_server_args(hf, platform, {}, **resolved)
    v = {k: res[k] for k in res}
    v.update(values or {})
    return sglang_capacity(
        v, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, extra=extra or {}
    )


def _vllm(hf, preset: str, version: str = "0.31", **values):
    platform = Platform.preset(preset)
    return vllm_capacity(
        values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
    )


def _with(model: str, source: str, **config) -> HFConfig:
    return HFConfig({**load_model(model).to_dict(), **config}, source=source)


# -- the verdict over allocations ---------------------------------------------------------------


def test_after_pool_verdict_orders_allocations_and_names_the_failing_one():
    a = Allocation("table", 3 * GIB, "after-pool", "x")
    b = Allocation("graphs", 2 * GIB, "after-pool", "y", low=1 * GIB, high=4 * GIB)
    assert after_pool_verdict(10 * GIB, (a, b))[0] == "starts"
    status, failed, short, message = after_pool_verdict(3.5 * GIB, (a, b))
    assert (status, failed.name, round(short / GIB, 2)) == ("does-not-fit", "graphs", 0.5)
    assert message.startswith(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (graphs)"
    )
    unknown = Allocation("aiter", None, "after-pool", "z", unknown="run time")
    assert after_pool_verdict(10 * GIB, (a, unknown))[:2] == ("starts", None)  # no margin asked
    assert after_pool_verdict(10 * GIB, (a, unknown), unknown_margin=8 * GIB)[:2] == ("unknown", unknown)
    assert Allocation("x", None, "after-pool", "z", unknown="why").to_dict()["size"] == "unknown: why"


# -- SGLang -------------------------------------------------------------------------------------


def test_sglang_llama4_scout_tp8_request_table_does_not_fit():
    """Issue 27 (held-out log): Llama-4-Scout TP8 failed allocating 80.04 GiB, the request-to-token
    table: (2048 + 1) rows × (10,485,760 + 4) int32 columns."""
    rep = _sglang(load_model("llama-4-scout"), "h100", tp_size=8)
    assert rep.context_length == 10_485_760 and rep.max_running_requests == 2048
    table = req_to_token_bytes(2048, 10_485_760)
    assert round(table / GIB, 2) == 80.04
    assert rep.status == "does-not-fit" and not rep.fits
    assert rep.failing == "req_to_token table"
    assert "Tried to allocate 80.04 GiB (req_to_token table)" in rep.refusal
    assert rep.fix.startswith("--max-running-requests ")
    rows = int(rep.fix.split()[1])
    fixed = _sglang(load_model("llama-4-scout"), "h100", {"max_running_requests": rows}, tp_size=8)
    assert fixed.status == "starts" and fixed.max_running_requests == rows
    d = rep.to_dict()
    assert d["status"] == "does-not-fit" and d["failing_allocation"] == "req_to_token table"
    assert any(a["name"] == "req_to_token table" and round(a["gib"], 2) == 80.04 for a in d["allocations"])


def test_sglang_gb200_symmetric_memory_pool_is_counted_and_never_a_silent_fit():
    """NVIDIA/srt-slurm issue 172: DeepSeek-R1 FP4, TP4, --mem-fraction-static 0.95 on GB200 —
    "Tried to allocate 4.00 GiB ... total capacity of 184.00 GiB" in prealloc_symmetric_memory_pool,
    after FlashInfer's FP4 autotuning (flashinfer_trtllm MoE runner)."""
    hf = _with(
        "deepseek-r1",
        "nvidia/DeepSeek-R1-FP4 (hf_quant_config: modelopt NVFP4)",
        quantization_config={"quant_method": "modelopt", "quant_algo": "NVFP4"},
    )
    rep = _sglang(
        hf,
        "gb200",
        {"enable_symm_mem": True, "moe_runner_backend": "flashinfer_trtllm"},
        tp_size=4,
        mem_fraction_static=0.95,
    )
    assert rep.device_total_bytes == int(184.0 * GIB)  # not B200's 178.4
    names = {a.name: a for a in rep.allocations}
    assert names["symmetric-memory pool"].bytes == 4 * GIB and names["symmetric-memory pool"].exact
    assert names["FlashInfer autotuner workspaces"].bytes is None
    assert rep.status == "unknown" and not rep.fits
    assert rep.message.startswith("unknown: FlashInfer autotuner workspaces")
    # SGLANG_SYMM_MEM_PREALLOC_GB_SIZE larger than what the 0.95 fraction leaves: out of memory
    big = _sglang(
        hf,
        "gb200",
        {"enable_symm_mem": True},
        {"symm_mem_prealloc_gib": 16},
        tp_size=4,
        mem_fraction_static=0.95,
    )
    assert big.status == "does-not-fit" and big.failing == "symmetric-memory pool"
    assert big.fix.startswith("--mem-fraction-static 0.")


def test_sglang_mi355x_aiter_workspaces_are_counted():
    """sglang issue 18263 (tests/memory/corpus/sglang-18263-qwen3-30b-a3b-mi355x.json): Qwen3-30B
    with the aiter backend on MI355X at --mem-fraction-static 0.911. The aiter backend's decode
    workspace (aiter_backend.py : AiterAttnBackend.__init__, 0.5.14-0.5.23) is max running
    requests × heads per rank × ceil(context / 256) × (head_dim + 2) × 4 B, and its CUDA-graph
    buffers (init_cuda_graph_state) graph max_bs × (context int32 indices + a context-byte mask)."""
    hf = load_model("qwen3-30b-a3b")
    rep = _sglang(hf, "mi355x", {"attention_backend": "aiter"}, mem_fraction_static=0.911)
    names = {a.name: a for a in rep.allocations}
    ws, graphs = names["aiter decode workspace"], names["aiter CUDA-graph index buffers"]
    ctx = 40960
    assert rep.context_length == ctx and rep.max_running_requests == 4096
    assert ws.exact and ws.bytes == 4096 * 32 * (ctx // 256) * (128 + 2) * 4  # 10.16 GiB
    assert graphs.exact and graphs.bytes > 0
    # the long-context aiter scale (x0.85) leaves room for them: a verdict, no longer "unknown"
    assert rep.inputs["mem_fraction_static"] == pytest.approx(0.911 * 0.85)
    assert rep.status == "starts" and rep.headroom_bytes > sum(
        a.bytes for a in rep.allocations if a.phase == "after-pool" and a.bytes
    )


def test_sglang_aiter_workspace_out_of_memory_is_a_verdict_with_a_checked_fix():
    """Llama-3.1-8B on one MI300X at --context-length 8192 (no long-context scale) and
    --mem-fraction-static 0.99: the decode workspace, running × 32 heads × 32 partitions × 130 × 4 B
    (2.03 GiB), is more than the 1.9 GiB the pool leaves: torch's OOM at that allocation."""
    rep = _sglang(
        load_model("llama-3.1-8b"),
        "mi300x",
        {"attention_backend": "aiter"},
        context_length=8192,
        mem_fraction_static=0.99,
    )
    ws = {a.name: a for a in rep.allocations}["aiter decode workspace"]
    assert rep.inputs["mem_fraction_static"] == 0.99  # a context of 8192 is not scaled by 0.85
    assert ws.bytes == rep.max_running_requests * 32 * 32 * 130 * 4
    assert rep.status == "does-not-fit" and rep.failing == "aiter decode workspace"
    assert rep.short_by_bytes > 0 and rep.fix.startswith("--mem-fraction-static 0.9") and not rep.fits
    # at the long context sglang scales its own default by 0.85 too, and the workspace fits
    long = _sglang(load_model("llama-3.1-8b"), "mi300x", {"attention_backend": "aiter"})
    assert long.status == "starts" and "aiter decode workspace" in {a.name for a in long.allocations}


def test_sglang_aiter_unified_attention_has_no_workspace_and_mla_metadata_stays_unknown():
    hf = load_model("llama-3.1-8b")
    uni = _sglang(
        hf,
        "mi300x",
        {"attention_backend": "aiter"},
        {"env": {"SGLANG_USE_AITER_UNIFIED_ATTN": "1"}},
        context_length=8192,
    )
    names = {a.name for a in uni.allocations}
    assert "aiter decode workspace" not in names and "aiter CUDA-graph index buffers" in names
    # MLA: no decode workspace; with a bf16 KV cache at 16 heads a rank (DeepSeek-V3, TP 8) the
    # persistent kernel is off, so only the graph buffers: a verdict
    ds = load_model("deepseek-v3")
    bf16 = _sglang(ds, "mi355x", {"attention_backend": "aiter"}, tp_size=8)
    names = {a.name for a in bf16.allocations}
    assert bf16.status == "starts" and "aiter CUDA-graph index buffers" in names
    assert not names & {"aiter decode workspace", "aiter MLA decode metadata"}
    # with an fp8 KV cache the persistent kernel's metadata is sized inside aiter: unknown
    mla = _sglang(ds, "mi355x", {"attention_backend": "aiter"}, tp_size=8, kv_cache_dtype="fp8_e4m3")
    assert mla.status == "unknown" and mla.failing == "aiter MLA decode metadata"
    assert "get_mla_metadata_info_v1" in mla.unknown_reason


def test_sglang_eagle_draft_buffers_are_unknown_and_widen_the_request_table():
    """Issue 27: Qwen2-7B with EAGLE (top-k 8, 64 draft tokens): the draft buffers and graphs."""
    hf = HFConfig(
        {
            "architectures": ["Qwen2ForCausalLM"],
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_hidden_layers": 28,
            "num_attention_heads": 28,
            "num_key_value_heads": 4,
            "intermediate_size": 18944,
            "vocab_size": 152064,
            "max_position_embeddings": 32768,
            "torch_dtype": "bfloat16",
        },
        source="Qwen/Qwen2-7B-Instruct config.json",
    )
    spec = {"speculative_algorithm": "EAGLE", "speculative_eagle_topk": 8, "speculative_num_draft_tokens": 64}
    # at sglang's default fraction its own margin is assumed to cover the draft buffers; with a
    # raised fraction what is left is below that margin, and the answer is unknown
    assert _sglang(hf, "h100", spec).status == "starts"
    rep = _sglang(hf, "h100", spec, mem_fraction_static=0.9)
    assert rep.status == "unknown" and rep.failing == "speculative draft buffers and CUDA graphs"
    table = next(a for a in rep.allocations if a.name == "req_to_token table")
    assert table.bytes == (rep.max_running_requests + 1) * (32768 + 4 + 64) * 4


def test_sglang_used_memory_shrinks_the_pool_and_caps_the_request_length():
    hf = load_model("llama-3.1-8b")
    alone = _sglang(hf, "h100")
    shared = _sglang(hf, "h100", extra={"used_bytes": 20 * GIB})
    assert shared.kv_tokens < alone.kv_tokens
    # 20 GiB fewer before loading → the pool loses 20 GiB × mem_fraction_static
    lost = (alone.kv_tokens - shared.kv_tokens) * alone.kv_bytes_per_token
    assert lost == pytest.approx(20 * GIB * alone.inputs["mem_fraction_static"], rel=0.01)
    assert shared.inputs["used_gib"] == 20
    # KV capacity below the context: sglang caps the request length instead of refusing
    small = _sglang(hf, "h100", extra={"max_total_tokens": 50_000})
    assert small.fits and small.inputs["max_req_input_len"] == 50_000 - 1 - 5


def test_sglang_dsa_fp8_flashmla_layout_is_788_bytes_a_layer():
    """model_runner_kv_cache_mixin.py : calculate_mla_kv_cache_dim (0.5.15): 512 fp8 + 4 fp32
    scales + 64 bf16 rope = 656 B, plus the indexer's 132 B (issue 27: DeepSeek-V3.2, 788 B)."""
    hf = load_model("deepseek-v3.2")
    platform = Platform.preset("h200")
    res = resolve_server_args(hf, platform, {}, tp_size=8, kv_cache_dtype="fp8_e4m3")
    v = {k: res[k] for k in res}
    full, _, words = kv_cell(v, hf)
    assert full == 788 * 61 and "FlashMLA" in words
    # TRT-LLM's DSA backends keep the raw layout
    assert kv_cell({**v, "dsa_decode_backend": "trtllm"}, hf)[0] == (512 + 64 + 132) * 61


# -- vLLM ---------------------------------------------------------------------------------------


QWEN3_NEXT_FP8 = {"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}


def test_vllm_mamba_blocks_below_max_num_seqs_is_refused_with_vllms_message():
    """Issue 27: a Qwen3.x hybrid on an RTX PRO 6000: "max_num_seqs (1024) exceeds available Mamba
    cache blocks (939)" (config/compilation.py, raised from the 0.25.1 wheel on; 0.19 caps the
    capture sizes with a warning)."""
    hf = _with("qwen3-next-80b-a3b", "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", **QWEN3_NEXT_FP8)
    rep = _vllm(hf, "rtxpro6000", tensor_parallel_size=1, gpu_memory_utilization=0.9, max_model_len=32768)
    blocks = rep.inputs["num_gpu_blocks"]
    assert 0 < blocks < 1024
    assert rep.status == "refused" and not rep.fits
    assert rep.refusal.startswith(f"max_num_seqs (1024) exceeds available Mamba cache blocks ({blocks}).")
    assert rep.fix == f"--max-num-seqs {blocks}"
    assert _vllm(
        hf,
        "rtxpro6000",
        tensor_parallel_size=1,
        gpu_memory_utilization=0.9,
        max_model_len=32768,
        max_num_seqs=blocks,
    ).fits
    older = _vllm(
        hf, "rtxpro6000", "0.19", tensor_parallel_size=1, gpu_memory_utilization=0.9, max_model_len=32768
    )
    assert older.refusal is None or "Mamba cache blocks" not in older.refusal
    eager = _vllm(
        hf,
        "rtxpro6000",
        tensor_parallel_size=1,
        gpu_memory_utilization=0.9,
        max_model_len=32768,
        enforce_eager=True,
    )
    assert eager.refusal is None or "Mamba cache blocks" not in eager.refusal


def test_vllm_ssm_state_dtype_follows_the_model_config():
    """mamba_utils.py : _mamba_state_dtype and models/config.py (Qwen3.5 reads the config's
    mamba_ssm_dtype; otherwise the conv-state dtype): fp32 doubles the temporal state."""
    base = load_model("qwen3.5-397b-a17b")
    fp32 = _with(
        "qwen3.5-397b-a17b", "Qwen3.5 config.json text_config.mamba_ssm_dtype", mamba_ssm_dtype="float32"
    )
    a = _vllm(base, "b200", tensor_parallel_size=8)
    b = _vllm(fp32, "b200", tensor_parallel_size=8)
    assert a.inputs["mamba_ssm_dtype"] == "bfloat16" and b.inputs["mamba_ssm_dtype"] == "float32"
    assert b.state_bytes_per_request > 1.9 * a.state_bytes_per_request
    assert b.inputs["block_size"] > a.inputs["block_size"]
    flag = _vllm(fp32, "b200", tensor_parallel_size=8, mamba_ssm_cache_dtype="bfloat16")
    assert flag.inputs["mamba_ssm_dtype"] == "bfloat16"


def test_vllm_cudagraph_estimate_switch_and_release_default():
    """envs.py: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to "0" in 0.19 and "1" from
    0.20 (0.20.0-0.33 wheels); when off, the graphs come out of the headroom after the KV cache."""
    hf = load_model("llama-3.1-8b")
    on = _vllm(hf, "h100", "0.31")
    off = _vllm(hf, "h100", "0.31", memory_profiler_estimate_cudagraphs="0")
    old = _vllm(hf, "h100", "0.19")
    assert on.inputs["cudagraph_estimate_in_budget"] and not off.inputs["cudagraph_estimate_in_budget"]
    assert not old.inputs["cudagraph_estimate_in_budget"]
    assert _vllm(hf, "h100", "0.20").inputs["cudagraph_estimate_in_budget"]  # the 0.20.0 wheel: "1"
    assert off.kv_tokens > on.kv_tokens
    assert any(a.name.startswith("CUDA graphs (not in the KV budget") for a in off.allocations)


def test_vllm_used_memory_refused_as_vllm_does():
    """v1/worker/utils.py : request_memory: the free memory at start-up must cover the utilization."""
    hf = load_model("qwen3-8b")
    rep = _vllm(hf, "a100", "0.33", gpu_memory_utilization=0.9, used_bytes=20 * GIB)
    assert rep.status == "refused" and rep.refusal.startswith("Free memory on device (")
    assert "is less than desired GPU memory utilization (0.9," in rep.refusal
    assert rep.fix.startswith("--gpu-memory-utilization 0.")
    ok = _vllm(hf, "a100", "0.33", gpu_memory_utilization=float(rep.fix.split()[1]), used_bytes=20 * GIB)
    assert ok.fits
    # 0.31's Model Runner V2 warms the sampler up outside the profiled peak: at that utilization
    # nothing is left for it, so the launch is not predicted to start
    mrv2 = _vllm(hf, "a100", "0.31", gpu_memory_utilization=float(rep.fix.split()[1]), used_bytes=20 * GIB)
    assert mrv2.inputs["model_runner_v2"] and not mrv2.inputs["sampler_warm_up_profiled"]
    assert not mrv2.fits and mrv2.status in ("does-not-fit", "unknown")
    # before that check (V1 of the 0.8 era) other processes' memory came out of the budget
    early = _vllm(hf, "a100", "0.8", gpu_memory_utilization=0.4, used_bytes=20 * GIB)
    assert early.refusal is not None and early.refusal.startswith("No available memory for the cache blocks")


def test_vllm_sampler_warm_up_and_graphs_after_the_kv_cache():
    """v1/worker/gpu_worker.py : compile_or_warm_up_model captures the graphs and then warms the
    sampler up (its buffers are kept) after the KV cache: both are checked against the headroom."""
    hf = load_model("gpt-oss-20b")
    rep = _vllm(hf, "h100", "0.11", gpu_memory_utilization=0.95)
    names = [a.name for a in rep.allocations if a.phase == "after-pool"]
    assert names[0].startswith("CUDA graphs") and names[1].startswith("sampler warm-up (1024 requests")
    assert rep.inputs["sampler_warm_up_profiled"] and rep.fits  # the V1 runner profiles the same sampler
    # a KV cache forced larger than the device leaves no room for them: out of memory
    forced = _vllm(hf, "h100", "0.31", kv_cache_memory_bytes=int(64 * GIB))
    assert forced.status == "does-not-fit" and forced.refusal.startswith("torch.OutOfMemoryError")


# -- presets ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "not_read_as"),
    [("NVIDIA GB200", "b200"), ("NVIDIA GH200 480GB", "h200"), ("NVIDIA GB300", "b300")],
)
def test_grace_superchips_are_not_read_as_their_substrings(name, not_read_as):
    other = Platform.preset(not_read_as)
    assert device_total_bytes(name, 1.0) != device_total_bytes(other.device_name, other.memory_gib)
    preset = Platform.preset(name.split()[1].lower())
    assert preset.cpu_arch == "aarch64" and preset.device_name == name


def test_deepseek_v4_experts_are_fp4():
    """Issue 27: DeepSeek-V4's config says ``expert_dtype: "fp4"``; its experts were counted as fp8."""
    from resolvable.memory import weight_estimate

    v4 = load_model("deepseek-v4-flash")
    as_fp8 = HFConfig({k: v for k, v in v4.to_dict().items() if k != "expert_dtype"}, source="test")
    fp4 = weight_estimate(v4)
    fp8 = weight_estimate(as_fp8)
    assert fp4.components["experts"] / fp8.components["experts"] == pytest.approx(0.5 + 1 / 32)
    assert fp4.components["attention"] == fp8.components["attention"]
    assert "experts fp4 (expert_dtype)" in fp4.method


def test_vllm_gpt_oss_20b_at_095_sampler_warm_up_is_never_a_silent_fit():
    """Issue 27: gpt-oss-20b at utilization 0.95 ran out of memory in the sampler warm-up after a
    58.47 GiB KV pool. Model Runner V2 (the default from 0.29) profiles the sampler's default pass
    only (0.29-0.32 wheels: "the sampler may skip top_k, top_p, and logprobs"), and
    ``gpu/warmup.py : warmup_kernels`` runs the full pipeline after the KV cache is allocated, so
    its max_num_seqs × vocab buffers must fit in what the pool leaves; 0.33 profiles it too."""
    hf = load_model("gpt-oss-20b")
    rep = _vllm(hf, "h100", "0.31", gpu_memory_utilization=0.95)
    assert rep.inputs["model_runner_v2"] and not rep.inputs["sampler_warm_up_profiled"]
    kv_gib = rep.inputs["available_kv_bytes"] / GIB
    assert abs(kv_gib - 58.47) / 58.47 < 0.1  # the pool the log shows, not the V1 runner's 54 GiB
    names = [a.name for a in rep.allocations if a.phase == "after-pool"]
    assert names[0].startswith("sampler warm-up (1024 requests") and names[1].startswith("CUDA graphs")
    assert not rep.fits and rep.status in ("unknown", "does-not-fit")
    assert rep.failing.startswith("sampler warm-up") and "warmup_kernels" in rep.unknown_reason
    assert rep.fix.startswith("--max-num-seqs ")
    checked = _vllm(hf, "h100", "0.31", gpu_memory_utilization=0.95, max_num_seqs=int(rep.fix.split()[1]))
    assert checked.fits
    # the same launch at 0.9 leaves room for it; 0.33 profiles the warm-up pass (smaller pool)
    assert _vllm(hf, "h100", "0.31", gpu_memory_utilization=0.9).fits
    fixed = _vllm(hf, "h100", "0.33", gpu_memory_utilization=0.95)
    assert fixed.fits and fixed.inputs["sampler_warm_up_profiled"]
    assert fixed.inputs["available_kv_bytes"] < rep.inputs["available_kv_bytes"]
    # the V1 runner wraps torch's error in its own message when the warm-up cannot fit at all
    v1 = _vllm(hf, "h100", "0.11", kv_cache_memory_bytes=int(62 * GIB), enforce_eager=True)
    assert v1.status == "does-not-fit"
    assert v1.refusal.startswith(
        "CUDA out of memory occurred when warming up sampler with 1024 dummy requests"
    )


def test_vllm_08_v1_counts_other_processes_so_a_low_utilization_is_unknown():
    """Issue 27 / vllm#17431: Qwen3-8B on an A800 at utilization 0.4 refused with "No available
    memory for the cache blocks" under V1 (0.8.5) and started with VLLM_USE_V1=0. The 0.8-era V1
    ``determine_available_memory`` counts everything allocated on the device after the profile run
    (``total - free``), so what other processes hold comes out of the budget in full; offline
    that memory is not known, so a utilization leaving others more than the KV budget is
    ``unknown``, never a fit. With ``--used-gib`` the refusal itself is predicted."""
    hf = load_model("qwen3-8b")
    a800 = Platform.preset("a100").replace(device_name="NVIDIA A800-SXM4-80GB")

    def run(version, **values):
        return vllm_capacity(
            values, hf, device_name=a800.device_name, memory_gib=a800.memory_gib, version=version
        )

    rep = run("0.8", gpu_memory_utilization=0.4)
    assert rep.status == "unknown" and not rep.fits and rep.failing == "memory held by other processes"
    assert "No available memory for the cache blocks" in rep.unknown_reason and "--used-gib" in rep.fix
    assert run("0.8", gpu_memory_utilization=0.9).fits  # the budget outlasts what 0.9 leaves to others
    assert run("0.7", gpu_memory_utilization=0.4).fits  # V0's snapshot excludes other processes
    shared = run("0.8", gpu_memory_utilization=0.4, used_bytes=20 * GIB)
    assert shared.refusal.startswith("No available memory for the cache blocks")
