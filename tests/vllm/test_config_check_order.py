"""Issue 28, fourth round: which refusal vLLM raises first when two apply (the order of the checks
in ``VllmConfig.__post_init__``, ``config/vllm.py`` 0.34)."""

from __future__ import annotations

from config_cases import cfg_refusal, refusal, res

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


def test_whisper_pooled_keeps_the_budget_sized_before_the_encoder_decoder_switch():
    """Dev seed 7003 (case 367): Whisper under ``--convert embed`` (a pooler, ``decoder``
    attention, so ``EngineArgs`` keeps chunked prefill on and the default budget) with
    ``--max-model-len 32768``: ``SchedulerConfig.__post_init__`` then switches chunked prefill off
    for the encoder-decoder model and ``verify_max_model_len`` refuses the unchanged budget
    ("max_num_batched_tokens (16384) is smaller than max_model_len (32768)"); generative Whisper
    sizes its budget with chunked prefill already off (it rises to max_model_len)."""
    env = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}
    exc = refusal("whisper-large-v3", "h100", "0.34.0", env, convert="embed", max_model_len=32768)
    assert str(exc).startswith("max_num_batched_tokens (")
    assert "is smaller than max_model_len (32768)" in str(exc)
    r = res("whisper-large-v3", "h100", "0.34.0", env, max_model_len=32768)
    assert (r["enable_chunked_prefill"], r["max_num_batched_tokens"]) == (False, 32768)
