"""sglang 0.5.15 vs 0.5.16: one golden case per modelled row of docs/releases/0.5.16.md.

Each case resolves the same input with ``sglang_version="0.5.15"`` and ``"0.5.16"`` and checks
both answers, read from the two wheels (file and function in each docstring). The default
release is tested in test_releases.py.
"""

from __future__ import annotations

from collections import Counter

import pytest
from release_helpers import SIX
from release_helpers import refusal_at as _refusal
from release_helpers import resolve_at as _resolve

from resolvable.errors import ConflictError, InvalidArgumentError, ResolvableError
from resolvable.sglang import registry, resolve_server_args
from resolvable.sglang.grid import cases

P, V = "0.5.15", "0.5.16"


def _both(model, preset: str, **flags):
    return _resolve(model, preset, P, **flags), _resolve(model, preset, V, **flags)


LONGCAT = {
    "architectures": ["LongcatFlashForCausalLM"],
    "model_type": "longcat_flash",
    "hidden_size": 6144,
    "num_attention_heads": 64,
    "num_hidden_layers": 28,
    "kv_lora_rank": 512,
}
MINIMAX_M3 = {
    "architectures": ["MiniMaxM3SparseForCausalLM"],
    "model_type": "minimax_m3",
    "hidden_size": 3072,
    "num_attention_heads": 48,
    "num_key_value_heads": 8,
    "num_hidden_layers": 60,
}
INKLING = {
    "architectures": ["InklingForConditionalGeneration"],
    "model_type": "inkling",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
}
KIMI_LINEAR = {
    "architectures": ["KimiLinearForCausalLM"],
    "model_type": "kimi_linear",
    "hidden_size": 2304,
    "num_attention_heads": 32,
    "num_hidden_layers": 27,
    "kv_lora_rank": 512,
}


def test_0_5_16_is_supported_and_follows_0_5_15():
    assert V in registry.releases and registry.releases.index(V) == registry.releases.index(P) + 1
    assert _resolve("llama-3.1-8b", "h100", "0.5.16.post1").release == V


def test_row_1_new_kv_cache_dtypes_are_unknown_to_0_5_15():
    """#1 ``server_args.py`` ``kv_cache_dtype`` choices: mxfp8, nvfp4, fp4_mx_block16 since 0.5.16."""
    for dtype in ("mxfp8", "nvfp4", "fp4_mx_block16"):
        message = _refusal(
            "llama-3.1-8b", "b200", P, InvalidArgumentError, kv_cache_dtype=dtype, attention_backend="triton"
        )
        assert f"argument --kv-cache-dtype: invalid choice: '{dtype}'" in message
        assert "'fp4_e2m1'" in message and "'nvfp4'" not in message.split("(added")[0].split("choose from")[1]
        new = _resolve("llama-3.1-8b", "b200", V, kv_cache_dtype=dtype, attention_backend="triton")
        assert new["kv_cache_dtype"] == dtype


def test_row_2_kv4_backend_lists():
    """#2 ``_handle_kv4_compatibility``: fa3 has no FP4 KV kernels — refused for fp4_e2m1 in
    0.5.15, for fp4_mx_block16 in 0.5.16; fp4_e2m1 is no longer checked by 0.5.16's ServerArgs."""
    assert "FP4 KV cache needs an attention backend" in _refusal(
        "llama-3.1-8b", "b200", P, kv_cache_dtype="fp4_e2m1", attention_backend="fa3"
    )
    assert "FP4 KV cache needs an attention backend" in _refusal(
        "llama-3.1-8b", "b200", V, kv_cache_dtype="fp4_mx_block16", attention_backend="fa3"
    )
    post_init = _resolve(
        "llama-3.1-8b", "b200", V, kv_cache_dtype="fp4_e2m1", attention_backend="fa3", load_time=False
    )
    assert (post_init["attention_backend"], post_init["kv_cache_dtype"]) == ("fa3", "fp4_e2m1")


def test_row_3_nvfp4_needs_blackwell():
    """#3 ``_handle_kv4_compatibility`` (0.5.16): nvfp4 on a non-Blackwell CUDA GPU is refused
    before the backend lists; fp4_mx_block16 is the recipe that runs there."""
    message = _refusal("llama-3.1-8b", "h100", V, kv_cache_dtype="nvfp4", attention_backend="triton")
    assert "--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120" in message
    ok = _resolve("llama-3.1-8b", "h100", V, kv_cache_dtype="fp4_mx_block16", attention_backend="triton")
    assert ok["kv_cache_dtype"] == "fp4_mx_block16"
    assert _resolve("llama-3.1-8b", "rtx5090", V, kv_cache_dtype="nvfp4", attention_backend="triton")
    assert "KV4 is not tested on non-CUDA" in _refusal(
        "llama-3.1-8b", "mi300x", V, kv_cache_dtype="nvfp4", attention_backend="triton"
    )


def test_row_4_kv4_mla_list_drops_flashmla():
    """#4 ``_handle_kv4_compatibility``: flashmla is an FP4-KV MLA backend in 0.5.15, not in 0.5.16."""
    old = _resolve("deepseek-v3", "b200", P, kv_cache_dtype="fp4_e2m1", attention_backend="flashmla")
    assert (old["attention_backend"], old["kv_cache_dtype"]) == ("flashmla", "fp4_e2m1")
    message = _refusal(
        "deepseek-v3", "b200", V, kv_cache_dtype="fp4_mx_block16", attention_backend="flashmla"
    )
    assert "['cutlass_mla', 'flashinfer', 'trtllm_mla'], got flashmla" in message


def test_row_5_fp4_e2m1_is_refused_when_the_model_runner_starts():
    """#5 ``mem_cache/kv_cache_dtype.py:configure_kv_cache_dtype`` (0.5.16): fp4_e2m1 is deprecated;
    ServerArgs accepts it, the model runner refuses it when it starts (a start-up check)."""
    old = _resolve("llama-3.1-8b", "b200", P, kv_cache_dtype="fp4_e2m1", startup=True)
    assert (old["attention_backend"], old["kv_cache_dtype"]) == ("trtllm_mha", "fp4_e2m1")
    with pytest.raises(ConflictError) as info:
        _resolve("llama-3.1-8b", "b200", V, kv_cache_dtype="fp4_e2m1", startup=True)
    assert (
        info.value.message == "--kv-cache-dtype=fp4_e2m1 is deprecated. Use --kv-cache-dtype=fp4_mx_block16."
    )
    assert (info.value.rule, info.value.phase) == ("kv_cache_dtype_deprecated", "startup")
    server_args = _resolve("llama-3.1-8b", "b200", V, kv_cache_dtype="fp4_e2m1")
    assert server_args["kv_cache_dtype"] == "fp4_e2m1"


def test_row_6_mxfp8_kv_cache_needs_blackwell():
    """#6 ``_handle_mxfp8_kv_cache_compatibility`` (0.5.16): SM10x-12x only."""
    assert "--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU" in _refusal(
        "llama-3.1-8b", "h100", V, kv_cache_dtype="mxfp8"
    )
    for preset in ("b200", "rtx5090"):
        assert _resolve("llama-3.1-8b", preset, V, kv_cache_dtype="mxfp8")["kv_cache_dtype"] == "mxfp8"


def test_row_7_deterministic_accepts_fa4_and_keeps_the_radix_cache():
    """#7 ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES`` / ``RADIX_SUPPORTED_…`` (0.5.16 adds fa4)."""
    flags = dict(enable_deterministic_inference=True, attention_backend="fa4")
    message = _refusal("llama-3.1-8b", "b200", P, **flags)
    assert "Currently only ['flashinfer', 'fa3', 'triton', 'ascend'] attention backends" in message
    new = _resolve("llama-3.1-8b", "b200", V, **flags)
    assert (new["attention_backend"], new["page_size"], new["disable_radix_cache"]) == ("fa4", 128, False)
    message = _refusal(
        "llama-3.1-8b", "b200", V, enable_deterministic_inference=True, attention_backend="aiter"
    )
    assert "Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'triton'] attention backends" in message
    # flashinfer stays deterministic-capable but without the radix cache, in both releases
    old, new = _both(
        "llama-3.1-8b", "h100", enable_deterministic_inference=True, attention_backend="flashinfer"
    )
    assert old["disable_radix_cache"] is new["disable_radix_cache"] is True


def test_row_8_deterministic_deepseek_message():
    """#8 ``_handle_deterministic_inference``: the DeepSeek message names ['fa3', 'triton'] in 0.5.16."""
    flags = dict(enable_deterministic_inference=True, attention_backend="flashinfer")
    assert "Currently only ['fa3', 'triton', 'ascend'] attention backends" in _refusal(
        "deepseek-v3", "h100", P, **flags
    )
    assert "Currently only ['fa3', 'triton'] attention backends" in _refusal(
        "deepseek-v3", "h100", V, **flags
    )


def test_row_9_longcat_flash_joins_the_deepseek_family():
    """#9 ``_deepseek_family_overrides`` / ``_deepseek_moe_quant_resolution`` (0.5.16 adds
    LongcatFlashForCausalLM): trtllm_mla and the flashinfer_trtllm MoE runner on SM100."""
    old, new = _both(LONGCAT, "b200")
    assert (old["attention_backend"], old["page_size"], old["moe_runner_backend"]) == (
        "flashinfer",
        1,
        "auto",
    )
    assert (new["attention_backend"], new["page_size"], new["moe_runner_backend"]) == (
        "trtllm_mla",
        64,
        "flashinfer_trtllm",
    )
    old, new = _both(LONGCAT, "h100")  # Hopper: the generic MLA default either way
    assert old["attention_backend"] == new["attention_backend"] == "fa3"


def test_row_9_longcat_flash_with_index_topk_is_dsa():
    """#9 ``model_config.is_deepseek_dsa`` (0.5.16 lists LongCat-Flash): dsa backend, 64-token pages,
    fp8 KV on SM100 and the split DSA kernels."""
    old, new = _both(dict(LONGCAT, index_topk=2048), "b200")
    assert old["attention_backend"] == "flashinfer" and old["dsa_prefill_backend"] is None
    assert [new[f] for f in ("attention_backend", "page_size", "kv_cache_dtype")] == ["dsa", 64, "fp8_e4m3"]
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("trtllm", "trtllm")


def test_row_10_minimax_m3_defaults():
    """#10 ``overrides._minimax_m3_overrides`` (new in 0.5.16)."""
    old, new = _both(MINIMAX_M3, "h100")
    assert (old["attention_backend"], old["page_size"], old["moe_runner_backend"]) == ("fa3", 1, "auto")
    assert (new["attention_backend"], new["page_size"], new["moe_runner_backend"]) == ("fa3", 128, "triton")
    old, new = _both(MINIMAX_M3, "b200")
    assert old["attention_backend"] == "trtllm_mha"
    assert (new["attention_backend"], new["page_size"]) == ("fa4", 128)
    mxfp8 = dict(MINIMAX_M3, quantization_config={"quant_method": "mxfp8"})
    new = _resolve(mxfp8, "b200", V)
    assert (new["quantization"], new["moe_runner_backend"]) == ("mxfp8", "deep_gemm")
    new = _resolve(MINIMAX_M3, "mi300x", V)
    assert (new["attention_backend"], new["moe_runner_backend"], new["disable_custom_all_reduce"]) == (
        "triton",
        "triton",
        True,
    )
    # an explicit backend is kept; the 128-token page only follows fa3 on Hopper
    new = _resolve(MINIMAX_M3, "h100", V, attention_backend="flashinfer")
    assert (new["attention_backend"], new["page_size"]) == ("flashinfer", 1)
    # bf16 weights never run the deep_gemm MoE runner, even when asked for
    assert _resolve(MINIMAX_M3, "h100", V, moe_runner_backend="deep_gemm")["moe_runner_backend"] == "triton"


def test_row_11_inkling_defaults():
    """#11 ``overrides._inkling_overrides``, ``_apply_inkling_prefill_cuda_graph_default`` (0.5.16)."""
    old, new = _both(INKLING, "h100")
    assert (old["attention_backend"], old["cuda_graph_backend_prefill"]) == ("fa3", "breakable")
    assert (new["attention_backend"], new["cuda_graph_backend_prefill"]) == ("triton", "full")
    assert (new["swa_full_tokens_ratio"], new["mamba_radix_cache_strategy"]) == (0.1, "extra_buffer")
    assert _resolve(INKLING, "b200", V)["attention_backend"] == "fa4"
    # the prefill flag is written before the config is parsed, so it outlives --disable-cuda-graph
    new = _resolve(INKLING, "h100", V, disable_cuda_graph=True)
    assert (new["cuda_graph_backend_prefill"], new["cuda_graph_backend_decode"]) == ("full", "disabled")
    new = _resolve(INKLING, "h100", V, cuda_graph_backend_prefill="tc_piecewise", swa_full_tokens_ratio=0.5)
    assert (new["cuda_graph_backend_prefill"], new["swa_full_tokens_ratio"]) == ("tc_piecewise", 0.5)


def test_row_12_kimi_linear_gets_extra_buffer():
    """#12 ``overrides._MAMBA_EXTRA_BUFFER_ARCHS`` (0.5.16 adds KimiLinearForCausalLM)."""
    old, new = _both(KIMI_LINEAR, "h100")
    assert (old["mamba_radix_cache_strategy"], old["disable_overlap_schedule"]) == ("no_buffer", True)
    assert (new["mamba_radix_cache_strategy"], new["disable_overlap_schedule"]) == ("extra_buffer", False)


def test_row_13_extra_buffer_runs_on_rocm():
    """#13 ``_validate_mamba_extra_buffer``: ROCm joins CUDA/MUSA/NPU in 0.5.16 (and the message)."""
    assert "extra_buffer needs CUDA/MUSA/NPU (FLA)." in _refusal("qwen3-next-80b-a3b", "mi300x", P)
    assert _resolve("qwen3-next-80b-a3b", "mi300x", V)["mamba_radix_cache_strategy"] == "extra_buffer"
    assert "extra_buffer needs CUDA/MUSA/NPU/ROCm (FLA)." in _refusal("qwen3-next-80b-a3b", "xpu", V)


def test_row_14_deepseek_v4_sm120_moe_runner():
    """#14 ``overrides._deepseek_v4_sm120_moe``: marlin → flashinfer_mxfp4."""
    old, new = _both("deepseek-v4-flash", "rtx5090")
    assert (old["moe_runner_backend"], new["moe_runner_backend"]) == ("marlin", "flashinfer_mxfp4")
    assert _resolve("deepseek-v4-flash", "b200", V)["moe_runner_backend"] != "flashinfer_mxfp4"


def test_row_15_hrm_text_moves_into_post_init():
    """#15 ``ServerArgs._handle_model_capability_adjustments`` (0.5.16; 0.5.15: the ModelRunner)."""
    old = _resolve("hrm-text", "h100", P, load_time=False)
    new = _resolve("hrm-text", "h100", V, load_time=False)
    assert old["attention_backend"] == "fa3" and old["disable_radix_cache"] is False
    assert (new["attention_backend"], new["disable_radix_cache"], new["cuda_graph_backend_decode"]) == (
        "triton",
        True,
        "disabled",
    )
    old, new = _both("hrm-text", "h100")  # with load time both releases end the same
    assert [old[f] for f in SIX] == [new[f] for f in SIX]


@pytest.mark.parametrize(
    ("mode", "prefill", "decode"), [("prefill", "breakable", "disabled"), ("decode", "disabled", "full")]
)
def test_row_16_pd_roles_disable_the_other_phase(mode, prefill, decode):
    """#16 ``_apply_cuda_graph_disaggregation_roles`` (0.5.16). (0.5.15's prefill-server
    ``disable_cuda_graph`` write is not modelled by the pack; see the change log.)"""
    new = _resolve("llama-3.1-8b", "h100", V, disaggregation_mode=mode)
    assert (new["cuda_graph_backend_prefill"], new["cuda_graph_backend_decode"]) == (prefill, decode)
    old = _resolve("llama-3.1-8b", "h100", P, disaggregation_mode="decode")
    assert old["cuda_graph_backend_prefill"] == "breakable"
    # an explicit phase backend is locked
    new = _resolve(
        "llama-3.1-8b", "h100", V, disaggregation_mode="decode", cuda_graph_backend_prefill="tc_piecewise"
    )
    assert new["cuda_graph_backend_prefill"] == "tc_piecewise"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dsa_prefill_backend", "flashmla_sparse_q8"),
        ("moe_runner_backend", "humming"),
        ("moe_runner_backend", "experimental_sgl_marlin"),
        ("quantization", "humming"),
    ],
)
def test_rows_17_19_choices_added_in_0_5_16(field, value):
    """#17-#19 ``server_args.py`` choice lists: names added in 0.5.16 are argparse errors before."""
    model = "deepseek-v3.2" if field.startswith("dsa") else "llama-3.1-8b"
    message = _refusal(model, "h200", P, InvalidArgumentError, **{field: value})
    assert f"invalid choice: '{value}'" in message
    assert _resolve(model, "h200", V, **{field: value})[field] == value


def test_row_18_qoq_is_removed():
    """#18 ``QUANTIZATION_CHOICES``: qoq is gone in 0.5.16."""
    assert _resolve("llama-3.1-8b", "h100", P, quantization="qoq")["quantization"] == "qoq"
    message = _refusal("llama-3.1-8b", "h100", V, InvalidArgumentError, quantization="qoq")
    assert "argument --quantization: invalid choice: 'qoq'" in message


def test_row_19_ascend_tp_runs_as_none():
    """#19 ``_handle_a2a_moe`` (0.5.16): ``--moe-a2a-backend ascend_tp`` becomes ``none``."""
    _refusal("llama-3.1-8b", "npu", P, InvalidArgumentError, moe_a2a_backend="ascend_tp")
    assert _resolve("llama-3.1-8b", "npu", V, moe_a2a_backend="ascend_tp")["moe_a2a_backend"] == "none"


def test_row_20_dspark():
    """#20 ``speculative_hook._handle_dspark`` (0.5.16); 0.5.15 does not know the name."""
    assert "Unknown speculative algorithm name: DSPARK" in _refusal(
        "llama-3.1-8b", "h100", P, InvalidArgumentError, speculative_algorithm="DSPARK"
    )
    assert _resolve("llama-3.1-8b", "h100", V, speculative_algorithm="DSPARK")["attention_backend"] == "fa3"
    assert "DSpark speculative decoding only supports CUDA device." in _refusal(
        "llama-3.1-8b", "xpu", V, speculative_algorithm="DSPARK"
    )
    assert "only supports pp_size == 1" in _refusal(
        "llama-3.1-8b", "h100", V, speculative_algorithm="DSPARK", pp_size=2
    )


def test_row_21_dflash_needs_cuda():
    """#21 ``speculative_hook._handle_dflash`` (0.5.16): non-CUDA devices are refused (ROCm runs as
    device ``cuda``). The CUDA check comes before the draft-model-path check."""
    dflash = dict(speculative_algorithm="DFLASH", speculative_draft_model_path="org/draft")
    old = _resolve("llama-3.1-8b", "xpu", P, **dflash)
    assert old["speculative_draft_attention_backend"] is not None
    assert "DFLASH speculative decoding only supports CUDA device." in _refusal(
        "llama-3.1-8b", "xpu", V, **dflash
    )
    assert "DFLASH speculative decoding only supports CUDA device." in _refusal(
        "llama-3.1-8b", "xpu", V, speculative_algorithm="DFLASH"
    )
    assert _resolve("llama-3.1-8b", "mi300x", V, **dflash)


def _outcome(hf, platform, flags, version):
    try:
        res = resolve_server_args(hf, platform, sglang_version=version, load_time=False, **flags)
    except ResolvableError as exc:
        return ("refused", str(getattr(exc, "message", exc)))
    return ("ok", tuple(res[f] for f in SIX))


def _category(model: str, old, new) -> str:
    if old[0] == new[0] == "refused":
        if "extra_buffer needs" in old[1]:
            return "extra_buffer message"
        if "deterministic inference" in old[1]:
            return "deterministic message"
        if "Unknown quantization method" in old[1]:
            return "quantization registry message"  # 0.5.16's registry: no qoq/fbgemm_fp8, humming
    elif old[0] == "refused" and "Unknown quantization method: mxfp4" in old[1] and new[0] == "ok":
        return "mxfp4 on NPU"  # Mxfp4W4A4Config, registered since 0.5.16
    elif old[0] == "refused" and "extra_buffer needs" in old[1]:
        return "extra_buffer on ROCm"
    elif old[0] == "refused" and "you explicitly specified 'fa4'" in old[1]:
        return "deterministic fa4"
    elif model == "hrm-text" and old[0] == new[0] == "ok":
        return "HRM-Text post-init"
    return "unexplained"


def test_grid_differences_0_5_15_to_0_5_16():
    """Step 4 of the release: on the grid, the outcome or the six attention fields of
    ``ServerArgs`` differ only for the reasons the change log names. Measured on the 7,480-cell
    grid of the time: 733 cells, 477 refusal messages (295 extra_buffer platform message, 182
    deterministic lists), 118 hybrid-mamba cells on ROCm that 0.5.16 accepts, 134 HRM-Text cells
    (the adjustment moved into ``__post_init__``), 4 Step-3.5 cells where deterministic inference
    now accepts fa4. The grid grows with presets, so the test checks the categories, not counts."""
    counts: Counter[str] = Counter()
    total = 0
    for model, _preset, _variant, hf, platform, flags in cases():
        total += 1
        old, new = _outcome(hf, platform, flags, P), _outcome(hf, platform, flags, V)
        if old != new:
            counts[_category(model, old, new)] += 1
    assert total >= 7480
    assert "unexplained" not in counts, counts
    assert set(counts) == {
        "extra_buffer message",
        "deterministic message",
        "extra_buffer on ROCm",
        "HRM-Text post-init",
        "deterministic fa4",
        "quantization registry message",
        "mxfp4 on NPU",
    }


def test_a_one_release_range_reads_as_that_release():
    """``cuda_graph_defaults`` now covers 0.5.15 alone; ranges describe it as such."""
    from resolvable._release import ReleaseRange

    assert ReleaseRange("0.5.15", "0.5.16").describe(registry.releases) == "0.5.15 only"
    assert ReleaseRange("0.5.14", "0.5.16").describe(registry.releases) == "0.5.14 to 0.5.15"


# Found by the 0.5.23 agreement run (deepseek_v4_hook.apply_deepseek_v4_defaults, since 0.5.16).
def test_deepseek_v4_accepts_dspark_and_words_the_topk_check():
    from release_helpers import refusal_at, resolve_at

    nextn = dict(speculative_algorithm="NEXTN")
    assert "Only EAGLE speculative algorithm is supported" in refusal_at(
        "deepseek-v4-flash", "b200", "0.5.15", **nextn
    )
    spec = dict(speculative_algorithm="DSPARK")  # a choice since 0.5.16
    assert resolve_at("deepseek-v4-flash", "b200", "0.5.16", **spec)["attention_backend"] == "dsv4"
    assert "Only EAGLE and DSPARK speculative algorithms are supported" in refusal_at(
        "deepseek-v4-flash", "b200", "0.5.23", **nextn
    )
    eagle = dict(speculative_algorithm="EAGLE", speculative_eagle_topk=4, speculative_num_steps=3)
    assert "Only EAGLE speculative algorithm with topk == 1 is supported" in refusal_at(
        "deepseek-v4-flash", "b200", "0.5.23", **eagle
    )
