"""Golden cases from the spec's decision tables (§3.1 CUDA lists, FA version, §3.2-3.4, §4-§7)."""

from __future__ import annotations

import pytest
from vllm_cases import candidates, res

from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.vllm import fa_version as FA
from resolvable.vllm.backends import cuda as CUDA
from resolvable.vllm.backends import rocm as ROCM
from resolvable.vllm.kernels import installed, standard_install
from resolvable.vllm.layers import layer_queries


def _query(model, preset, kind=None, **flags):
    r = res(model, preset, **flags)
    qs = layer_queries(
        r.__class__ and _hf(model),
        _View(r),
        r.platform,
        {},
        user_block_size=flags.get("block_size"),
        kernels=frozenset(r["installed_kernels"]),
    )
    return next(q for q in qs if kind is None or q.kind == kind)


def _hf(model):
    from resolvable.vllm import load_model

    return load_model(model)


class _View(dict):
    def __init__(self, r):
        super().__init__(r)
        self.__dict__ = self


# -- §3.1 priority lists (8 shapes) -----------------------------------------------------------
def test_non_mla_sm10x_causal_list():
    q = _query("llama-3.1-8b", "b200")
    assert CUDA.priorities(q) == ["FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT"]


def test_non_mla_sm10x_mm_prefix_puts_triton_flashinfer_first():
    q = _query("gemma-3-27b", "b200", kind="full")
    assert q.use_mm_prefix and CUDA.priorities(q)[0] == "TRITON_FLASHINFER"


def test_non_mla_sm10x_non_causal_uses_the_default_order():
    q = _query("llama-3.1-8b", "b200", use_non_causal=True)
    assert CUDA.priorities(q)[:2] == ["FLASH_ATTN", "FLASHINFER"]


def test_non_mla_sm90_mm_prefix_puts_triton_flash_attn_first():
    q = _query("gemma-3-27b", "h100", kind="full")
    assert CUDA.priorities(q)[:2] == ["TRITON_FLASH_ATTN", "FLASH_ATTN"]


@pytest.mark.parametrize("preset", ["a100", "h100", "rtx5090"])
def test_non_mla_default_list(preset):
    q = _query("llama-3.1-8b", preset)
    assert CUDA.priorities(q) == ["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT"]


def test_mla_sm10x_lists_by_kv_dtype_and_heads():
    head = ["FLASHINFER_MLA", "TOKENSPEED_MLA", "CUTLASS_MLA", "FLASH_ATTN_MLA", "FLASHMLA", "TRITON_MLA"]
    assert CUDA.priorities(_query("deepseek-v3.2", "b200", kind="mla")) == [
        *head,
        "FLASHMLA_SPARSE",
        "FLASHINFER_MLA_SPARSE",
    ]
    tp8 = _query("deepseek-v3.2", "b200", kind="mla", tensor_parallel_size=8)
    assert CUDA.priorities(tp8)[6:] == [
        "FLASH_ATTN_MLA_SPARSE_FA4",
        "FLASHINFER_MLA_SPARSE",
        "FLASHMLA_SPARSE",
    ]
    fp8 = _query("deepseek-v3", "b200", kind="mla", kv_cache_dtype="fp8")
    assert CUDA.priorities(fp8)[6:] == ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]


def test_mla_sm12x_list():
    assert CUDA.priorities(_query("deepseek-v3", "rtx5090")) == ["TRITON_MLA", "FLASHINFER_MLA_SPARSE_SM120"]


def test_mla_default_list_moves_sm90_sparse_first_for_head_512():
    q = _query("deepseek-v3", "h100")
    assert CUDA.priorities(q)[4:] == [
        "FLASH_ATTN_MLA_SPARSE",
        "FLASHMLA_SPARSE",
        "FLASHINFER_MLA_SPARSE_SM90",
    ]
    assert CUDA.priorities(q._replace(head_size=512))[4] == "FLASHINFER_MLA_SPARSE_SM90"


# -- FA version (§3.1, fa_utils.get_flash_attn_version) ----------------------------------------
@pytest.mark.parametrize(("preset", "version"), [("a100", 2), ("h100", 3), ("b200", 4), ("rtx5090", 2)])
def test_default_fa_version_per_platform(preset, version):
    assert res("llama-3.1-8b", preset, attention_backend="FLASH_ATTN")["flash_attn_version"] == version


def test_fa3_on_blackwell_becomes_fa4_or_fa2():
    q = _query("llama-3.1-8b", "b200")
    assert FA.flash_attn_version(q._replace(flash_attn_version_cfg=3), head_size=128) == 4
    no_fa4 = q._replace(flash_attn_version_cfg=3, kernels=q.kernels - {"fa4"})
    assert FA.flash_attn_version(no_fa4, head_size=128) == 2


def test_sm90_head_over_256_moves_fa3_to_fa4():
    q = _query("llama-3.1-8b", "h100")
    assert FA.flash_attn_version(q, head_size=512) == 4
    assert FA.flash_attn_version(q._replace(kernels=q.kernels - {"fa4"}), head_size=512) == 3


def test_alibi_forces_fa2():
    q = _query("llama-3.1-8b", "h100")
    assert FA.flash_attn_version(q, head_size=128, requires_alibi=True) == 2


def test_blackwell_head_above_128_falls_back_to_fa2_except_256_and_192_128():
    q = _query("llama-3.1-8b", "b200")
    assert FA.flash_attn_version(q, head_size=160) == 2
    assert FA.flash_attn_version(q, head_size=192, head_size_v=128) == 4
    assert FA.flash_attn_version(q, head_size=256, supports_fa4_hd256=True) == 4
    assert FA.flash_attn_version(q, head_size=256, block_size=16, supports_fa4_hd256=True) == 2


def test_fa_version_is_none_without_builds():
    q = _query("llama-3.1-8b", "t4")
    assert FA.flash_attn_version(q) is None  # FA2 needs cc >= 8.0


def test_sm75_takes_triton_in_fp16():
    r = res("llama-3.1-8b", "t4")
    assert (r["dtype"], r["attn_backend_full"]) == ("float16", "TRITON_ATTN")
    assert "compute capability not supported" in candidates(r, "attn_backend_full")["FLASH_ATTN"]


# -- explicit selection (§2) -----------------------------------------------------------------
def test_selected_backend_is_validated_not_replaced_on_cuda():
    with pytest.raises(
        ConflictError, match=r"Selected backend FLASHINFER is not valid.*attention sinks not supported"
    ):
        res("gpt-oss-120b", "a100", attention_backend="FLASHINFER")


def test_selected_backend_is_case_insensitive_and_auto_means_none():
    assert res("llama-3.1-8b", "h100", attention_backend="triton_attn")["attn_backend_full"] == "TRITON_ATTN"
    assert res("llama-3.1-8b", "h100", attention_backend="auto")["attn_backend_full"] == "FLASH_ATTN"


def test_unknown_backend_is_refused_with_a_hint():
    with pytest.raises(InvalidArgumentError, match="did you mean 'FLASHINFER'"):
        res("llama-3.1-8b", "h100", attention_backend="FLASHINFERR")


def test_backend_per_kind_overrides_one_kind():
    r = res(
        "gpt-oss-120b",
        "h100",
        attention_config={"backend_per_kind": {"sliding_window": "TRITON_ATTN"}},
    )
    assert (r["attn_backend_full"], r["attn_backend_sliding_window"]) == ("FLASH_ATTN", "TRITON_ATTN")


def test_backend_and_attention_config_backend_are_exclusive():
    with pytest.raises(InvalidArgumentError, match="mutually exclusive"):
        res(
            "llama-3.1-8b",
            "h100",
            attention_backend="FLASH_ATTN",
            attention_config='{"backend": "FLASHINFER"}',
        )


def test_cpu_ignores_a_selected_backend():
    assert res("llama-3.1-8b", "cpu", attention_backend="FLASH_ATTN")["attn_backend_full"] == "CPU_ATTN"


# -- §3.2 ROCm -----------------------------------------------------------------------------------
def test_rocm_default_list_and_choice():
    q = _query("llama-3.1-8b", "mi300x")
    assert ROCM.priorities(q) == [
        "ROCM_ATTN",
        "ROCM_AITER_UNIFIED_ATTN",
        "TRITON_ATTN",
        "TURBOQUANT",
        "ROCM_OCTAVE",
        "ULTRAQUANT",
    ]
    assert res("llama-3.1-8b", "mi300x")["attn_backend_full"] == "ROCM_ATTN"


def test_rocm_aiter_env_adds_aiter_fa_and_aiter_mla():
    env = {"VLLM_ROCM_USE_AITER": "1"}
    assert res("llama-3.1-8b", "mi300x", env)["attn_backend_full"] == "ROCM_ATTN"
    q = _query("llama-3.1-8b", "mi300x")._replace(
        env=frozenset({"VLLM_ROCM_USE_AITER", "VLLM_ROCM_USE_AITER_MHA"})
    )
    assert ROCM.priorities(q)[:2] == ["ROCM_ATTN", "ROCM_AITER_FA"]
    r = res("deepseek-v3", "mi300x", env)
    assert r["attn_backend_mla"] == "ROCM_AITER_MLA"
    assert (
        res("deepseek-v3", "mi300x", {**env, "VLLM_ROCM_USE_AITER_MLA": "0"})["attn_backend_mla"]
        == "TRITON_MLA"
    )


def test_rocm_sinks_take_aiter_unified_with_block_64():
    r = res("gpt-oss-120b", "mi300x")
    assert (r["attn_backend_full"], r["block_size"]) == ("ROCM_AITER_UNIFIED_ATTN", 64)
    assert "attention sinks not supported" in candidates(r, "attn_backend_full")["ROCM_ATTN"]


def test_rocm_sparse_list():
    assert res("deepseek-v3.2", "mi300x")["attn_backend_mla"] == "ROCM_AITER_MLA_SPARSE"


# -- §3.3 XPU / §3.4 CPU -------------------------------------------------------------------------
def test_xpu_defaults_and_branches():
    assert res("llama-3.1-8b", "xpu")["attn_backend_full"] == "FLASH_ATTN"
    assert res("llama-3.1-8b", "xpu")["block_size"] == 64
    assert res("llama-3.1-8b", "xpu", {"VLLM_BATCH_INVARIANT": "1"})["attn_backend_full"] == "TRITON_ATTN"
    assert res("llama-3.1-8b", "xpu", dtype="float32")["attn_backend_full"] == "TRITON_ATTN"
    assert res("deepseek-v3", "xpu")["attn_backend_mla"] == "FLASH_ATTN_MLA"
    assert res("deepseek-v3", "xpu", attention_backend="TRITON_MLA")["attn_backend_mla"] == "TRITON_MLA"
    with pytest.raises(ConflictError, match="Invalid attention backend for XPU"):
        res("llama-3.1-8b", "xpu", attention_backend="FLASHINFER")


def test_cpu_branches():
    assert res("llama-3.1-8b", "cpu")["attn_backend_full"] == "CPU_ATTN"
    assert res("llama-3.1-8b", "cpu")["block_size"] == 128
    assert (res("deepseek-v3", "cpu")["attn_backend_mla"], res("deepseek-v3", "cpu")["block_size"]) == (
        "CPU_MLA",
        16,
    )
    assert res("deepseek-v3", "cpu-amx")["attn_backend_mla"] == "AMX_MLA"
    assert res("deepseek-v3", "cpu-amx", attention_backend="CPU_MLA")["attn_backend_mla"] == "CPU_MLA"
    with pytest.raises(ConflictError, match="Sparse Attention is not supported on CPU"):
        res("deepseek-v3.2", "cpu")
    with pytest.raises(ConflictError, match="not supported by MLA attention on CPU"):
        res("deepseek-v3", "cpu", kv_cache_dtype="fp8")
    with pytest.raises(ConflictError, match="not supported by the CPU attention backend"):
        res("llama-3.1-8b", "cpu-arm", kv_cache_dtype="fp8")


def test_cpu_mla_forces_block_16_over_the_user():
    r = res("deepseek-v3", "cpu", block_size=64)
    assert r["block_size"] == 16
    assert r.explain("block_size").steps[-1].outcome == "forced"


# -- §4 block size, §5 kv dtype, §6 MLA prefill, §7 CUDA graphs -------------------------------
def test_block_size_lcm_across_backends():
    r = res("gpt-oss-120b", "h100", attention_config={"backend_per_kind": {"sliding_window": "TRITON_ATTN"}})
    assert r["block_size"] == 16  # both accept the default
    r = res("deepseek-v3.2", "h100")
    assert r["block_size"] == 64  # FLASH_ATTN_MLA_SPARSE M64 with the indexer's 64


def test_user_block_size_is_kept_and_enters_selection():
    r = res("llama-3.1-8b", "b200", block_size=48)  # a multiple of a kernel size is enough (hybrid blocks)
    assert r["block_size"] == 48 and r["attn_backend_full"] == "FLASHINFER"
    r = res("deepseek-v3", "h100", kv_cache_dtype="fp8", block_size=32)  # FLASHMLA needs 64
    assert (r["block_size"], r["attn_backend_mla"]) == (32, "TRITON_MLA")
    assert candidates(r, "attn_backend_mla")["FLASHMLA"] == ("block_size not supported",)


def test_kv_cache_dtype_overrides():
    assert res("deepseek-v3.2", "h100", kv_cache_dtype="bfloat16")["kv_cache_dtype"] == "auto"
    assert res("glm-5", "b200")["kv_cache_dtype"] == "fp8_e4m3"
    assert res("glm-5", "h100")["kv_cache_dtype"] == "auto"
    r = res("deepseek-v3.2", "b200", kv_cache_dtype="fp8")  # quantized KV: FlashInfer sparse first on SM10x
    assert (r["attn_backend_mla"], r["kv_cache_dtype"]) == ("FLASHINFER_MLA_SPARSE", "fp8")
    r = res("deepseek-v3.2", "h100", kv_cache_dtype="fp8")  # FLASHMLA_SPARSE serves fp8 as fp8_ds_mla
    assert (r["attn_backend_mla"], r["kv_cache_dtype"]) == ("FLASHMLA_SPARSE", "fp8_ds_mla")


def test_mla_prefill_lists():
    assert res("deepseek-v3", "b200")["mla_prefill_backend"] == "FLASH_ATTN"
    assert res("glm-5", "b200")["mla_prefill_backend"] == "TRTLLM_RAGGED"  # (192, 64, 256) dims
    assert res("deepseek-v3", "h100")["mla_prefill_backend"] == "FLASH_ATTN"
    assert res("deepseek-v3", "cpu")["mla_prefill_backend"] == "CPU"
    with pytest.raises(ConflictError, match="MLA prefill backend TRTLLM_RAGGED is not valid"):
        res("deepseek-v3", "h100", attention_config={"mla_prefill_backend": "TRTLLM_RAGGED"})


def test_cudagraph_mode_follows_the_weakest_backend():
    assert res("llama-3.1-8b", "h100")["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert res("llama-3.1-8b", "h100", enforce_eager=True)["cudagraph_mode"] == "NONE"
    assert res("llama-3.1-8b", "cpu")["cudagraph_mode"] == "NONE"
    # CUTLASS_MLA supports single-token decode graphs only: spec decode falls back to PIECEWISE
    r = res("deepseek-v3", "b200", attention_backend="CUTLASS_MLA", num_speculative_tokens=2)
    assert r["cudagraph_mode"] == "PIECEWISE"
    r = res("deepseek-v3", "b200", attention_backend="TRITON_MLA", cudagraph_mode="FULL")
    assert r["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert r.explain("cudagraph_mode").steps[-1].outcome == "forced"


# -- installed kernels (§1.3) ---------------------------------------------------------------------
def test_standard_install_defaults_and_overrides():
    from resolvable import Platform

    assert "flashinfer" in standard_install(Platform.preset("h100"))
    assert standard_install(Platform.preset("mi300x")) == frozenset({"aiter"})
    assert "flashinfer" not in installed(Platform.preset("h100"), "flashinfer=0")
    assert "aiter" in installed(Platform.preset("h100"), "+aiter")
    with pytest.raises(InvalidArgumentError, match="did you mean 'flashinfer'"):
        installed(Platform.preset("h100"), "flashinfr=0")


def test_missing_flashinfer_is_an_import_error_reason():
    r = res("llama-3.1-8b", "b200", kernels="flashinfer=0")
    assert r["attn_backend_full"] == "FLASH_ATTN"
    assert candidates(r, "attn_backend_full")["FLASHINFER"] == ("ImportError: No module named 'flashinfer'",)


def test_kernels_are_shown_and_change_the_fingerprint():
    a, b = res("llama-3.1-8b", "b200"), res("llama-3.1-8b", "b200", kernels="fa4=0")
    assert "fa4" in a["installed_kernels"] and "fa4" not in b["installed_kernels"]
    assert a.fingerprint() != b.fingerprint()
    assert a.explain("installed_kernels").decided_by == "standard_install_kernels"


def test_deepseek_v4_is_refused_as_not_modelled():
    with pytest.raises(ConflictError, match="not modelled"):
        res("deepseek-v4-flash", "b200")


def test_whisper_has_encoder_and_cross_layers():
    r = res("whisper-large-v3", "h100")
    assert r["attn_backend_full"] == "FLASH_ATTN"
    assert r["attn_backend_encoder"] == "FLASH_ATTN"
    assert r["attn_backend_cross"] == "FLASH_ATTN"
