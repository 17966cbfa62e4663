"""sglang 0.5.16 vs 0.5.23: one golden case per modelled row of docs/releases/0.5.23.md.

Each case resolves the same input with ``sglang_version="0.5.16"`` (standing for 0.5.22: the
rules involved are unchanged in the 0.5.17-0.5.22 wheels, checked function by function) and
``"0.5.23"`` and checks both answers, read from the wheels (file and function in each
docstring). The default release is tested in test_releases.py.
"""

from __future__ import annotations

from release_helpers import SIX
from release_helpers import refusal_at as _refusal
from release_helpers import resolve_at as _resolve

from resolvable.errors import InvalidArgumentError, ResolvableError
from resolvable.sglang import registry, resolve_server_args
from resolvable.sglang.grid import cases

P, V = "0.5.16", "0.5.23"


def _six(res) -> tuple:
    return tuple(res[f] for f in SIX)


BEAM = {
    "architectures": ["BeamForCausalLM"],
    "model_type": "beam",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "head_dim": 128,
}
MUSE_SPARK = {
    "architectures": ["MuseSparkForConditionalGeneration"],
    "model_type": "muse_spark",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
}
MINICPM_V_4_7 = {
    "architectures": ["MiniCPMV4_7ForConditionalGeneration"],
    "model_type": "minicpmv",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
}


def test_0_5_23_is_supported_and_the_newest():
    assert V in registry.releases and registry.releases[-1] == V
    assert _resolve("llama-3.1-8b", "h100", "0.5.23.post1").release == V


def test_rows_1_2_4_tokenspeed_mla_is_an_alias_of_cutedsl_mla():
    """#1, #2, #4 ``serving_hook._handle_deprecated_args`` (0.5.23): ``tokenspeed_mla`` is
    renamed ``cutedsl_mla`` and keeps its FP8 KV cache; the CuteDSL rule then fills the prefill
    side with ``trtllm_mla`` and snaps the page to 64. 0.5.22 (``_mla_kv_cache_dtype_checks``)
    refuses tokenspeed_mla without ``--kv-cache-dtype fp8_e4m3``."""
    assert "tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto." in _refusal(
        "deepseek-v3", "b200", P, attention_backend="tokenspeed_mla"
    )
    new = _resolve("deepseek-v3", "b200", V, attention_backend="tokenspeed_mla")
    assert _six(new) == ("cutedsl_mla", "trtllm_mla", None, 64, "auto", "fp8_e4m3")
    old = _resolve("deepseek-v3", "b200", P, attention_backend="tokenspeed_mla", kv_cache_dtype="fp8_e4m3")
    assert _six(old) == ("tokenspeed_mla", None, None, 64, "auto", "fp8_e4m3")
    # An explicit non-FP8 KV dtype is overridden, not refused.
    forced = _resolve("deepseek-v3", "b200", V, attention_backend="tokenspeed_mla", kv_cache_dtype="bf16")
    assert forced["kv_cache_dtype"] == "fp8_e4m3"
    assert "deprecated_backend_aliases" in str(forced.explain("kv_cache_dtype"))


def test_row_1_tokenspeed_prefill_becomes_trtllm_mla():
    """#1 ``_handle_deprecated_args`` (0.5.23): a prefill side named tokenspeed_mla becomes
    ``trtllm_mla`` (cutedsl_mla is decode-only); the decode side becomes cutedsl_mla."""
    new = _resolve(
        "deepseek-v3",
        "b200",
        V,
        prefill_attention_backend="tokenspeed_mla",
        decode_attention_backend="tokenspeed_mla",
    )
    assert (new["prefill_attention_backend"], new["decode_attention_backend"]) == (
        "trtllm_mla",
        "cutedsl_mla",
    )
    assert new["kv_cache_dtype"] == "fp8_e4m3"


def test_row_3_tokenspeed_on_sm120_is_refused():
    """#3: 0.5.22 accepts tokenspeed_mla on SM12x with FP8 KV; 0.5.23 runs it as cutedsl_mla,
    which ``_cutedsl_prefill_backend_fill`` allows on SM100 only."""
    old = _resolve("deepseek-v3", "rtx5090", P, attention_backend="tokenspeed_mla", kv_cache_dtype="fp8_e4m3")
    assert old["attention_backend"] == "tokenspeed_mla"
    assert "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100)" in _refusal(
        "deepseek-v3", "rtx5090", V, attention_backend="tokenspeed_mla", kv_cache_dtype="fp8_e4m3"
    )


def test_compressed_alias_unchanged():
    """The 0.5.16 alias ``compressed`` → ``dsv4`` is kept by the 0.5.23 rule."""
    for version in (P, V):
        res = _resolve("deepseek-v4-flash", "b200", version, attention_backend="compressed")
        assert res["attention_backend"] == "dsv4"


def test_row_6_beam_defaults():
    """#6 ``model_overrides/beam.py:_beam_overrides`` (0.5.23): an FP4 ModelOpt Beam checkpoint
    on SM100 gets the ``flashinfer_trtllm`` MoE runner (0.5.22: no Beam rule, runner ``auto``);
    attention stays trtllm_mha/page 64 on B200 (the generic SM100 MHA default already picks it)."""
    fp4 = dict(BEAM, quantization_config={"quant_method": "modelopt", "quant_algo": "NVFP4"})
    old, new = _resolve(fp4, "b200", P), _resolve(fp4, "b200", V)
    assert (old["moe_runner_backend"], new["moe_runner_backend"]) == ("auto", "flashinfer_trtllm")
    assert _six(old)[:4] == _six(new)[:4] == ("trtllm_mha", None, None, 64)
    # Off CUDA the generic default stays.
    assert (
        _resolve(BEAM, "mi300x", V)["attention_backend"] == _resolve(BEAM, "mi300x", P)["attention_backend"]
    )
    # An explicit MoE runner is kept.
    assert _resolve(fp4, "b200", V, moe_runner_backend="triton")["moe_runner_backend"] == "triton"


def test_row_7_muse_spark_fp8_kv():
    """#7 ``overrides._muse_spark_overrides`` (0.5.23): an ``auto`` KV cache becomes
    ``fp8_e4m3`` and TF32 matmuls are on; an explicit KV dtype is kept."""
    old, new = _resolve(MUSE_SPARK, "h100", P), _resolve(MUSE_SPARK, "h100", V)
    assert (old["kv_cache_dtype"], new["kv_cache_dtype"]) == ("auto", "fp8_e4m3")
    assert (old["enable_tf32_matmul"], new["enable_tf32_matmul"]) == (False, True)
    assert _resolve(MUSE_SPARK, "h100", V, kv_cache_dtype="bf16")["kv_cache_dtype"] == "bf16"


def test_row_9_minicpm_v_4_7_triton_on_sm100():
    """#9 ``model_overrides/minicpmv.py`` (0.5.23 registers MiniCPM-V 4.7 on the 4.6 rule):
    triton on SM100 when no backend is set (0.5.22: generic trtllm_mha, page 64)."""
    old, new = _resolve(MINICPM_V_4_7, "b200", P), _resolve(MINICPM_V_4_7, "b200", V)
    assert (old["attention_backend"], old["page_size"]) == ("trtllm_mha", 64)
    assert (new["attention_backend"], new["page_size"]) == ("triton", 1)
    assert _resolve(MINICPM_V_4_7, "h100", V)["attention_backend"] == "fa3"


def test_row_10_deterministic_rocm_rccl():
    """#10 ``overrides._deterministic_rocm_rccl_check`` (0.5.23): deterministic TP above two
    ranks on ROCm refuses ``--disable-custom-all-reduce``; TP 2 is accepted."""
    flags = {"enable_deterministic_inference": True, "disable_custom_all_reduce": True}
    assert _resolve("llama-3.1-8b", "mi300x", P, tp_size=4, **flags)["disable_custom_all_reduce"] is True
    assert "would run through RCCL, which is not batch-invariant" in _refusal(
        "llama-3.1-8b", "mi300x", V, tp_size=4, **flags
    )
    assert _resolve("llama-3.1-8b", "mi300x", V, tp_size=2, **flags)
    # CUDA is not affected (the NCCL tree path disables custom all-reduce itself).
    assert _resolve("llama-3.1-8b", "h100", V, tp_size=4, **flags)


def test_row_11_lora_moe_runners():
    """#11 ``choices.MOE_RUNNER_BACKEND_CHOICES`` (+lora_*), ``lora_hook.check_lora_moe_runner_args``,
    ``overrides._moe_runner_fusion_disable`` and ``_speculative_moe_runner_default`` (0.5.23)."""
    message = _refusal("qwen3-30b-a3b", "h100", P, InvalidArgumentError, moe_runner_backend="lora_triton")
    assert "argument --moe-runner-backend: invalid choice: 'lora_triton'" in message
    assert "requires --enable-lora (or --lora-paths)" in _refusal(
        "qwen3-30b-a3b", "h100", V, moe_runner_backend="lora_triton"
    )
    new = _resolve("qwen3-30b-a3b", "h100", V, moe_runner_backend="lora_marlin", enable_lora=True)
    assert new["disable_shared_experts_fusion"] is True
    spec = {"speculative_algorithm": "EAGLE3", "speculative_draft_model_path": "draft"}
    drafted = _resolve("qwen3-30b-a3b", "h100", V, moe_runner_backend="lora_triton", enable_lora=True, **spec)
    assert drafted["speculative_moe_runner_backend"] == "auto"
    assert "the LoRA MoE runner serves adapter traffic on the target model" in _refusal(
        "qwen3-30b-a3b", "h100", V, speculative_moe_runner_backend="lora_triton", **spec
    )


def _outcome(hf, platform, flags, version):
    try:
        res = resolve_server_args(hf, platform, sglang_version=version, load_time=False, **flags)
    except ResolvableError as exc:
        return ("refused", str(getattr(exc, "message", exc)))
    return ("ok", tuple(res[f] for f in SIX))


def test_grid_differences_0_5_16_to_0_5_23():
    """Step 4 of the release: on the grid (10,120 cells when measured) the outcome and the six
    attention fields differ between 0.5.22 and 0.5.23 as modelled here only where the
    quantization registry refuses: its "Must be one of" list now holds minimax_m3_nvfp4 after
    mxfp8 (``verify_quantization_0_5_23``). The grid's flag variants never name tokenspeed_mla,
    a LoRA MoE runner or ROCm deterministic TP > 2, and its models include no Beam, Muse Spark
    or MiniCPM-V 4.7 checkpoint."""
    # Integration: against the release before 0.5.23 (0.5.22): 0.5.17-0.5.22 are modelled now and
    # change the grid themselves (docs/sglang-releases.md).
    from resolvable.sglang import SGLANG_RELEASES

    before = SGLANG_RELEASES[SGLANG_RELEASES.index(V) - 1]
    total = registry_messages = 0
    for _model, _preset, _variant, hf, platform, flags in cases():
        total += 1
        old, new = _outcome(hf, platform, flags, before), _outcome(hf, platform, flags, V)
        if old != new and old[0] == new[0] == "refused" and old[1].startswith("Unknown quantization method"):
            assert new[1] == old[1].replace("'mxfp8', ", "'mxfp8', 'minimax_m3_nvfp4', ", 1), (old, new)
            registry_messages += 1
            continue
        assert old == new, (_model, _preset, flags)
    assert total >= 10120
    assert registry_messages > 0  # GPT-OSS (mxfp4) on ROCm gfx942 is on the grid


def test_minimax_m3_nvfp4_joins_the_quantization_registry():
    """layers/quantization/__init__.py (0.5.23): ``minimax_m3_nvfp4`` (``MiniMaxM3Nvfp4Config``)
    is the third key of the base dict, so every "Unknown quantization method" list names it
    after mxfp8 — here the agreement run's ``--quantization gptq`` on an RTX PRO 6000, which
    0.5.20-0.5.23 refuse on CUDA (sglang's message, first entries)."""
    flags = dict(quantization="gptq", prefill_attention_backend="trtllm_mla", tp_size=8)
    head = (
        "Unknown quantization method: gptq. Must be one of ['fp8', 'mxfp8', 'minimax_m3_nvfp4', "
        "'blockwise_int8', 'modelopt', 'modelopt_fp8', 'modelopt_fp4', 'nvfp4_online', 'modelopt_mixed', "
        "'w8a8_int8', 'w8a8_fp8', 'awq', 'awq_marlin', 'bitsandbytes', 'gguf', 'gptq_marlin', 'moe_wna16', "
        "'compressed-tensors"
    )
    assert _refusal("qwen3-next-80b-a3b", "rtxpro6000", V, **flags).startswith(head)
    before = _refusal("qwen3-next-80b-a3b", "rtxpro6000", "0.5.22", **flags)
    assert before.startswith(
        "Unknown quantization method: gptq. Must be one of ['fp8', 'mxfp8', 'blockwise_int8'"
    )


MINIMAX_M3 = {
    "architectures": ["MiniMaxM3SparseForCausalLM"],
    "model_type": "minimax_m3",
    "hidden_size": 3072,
    "num_attention_heads": 48,
    "num_key_value_heads": 8,
    "num_hidden_layers": 60,
}
M3_NVFP4 = dict(
    MINIMAX_M3,
    quantization_config={
        "quant_method": "mxfp8",
        "moe_quant_algo": "NVFP4",
        "moe_quant_format": "nvfp4-pack-quantized",
    },
)


def test_row_8_minimax_m3_nvfp4_off_blackwell():
    """#8 ``model_overrides/minimax_m3.py`` (0.5.23): an mxfp8 checkpoint with NVFP4-packed
    experts is ``minimax_m3_nvfp4``; off Blackwell: page 128, ``marlin`` MoE, ``fa3``
    attention, KV dtype as given. 0.5.22 serves it as plain ``mxfp8``."""
    old, new = _resolve(M3_NVFP4, "h100", P), _resolve(M3_NVFP4, "h100", V)
    assert (old["quantization"], new["quantization"]) == ("mxfp8", "minimax_m3_nvfp4")
    assert (new["attention_backend"], new["page_size"], new["kv_cache_dtype"]) == ("fa3", 128, "auto")
    assert (old["moe_runner_backend"], new["moe_runner_backend"]) == ("flashinfer_trtllm", "marlin")


def test_row_8_minimax_m3_nvfp4_on_blackwell():
    """#8 (0.5.23, SM100): MegaMoE A2A, ``deep_gemm`` MoE, FP8 KV, ``trtllm_mha``. The page
    (128 in sglang 0.5.23) is not asserted here: this branch still has 0.5.16's trtllm_mha page
    rule ({16, 32, 64}); 0.5.17's rule (branch rel-0.5.17) accepts 128."""
    new = _resolve(M3_NVFP4, "b200", V)
    assert (new["attention_backend"], new["kv_cache_dtype"]) == ("trtllm_mha", "fp8_e4m3")
    # integration: with 0.5.17's trtllm_mha page rule merged, the 128-token page stands
    assert new["page_size"] == 128
    assert (new["moe_a2a_backend"], new["moe_runner_backend"]) == ("megamoe", "deep_gemm")
    old = _resolve(M3_NVFP4, "b200", P)
    assert (old["attention_backend"], old["page_size"], old["kv_cache_dtype"]) == ("fa4", 128, "auto")


def test_row_8_minimax_m3_nvfp4_refusals():
    """#8 (0.5.23): explicit pages other than 128, a non-FP8 KV cache on Blackwell, other A2A
    backends and speculation other than DSPARK/DFLASH are refused."""
    assert "M3.1 NVFP4 requires --page-size 128" in _refusal(M3_NVFP4, "h100", V, page_size=64)
    assert _resolve(M3_NVFP4, "h100", P, page_size=64)["page_size"] == 64
    assert "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3" in _refusal(
        M3_NVFP4, "b200", V, kv_cache_dtype="bf16"
    )
    assert "M3.1 NVFP4 requires --moe-a2a-backend megamoe" in _refusal(
        M3_NVFP4, "b200", V, moe_a2a_backend="deepep", tp_size=8, ep_size=8
    )
    spec = {"speculative_algorithm": "EAGLE", "speculative_draft_model_path": "draft"}
    assert "M3.1 NVFP4 only supports DSPARK or DFLASH speculation" in _refusal(M3_NVFP4, "h100", V, **spec)
    assert "requires MiniMaxM3SparseForConditionalGeneration" in _refusal(
        M3_NVFP4, "b200", V, speculative_algorithm="DSPARK", speculative_draft_model_path="draft"
    )


def test_row_8_other_minimax_m3_checkpoints_unchanged():
    """#8: a plain mxfp8 or bf16 MiniMax-M3 checkpoint resolves as before on H100 and MI300X."""
    plain = dict(MINIMAX_M3, quantization_config={"quant_method": "mxfp8"})
    for hf in (plain, MINIMAX_M3):
        for preset in ("h100", "mi300x"):
            assert _six(_resolve(hf, preset, P)) == _six(_resolve(hf, preset, V))


def test_minimax_m3_nvfp4_is_no_user_choice():
    """``arg_groups/choices.py`` QUANTIZATION_CHOICES (0.5.23) does not list minimax_m3_nvfp4:
    only the MiniMax-M3 override declares it."""
    for version in ("0.5.15", P, V):
        message = _refusal(
            "llama-3.1-8b", "h100", version, InvalidArgumentError, quantization="minimax_m3_nvfp4"
        )
        assert "argument --quantization: invalid choice: 'minimax_m3_nvfp4'" in message
