"""Pack fixes found while writing the golden tests of vllm-config-spec.md (each case: the spec's
statement, the release range, the message or value it gives)."""

from __future__ import annotations

import pytest
from config_cases import res

from resolvable.errors import ConflictError
from resolvable.vllm import load_model
from resolvable.vllm.config.fixes import check_refusal
from resolvable.vllm.platforms import platform

BATCH_INVARIANT = {"VLLM_BATCH_INVARIANT": "1"}


# -- §4 XPU: batch invariance refuses quantized models and quantized KV caches (0.31+) ----------
@pytest.mark.parametrize(
    ("model", "flags", "start", "fix"),
    [
        (
            "qwen3-235b-a22b-fp8",
            {},
            "XPU batch invariance currently supports only unquantized models; got quantization='fp8'.",
            "pass --env VLLM_BATCH_INVARIANT=0",
        ),
        (
            "llama-3.1-8b",
            {"kv_cache_dtype": "fp8"},
            "XPU batch invariance currently does not support quantized KV caches; got kv_cache_dtype='fp8'.",
            "pass --kv-cache-dtype auto",
        ),
    ],
)
@pytest.mark.parametrize("version", ["0.31.0", "0.33.0", "0.34.0"])
def test_xpu_batch_invariance_refusals(model, flags, start, fix, version):
    with pytest.raises(ConflictError) as info:
        res(model, "xpu", version, env=BATCH_INVARIANT, **flags)
    exc = info.value
    assert exc.message.startswith(start)
    assert exc.rule == "xpu_batch_invariance"
    check = check_refusal(
        exc, load_model(model), platform("xpu"), BATCH_INVARIANT, flags, vllm_version=version
    )
    assert check.status == "verified" and check.text == fix


@pytest.mark.parametrize(
    ("model", "plat", "version", "env", "flags"),
    [
        ("qwen3-235b-a22b-fp8", "xpu", "0.30.0", BATCH_INVARIANT, {}),  # no check before 0.31
        ("llama-3.1-8b", "xpu", "0.30.0", BATCH_INVARIANT, {"kv_cache_dtype": "fp8"}),
        ("qwen3-235b-a22b-fp8", "xpu", "0.33.0", {}, {}),  # only with VLLM_BATCH_INVARIANT
        ("llama-3.1-8b", "xpu", "0.33.0", BATCH_INVARIANT, {"kv_cache_dtype": "bfloat16"}),  # unquantized
        ("qwen3-235b-a22b-fp8", "h100", "0.33.0", BATCH_INVARIANT, {}),  # XPU only
    ],
)
def test_xpu_batch_invariance_accepts(model, plat, version, env, flags):
    r = res(model, plat, version, env=env, **flags)
    assert r["kv_cache_dtype"] == flags.get("kv_cache_dtype", "auto")


# -- §3.11 step 4: V1 runner, FULL decode graphs, speculative decoding: sizes rounded to q ------
SUFFIX_2 = '{"method": "suffix", "num_speculative_tokens": 2}'  # suffix decoding runs on V1 (0.30-0.33)


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
def test_v1_capture_sizes_rounded_up_to_multiples_of_q(version):
    r = res("llama-3.1-8b", "h100", version, speculative_config=SUFFIX_2)
    assert r["use_v2_model_runner"] is False and r["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    sizes = r["cudagraph_capture_sizes"]
    assert sizes[:8] == [3, 6, 9, 12, 18, 24, 33, 42]  # 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40 → ×3
    assert all(s % 3 == 0 for s in sizes)
    assert r["max_cudagraph_capture_size"] == sizes[-1] == 504  # 512 is not a multiple of 3
    # what create_engine_config returns is unrounded (the rounding runs at model-runner start)
    from resolvable.vllm.config.report import config_time_value

    assert config_time_value(r, "cudagraph_capture_sizes")[:4] == [1, 2, 3, 4]


def test_v1_capture_sizes_not_rounded_on_v2_or_without_full_decode():
    assert res("llama-3.1-8b", "h100", "0.34.0", speculative_config=SUFFIX_2)["cudagraph_capture_sizes"][
        :3
    ] == [
        1,
        2,
        3,
    ]  # V2 (the only runner in 0.34)
    r = res("llama-3.1-8b", "h100", "0.33.0", speculative_config=SUFFIX_2, cudagraph_mode="PIECEWISE")
    assert r["cudagraph_capture_sizes"][:3] == [1, 2, 3]  # no FULL decode graphs


def test_v1_capture_sizes_nothing_left_after_rounding():
    with pytest.raises(ConflictError) as info:
        res(
            "llama-3.1-8b",
            "h100",
            "0.33.0",
            speculative_config=SUFFIX_2,
            cudagraph_capture_sizes=[1, 2],
            max_cudagraph_capture_size=2,
        )
    assert info.value.message.startswith(
        "No valid cudagraph sizes after rounding to multiple of 3 (num_speculative_tokens + 1) please adjust "
        "num_speculative_tokens (2) or max_cudagraph_capture_size (2) or cudagraph_capture_sizes ([1, 2])"
    )


# -- §3.10 rule 14: DeepEP high-throughput with DP > 1 (MoE) turns CUDA graphs off (0.30-0.34) ----
DEEPEP_HT = {"data_parallel_size": 2, "all2all_backend": "deepep_high_throughput"}


@pytest.mark.parametrize("version", ["0.30.0", "0.33.0", "0.34.0"])
def test_deepep_high_throughput_with_dp_has_no_cuda_graphs(version):
    r = res("qwen3-30b-a3b", "h100", version, gpus=8, enable_expert_parallel=True, **DEEPEP_HT)
    assert r["cudagraph_mode_config"] == "NONE" and r["cudagraph_mode"] == "NONE"
    assert r.explain("cudagraph_mode").steps[-1].rule == "deepep_high_throughput_no_graphs"
    assert len(r["cudagraph_capture_sizes"]) == 51  # set before, left as they are


@pytest.mark.parametrize(
    ("model", "flags"),
    [
        ("llama-3.1-8b", DEEPEP_HT),  # not MoE: the effective DP size is 1
        ("qwen3-30b-a3b", {**DEEPEP_HT, "data_parallel_size": 1}),
        ("qwen3-30b-a3b", {**DEEPEP_HT, "all2all_backend": "deepep_low_latency"}),
    ],
)
def test_deepep_rule_needs_moe_dp_and_high_throughput(model, flags):
    r = res(model, "h100", gpus=8, **flags)
    assert r["cudagraph_mode"] == "FULL_AND_PIECEWISE"


# -- §3.10 rule 11 (XPU, 0.30): XPU graphs need VLLM_XPU_ENABLE_XPU_GRAPH=1 -------------------------
@pytest.mark.parametrize(
    ("version", "env", "mode"),
    [
        ("0.30.0", {}, "NONE"),
        ("0.30.0", {"VLLM_XPU_ENABLE_XPU_GRAPH": "1"}, "FULL_AND_PIECEWISE"),
        ("0.31.0", {}, "FULL_AND_PIECEWISE"),
        ("0.34.0", {}, "FULL_AND_PIECEWISE"),
    ],
)
def test_xpu_graphs_by_release(version, env, mode):
    r = res("llama-3.1-8b", "xpu", version, env=env)
    assert r["cudagraph_mode_config"] == mode and r["cudagraph_mode"] == mode
