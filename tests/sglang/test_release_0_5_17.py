"""sglang 0.5.16 → 0.5.17: one golden case per modelled change (docs/releases/0.5.17.md).

Each case resolves the same input with the release before 0.5.17 and with 0.5.17 and asserts
both answers; the docstring names the sglang 0.5.17 file and function. On this branch 0.5.16 is
modelled elsewhere (branch rel-0.5.16), so ``P`` is the newest supported release before 0.5.17:
the inputs are chosen where 0.5.15 and 0.5.16 give the same answer, so the cases hold either way.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from release_helpers import SIX

from resolvable import Platform
from resolvable._release import release_key
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.sglang import SGLANG_RELEASES, check_startup, registry, resolve_server_args
from resolvable.sglang.models import load_model

V = "0.5.17"
P = [r for r in SGLANG_RELEASES if release_key(r) < release_key(V)][-1]


def _hf(model: str | dict[str, Any]) -> Any:
    return load_model(model) if isinstance(model, str) else model


def resolve(model: str | dict[str, Any], preset: str, release: str, **flags: Any):
    return resolve_server_args(_hf(model), Platform.preset(preset), sglang_version=release, **flags)


def both(model: str | dict[str, Any], preset: str, **flags: Any):
    return resolve(model, preset, P, **flags), resolve(model, preset, V, **flags)


def refused(model: str | dict[str, Any], preset: str, release: str, **flags: Any) -> Exception:
    with pytest.raises((ConflictError, InvalidArgumentError)) as info:
        resolve(model, preset, release, **flags)
    return info.value


def _variant(model: str, **changes: Any) -> dict[str, Any]:
    """A bundled config with some keys replaced (e.g. another architecture of the same shape)."""
    data = copy.deepcopy(load_model(model).to_dict())
    data.update(changes)
    return data


def test_release_list():
    assert V in SGLANG_RELEASES and P in ("0.5.15", "0.5.16")


# 1 -------------------------------------------------------------------------------------------
def test_asymmetric_kv_defaults_to_fa4_on_sm100():
    """server_args.py ``_get_default_attn_backend`` + model_config.py ``has_asymmetric_kv``:
    MiMo-V2-Flash (head_dim 192, v_head_dim 128) on B200 gets fa4 (then 128-token pages by the
    FA4 page rule) instead of trtllm_mha; Llama (symmetric) keeps trtllm_mha."""
    old, new = both("mimo-v2-flash", "b200")
    assert (old["attention_backend"], old["page_size"]) == ("trtllm_mha", 64)
    assert (new["attention_backend"], new["page_size"]) == ("fa4", 128)
    old, new = both("llama-3.1-8b", "b200")
    assert old["attention_backend"] == new["attention_backend"] == "trtllm_mha"
    # SM90 is unaffected (fa3 in both).
    old, new = both("mimo-v2-flash", "h100")
    assert old["attention_backend"] == new["attention_backend"]


# 2 -------------------------------------------------------------------------------------------
def test_trtllm_mha_accepts_128_token_pages():
    """overrides.py ``_mla_backend_page_constraints``: trtllm_mha keeps a 128-token page."""
    old, new = both("llama-3.1-8b", "b200", page_size=128)
    assert old["attention_backend"] == new["attention_backend"] == "trtllm_mha"
    assert (old["page_size"], new["page_size"]) == (64, 128)


def test_trtllm_mha_draft_backend_snaps_the_page():
    """overrides.py ``_mla_backend_page_constraints``: the speculative draft backend counts too."""
    flags = dict(
        attention_backend="flashinfer", speculative_draft_attention_backend="trtllm_mha", page_size=8
    )
    old, new = both("llama-3.1-8b", "h100", **flags)
    assert (old["page_size"], new["page_size"]) == (8, 64)


# 3, 4 ----------------------------------------------------------------------------------------
def test_hpc_ops_is_a_choice_since_0_5_17_with_64_token_pages():
    """server_args.py ``ATTENTION_BACKEND_CHOICES`` (+ ``hpc_ops``) and overrides.py
    ``_mla_backend_page_constraints`` (hpc_ops needs 64-token pages)."""
    exc = refused("llama-3.1-8b", "h100", P, attention_backend="hpc_ops")
    assert "invalid choice: 'hpc_ops'" in str(exc)
    new = resolve("llama-3.1-8b", "h100", V, attention_backend="hpc_ops")
    assert (new["attention_backend"], new["page_size"]) == ("hpc_ops", 64)
    assert check_startup(new, load_model("llama-3.1-8b"))  # starts on SM90


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("moe_runner_backend", "hpc_ops"),
        ("moe_a2a_backend", "pplx"),
        ("dsa_decode_backend", "flashinfer_sparse_mla"),
    ],
)
def test_new_choices_are_refused_before_0_5_17(field, value):
    """server_args.py ``MOE_RUNNER_BACKEND_CHOICES``, ``MOE_A2A_BACKEND_CHOICES``, ``DSA_CHOICES``."""
    exc = refused("qwen3-30b-a3b", "h100", P, **{field: value})
    assert f"invalid choice: {value!r}" in str(exc) and "added in sglang 0.5.17" in str(exc)


# 5 -------------------------------------------------------------------------------------------
PPLX = dict(moe_a2a_backend="pplx", tp_size=4, dp_size=4, enable_dp_attention=True)


def test_pplx_a2a_backend():
    """server_args.py ``_handle_a2a_moe`` (pplx) and overrides.py ``_A2A_EP_SPANNING_BACKENDS``:
    EP spans TP, auto → deep_gemm; DP attention with 2+ groups, low latency only, the deep_gemm
    runner and the 128-token dispatch budget are required."""
    new = resolve("qwen3-30b-a3b", "h100", V, chunked_prefill_size=512, **PPLX)
    assert (new["ep_size"], new["moe_runner_backend"]) == (4, "deep_gemm")
    assert "dp-attention" in str(refused("qwen3-30b-a3b", "h100", V, moe_a2a_backend="pplx", tp_size=4))
    assert "low-latency" in str(
        refused("qwen3-30b-a3b", "h100", V, chunked_prefill_size=512, deepep_mode="normal", **PPLX)
    )
    exc = refused("qwen3-30b-a3b", "h100", V, chunked_prefill_size=512, moe_runner_backend="triton", **PPLX)
    assert "deep_gemm (or auto)" in str(exc)
    exc = refused("qwen3-30b-a3b", "h100", V, chunked_prefill_size=4096, **PPLX)
    assert "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK" in str(exc)
    ok = resolve(
        "qwen3-30b-a3b",
        "h100",
        V,
        chunked_prefill_size=4096,
        env={"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"},
        **PPLX,
    )
    assert ok["moe_a2a_backend"] == "pplx"
    assert "invalid choice" in str(refused("qwen3-30b-a3b", "h100", P, chunked_prefill_size=512, **PPLX))


# 6 -------------------------------------------------------------------------------------------
def test_deepep_with_cutedsl_refuses_normal_mode():
    """server_args.py ``_handle_a2a_moe``: flashinfer_cutedsl FP4 MoE has no DeepEP normal
    dispatch (0.5.16 disabled the CUDA graphs and went on)."""
    flags = dict(
        quantization="modelopt_fp4",
        moe_runner_backend="flashinfer_cutedsl",
        moe_a2a_backend="deepep",
        deepep_mode="normal",
        tp_size=4,
    )
    old = resolve("qwen3-30b-a3b", "b200", P, **flags)
    assert old["cuda_graph_backend_decode"] == "disabled"
    assert "low_latency dispatch" in str(refused("qwen3-30b-a3b", "b200", V, **flags))
    flags["deepep_mode"] = "low_latency"
    assert resolve("qwen3-30b-a3b", "b200", V, **flags)["cuda_graph_backend_decode"] == "full"


# 7 -------------------------------------------------------------------------------------------
def test_gpt_oss_mxfp4_moe_on_sm120():
    """overrides.py ``_gpt_oss_overrides``: MXFP4 on SM120 runs flashinfer_mxfp4, not marlin."""
    old, new = both("gpt-oss-20b", "rtx5090")
    assert (old["moe_runner_backend"], new["moe_runner_backend"]) == ("marlin", "flashinfer_mxfp4")


# 8, 9 ----------------------------------------------------------------------------------------
def test_mimo_v2_fp8_moe_on_sm100():
    """overrides.py ``_mimo_v2_overrides``: an FP8 MiMo-V2 on SM100 uses flashinfer_trtllm."""
    old, new = both("mimo-v2-flash", "b200")
    assert (old["moe_runner_backend"], new["moe_runner_backend"]) == ("auto", "flashinfer_trtllm")
    old, new = both("mimo-v2-flash", "h100")
    assert old["moe_runner_backend"] == new["moe_runner_backend"] == "auto"


def test_mimo_v2_fused_qkv_tp_only_has_to_divide():
    """server_args.py ``_handle_model_specific_adjustments`` (MiMoV2 branch): the effective
    attention TP must divide the fused-QKV TP (0.5.16: equal it)."""
    hf = _variant(
        "mimo-v2-flash",
        architectures=["MiMoV2ForCausalLM"],
        attention_projection_layout="fused_qkv",
        num_key_value_heads=4,
    )
    assert "to equal num_key_value_heads (4)" in str(refused(hf, "h100", P, tp_size=2))
    assert resolve(hf, "h100", V, tp_size=2)["tp_size"] == 2
    assert "TP=4-interleaved; got 8" in str(refused(hf, "h100", V, tp_size=8))


# 10 ------------------------------------------------------------------------------------------
LFM2_MOE = {"architectures": ["Lfm2MoeForCausalLM"]}


def test_lfm2_moe_joins_the_lfm2_rules():
    """overrides.py ``_lfm2_overrides`` and ``_MAMBA_RADIX_CACHE_ARCHS``; server_args.py LFM2
    triton assert: LFM2-MoE gets flashinfer on SM100, the mamba radix cache (no_buffer, overlap
    schedule off), and refuses triton."""
    hf = _variant("lfm2-1.2b", **LFM2_MOE)
    old, new = both(hf, "b200")
    assert old["attention_backend"] == "trtllm_mha" and not old["uses_mamba_radix_cache"]
    assert new["attention_backend"] == "flashinfer"
    assert (new["uses_mamba_radix_cache"], new["mamba_radix_cache_strategy"]) == (True, "no_buffer")
    assert new["disable_overlap_schedule"] is True
    assert resolve(hf, "h100", P, attention_backend="triton")["attention_backend"] == "triton"
    assert "does not support triton" in str(refused(hf, "h100", V, attention_backend="triton"))


# 11 ------------------------------------------------------------------------------------------
KIMI_K3 = {
    "architectures": ["KimiK3ForConditionalGeneration"],
    "model_type": "kimi_k3",
    "text_config": {
        "model_type": "kimi_linear",
        "hidden_size": 7168,
        "num_attention_heads": 64,
        "num_key_value_heads": 64,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "num_hidden_layers": 48,
        "max_position_embeddings": 262144,
    },
}


def test_kimi_k3_trtllm_mla_on_sm100_and_mamba_radix_cache():
    """overrides.py ``_kimi_k3_overrides`` (SM100/SM103, no backend set: trtllm_mla for prefill
    and decode) and ``_MAMBA_RADIX_CACHE_ARCHS`` / ``_MAMBA_EXTRA_BUFFER_ARCHS`` (extra_buffer)."""
    old, new = both(KIMI_K3, "b200")
    assert old["attention_backend"] == "flashinfer"  # the generic MLA default, no rule
    assert not old["uses_mamba_radix_cache"]
    assert (new["attention_backend"], new["prefill_attention_backend"], new["decode_attention_backend"]) == (
        "trtllm_mla",
        "trtllm_mla",
        "trtllm_mla",
    )
    assert new["page_size"] == 64
    assert (new["uses_mamba_radix_cache"], new["mamba_radix_cache_strategy"]) == (True, "extra_buffer")
    # with decode context parallelism: trtllm_mla prefill, cutedsl_mla decode
    dcp = resolve(KIMI_K3, "b200", V, dcp_size=2, tp_size=2)
    assert (dcp["prefill_attention_backend"], dcp["decode_attention_backend"]) == (
        "trtllm_mla",
        "cutedsl_mla",
    )
    assert "must be 'cutedsl_mla' or 'tokenspeed_mla'" in str(
        refused(KIMI_K3, "b200", V, dcp_size=2, tp_size=2, decode_attention_backend="flashinfer")
    )


# 12 ------------------------------------------------------------------------------------------
def test_deterministic_deepseek_accepts_fa4_on_sm100_only():
    """server_args.py ``_handle_deterministic_inference``: DeepSeek accepts the radix-capable list
    (ascend, fa3, fa4, triton); fa4 needs SM100/SM110 (``is_sm100_or_sm110_supported``)."""
    flags = dict(enable_deterministic_inference=True, attention_backend="fa4")
    refused("deepseek-v3", "b200", P, **flags)
    assert resolve("deepseek-v3", "b200", V, **flags)["attention_backend"] == "fa4"
    assert "requires SM100/SM110" in str(refused("deepseek-v3", "rtx5090", V, **flags))
    exc = refused(
        "deepseek-v3", "h100", V, enable_deterministic_inference=True, attention_backend="flashinfer"
    )
    assert "['ascend', 'fa3', 'fa4', 'triton']" in str(exc)


# 13, 14 --------------------------------------------------------------------------------------
def test_glm5_fp8_dsa_kernels_on_sm120():
    """overrides.py ``_dsa_split_backend_resolution``: GLM-5 with an FP8 KV cache on SM120 runs
    flashinfer_sparse_mla for both DSA phases."""
    old, new = both("glm-5", "rtx5090", kv_cache_dtype="fp8_e4m3")
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("trtllm", "trtllm")
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("flashinfer_sparse_mla",) * 2
    old, new = both("glm-5", "b200", kv_cache_dtype="fp8_e4m3")
    assert old["dsa_decode_backend"] == new["dsa_decode_backend"] == "trtllm"


def test_tilelang_dsa_with_fp8_kv_refused_on_cuda():
    """overrides.py ``_check_tilelang_dsa_fp8_kv``: tilelang's FP8 KV path is ROCm-only."""
    flags = dict(dsa_decode_backend="tilelang", kv_cache_dtype="fp8_e4m3")
    assert resolve("deepseek-v3.2", "b200", P, **flags)["dsa_decode_backend"] == "tilelang"
    assert "only support an fp8_e4m3 KV cache on ROCm/HIP" in str(
        refused("deepseek-v3.2", "b200", V, **flags)
    )
    assert resolve("deepseek-v3.2", "b200", V, dsa_decode_backend="tilelang", kv_cache_dtype="bfloat16")


# 15 ------------------------------------------------------------------------------------------
LAZY_SPEC = dict(
    mamba_radix_cache_strategy="extra_buffer_lazy",
    speculative_algorithm="NEXTN",
    speculative_num_steps=3,
    speculative_eagle_topk=1,
    speculative_num_draft_tokens=4,
)


def test_extra_buffer_lazy_with_speculation():
    """server_args.py ``_validate_mamba_extra_buffer``: extra_buffer_lazy works with speculative
    decoding except DFLASH, and is refused under PD disaggregation."""
    assert "unsupported with spec" in str(refused("qwen3-next-80b-a3b", "h100", P, **LAZY_SPEC))
    new = resolve("qwen3-next-80b-a3b", "h100", V, **LAZY_SPEC)
    assert new["mamba_radix_cache_strategy"] == "extra_buffer_lazy"
    exc = refused(
        "qwen3-next-80b-a3b",
        "h100",
        V,
        mamba_radix_cache_strategy="extra_buffer_lazy",
        disaggregation_mode="decode",
    )
    assert "under PD disaggregation" in str(exc)


# 16 ------------------------------------------------------------------------------------------
def test_xpu_prefill_graph_no_longer_restricted():
    """server_args.py ``_handle_xpu_backends``: the tc_piecewise-only prefill rule is gone."""
    old, new = both("llama-3.1-8b", "xpu", cuda_graph_backend_prefill="breakable")
    assert (old["cuda_graph_backend_prefill"], new["cuda_graph_backend_prefill"]) == ("disabled", "breakable")
    assert old["cuda_graph_backend_decode"] == new["cuda_graph_backend_decode"] == "disabled"


# 17 ------------------------------------------------------------------------------------------
def test_unified_memory_mla_accepts_paged_mla_backends():
    """server_args.py ``_handle_page_major_kv_layout``: an MLA model on the unified memory pool
    may run fa3 (and the other paged MLA kernels); an MHA model still needs triton."""
    refused("deepseek-v2-lite", "h100", P, enable_unified_memory=True)
    assert resolve("deepseek-v2-lite", "h100", V, enable_unified_memory=True)["attention_backend"] == "fa3"
    exc = refused("llama-3.1-8b", "h100", V, enable_unified_memory=True)
    assert "allowed ['triton']" in str(exc)


# 18 ------------------------------------------------------------------------------------------
def test_quark_mxfp4_requantizes_another_checkpoint():
    """model_config.py ``_verify_quantization`` / ``REQUANTIZATION_METHODS``."""
    exc = refused("qwen3-235b-a22b-fp8", "mi355x", P, quantization="quark_mxfp4")
    assert "does not match" in str(exc)
    assert (
        resolve("qwen3-235b-a22b-fp8", "mi355x", V, quantization="quark_mxfp4")["quantization"]
        == "quark_mxfp4"
    )
    assert "does not match" in str(refused("qwen3-235b-a22b-fp8", "mi355x", V, quantization="awq"))


# 19, 20 --------------------------------------------------------------------------------------
def test_hicache_with_dcp():
    """server_args.py ``_resolve_hicache_dcp_compatibility``: HiCache + DCP only for MLA models
    without speculation/LMCache/HiSparse."""
    flags = dict(dcp_size=2, tp_size=2, enable_hierarchical_cache=True)
    assert resolve("llama-3.1-8b", "mi300x", P, **flags)["dcp_size"] == 2
    assert "only supported for MLA models" in str(refused("llama-3.1-8b", "mi300x", V, **flags))
    assert resolve("deepseek-v3", "mi300x", V, **flags)["enable_hierarchical_cache"] is True
    assert "LMCache" in str(refused("deepseek-v3", "mi300x", V, enable_lmcache=True, **flags))


def test_pd_decode_dcp_needs_the_chunk_cache():
    """pd_disaggregation_hook.py ``handle_pd_disaggregation``: a PD decode server with DCP
    refuses the hierarchical cache."""
    flags = dict(dcp_size=2, tp_size=2, enable_hierarchical_cache=True, disaggregation_mode="decode")
    assert resolve("deepseek-v3", "mi300x", P, **flags)["disaggregation_mode"] == "decode"
    assert "requires chunk cache" in str(refused("deepseek-v3", "mi300x", V, **flags))


# 22 ------------------------------------------------------------------------------------------
def test_cli_reads_the_flag_table_of_the_chosen_release(capsys):
    """``sglang-0.5.17.json`` (tools/extract_sglang_flags.py on the 0.5.17 wheel): the flags and
    choices the CLI accepts follow ``--sglang-version``."""
    from resolvable.cli import main
    from resolvable.sglang.flags import load_table, table_release

    assert len(load_table("0.5.17")) == 474 and "--weight-cache-mode" in load_table("0.5.17").by_option
    base = ["resolve", "llama-3.1-8b", "--platform", "h100", "--weight-cache-mode", "client"]
    assert main([*base, "--sglang-version", "0.5.15"]) == 1  # sglang 0.5.15's parser refuses it
    assert (
        "--weight-cache-mode is not a flag of sglang 0.5.15; it was added in 0.5.17"
        in capsys.readouterr().err
    )
    assert main([*base, "--sglang-version", "0.5.17"]) == 0
    assert "--weight-cache-mode client" in capsys.readouterr().out
    # restored after the command: the table of the default release
    assert load_table().release == table_release(registry.default_release)


# grid ----------------------------------------------------------------------------------------


def _outcome(hf, platform, flags, release):
    try:
        res = resolve_server_args(hf, platform, sglang_version=release, load_time=False, **flags)
    except (ConflictError, InvalidArgumentError) as exc:
        return ("refused", str(getattr(exc, "message", exc)))
    return ("ok", tuple(res[f] for f in SIX))


def test_grid_differences_are_the_modelled_ones():
    """The grid (``grid.cases()``, 7,480 cells): the six attention fields and the outcome differ
    between P and 0.5.17 only where docs/releases/0.5.17.md says so — MiMo-V2-Flash on SM100
    (asymmetric K/V → fa4, 128-token pages) and deterministic DeepSeek-family models on NPU
    (ascend joins the DeepSeek list) — plus, while P is 0.5.15, the two 0.5.16 changes the 0.5.17
    rules include (fa4 in the deterministic list; mamba extra_buffer on ROCm)."""
    from resolvable.sglang.grid import cases

    own = {"mimo": 0, "deepseek-npu": 0}
    for model, preset, _variant, hf, platform, flags in cases():
        old, new = _outcome(hf, platform, flags, P), _outcome(hf, platform, flags, V)
        if old == new:
            continue
        both_text = str(old) + str(new)
        if model == "mimo-v2-flash" and platform.is_sm100:
            assert (old[1][0], new[1][0], new[1][3]) == ("trtllm_mha", "fa4", 128)
            own["mimo"] += 1
        elif preset == "npu" and "DeepSeek models" in old[1] and new[0] == "ok":
            own["deepseek-npu"] += 1
        else:
            assert P == "0.5.15", (model, preset, flags, old, new)
            assert "extra_buffer needs" in both_text or "deterministic inference, but" in both_text, (
                model,
                preset,
                flags,
                old,
                new,
            )
    # 7 grid variants of MiMo-V2-Flash on each SM100 preset (B200, B300, GB200, GB300)
    sm100 = sum(1 for name in Platform.presets() if Platform.preset(name).is_sm100)
    assert own == {"mimo": 7 * sm100, "deepseek-npu": 7}


# 28 ------------------------------------------------------------------------------------------
def test_deepseek_v4_mega_moe_token_budget():
    """deepseek_v4_hook.py ``validate_deepseek_v4_mega_moe_token_budget``: MegaMoE needs chunked
    prefill and a per-rank share within SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK
    (1024). The check runs in ``_handle_model_specific_adjustments``, after
    ``_handle_gpu_memory_settings`` filled the chunk (16384 on a B200, passes/memory.py) and before
    ``_handle_data_parallelism`` divides it by dp_size: pure TP 8 needs 16384 per rank, DP
    attention 8 needs 2048 (both refused at the default budget); a chunk of 8192 over 8 DP groups
    fits. (Integration: main resolves the memory default, so the check sees the real chunk.)"""
    mega = dict(moe_a2a_backend="megamoe", tp_size=8)
    old = resolve("deepseek-v4-flash", "b200", P, **mega)
    assert (old["moe_a2a_backend"], old["chunked_prefill_size"]) == ("megamoe", 16384)
    assert "required_per_rank=16384" in str(refused("deepseek-v4-flash", "b200", V, **mega))
    assert "chunked prefill to be enabled" in str(
        refused("deepseek-v4-flash", "b200", V, chunked_prefill_size=-1, **mega)
    )
    dp = dict(dp_size=8, enable_dp_attention=True, **mega)
    assert "required_per_rank=2048" in str(refused("deepseek-v4-flash", "b200", V, **dp))
    assert resolve("deepseek-v4-flash", "b200", V, chunked_prefill_size=8192, **dp)
    env = {"SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "16384"}
    assert resolve("deepseek-v4-flash", "b200", V, env=env, **mega)["ep_size"] == 8
    assert resolve("deepseek-v4-flash", "b200", V, disaggregation_mode="decode", **mega)


# 23 (chained at integration: minimax_m3_defaults, 0.5.16 → 0.5.17) ---------------------------
MINIMAX_M3 = {
    "architectures": ["MiniMaxM3SparseForCausalLM"],
    "model_type": "minimax_m3",
    "hidden_size": 3072,
    "num_attention_heads": 48,
    "num_key_value_heads": 8,
    "num_hidden_layers": 60,
}


def test_minimax_m3_sm100_fp8_kv_and_mixed_moe():
    """0.5.17 ``overrides._minimax_m3_overrides`` (SM100 branch): an fp8_e4m3 KV cache with no
    backend set runs trtllm_mha (fp8 attention GEMMs) with 128-token pages; 0.5.16 ran fa4.
    ``SGLANG_DISABLE_M3_FP8_ATTN_GEMM`` keeps fa4. A modelopt_mixed checkpoint gets the routed
    trtllm MoE runner."""
    old = resolve(MINIMAX_M3, "b200", "0.5.16", kv_cache_dtype="fp8_e4m3")
    new = resolve(MINIMAX_M3, "b200", V, kv_cache_dtype="fp8_e4m3")
    assert (old["attention_backend"], old["page_size"]) == ("fa4", 128)
    assert (new["attention_backend"], new["page_size"]) == ("trtllm_mha", 128)
    kept = resolve_server_args(
        MINIMAX_M3,
        Platform.preset("b200"),
        sglang_version=V,
        kv_cache_dtype="fp8_e4m3",
        env={"SGLANG_DISABLE_M3_FP8_ATTN_GEMM": "1"},
    )
    assert kept["attention_backend"] == "fa4"
    # an explicit trtllm_mha gets the 128-token page in 0.5.17 (0.5.16: only fa4 did)
    assert resolve(MINIMAX_M3, "b200", V, attention_backend="trtllm_mha")["page_size"] == 128
    assert resolve(MINIMAX_M3, "b200", "0.5.16", attention_backend="trtllm_mha")["page_size"] != 128
    assert resolve(MINIMAX_M3, "b200", V)["attention_backend"] == "fa4"  # bf16 KV: unchanged
    mixed = dict(MINIMAX_M3, quantization_config={"quant_method": "modelopt_mixed"})
    assert resolve(mixed, "b200", V)["moe_runner_backend"] == "flashinfer_trtllm_routed"
    assert resolve(mixed, "b200", "0.5.16")["moe_runner_backend"] != "flashinfer_trtllm_routed"
