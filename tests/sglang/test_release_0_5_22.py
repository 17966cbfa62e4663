"""sglang 0.5.22: one golden case per modelled row of docs/releases/0.5.22.md.

Main models 0.5.14-0.5.16 only, so each case resolves the same input with
``sglang_version="0.5.16"`` (standing for the releases before 0.5.22: every rule tested here is
unchanged from 0.5.16 to 0.5.21 in the wheels, except where a docstring says otherwise) and with
``"0.5.22"``, and checks both answers, read from the wheels (file and function in each docstring).
The default release is tested in test_releases.py.
"""

from __future__ import annotations

from collections import Counter

import pytest
from release_helpers import SIX
from release_helpers import refusal_at as _refusal
from release_helpers import resolve_at as _resolve

from resolvable.errors import InvalidArgumentError, ResolvableError
from resolvable.sglang import SGLANG_RELEASES, registry, resolve_server_args
from resolvable.sglang.grid import cases
from resolvable.sglang.models import load_model

P, V = "0.5.16", "0.5.22"


def _both(model, preset: str, **flags):
    return _resolve(model, preset, P, **flags), _resolve(model, preset, V, **flags)


EXAONE_MOE = {
    "architectures": ["ExaoneMoeForCausalLM"],
    "model_type": "exaone_moe",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "sliding_window_pattern": 4,
}
EMBEDDING_GEMMA2 = {
    "architectures": ["EmbeddingGemma2Model"],
    "model_type": "gemma2",
    "hidden_size": 768,
    "num_attention_heads": 3,
    "num_key_value_heads": 1,
    "num_hidden_layers": 24,
    "head_dim": 256,
}
ERNIE45_VL = {
    "architectures": ["Ernie4_5_VLMoeForConditionalGeneration"],
    "model_type": "ernie4_5_moe_vl",
    "hidden_size": 2560,
    "num_attention_heads": 20,
    "num_key_value_heads": 4,
    "num_hidden_layers": 28,
}


def _dsa_kpool(kpool: int) -> dict:
    return {**load_model("deepseek-v3.2").to_dict(), "index_kpool": kpool}


def test_0_5_22_is_supported():
    assert V in SGLANG_RELEASES and V in registry.releases  # (integration: later releases follow)
    assert _resolve("llama-3.1-8b", "h100", "0.5.22.post1").release == V


@pytest.mark.parametrize(
    ("preset", "backend"),
    [("h100", "fa3"), ("a100", "fa3"), ("b200", "trtllm_mha"), ("mi300x", "triton"), ("t4", "triton")],
)
def test_row_1_exaone_swa_default_backend(preset, backend):
    """#1 ``model_overrides/exaone.py:_exaone_overrides`` (0.5.22): with a sliding-window pattern an
    unset backend is trtllm_mha (CUDA SM100), fa3 (CUDA SM80+) or triton; before, the
    ``model_hook`` assert refused the unset backend."""
    message = _refusal("exaone-4.0-32b", preset, P)
    assert "One of the attention backends in ['fa3', 'triton', 'trtllm_mha'] is required" in message
    new = _resolve("exaone-4.0-32b", preset, V)
    assert (new["attention_backend"], new["disable_hybrid_swa_memory"]) == (backend, True)


def test_row_1_exaone_explicit_backend_is_still_checked():
    """#1: the ``model_hook`` assert stays — an explicit flashinfer is refused by both releases."""
    for version in (P, V):
        assert "is required for Exaone4ForCausalLM, but got flashinfer" in _refusal(
            "exaone-4.0-32b", "h100", version, attention_backend="flashinfer"
        )
    old, new = _both("exaone-4.0-32b", "h100", attention_backend="triton")
    assert old["attention_backend"] == new["attention_backend"] == "triton"


def test_row_2_exaone_moe_spelling_joins_the_exaone_rules():
    """#2 ``exaone.py`` ``_register_for`` / ``model_hook`` arch list (0.5.22 adds ExaoneMoeForCausalLM)."""
    old, new = _both(EXAONE_MOE, "h100")
    assert (old["attention_backend"], old["disable_hybrid_swa_memory"]) == ("fa3", False)
    assert (new["attention_backend"], new["disable_hybrid_swa_memory"]) == ("fa3", True)
    assert "is required for ExaoneMoeForCausalLM, but got flashinfer" in _refusal(
        EXAONE_MOE, "h100", V, attention_backend="flashinfer"
    )
    assert (
        _resolve(EXAONE_MOE, "h100", P, attention_backend="flashinfer")["attention_backend"] == "flashinfer"
    )


def test_row_3_gemma4_accepts_fa4():
    """#3 ``model_hook.handle_model_specific_adjustments`` Gemma4 ``accepted_backends`` (0.5.22 adds fa4)."""
    assert (
        "Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend, got prefill=fa4"
        in _refusal("gemma-4-31b", "b200", P, attention_backend="fa4")
    )
    new = _resolve("gemma-4-31b", "b200", V, attention_backend="fa4")
    assert (new["attention_backend"], new["page_size"]) == ("fa4", 128)
    message = _refusal("gemma-4-31b", "b200", V, attention_backend="flashinfer")
    assert (
        "Gemma4 only supports trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx, or aiter attention "
        "backend, got prefill=flashinfer, decode=flashinfer"
    ) in message


def test_row_4_dsa_page_size_follows_index_kpool():
    """#4 ``model_overrides/deepseek_v2.py`` DSA arm, ``model_config.get_dsa_index_kpool`` (0.5.22):
    pages of 64 * index_kpool tokens; without the key (kpool 1) still 64."""
    old, new = _both(_dsa_kpool(2), "h200")
    assert (old["attention_backend"], old["page_size"]) == ("dsa", 64)
    assert (new["attention_backend"], new["page_size"]) == ("dsa", 128)
    assert _resolve(_dsa_kpool(4), "b200", V)["page_size"] == 256
    assert _resolve("deepseek-v3.2", "h200", V)["page_size"] == 64


def test_row_5_dsa_index_kpool_refuses_dcp():
    """#5 same arm (0.5.22): a pooled index key cannot span DCP ranks."""
    flags = dict(dcp_size=2, tp_size=8)
    assert _resolve(_dsa_kpool(2), "b200", P, **flags)["page_size"] == 64
    assert "--dcp-size > 1 is not supported for DSA with index_kpool=2" in _refusal(
        _dsa_kpool(2), "b200", V, **flags
    )


def test_row_6_dsa_dcp_refusals_and_trtllm_kernels():
    """#6 ``deepseek_v2._dsa_dcp_overrides`` (0.5.22): DSA DCP refuses HiSparse/HiCache, PD and tree
    speculation; unset DSA kernels become trtllm."""
    flags = dict(dcp_size=2, tp_size=8)
    old, new = _both("deepseek-v3.2", "h200", **flags)
    assert (old["dsa_prefill_backend"], old["dsa_decode_backend"]) == ("flashmla_sparse", "fa3")
    assert (new["dsa_prefill_backend"], new["dsa_decode_backend"]) == ("trtllm", "trtllm")
    kept = _resolve("deepseek-v3.2", "h200", V, dsa_decode_backend="flashmla_kv", **flags)
    assert (kept["dsa_prefill_backend"], kept["dsa_decode_backend"]) == ("trtllm", "flashmla_kv")
    assert _resolve("deepseek-v3.2", "b200", P, enable_hisparse=True, **flags)
    assert "DSA DCP does not support HiSparse or HiCache." in _refusal(
        "deepseek-v3.2", "b200", V, enable_hisparse=True, **flags
    )
    assert "DSA DCP does not support PD disaggregation." in _refusal(
        "deepseek-v3.2", "b200", V, disaggregation_mode="decode", **flags
    )


def test_row_6b_interleave_dsa_cp_accepts_dp():
    """#36 ``deepseek_v2`` DSA prefill CP with ``context_parallel_attn_dp_size`` (0.5.22): interleave
    CP no longer refuses ``--dp-size`` (it runs that many attention-DP groups)."""
    flags = dict(
        enable_prefill_cp=True, cp_strategy="interleave", tp_size=8, dp_size=2, enable_dp_attention=True
    )
    assert "interleave DSA CP does not support DP attention." in _refusal("deepseek-v3.2", "h200", P, **flags)
    new = _resolve("deepseek-v3.2", "h200", V, **flags)
    assert (new["attention_backend"], new["page_size"], new["attn_cp_size"]) == ("dsa", 64, 4)


def test_row_7_embedding_gemma2():
    """#7 ``model_overrides/embedding_gemma2.py`` (new in 0.5.22): triton when unset, radix cache off."""
    old, new = _both(EMBEDDING_GEMMA2, "h100")
    assert (old["attention_backend"], old["disable_radix_cache"]) == ("fa3", False)
    assert (new["attention_backend"], new["disable_radix_cache"]) == ("triton", True)
    explicit = _resolve(EMBEDDING_GEMMA2, "h100", V, attention_backend="flashinfer")
    assert (explicit["attention_backend"], explicit["disable_radix_cache"]) == ("flashinfer", True)


def test_row_8_llada2_cfg_flashinfer_is_a_0_5_22_choice():
    """#8 ``arg_groups/choices.py`` ``ATTENTION_BACKEND_CHOICES`` (0.5.22 adds llada2_cfg_flashinfer)."""
    for field in ("attention_backend", "prefill_attention_backend", "decode_attention_backend"):
        message = _refusal(
            "llama-3.1-8b", "h100", P, InvalidArgumentError, **{field: "llada2_cfg_flashinfer"}
        )
        flag = "--" + field.replace("_", "-")
        assert f"argument {flag}: invalid choice: 'llada2_cfg_flashinfer'" in message
    assert _resolve("llama-3.1-8b", "h100", V, attention_backend="llada2_cfg_flashinfer")[
        "attention_backend"
    ] == ("llada2_cfg_flashinfer")


@pytest.mark.parametrize("phase", ["prefill", "decode"])
def test_row_9_tc_piecewise_is_removed(phase):
    """#9 ``cuda_graph_config.parse_cuda_graph_backend_arg`` (0.5.22): tc_piecewise is rejected."""
    field = f"cuda_graph_backend_{phase}"
    assert _resolve("llama-3.1-8b", "h100", P, **{field: "tc_piecewise"})[field] == "tc_piecewise"
    message = _refusal("llama-3.1-8b", "h100", V, InvalidArgumentError, **{field: "tc_piecewise"})
    assert (
        f"argument --cuda-graph-backend-{phase}: tc_piecewise was removed; select breakable, full, or disabled"
        in (message)
    )


def test_row_17_npu_dcp_is_for_dsa_models_only():
    """#17 ``model_hook.handle_model_specific_adjustments`` (0.5.22): NPU DCP needs a DSA model."""
    flags = dict(dcp_size=2, tp_size=2)
    assert _resolve("llama-3.1-8b", "npu", P, **flags)["attention_backend"] == "ascend"
    message = _refusal("llama-3.1-8b", "npu", V, **flags)
    assert (
        "NPU decode context parallelism is currently implemented only for DeepSeek DSA models; got "
        in message
    )
    assert "LlamaForCausalLM. Set --decode-context-parallel-size=1 or use a DSA model." in message
    assert _resolve("llama-3.1-8b", "h100", V, **flags)


def test_row_18_xpu_dcp_checks():
    """#18 ``attention_hook._check_xpu_dcp`` (0.5.22): intel_xpu on both phases, tp divisible by dcp,
    no speculative decoding."""
    assert _resolve("llama-3.1-8b", "xpu", P, dcp_size=2, tp_size=2)["attention_backend"] == "triton"
    assert "--dcp-size > 1 on Intel XPU needs --attention-backend intel_xpu." in _refusal(
        "llama-3.1-8b", "xpu", V, dcp_size=2, tp_size=2
    )
    ok = _resolve("llama-3.1-8b", "xpu", V, dcp_size=2, tp_size=2, attention_backend="intel_xpu")
    assert ok["attention_backend"] == "intel_xpu"
    assert "--dcp-size 2 must divide --tp-size 3." in _refusal(
        "llama-3.1-8b", "xpu", V, dcp_size=2, tp_size=3, attention_backend="intel_xpu"
    )


def test_row_20_ernie45_vl_refuses_dp_attention():
    """#20 ``model_overrides/ernie45_vl.py`` (new in 0.5.22)."""
    flags = dict(tp_size=2, dp_size=2, enable_dp_attention=True)
    assert _resolve(ERNIE45_VL, "h100", P, **flags)
    assert "ERNIE 4.5 VL MoE does not support DP attention" in _refusal(ERNIE45_VL, "h100", V, **flags)
    assert _resolve(ERNIE45_VL, "h100", V, tp_size=2)


def test_row_34_dcp_excludes_prefill_cp():
    """#34 ``parallel_hook`` DCP validation (0.5.22). (For DSA models the DSA DCP checks of #6
    refuse a PD prefill server first in the pack; that ordering is M confidence.)"""
    flags = dict(dcp_size=2, tp_size=2, enable_prefill_cp=True)
    assert _resolve("llama-3.1-8b", "h100", P, **flags)["attention_backend"] == "fa3"
    assert "--dcp-size > 1 does not support --enable-prefill-cp." in _refusal(
        "llama-3.1-8b", "h100", V, **flags
    )


def _outcome(hf, platform, flags, version):
    try:
        res = resolve_server_args(hf, platform, sglang_version=version, load_time=False, **flags)
    except ResolvableError as exc:
        return ("refused", str(getattr(exc, "message", exc)))
    return ("ok", tuple(res[f] for f in SIX))


def _category(model: str, old, new) -> str:
    if model == "exaone-4.0-32b" and old[0] == "refused" and "is required for Exaone4ForCausalLM" in old[1]:
        return "EXAONE default backend"
    if model == "gemma-4-31b" and old[0] == "refused" and old[1].startswith("Gemma4 only supports"):
        # the 0.5.22 list holds intel_amx (added in 0.5.18), the CPU fallback
        return "Gemma4 list"
    if old[0] == new[0] == "refused" and "Mamba cache state snapshots" in new[1]:
        # integration: 0.5.22's extra_buffer platform message (row 13), on the mamba chain's last link
        return "mamba extra_buffer message"
    if model == "step-3.5-flash" and new[0] == "refused" and "per-layer attribute" in new[1]:
        # found by the agreement run: transformers 5.19's step3p5 class (pinned since 0.5.22)
        return "step3p5 config class"
    if model == "mimo-v2-flash" and old[0] == new[0] == "ok" and old[1][0] != new[1][0] == "fa4":
        # issue 20 item 6: the MiMo-V2 override pins fa4 on SM100 whatever the speculative topk,
        # before the deterministic pass (0.5.21: flashinfer there, triton for EAGLE topk 4)
        return "MiMo-V2 fa4 override"
    return "unexplained"


def test_grid_differences_0_5_16_to_0_5_22():
    """Step 4: on the grid (10,120 cells when measured), outcome or six fields differ in 198 cells:
    171 EXAONE-4.0 cells (167 now resolve, 4 reach a later refusal), 27 Gemma-4 CPU cells (18 on
    ``cpu``: the 0.5.22 list includes intel_amx, which 0.5.18 added; 9 on ``cpu-arm``: the message
    now names fa4). fa4 itself is not on the grid's default path.
    The grid grows with presets, so the test checks the categories, not counts."""
    # Integration: against the release before 0.5.22 (0.5.21), since 0.5.17-0.5.21 are modelled
    # and change the grid themselves (docs/sglang-releases.md).
    before = SGLANG_RELEASES[SGLANG_RELEASES.index(V) - 1]
    counts: Counter[str] = Counter()
    for model, _preset, _variant, hf, platform, flags in cases():
        old, new = _outcome(hf, platform, flags, before), _outcome(hf, platform, flags, V)
        if old != new:
            counts[_category(model, old, new)] += 1
    expected = {
        "EXAONE default backend",
        "Gemma4 list",
        "mamba extra_buffer message",
        "step3p5 config class",
        "MiMo-V2 fa4 override",
    }
    assert set(counts) == expected, counts


# -- added at integration (rows 13 and 14 chain after 0.5.17-0.5.21's rules) ----------------------
def test_row_13_mamba_extra_buffer_platform_message():
    """#13 ``mamba_hook.validate_mamba_extra_buffer`` (0.5.22): the platform refusal reads
    "extra_buffer requires platform support for Mamba cache state snapshots." (0.5.21: "needs
    CUDA/MUSA/NPU/ROCm/XPU (FLA)"); the platforms are the same."""
    flags = dict(mamba_radix_cache_strategy="extra_buffer")
    before = _refusal("qwen3-next-80b-a3b", "cpu", "0.5.21", **flags)
    after = _refusal("qwen3-next-80b-a3b", "cpu", V, **flags)
    assert "needs CUDA/MUSA/NPU/ROCm/XPU (FLA)" in before
    assert "requires platform support for Mamba cache state snapshots" in after
    assert (
        _resolve("qwen3-next-80b-a3b", "mi300x", V, **flags)["mamba_radix_cache_strategy"] == "extra_buffer"
    )


def test_row_14_tilelang_dsa_fp8_kv_on_cuda():
    """#14 ``overrides._check_dsa_backend_constraints`` (0.5.22): CUDA tilelang DSA kernels with an
    fp8_e4m3 KV cache are accepted when both sides are tilelang on SM89+ without DCP (0.5.17-0.5.21
    refused any tilelang with FP8 KV on CUDA); a mixed pair and HiSparse are refused."""
    both = dict(kv_cache_dtype="fp8_e4m3", dsa_prefill_backend="tilelang", dsa_decode_backend="tilelang")
    assert "only support an fp8_e4m3 KV cache on ROCm/HIP" in _refusal(
        "deepseek-v3.2", "h100", "0.5.21", **both
    )
    res = _resolve("deepseek-v3.2", "h100", V, **both)
    assert (res["dsa_prefill_backend"], res["dsa_decode_backend"]) == ("tilelang", "tilelang")
    mixed = dict(kv_cache_dtype="fp8_e4m3", dsa_decode_backend="tilelang")
    assert "requires both DSA backends to be tilelang" in _refusal("deepseek-v3.2", "h100", V, **mixed)
    assert "does not support --dcp-size > 1" in _refusal(
        "deepseek-v3.2", "h100", V, dcp_size=2, tp_size=2, **both
    )
    assert "does not support HiSparse" in _refusal("deepseek-v3.2", "h100", V, enable_hisparse=True, **both)


# Found by the 0.5.23 agreement run: transformers 5.19.0 (pinned since 0.5.22) loads step3p5 with
# its heterogeneous config class unless the checkpoint's own class is trusted.
def test_step3p5_config_needs_trust_remote_code_since_0_5_22():
    assert _resolve("step-3.5-flash", "b200", "0.5.21")["attention_backend"] == "fa4"
    message = _refusal("step-3.5-flash", "b200", "0.5.22")
    assert "'num_attention_heads' is a per-layer attribute" in message
    assert "--trust-remote-code" in message  # the fix
    trusted = _resolve("step-3.5-flash", "b200", "0.5.22", trust_remote_code=True)
    assert trusted["attention_backend"] == "fa4"


def test_step3p5_refusal_comes_before_the_backend_checks():
    """sglang fails while loading the config, before any attention-backend check."""
    message = _refusal("step-3.5-flash", "a10g", "0.5.23", attention_backend="trtllm_mla")
    assert "per-layer attribute" in message


def test_dp_attention_divisibility_names_attn_dp_size_since_0_5_22():
    """``parallel_hook.handle_data_parallelism`` (0.5.22): ``assert cfg.tp_size % cfg.attn_dp_size == 0``."""
    flags = dict(enable_dp_attention=True, dp_size=8)
    assert "divisible by dp_size (8)" in _refusal("llama-3.1-8b", "h200", "0.5.21", **flags)
    assert "divisible by attn_dp_size (8)" in _refusal("llama-3.1-8b", "h200", V, **flags)
    res = _resolve("llama-3.1-8b", "h200", V, tp_size=8, chunked_prefill_size=8192, **flags)
    assert res["chunked_prefill_size"] == 1024
