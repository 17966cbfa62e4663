"""Issue 28, fourth round: which refusal vLLM raises first when two apply (the order of the checks
in ``VllmConfig.__post_init__``, ``config/vllm.py`` 0.34)."""

from __future__ import annotations

from config_cases import cfg_refusal

#: https://huggingface.co/openai-community/gpt2/blob/main/config.json (the keys the pack reads)
GPT2 = {
    "architectures": ["GPT2LMHeadModel"],
    "model_type": "gpt2",
    "vocab_size": 50257,
    "n_positions": 1024,
    "n_ctx": 1024,
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
}


def test_missing_awq_config_file_precedes_the_extensible_kv_cache_refusal_on_cpu():
    """Dev seed 7003 (case 320): GPT-2 on CPU with ``--quantization awq`` and
    ``--enable-extensible-kv-cache``. ``_get_quantization_config`` (line 1555) raises "Cannot find
    the config file for awq" before ``_resolve_extensible_kv_cache`` (line 2006, after the platform
    hook) would refuse the extensible KV cache off CUDA/ROCm."""
    exc = cfg_refusal(GPT2, "cpu", "0.34.0", quantization="awq", enable_extensible_kv_cache=True)
    assert str(exc).startswith("Cannot find the config file for awq")
    exc = cfg_refusal(GPT2, "cpu", "0.34.0", enable_extensible_kv_cache=True)
    assert str(exc).startswith("enable_extensible_kv_cache: it is only supported on CUDA and ROCm.")
    assert exc.stage == "platform_config"
