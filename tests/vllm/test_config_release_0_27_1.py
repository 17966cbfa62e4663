"""vLLM 0.27.1's engine configuration (issue 32 item 1): the configuration changes 0.28.0 brought
(``vllm/config/changes.py``, block "0.27.1 -> 0.28.0"), one test per change, 0.27.1 against 0.28.0.
Facts from the two wheels' diff (docs/releases/vllm-0.28.0.md); measured against 0.27.1's
``create_engine_config`` (tools/agreement_vllm_config, docs/vllm.md). The attention-selection
changes of the same release are tested in test_release_0_27_1.py."""

from __future__ import annotations

import json

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm.changes import CHANGES

CONFIG_0_28 = {
    "BATCH_DEFAULTS_160GIB_TIER",
    "HYBRID_PREFIX_CACHING_BY_DEFAULT",
    "MAMBA_ALIGN_BY_DEFAULT",
    "CAPTURE_SIZE_1024_SM10X",
    "BITSANDBYTES_REMOVED",
    "ROCM_QUANTIZATION_INC_NOT_BNB",
    "V2_DEFAULT_DEEPSEEK_V4",
    "SCHEDULED_TOKENS_FULL_BUDGET",
}


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.27.1", "0.28.0")]


def test_the_0_28_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.28.0")} >= CONFIG_0_28


@pytest.mark.parametrize(
    ("preset", "tokens_0_27", "tokens_0_28"), [("b200", 8192, 16384), ("h200", 8192, 8192)]
)
def test_batch_defaults_160_gib_tier(preset, tokens_0_27, tokens_0_28):
    """EngineArgs.get_batch_defaults: a >= 160 GiB GPU (B200: 180 GiB) serves 16384 tokens from
    0.28; 0.27.1 gave it the >= 70 GiB tier (8192 for the API server), like H200 (141 GiB)."""
    old, new = both("llama-3.1-8b", preset)
    assert (old["max_num_batched_tokens"], new["max_num_batched_tokens"]) == (tokens_0_27, tokens_0_28)
    assert old["max_num_seqs"] == new["max_num_seqs"] == 1024


def test_hybrid_prefix_caching_opt_in_before_0_28():
    """_set_default_chunked_prefill_and_prefix_caching_args: 0.27.1 keeps prefix caching off for a
    hybrid model (Mamba block = max_model_len, mode none); 0.28 turns it on (mode align, block 16)."""
    old, new = both("qwen3-next-80b-a3b", "h100", tensor_parallel_size=4, max_model_len=32768)
    assert (old["enable_prefix_caching"], old["mamba_cache_mode"], old["mamba_block_size"]) == (
        False,
        "none",
        32768,
    )
    assert (new["enable_prefix_caching"], new["mamba_cache_mode"], new["mamba_block_size"]) == (
        True,
        "align",
        16,
    )
    # a dense model is not affected
    assert [r["enable_prefix_caching"] for r in both("llama-3.1-8b", "h100")] == [True, True]


@pytest.mark.parametrize(("model", "mode_0_27"), [("nemotron-h-8b", "all"), ("qwen3-next-80b-a3b", "align")])
def test_mamba_cache_mode_all_for_mamba_prefix_caching_classes(model, mode_0_27):
    """MambaModelConfig.verify_and_update_config: with prefix caching 0.27.1 picks 'all' for a class
    implementing SupportsMambaPrefixCaching (NemotronH), 'align' for the others; 0.28 'align'."""
    old, new = both(model, "h100", tensor_parallel_size=4, enable_prefix_caching=True)
    assert (old["mamba_cache_mode"], new["mamba_cache_mode"]) == (mode_0_27, "align")


def test_mode_all_does_not_need_chunked_prefill_on_0_27():
    """The 'align' assertion ("Chunked prefill is required for mamba cache mode 'align'.") does not
    apply to 0.27.1's default 'all' (NemotronH); on 0.28 the mode is 'align' and it is refused."""
    flags = dict(enable_prefix_caching=True, enable_chunked_prefill=False)
    assert res("nemotron-h-8b", "h100", vllm_version="0.27.1", **flags)["mamba_cache_mode"] == "all"
    with pytest.raises(ConflictError, match="Chunked prefill is required for mamba cache mode 'align'"):
        res("nemotron-h-8b", "h100", vllm_version="0.28.0", **flags)


def test_capture_size_1024_on_sm10x_from_0_28():
    """VllmConfig._set_cudagraph_sizes: the default largest size is min(2 x max_num_seqs, 512) on
    0.27.1 everywhere; 0.28 allows 1024 on the SM10x family (B200)."""
    old, new = both("llama-3.1-8b", "b200", max_num_batched_tokens=2048)
    assert (old["max_cudagraph_capture_size"], new["max_cudagraph_capture_size"]) == (512, 1024)
    assert [r["max_cudagraph_capture_size"] for r in both("llama-3.1-8b", "h100")] == [512, 512]


def _bnb(load_in_8bit: bool) -> HFConfig:
    cfg = load_model("llama-3.1-8b").to_dict()
    cfg["quantization_config"] = {
        "quant_method": "bitsandbytes",
        "load_in_4bit": not load_in_8bit,
        "load_in_8bit": load_in_8bit,
    }
    return HFConfig(cfg, source="bitsandbytes test config")


def test_bitsandbytes_served_until_0_28():
    """QuantizationMethods: 0.27.1 lists bitsandbytes (a pre-quantized checkpoint is served); 0.28
    refuses it ("Unknown quantization method: bitsandbytes")."""
    old = res(_bnb(False), "h100", vllm_version="0.27.1")
    assert (old["quantization"], old["compilation_mode"]) == ("bitsandbytes", "VLLM_COMPILE")
    with pytest.raises(ConflictError, match="Unknown quantization method: bitsandbytes"):
        res(_bnb(False), "h100", vllm_version="0.28.0")


def test_bitsandbytes_8bit_runs_eager_on_0_27():
    """ModelConfig._verify_bnb_config (0.27.1): an 8-bit bitsandbytes checkpoint runs in eager mode
    ("CUDA graph is not supported on BitsAndBytes 8bit yet")."""
    r = res(_bnb(True), "h100", vllm_version="0.27.1")
    assert (r["cudagraph_mode"], r["cudagraph_capture_sizes"]) == ("NONE", [])


def test_rocm_quantization_list():
    """RocmPlatform.supported_quantization: 0.27.1 lists bitsandbytes and not inc; 0.28 the reverse."""
    r = res(_bnb(False), "mi300x", vllm_version="0.27.1")
    assert r["quantization"] == "bitsandbytes"
    inc = load_model("llama-3.1-8b").to_dict()
    inc["quantization_config"] = {"quant_method": "inc", "bits": 4, "group_size": 128}
    with pytest.raises(ConflictError, match="inc quantization is currently not supported in rocm"):
        res(HFConfig(inc, source="inc test config"), "mi300x", vllm_version="0.27.1")


def test_deepseek_v4_default_v2_runner_from_0_28():
    """DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: DeepSeek-V4 (MoE) is listed from 0.28 (V2 runner);
    0.27.1 sends it to V1 like any MoE model outside the list."""
    cfg = load_model("deepseek-v4-flash").to_dict()
    cfg.pop("compress_ratios")  # the pack does not model V4's compressed sparse attention (selection)
    v4 = HFConfig(cfg, source="deepseek-v4-flash without compress_ratios")
    old, new = both(v4, "b200", tensor_parallel_size=8)
    assert (old["use_v2_model_runner"], new["use_v2_model_runner"]) == (False, True)
    # ROCm leaves DeepSeek-V4 out of the list from 0.28
    assert res(v4, "mi300x", vllm_version="0.28.0", tensor_parallel_size=8)["use_v2_model_runner"] is False


def test_scheduled_tokens_less_the_drafting_slots_on_0_27(tmp_path):
    """VllmConfig._set_max_num_scheduled_tokens (0.27.1): a draft model takes one slot per sequence
    from the budget (8192 - 1024 on H100); n-gram takes none; 0.28 keeps the whole budget."""
    ngram = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
    got = [r["max_num_scheduled_tokens"] for r in both("llama-3.1-8b", "h100", speculative_config=ngram)]
    assert got == [8192, 8192]
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    draft = json.dumps({"method": "draft_model", "model": str(tmp_path), "num_speculative_tokens": 2})
    got = [r["max_num_scheduled_tokens"] for r in both("llama-3.1-8b", "h100", speculative_config=draft)]
    assert got == [8192 - 1024, 8192]


def test_scheduled_tokens_refused_when_the_slots_take_the_budget(tmp_path):
    """0.27.1 refuses a budget the drafting slots use up ("... which does not allow any tokens to be
    scheduled"); 0.28 accepts it."""
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    draft = json.dumps({"method": "draft_model", "model": str(tmp_path), "num_speculative_tokens": 2})
    flags = dict(speculative_config=draft, max_num_batched_tokens=2048, max_num_seqs=2048)
    with pytest.raises(ConflictError, match="which does not allow any tokens to be scheduled"):
        res("llama-3.1-8b", "h100", vllm_version="0.27.1", **flags)
    assert res("llama-3.1-8b", "h100", vllm_version="0.28.0", **flags)["max_num_scheduled_tokens"] == 2048


@pytest.mark.parametrize("release", ["0.27.1", "0.28.0", "0.34.0"])
def test_mimo_v2_chunk_size_is_not_chunked_local_attention(release):
    """model_arch_config_convertor._strip_mimo_v2_attention_chunk_size (0.26-0.34): MiMo-V2's
    attention_chunk_size is deleted, so MTP keeps the hybrid KV-cache manager (config-3117-01499);
    Llama-4's chunked-local attention with MTP-like drafters still turns it off."""
    mtp = '{"method": "mtp", "num_speculative_tokens": 1}'
    r = res("mimo-v2-flash", "h200", vllm_version=release, tensor_parallel_size=8, speculative_config=mtp)
    assert r["disable_hybrid_kv_cache_manager"] is False
    env = {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"}
    r = res("llama-4-scout", "h200", env, vllm_version=release, tensor_parallel_size=8)
    assert r["disable_hybrid_kv_cache_manager"] is True
