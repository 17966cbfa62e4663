"""sglang 0.5.9 → 0.5.10: one golden case per modelled change (docs/releases/0.5.10.md).

Each case resolves the same input with 0.5.9 (the oldest resolved release) and with 0.5.10 and
asserts both answers. The 0.5.9 answers follow the 0.5.9 wheel's ``server_args.py``,
``configs/model_config.py`` and ``utils/hf_transformers_utils.py``, and were measured against
the real sglang 0.5.9 ``ServerArgs`` (tools/agreement, oracle venv-0.5.9, dev seed 1515).
"""

from __future__ import annotations

import json
import re

import pytest
from release_helpers import refusal_at, resolve_at

from resolvable import Platform
from resolvable.errors import ConfigError, ConflictError, InvalidArgumentError
from resolvable.sglang import registry
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.9", "0.5.10"
MPS = Platform(vendor="mps", name="mps")


def test_the_changes_of_0_5_10_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "PREFILL_GRAPH_RESERVE_BY_DEFAULT",  # memory (h34m)
        "EAGLE_DRAFT_RESERVE_4GIB",  # memory (h34m)
        "MAX_RUNNING_REQUESTS_FROM_POOL",  # memory (h34m)
        "NOT_ENOUGH_MEMORY_PLAIN_VALUE",  # memory (h34m)
        "DSA_FP8_RAW_CELL_ON_ROCM",  # memory (h34m)
        "LLAMA4_ASCEND",
        "HYBRID_GDN_BLACKWELL_FA4_FLASHINFER",
        "CHOICES_NIXL_TRTLLM_ROUTED_MODELOPT_MIXED",
        "MISTRAL_NATIVE_SMALL4_LEANSTRAL",
        "DLLM_RADIX_CACHE_KEPT",
        "DLLM_ASCEND_ON_NPU",
        "MAMBA_SPEC_NO_BUFFER_REFUSED",
        "MAMBA_EXTRA_BUFFER_RADIX_OFF_REFUSED",
        "WHISPER_ARMS",
        "MPS_TORCH_NATIVE_DEFAULT",
        "TRTLLM_MHA_SPLIT_DEVICE_CHECK",
        "FA4_PREFILL_PAGES_SM100_ONLY",
        "MOE_MXFP8_TRTLLM",
        "GPT_OSS_AITER",
        "GPT_OSS_TRTLLM_SWA_KEPT",
        "GPT_OSS_SM120_TRITON_KERNEL",
        "QUANT_MODELOPT_IN_CONFIG_JSON",
    }


def test_0_5_9_and_0_5_10_are_resolved_neighbours():
    at = registry.releases.index(OLD)
    assert registry.releases[at : at + 2] == (OLD, NEW)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("moe_a2a_backend", "nixl"),
        ("moe_runner_backend", "flashinfer_trtllm_routed"),
        ("quantization", "modelopt_mixed"),
    ],
)
def test_choices_added_in_0_5_10(field, value):
    with pytest.raises(InvalidArgumentError, match=re.escape(f"invalid choice: {value!r}")):
        resolve_at("llama-3.1-8b", "h100", OLD, **{field: value})
    try:  # 0.5.10's parser accepts the name (a later rule may still refuse the launch)
        resolve_at("llama-3.1-8b", "h100", NEW, **{field: value})
    except InvalidArgumentError as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"0.5.10 refused {value!r} as a choice: {exc}")
    except ValueError as exc:
        assert "invalid choice" not in str(exc)


def test_mistral_native_routing_of_small4_and_leanstral_names(tmp_path):
    """0.5.9's get_config routed only mistral-large-3 to params.json."""
    model = tmp_path / "Leanstral-7B"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(load_model("llama-3.1-8b").to_dict()))
    assert load_model(str(model), release=OLD).architectures == ("LlamaForCausalLM",)
    with pytest.raises(ConfigError, match=r"params\.json"):
        load_model(str(model), release=NEW)
    large3 = tmp_path / "Mistral-Large-3-dir"
    large3.mkdir()
    (large3 / "config.json").write_text(json.dumps(load_model("llama-3.1-8b").to_dict()))
    for release in (OLD, NEW):
        with pytest.raises(ConfigError, match=r"params\.json"):
            load_model(str(large3), release=release)


def test_dllm_radix_cache_kept_from_0_5_10():
    """0.5.9 turned the radix cache off and looked no block size up (any architecture)."""
    old = resolve_at("llada2-mini", "h100", OLD, dllm_algorithm="LowConfidence", page_size=16)
    assert (old["disable_radix_cache"], old["page_size"]) == (True, 16)
    new = resolve_at("llada2-mini", "h100", NEW, dllm_algorithm="LowConfidence", page_size=16)
    assert (new["disable_radix_cache"], new["page_size"]) == (False, 32)
    assert resolve_at("llama-3.1-8b", "h100", OLD, dllm_algorithm="LowConfidence")["disable_radix_cache"]
    assert "Unknown diffusion LLM" in refusal_at("llama-3.1-8b", "h100", NEW, dllm_algorithm="LowConfidence")


def test_dllm_ascend_on_npu_from_0_5_10():
    assert (
        resolve_at("llada2-mini", "npu", OLD, dllm_algorithm="LowConfidence")["attention_backend"] != "ascend"
    )
    assert (
        resolve_at("llada2-mini", "npu", NEW, dllm_algorithm="LowConfidence")["attention_backend"] == "ascend"
    )


def test_mamba_speculation_with_no_buffer_refused_from_0_5_10():
    flags = {
        "speculative_algorithm": "EAGLE",
        "speculative_num_steps": 2,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 3,
    }
    assert resolve_at("lfm2-1.2b", "h100", OLD, **flags)["disable_radix_cache"] is True
    assert "not compatible with radix cache" in refusal_at("lfm2-1.2b", "h100", NEW, **flags)


def test_mamba_extra_buffer_without_radix_cache_refused_from_0_5_10():
    flags = {"mamba_radix_cache_strategy": "extra_buffer", "disable_radix_cache": True}
    old = resolve_at("nemotron-h-8b", "h100", OLD, **flags)
    assert old["mamba_radix_cache_strategy"] == "extra_buffer"
    assert "not compatible with --disable-radix-cache" in refusal_at("nemotron-h-8b", "h100", NEW, **flags)


def test_whisper_arms_from_0_5_10():
    old = resolve_at("whisper-large-v3", "xpu-noxmx", OLD)
    new = resolve_at("whisper-large-v3", "xpu-noxmx", NEW)
    assert (old["attention_backend"], old["disable_radix_cache"]) == ("triton", False)
    assert (new["attention_backend"], new["disable_radix_cache"]) == ("flashinfer", True)


def test_mps_defaults_to_torch_native_from_0_5_10():
    from resolvable.sglang import resolve_server_args

    hf = load_model("llama-3.1-8b")
    assert resolve_server_args(hf, MPS, sglang_version=OLD)["attention_backend"] in ("flashinfer", "triton")
    assert resolve_server_args(hf, MPS, sglang_version=NEW)["attention_backend"] == "torch_native"


def test_trtllm_mha_checked_per_side_from_0_5_10():
    """An SM120 decode side was refused with the one SM100 check before 0.5.10."""
    flags = {"prefill_attention_backend": "flashinfer", "decode_attention_backend": "trtllm_mha"}
    assert "only supported on Blackwell GPUs (SM100). Please use a different backend." in refusal_at(
        "llama-3.1-8b", "rtx5090", OLD, **flags
    )
    assert resolve_at("llama-3.1-8b", "rtx5090", NEW, **flags)["decode_attention_backend"] == "trtllm_mha"


def test_fa4_prefill_pages_only_on_sm100_from_0_5_10():
    flags = {"prefill_attention_backend": "fa4", "decode_attention_backend": "triton"}
    assert resolve_at("llama-3.1-8b", "a100", OLD, **flags)["page_size"] == 128
    assert resolve_at("llama-3.1-8b", "a100", NEW, **flags)["page_size"] == 1


def test_gpt_oss_aiter_from_0_5_10():
    assert resolve_at("gpt-oss-20b", "mi355x", OLD)["attention_backend"] == "triton"
    assert resolve_at("gpt-oss-20b", "mi355x", NEW)["attention_backend"] == "aiter"
    with pytest.raises(ConflictError, match="requires one of"):
        resolve_at("gpt-oss-20b", "mi355x", OLD, attention_backend="aiter")


def test_gpt_oss_mxfp4_runner_on_sm120_from_0_5_10():
    assert resolve_at("gpt-oss-20b", "rtx5090", OLD)["moe_runner_backend"] == "flashinfer_mxfp4"
    assert resolve_at("gpt-oss-20b", "rtx5090", NEW)["moe_runner_backend"] == "triton_kernel"


def test_generic_configs_before_0_5_10():
    """transformers 4.57.1 (0.5.9's pin) knows neither moss_vl nor glm_moe_dsa: the generic
    config's dict text_config fails get_hf_text_config's assert; GLM-5's lacks rope_scaling."""
    assert "num_attention_heads" in refusal_at("moss-vl", "h100", OLD)
    assert resolve_at("moss-vl", "h100", NEW)["attention_backend"]
    assert "has no attribute 'rope_scaling'" in refusal_at("glm-5", "h200", OLD)
    assert resolve_at("glm-5", "h200", NEW)["attention_backend"] == "nsa"


def test_mxfp8_moe_runner_from_0_5_10():
    """0.5.9 forced the cutlass MoE runner for mxfp8; 0.5.10 defaults to flashinfer_trtllm."""
    old = resolve_at(
        "qwen3-30b-a3b", "b200", OLD, quantization="mxfp8", moe_runner_backend="flashinfer_trtllm"
    )
    assert old["moe_runner_backend"] == "cutlass"
    assert (
        resolve_at("qwen3-30b-a3b", "b200", NEW, quantization="mxfp8")["moe_runner_backend"]
        == "flashinfer_trtllm"
    )


def test_gpt_oss_trtllm_mha_keeps_hybrid_swa_from_0_5_10():
    assert resolve_at("gpt-oss-20b", "b200", OLD)["disable_hybrid_swa_memory"] is True
    assert resolve_at("gpt-oss-20b", "b200", NEW)["disable_hybrid_swa_memory"] is False


def test_hybrid_gdn_on_blackwell_accepts_fa4_and_flashinfer_from_0_5_10():
    for backend in ("fa4", "flashinfer"):
        flags = {"tp_size": 4, "attention_backend": backend, "startup": True}
        text = refusal_at("qwen3-next-80b-a3b", "b200", OLD, **flags)
        assert "triton or trtllm_mha backend are the only supported backends on Blackwell" in text
        assert resolve_at("qwen3-next-80b-a3b", "b200", NEW, **flags)["attention_backend"] == backend


def test_llama4_accepts_ascend_from_0_5_10():
    flags = {"tp_size": 8, "attention_backend": "ascend"}
    text = refusal_at("llama-4-scout", "npu", OLD, **flags)
    assert "fa3, aiter, triton, trtllm_mha or intel_xpu is required for Llama4 model but got ascend" in text
    assert resolve_at("llama-4-scout", "npu", NEW, **flags)["attention_backend"] == "ascend"


def _modelopt_in_config_json():
    """An NVFP4 ModelOpt checkpoint whose config.json names ``quant_method: "modelopt"``."""
    config = load_model("llama-3.1-8b").to_dict()
    config["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
    return config


def test_config_json_modelopt_read_by_quant_algo_from_0_5_10():
    """0.5.9's ``_parse_quant_hf_config`` refined only a quantization_config without a
    quant_method: ``modelopt`` stayed ``modelopt``, which no override maps on CUDA, so another
    ``--quantization`` is refused; on ROCm petit_nvfp4 claims it. 0.5.10 reads it as modelopt_fp4."""
    config = _modelopt_in_config_json()
    assert "(modelopt) does not match" in refusal_at(config, "h100", OLD, quantization="gptq")
    assert resolve_at(config, "h100", NEW, quantization="gptq")["quantization"] == "gptq"
    assert resolve_at(config, "mi325x", OLD, quantization="gptq")["quantization"] == "gptq"
    assert "modelopt_fp4 quantization is currently not supported in ROCm" in refusal_at(config, "mi325x", NEW)
    # --quantization modelopt maps by quant_algo in both releases (the ModelOpt override)
    assert "modelopt_fp4 quantization is currently not supported in ROCm" in refusal_at(
        config, "mi325x", OLD, quantization="modelopt"
    )


def test_sm100_arms_adopt_a_config_json_modelopt_as_modelopt_before_0_5_10():
    """The DeepSeek SM100 arm copies ``hf_config.quantization_config["quant_method"]`` into
    ``ServerArgs.quantization``: 0.5.9 had not refined ``modelopt``, so it adopts ``modelopt``
    (not NVFP4 for the MoE runner: auto stays); 0.5.10 adopts modelopt_fp4, and trtllm MoE."""
    config = load_model("kimi-k2.5").to_dict()
    config["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
    old, new = (resolve_at(config, "b200", v) for v in (OLD, NEW))
    assert (old["quantization"], old["moe_runner_backend"]) == ("modelopt", "auto")
    assert (new["quantization"], new["moe_runner_backend"]) == ("modelopt_fp4", "flashinfer_trtllm")
