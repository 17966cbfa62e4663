"""Regression tests for engine-configuration misses found by the config oracle
(``tools/agreement_vllm_config/compare.py``, dev split seed 3117): each test names the case and
the upstream vLLM function that decides it."""

from __future__ import annotations

import pytest
from config_cases import cfg_refusal, cfg_res, llama, refusal, res

RELEASES = ("0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")


@pytest.mark.parametrize("release", RELEASES)
def test_mamba_cache_mode_all_sends_0_30_and_0_31_to_the_v1_runner(release):
    """config-3117-00158 (gpt-oss-20b ``--mamba-cache-mode all``): 0.30-0.31 list "mamba cache mode
    'all'" in ``VllmConfig._get_v2_model_runner_unsupported_features`` (``config/vllm.py``), so
    ``use_v2_model_runner`` is False; 0.32 dropped it from the list."""
    r = res("gpt-oss-20b", "l40s", release, mamba_cache_mode="all")
    assert r["use_v2_model_runner"] is (release not in ("0.30.0", "0.31.0"))


@pytest.mark.parametrize("release", ["0.30.0", "0.31.0"])
def test_prefill_context_parallel_on_the_v1_runner_is_refused(release):
    """config-3117-00117 (qwen2.5-7b-instruct-1m, n-gram speculation — V1 before 0.32 — and
    ``--prefill-context-parallel-size 2``): ``VllmConfig._validate_v1_model_runner`` raises "Model
    Runner V1 does not support: prefill context parallel" inside ``create_engine_config``."""
    spec = '{"method": "ngram", "num_speculative_tokens": 5}'
    exc = refusal(
        "qwen2.5-7b-instruct-1m",
        "h100",
        release,
        gpus=2,
        speculative_config=spec,
        prefill_context_parallel_size=2,
    )
    assert str(exc).startswith("Model Runner V1 does not support: prefill context parallel")
    assert exc.rule == "v1_runner_features"


@pytest.mark.parametrize("release", RELEASES)
def test_disable_sliding_window_on_qwen2_without_use_sliding_window(release):
    """config-3117-00343 (qwen2.5-7b-instruct-1m ``--disable-sliding-window``): transformers'
    ``Qwen2Config`` sets ``sliding_window = None`` when ``use_sliding_window`` is false, so
    ``_get_and_verify_max_len`` has no window to cap at: 1010000 stays the derived length."""
    r = res(
        "qwen2.5-7b-instruct-1m", "l40s", release, gpus=2, tensor_parallel_size=2, disable_sliding_window=True
    )
    assert r["max_model_len"] == 1010000


@pytest.mark.parametrize("release", RELEASES)
def test_gpt_oss_mxfp4_override_replaces_a_user_quantization(release):
    """config-3117-00041 (gpt-oss-20b ``--quantization gptq``): ``GptOssMxfp4Config.
    override_quantization_method`` claims an ``mxfp4`` checkpoint of model type ``gpt_oss`` whatever
    the user passed, and ``ModelConfig._verify_quantization`` (``config/model.py``) then replaces
    ``--quantization``: accepted, quantization ``gpt_oss_mxfp4``."""
    r = res("gpt-oss-20b", "h100", release, quantization="gptq")
    assert r["quantization"] == "gpt_oss_mxfp4"


@pytest.mark.parametrize("release", RELEASES)
def test_modelopt_override_replaces_a_user_quantization(release):
    """config-3117-00086 (qwen3-30b-a3b with a ModelOpt FP8 ``quantization_config``,
    ``--quantization awq``): ``ModelOptFp8Config.override_quantization_method`` claims it by
    ``quant_algo`` without looking at the user's method: accepted as ``modelopt``."""
    cfg = llama(
        quantization_config={"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}
    )
    assert cfg_res(cfg, "h100", release, quantization="awq")["quantization"] == "modelopt"


@pytest.mark.parametrize("release", RELEASES)
def test_inc_override_claims_auto_round(release):
    """``INCConfig.override_quantization_method``: an ``auto-round`` checkpoint is ``inc``, also
    under another ``--quantization``."""
    cfg = llama(quantization_config={"quant_method": "auto-round", "bits": 4, "group_size": 128})
    assert cfg_res(cfg, "h100", release)["quantization"] == "inc"
    assert cfg_res(cfg, "h100", release, quantization="gptq")["quantization"] == "inc"


def test_a_non_override_mismatch_is_still_refused():
    """``_verify_quantization``: AWQ's override only claims an AWQ checkpoint under a compatible
    user method; ``--quantization gptq`` on it is refused."""
    cfg = llama(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 128})
    exc = cfg_refusal(cfg, "h100", quantization="gptq")
    assert "does not match" in str(exc)


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("method", ["awq", "gptq", "modelopt", "inc", "moe_wna16"])
def test_file_based_quantization_on_an_unquantized_checkpoint_is_refused(release, method):
    """config-3117-00015 (granite-4.0-h-small ``--quantization awq``), config-3117-00058
    (``--quantization gptq``): ``model_loader/weight_utils.py : get_quant_config`` looks for the
    method's own file (``get_config_filenames``) when config.json has no quantization config and
    raises "Cannot find the config file for awq" inside ``VllmConfig._get_quantization_config``."""
    exc = cfg_refusal(llama(), "h100", release, quantization=method)
    assert str(exc).startswith(f"Cannot find the config file for {method}")


@pytest.mark.parametrize("method", ["fp8", "fp8_per_tensor", "mxfp8"])
def test_methods_without_a_config_file_quantize_online(method):
    """``get_quant_config``: a method with no config file (fp8) or an online shorthand (mxfp8)
    needs none: accepted on an unquantized checkpoint."""
    assert cfg_res(llama(), "h100", quantization=method)["quantization"] == method


@pytest.mark.parametrize("release", RELEASES)
def test_mtp_on_a_target_without_an_mtp_draft(release):
    """config-3117-00042 (qwen3-8b ``{"method": "mtp"}``): 0.30-0.33 build the draft config with
    ``SpeculativeConfig.hf_config_override`` (``config/speculative.py``), which leaves qwen3 a
    non-MTP model type, so ``SpeculativeConfig.__post_init__`` raises "Unsupported speculative
    method: 'mtp'"; 0.34 accepts."""
    spec = '{"method": "mtp", "num_speculative_tokens": 1}'
    if release == "0.34.0":
        assert res("qwen3-8b", "h200", release, speculative_config=spec)["speculative_method"] == "mtp"
    else:
        exc = refusal("qwen3-8b", "h200", release, speculative_config=spec)
        assert str(exc).startswith("Unsupported speculative method: 'mtp'")


@pytest.mark.parametrize("release", RELEASES)
def test_mtp_on_a_target_with_an_mtp_draft(release):
    """``hf_config_override`` maps qwen3_next to ``qwen3_next_mtp``: accepted on every release."""
    spec = '{"method": "mtp", "num_speculative_tokens": 1}'
    r = res("qwen3-next-80b-a3b", "h200", release, gpus=4, tensor_parallel_size=4, speculative_config=spec)
    assert r["speculative_method"] == "mtp"


@pytest.mark.parametrize("release", RELEASES)
def test_step3p5_max_seq_len_default(release):
    """config-3117-00083/00107 (step-3.5-flash, no ``--max-model-len``): 0.30-0.32 load the config
    with vLLM's own ``Step3p5Config`` (``transformers_utils/configs/step3p5.py``), whose
    ``max_seq_len`` defaults to 4096, a key ``derive_max_model_len_and_key`` takes the minimum of;
    0.33 uses transformers' ``Step3p7TextConfig`` and derives ``max_position_embeddings``."""
    r = res("step-3.5-flash", "b200", release, gpus=8, tensor_parallel_size=8)
    assert r["max_model_len"] == (4096 if release in ("0.30.0", "0.31.0", "0.32.0") else 262144)


@pytest.mark.parametrize("release", RELEASES)
def test_deepseek_v32_without_index_topk_fails_the_assert(release):
    """config-3117-00361/00465 (deepseek-v3.2 with ``index_topk`` removed):
    ``DeepseekV32ForCausalLM.verify_and_update_config`` (``model_executor/models/config.py``)
    asserts ``index_topk``; vLLM reports "1 validation error for VllmConfig / Assertion failed"."""
    from resolvable.vllm import load_model

    cfg = load_model("deepseek-v3.2").to_dict()
    cfg.pop("index_topk")
    exc = cfg_refusal(cfg, "b200", release)
    assert "assertion failed" in str(exc) and exc.rule == "deepseek_v32_config"


@pytest.mark.parametrize("release", RELEASES)
def test_expert_parallel_on_a_dense_model_is_refused_before_the_quantization_file(release):
    """config-3117-00036 (olmo-3-7b ``--quantization awq --enable-expert-parallel``):
    ``VllmConfig.__post_init__`` (``config/vllm.py``) calls ``verify_with_parallel_config`` before
    ``_get_quantization_config``, so the expert-parallel refusal is the one reported."""
    exc = cfg_refusal(llama(), "b200", release, quantization="awq", enable_expert_parallel=True)
    assert str(exc).startswith("Number of experts in the model must be greater than 0")


@pytest.mark.parametrize("release", RELEASES)
def test_glm_dsa_fp8_cache_on_sm10x_from_0_32(release):
    """config-3117-00458 (glm-5 on B300): ``GlmMoeDsaForCausalLM.verify_and_update_config``
    (``model_executor/models/config.py``) turns an auto KV cache into fp8_e4m3 on SM10x from 0.32;
    0.30-0.31 only set the DCP defaults."""
    r = res("glm-5", "b300", release, gpus=8, tensor_parallel_size=8)
    assert r["kv_cache_dtype"] == ("auto" if release in ("0.30.0", "0.31.0") else "fp8_e4m3")


@pytest.mark.parametrize("release", RELEASES)
def test_rope_scaling_wins_over_rope_parameters(release):
    """config-3117-00996 (qwen3.5-397b-a17b with a ``rope_scaling`` linear ×4 next to its default
    ``rope_parameters``), config-3117-00948 (glm-5, dynamic ×2): transformers'
    ``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict`` keeps ``rope_scaling`` over
    ``rope_parameters``, so ``_get_and_verify_max_len`` scales the derived length."""
    from resolvable.vllm import load_model

    cfg = load_model("glm-5").to_dict()
    cfg["rope_scaling"] = {"rope_type": "dynamic", "factor": 2.0}
    r = cfg_res(cfg, "h200", release)
    assert r["max_model_len"] == 2 * cfg["max_position_embeddings"]


@pytest.mark.parametrize("release", RELEASES)
def test_nemotron_h_without_expert_count_counts_as_moe(release):
    """config-3117-00955 (nemotron-h-8b ``--enable-expert-parallel``): ``NemotronHConfig`` defaults
    ``n_routed_experts`` to 8, so ``ModelConfig.is_moe`` is true and
    ``_verify_with_expert_parallelism`` (``config/model.py``) accepts."""
    r = res("nemotron-h-8b", "a100", release, enable_expert_parallel=True)
    assert r["enable_expert_parallel"] is True


@pytest.mark.parametrize("release", ["0.33.0", "0.34.0"])
def test_deepseek_v32_bf16_cache_is_auto_before_the_float_kv_check(release):
    """config-3117-01089 (deepseek-v3.2, float16 checkpoint, ``--kv-cache-dtype bfloat16``): the
    model hook (``DeepseekV32ForCausalLM.verify_and_update_config``) turns the bfloat16 cache into
    auto in ``try_verify_and_update_config``, before ``VllmConfig._reject_mismatched_float_kv_cache``
    (``config/vllm.py``): accepted."""
    from resolvable.vllm import load_model

    cfg = load_model("deepseek-v3.2").to_dict()
    cfg.pop("torch_dtype", None)
    cfg["dtype"] = "float16"
    r = cfg_res(cfg, "h100", release, kv_cache_dtype="bfloat16")
    assert r["kv_cache_dtype"] in ("auto", "fp8_ds_mla")
