"""Golden tests of issue 28: what operators run that the rules were not tuned on. Each test states
the vLLM function that decides it (wheels 0.30.0-0.34.0) and, where a release matters, the change.

Checked against the real ``create_engine_config`` with ``tools/agreement_vllm_config`` (the config
oracle) on 0.30.0 and 0.34.0 while writing them.
"""

from __future__ import annotations

import json

import pytest
from config_cases import cfg_refusal, cfg_res, refusal, res

from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.cli_args import VllmArgumentError, parse, resolution_kwargs
from resolvable.vllm.config.compilation import decode_grid
from resolvable.vllm.platforms import platform

RELEASES = ("0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")

#: https://huggingface.co/BAAI/bge-reranker-v2-m3/blob/main/config.json (keys vLLM reads)
RERANKER = {
    "architectures": ["XLMRobertaForSequenceClassification"],
    "model_type": "xlm-roberta",
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "max_position_embeddings": 8194,
    "type_vocab_size": 1,
    "vocab_size": 250002,
    "pad_token_id": 1,
    "position_embedding_type": "absolute",
    "torch_dtype": "float32",
}
#: https://huggingface.co/BAAI/bge-m3/blob/main/config.json (keys vLLM reads)
BGE_M3 = {
    **RERANKER,
    "architectures": ["XLMRobertaModel"],
}
#: https://huggingface.co/openai-community/gpt2/blob/main/config.json
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


def cli(argv: list[str], release: str = "0.34.0") -> dict:
    return resolution_kwargs(parse(["MODEL", *argv], release))


# -- --hf-overrides (config/model.py : ModelConfig.__post_init__, _apply_dict_overrides) ------


@pytest.mark.parametrize("release", RELEASES)
def test_hf_overrides_change_the_derived_max_model_len(release):
    """Flat keys are set on the HF config before ``_get_and_verify_max_len`` derives the length:
    Llama-3.1-8B with ``max_position_embeddings`` 65536 derives 65536, not 131072."""
    r = res(
        "llama-3.1-8b",
        "h100",
        release,
        **cli(["--hf-overrides", '{"max_position_embeddings": 65536}'], release),
    )
    assert r["max_model_len"] == 65536
    assert res("llama-3.1-8b", "h100", release)["max_model_len"] == 131072


def test_hf_overrides_merge_into_a_sub_config():
    """An object under a key that holds a sub-config (``text_config``) merges into it
    (``_update_nested``); the rest of the sub-config stays."""
    base = load_model("qwen3-vl-8b")
    r = resolve_vllm_args(
        base,
        platform("h100"),
        vllm_version="0.34.0",
        hf_overrides={"text_config": {"max_position_embeddings": 4096}},
    )
    assert r["max_model_len"] == 4096


def test_hf_overrides_architecture_makes_a_pooling_model():
    """``{"architectures": [...ForSequenceClassification]}`` changes the class vLLM resolves, hence
    the runner (``_get_default_runner_type``: the suffix's default, pooling)."""
    r = res(
        "qwen3-8b", "h100", "0.34.0", hf_overrides='{"architectures": ["Qwen3ForSequenceClassification"]}'
    )
    assert r["runner_type"] == "pooling"


def test_hf_overrides_must_be_a_json_object():
    with pytest.raises(InvalidArgumentError, match="--hf-overrides must be a JSON object"):
        res("llama-3.1-8b", hf_overrides="[1, 2]")


# -- refusals of vLLM the pack accepted ------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES)
def test_bitsandbytes_checkpoint_is_an_unknown_method(release):
    """``ModelConfig._verify_quantization``: no release 0.30-0.34 lists bitsandbytes in
    ``QUANTIZATION_METHODS``, so a bnb checkpoint (unsloth/llama-3-8b-bnb-4bit) is refused."""
    config = {
        **load_model("llama-3.1-8b").to_dict(),
        "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True},
    }
    exc = cfg_refusal(config, "h100", release)
    assert str(exc).startswith("Unknown quantization method: bitsandbytes. Must be one of [")
    assert exc.fix_value is not None and not exc.fix_value.set and not exc.fix_value.drop  # no flag loads it


@pytest.mark.parametrize("release", RELEASES)
def test_retired_compilation_level_key_is_a_parse_error(release):
    """``-cc '{"level": 3}'``: ``CompilationConfig`` has no ``level`` field any more; pydantic's
    unexpected-keyword error inside argparse (a parse error, exit 2)."""
    with pytest.raises(VllmArgumentError, match="CompilationConfig level Unexpected keyword argument"):
        parse(["MODEL", "-cc", '{"level": 3}'], release)
    with pytest.raises(VllmArgumentError):
        parse(["MODEL", "-cc.level=3"], release)
    assert "compilation_mode" in cli(["-cc", '{"mode": 3}'], release)


@pytest.mark.parametrize("release", RELEASES)
def test_pipeline_parallel_on_a_model_without_supports_pp(release):
    """``ModelConfig.verify_with_parallel_config``: Whisper's class does not implement
    ``SupportsPP`` (``model_info.json``, from the wheels' registries)."""
    exc = refusal("whisper-large-v3", "h100", release, pipeline_parallel_size=2)
    assert str(exc).startswith("Pipeline parallelism is not supported for this model.")
    assert exc.upstream == "NotImplementedError"
    assert res("llama-3.1-8b", "h100", release, pipeline_parallel_size=2)["world_size"] == 2


@pytest.mark.parametrize("release", RELEASES)
def test_pipeline_parallel_with_the_uni_executor(release):
    """``EngineArgs._check_feature_supported``: PP needs the default, ray, mp or external_launcher
    executor; ``uni`` is refused (NotImplementedError); the fix (mp) is accepted."""
    exc = refusal(
        "llama-3.1-8b", "h100", release, pipeline_parallel_size=2, distributed_executor_backend="uni"
    )
    assert str(exc).startswith("Pipeline Parallelism without Ray distributed executor")
    assert exc.upstream == "NotImplementedError"
    r = res("llama-3.1-8b", "h100", release, pipeline_parallel_size=2, distributed_executor_backend="mp")
    assert r["distributed_executor_backend"] == "mp"


@pytest.mark.parametrize("release", RELEASES)
def test_max_cpu_loras_below_max_loras(release):
    """``LoRAConfig._validate_lora_config``: ``max_cpu_loras`` must be >= ``max_loras`` (only with
    ``--enable-lora``: without it vLLM builds no LoRAConfig)."""
    exc = refusal("llama-3.1-8b", "h100", release, enable_lora=True, max_loras=4, max_cpu_loras=2)
    assert str(exc).startswith("max_cpu_loras (2) must be >= max_loras (4).")
    res("llama-3.1-8b", "h100", release, max_loras=4, max_cpu_loras=2)  # no --enable-lora: no check
    res("llama-3.1-8b", "h100", release, enable_lora=True, max_loras=4, max_cpu_loras=4)


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_runner_generate_on_a_reranker(release):
    """``ModelConfig.__post_init__``: a pooling-only class (XLM-RoBERTa sequence classification)
    under ``--runner generate`` is refused; ``--runner pooling`` (the fix) is accepted."""
    exc = cfg_refusal(RERANKER, "h100", release, runner="generate")
    assert str(exc).startswith("Embedding models do not support `--runner generate`.")
    assert cfg_res(RERANKER, "h100", release)["runner_type"] == "pooling"


# -- runner and convert (config/model.py : _get_runner_type, _get_default_runner_type) --------


@pytest.mark.parametrize("release", RELEASES)
def test_convert_classify_without_runner_is_pooling(release):
    """``_get_runner_type``: ``--runner auto`` with ``--convert classify``/``embed`` is pooling."""
    assert res("llama-3.1-8b", "h100", release, convert="classify")["runner_type"] == "pooling"
    assert res("llama-3.1-8b", "h100", release, convert="none")["runner_type"] == "generate"


@pytest.mark.parametrize("release", RELEASES)
def test_gpt2_is_a_generation_model(release):
    """``GPT2LMHeadModel`` is registered as a text-generation class (not a ``*Model`` pooling
    default): the runner is generate."""
    assert cfg_res(GPT2, "h100", release)["runner_type"] == "generate"


# -- draft-step decode graphs (0.34: VllmConfig.get_draft_decode_cudagraph_request_sizes) ------


def test_mtp_draft_steps_add_the_request_grid_on_0_34():
    """DeepSeek-V3 with single-module MTP and k = 3 on H100: the K - 1 draft steps run one token
    per request, so 0.34 adds ``decode_cudagraph_capture_grid(max_num_seqs)`` (1, 2, 3, 5, …)."""
    spec = json.dumps({"method": "mtp", "num_speculative_tokens": 3})
    sizes = res("deepseek-v3", "h100", "0.34.0", tensor_parallel_size=8, speculative_config=spec)[
        "cudagraph_capture_sizes"
    ]
    assert {1, 2, 3, 5, 6} <= set(sizes)
    assert set(decode_grid(1024)) <= set(sizes)
    older = res("deepseek-v3", "h100", "0.33.0", tensor_parallel_size=8, speculative_config=spec)
    assert 3 not in older["cudagraph_capture_sizes"]


def test_no_draft_step_graphs_for_k1_or_ngram():
    """k = 1 has no draft step after the first; n-gram has no draft model."""
    one = json.dumps({"method": "mtp", "num_speculative_tokens": 1})
    ngram = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
    for model, spec in (("deepseek-v3", one), ("llama-3.1-8b", ngram)):
        sizes = res(model, "h100", "0.34.0", tensor_parallel_size=8, speculative_config=spec)[
            "cudagraph_capture_sizes"
        ]
        assert 3 not in sizes and 5 not in sizes


def test_interactivity_adds_every_prefill_size_to_32_on_sm10x():
    """``prefill_cudagraph_capture_grid(dense_head=performance_mode == "interactivity")`` (0.34,
    the SM10x wide defaults): every token count up to 32."""
    r = res("llama-3.1-8b", "b200", "0.34.0", performance_mode="interactivity")
    assert set(range(1, 33)) <= set(r["cudagraph_capture_sizes"])
    assert not {7, 9, 11} & set(res("llama-3.1-8b", "b200", "0.34.0")["cudagraph_capture_sizes"])


# -- the extensible KV cache (0.34: CacheConfig.resolved_gpu_memory_utilization) ---------------


def test_no_extensible_kv_cache_keeps_utilization_0_92():
    assert res("llama-3.1-8b", "h100", "0.34.0")["gpu_memory_utilization"] == 1.0
    r = res("llama-3.1-8b", "h100", "0.34.0", **cli(["--no-enable-extensible-kv-cache"]))
    assert r["gpu_memory_utilization"] == 0.92


# -- refusal forms: vLLM's refusals, not this tool's argument errors ----------------------------


def test_unknown_kv_cache_dtype_is_vllms_refusal():
    """0.34 validates ``cache_dtype`` in ``CacheConfig`` (pydantic), not in argparse."""
    exc = refusal("llama-3.1-8b", "h100", "0.34.0", kv_cache_dtype="int8")
    assert type(exc) is ConflictError
    assert str(exc).startswith("Invalid kv_cache_dtype: 'int8'. Valid values are: [")
    assert exc.upstream == "ValidationError"


def test_unknown_cudagraph_mode_is_vllms_key_error():
    """``CUDAGraphMode[value]`` raises ``KeyError: 'BOGUS'`` in ``CompilationConfig``."""
    exc = refusal("llama-3.1-8b", "h100", "0.34.0", **cli(["-cc.cudagraph_mode=BOGUS"]))
    assert type(exc) is ConflictError and exc.upstream == "KeyError"
    assert str(exc).startswith("'BOGUS'")


# -- presets ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gb10", "thor", "l4", "a10g", "l40s", "h20", "rtxpro6000", "h100-pcie"])
def test_operator_gpus_have_presets(name):
    r = res("llama-3.1-8b", name, "0.34.0")
    assert r["max_num_seqs"] > 0 and r.platform.vendor == "cuda"


# -- found on the operators dev split (seed 5528), each checked in the wheels ------------------


@pytest.mark.parametrize("release", RELEASES)
def test_lora_on_a_class_without_supports_lora(release):
    """``LoRAConfig.verify_with_model_config`` (named change LORA_MODEL_SUPPORT_CHECK, 0.33): GPT-2's
    class does not implement ``SupportsLoRA``; before 0.33 the refusal came at model load."""
    if release in ("0.33.0", "0.34.0"):
        exc = cfg_refusal(GPT2, "h100", release, enable_lora=True)
        assert str(exc).startswith("LoRA is not supported for GPT2LMHeadModel (")
    else:
        cfg_res(GPT2, "h100", release, enable_lora=True)
    res("llama-3.1-8b", "h100", release, enable_lora=True)


@pytest.mark.parametrize("release", RELEASES)
def test_lora_with_speculation_needs_the_batch_to_hold_every_draft(release):
    """``EngineArgs.create_engine_config``: with LoRA and a speculative config,
    ``max_num_batched_tokens`` must reach ``max_num_seqs × (k + 1)``."""
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 4})
    exc = refusal(
        "llama-3.1-8b",
        "h100",
        release,
        enable_lora=True,
        speculative_config=spec,
        max_num_batched_tokens=2048,
    )
    assert str(exc).startswith(
        "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens"
    )


@pytest.mark.parametrize("release", RELEASES)
def test_mtp_on_a_pooling_model_builds_a_draft_runner(release):
    """The MTP draft is the target's own ``ModelConfig`` with ``runner="draft"``: a pooling-only class
    (the Qwen2.5-Math reward model) is refused there."""
    reward = {
        **load_model("qwen3-8b").to_dict(),
        "architectures": ["Qwen2ForRewardModel"],
        "model_type": "qwen2",
    }
    spec = json.dumps({"method": "mtp", "num_speculative_tokens": 1})
    exc = cfg_refusal(reward, "h100", release, speculative_config=spec)
    assert str(exc).startswith("Embedding models do not support `--runner draft`.")


def test_pp_with_external_launcher_is_refused_by_the_0_34_runner():
    """0.34 (GPU_RUNNER_PP_EXTERNAL_LAUNCHER_REFUSED): ``_get_model_runner_unsupported_features``;
    0.33 sends it to the V1 runner instead."""
    flags = {"pipeline_parallel_size": 2, "distributed_executor_backend": "external_launcher"}
    exc = refusal("llama-3.1-8b", "h100", "0.34.0", **flags)
    assert str(exc).startswith(
        "The GPU model runner does not support: pipeline parallelism with external_launcher"
    )
    assert res("llama-3.1-8b", "h100", "0.33.0", **flags)["use_v2_model_runner"] is False
    exc = refusal("llama-3.1-8b", "h100", "0.33.0", env={"VLLM_USE_V2_MODEL_RUNNER": "1"}, **flags)
    assert str(exc).startswith(
        "Model Runner V2 does not yet support: pipeline parallelism with external_launcher"
    )


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_external_launcher_with_dp_reads_torchruns_rank(release):
    """``ParallelConfig.__post_init__``: ``int(os.environ["RANK"])`` — a KeyError outside torchrun."""
    flags = {"data_parallel_size": 2, "distributed_executor_backend": "external_launcher"}
    exc = refusal("llama-3.1-8b", "h100", release, **flags)
    assert exc.upstream == "KeyError" and str(exc).startswith("'RANK'")
    res("llama-3.1-8b", "h100", release, env={"RANK": "0"}, **flags)


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_gptq_desc_act_is_refused(release):
    """``normalize_and_validate_gptq_desc_act``: dynamic activation ordering with groups."""
    quant = {"quant_method": "gptq", "bits": 8, "group_size": 128, "desc_act": True, "sym": True}
    config = {**load_model("llama-3.1-8b").to_dict(), "quantization_config": quant}
    assert str(cfg_refusal(config, "h100", release)).startswith(
        "GPTQ group activation ordering (desc_act=True)"
    )
    cfg_res({**config, "quantization_config": {**quant, "desc_act": False}}, "h100", release)


def test_a_hybrid_model_under_a_pooler_is_a_decoder_with_mamba_caching():
    """``ModelConfig.attn_type`` with a pooler is the class's own type (decoder), while the hybrid
    hook (``MambaModelConfig.verify_and_update_config``) still sets the Mamba cache mode."""
    r = res("nemotron-h-8b", "h100", "0.34.0", convert="embed")
    assert r["attn_type"] == "decoder" and r["mamba_cache_mode"] == "align"


def test_gpt2_hf_overrides_use_its_attribute_names():
    """GPT-2's config maps ``max_position_embeddings`` onto ``n_positions`` (transformers'
    ``attribute_map``), so the override changes the derived length."""
    assert (
        cfg_res(GPT2, "h100", "0.34.0", hf_overrides={"max_position_embeddings": 4096})["max_model_len"]
        == 4096
    )


def test_cli_shows_vllms_refusals_and_applies_hf_overrides(capsys):
    """Through ``resolvable resolve --engine vllm``: the retired ``-cc`` key and an unknown KV-cache
    dtype are vLLM's refusals (one line, no traceback; both exit 1 as every refusal);
    ``--hf-overrides`` reaches the rules."""
    from resolvable.cli import main

    base = ["resolve", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100", "--vllm-version", "0.34.0"]
    assert main([*base, "-cc", '{"level": 3}']) == 1  # vLLM's parser refuses it: exit 1 (issue 26)
    err = capsys.readouterr().err
    assert "CompilationConfig level Unexpected keyword argument" in err and "Traceback" not in err
    assert main([*base, "--kv-cache-dtype", "int8"]) == 1  # the engine refuses: exit 1 (issue 26)
    err = capsys.readouterr().err
    assert "refused: Invalid kv_cache_dtype: 'int8'" in err and "Traceback" not in err
    assert (
        main([*base, "--max-cudagraph-capture-size", "256", "-cc", '{"max_cudagraph_capture_size": 128}'])
        == 1  # vLLM's refusal (issue 26's exit codes)
    )
    err = capsys.readouterr().err
    assert "are mutually exclusive" in err and "Traceback" not in err
    assert main([*base, "--json", "--hf-overrides", '{"max_position_embeddings": 65536}']) == 0
    assert json.loads(capsys.readouterr().out)["values"]["max_model_len"] == 65536


# -- platform forcing (not reachable by the config oracle: it fakes CUDA only; from the source) --


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_whisper_on_rocm_runs_eager(release):
    """``ModelConfig._verify_cuda_graph``: CUDA graphs are not supported for encoder-decoder models on
    ROCm; vLLM sets ``enforce_eager`` (compilation and CUDA graphs off)."""
    r = res("whisper-large-v3", "mi300x", release)
    assert r["compilation_mode"] == "NONE" and r["cudagraph_capture_sizes"] == []
    assert res("whisper-large-v3", "h100", release)["compilation_mode"] == "VLLM_COMPILE"


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_lora_on_cpu_turns_compilation_off(release):
    """``CpuPlatform.check_and_update_config``: a LoRA config sets compilation mode NONE."""
    assert res("llama-3.1-8b", "cpu", release, enable_lora=True)["compilation_mode"] == "NONE"
    assert res("llama-3.1-8b", "cpu", release)["compilation_mode"] == "DYNAMO_TRACE_ONCE"


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_cpu_with_avx512_bf16_keeps_ssm_state_in_float32(release):
    """``CpuPlatform.check_and_update_config``: on an AVX-512 BF16 CPU (SPR) the SSM cache is reset
    to float32 for every model (fp16/bf16 kept only for the gated-delta-net backend)."""
    assert res("llama-3.1-8b", "cpu-amx", release)["mamba_ssm_cache_dtype"] == "float32"
    assert res("llama-3.1-8b", "cpu", release)["mamba_ssm_cache_dtype"] == "auto"


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_a_dtype_key_in_hf_overrides_loses_the_checkpoint_dtype(release):
    """``--hf-overrides '{"torch_dtype": …}'`` does not set the model dtype: ``--dtype auto`` then
    resolves as for a checkpoint naming none (bfloat16 for generation, float16 for pooling)."""
    assert (
        res("llama-3.1-8b", "h100", release, hf_overrides={"torch_dtype": "float16"})["dtype"] == "bfloat16"
    )
    reward = {
        **load_model("qwen3-8b").to_dict(),
        "architectures": ["Qwen2ForRewardModel"],
        "model_type": "qwen2",
    }
    assert cfg_res(reward, "h100", release)["dtype"] == "bfloat16"
    assert cfg_res(reward, "h100", release, hf_overrides={"torch_dtype": "bfloat16"})["dtype"] == "float16"


@pytest.mark.parametrize(
    ("release", "spec", "off"),
    [
        ("0.34.0", {"method": "mtp", "num_speculative_tokens": 2}, True),
        *[(r, {"model": "x/eagle-head", "num_speculative_tokens": 2}, True) for r in RELEASES],
        *[
            (r, {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}, False)
            for r in RELEASES
        ],
    ],
)
def test_chunked_local_attention_with_a_hidden_state_drafter_turns_the_hybrid_manager_off(release, spec, off):
    """``VllmConfig.__post_init__`` turns the hybrid KV-cache manager off for chunked-local attention
    (Llama-4-Scout's ``attention_chunk_size``) with a drafter that reads the target's hidden states:
    ``use_eagle()`` on 0.30-0.33 and ``uses_target_hidden_states`` on 0.34, true for MTP as for
    EAGLE (``v1/worker/gpu/spec_decode/mtp/config.py`` subclasses the EAGLE one); ngram reads none.
    (0.30-0.33 refuse MTP on a target without MTP layers, so MTP is checked on 0.34: the dev miss
    operators-5528-00001.)"""
    argv = ["--tensor-parallel-size", "4", "--speculative-config", json.dumps(spec)]
    r = res("llama-4-scout", "l40s", release, **cli(argv, release))
    assert r["disable_hybrid_kv_cache_manager"] is off


@pytest.mark.parametrize("release", ("0.30.0", "0.34.0"))
def test_gpt2_config_alias_key_wins_over_its_own_name(release):
    """A GPT-2 ``config.json`` naming ``max_position_embeddings`` next to ``n_positions``: transformers
    sets the alias through ``attribute_map`` after ``n_positions``, so the alias wins (dev misses
    operators-6001-00145/00214: vLLM derives 131072, RoPE dynamic x4 524288)."""
    cfg = {**GPT2, "max_position_embeddings": 131072}
    assert cfg_res(GPT2, "h100", release)["max_model_len"] == 1024
    assert cfg_res(cfg, "h100", release)["max_model_len"] == 131072
    assert cfg_res({"max_position_embeddings": 131072, **GPT2}, "h100", release)["max_model_len"] == 131072
    scaled = {**cfg, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
    assert cfg_res(scaled, "h100", release)["max_model_len"] == 524288


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize(
    ("flag", "key", "value"),
    [
        ("--max-cudagraph-capture-size", "max_cudagraph_capture_size", 128),
        ("--cudagraph-capture-sizes", "cudagraph_capture_sizes", [1, 2]),
    ],
)
def test_a_capture_size_flag_and_the_same_cc_key_are_refused(release, flag, key, value):
    """``EngineArgs.create_engine_config`` (``engine/arg_utils.py``) raises ``ValueError`` when a
    capture-size flag and the same ``-cc`` key are both given (dev misses operators-6001-00185/00278);
    either alone is read."""
    cc = json.dumps({key: value})
    kwargs = cli([flag, "1" if key == "cudagraph_capture_sizes" else "512", "-cc", cc], release)
    assert kwargs["capture_size_conflict"] == key  # refused in vLLM's order (config/late_args.py)
    with pytest.raises(ConflictError, match=f"^{key} and compilation_config.{key} are mutually exclusive"):
        resolve_vllm_args(load_model("llama-3.1-8b"), platform("h100"), vllm_version=release, **kwargs)
    assert cli(["-cc", cc], release)[key] == value


@pytest.mark.parametrize("release", RELEASES)
def test_an_architecture_no_registry_or_transformers_class_serves_is_refused(release):
    """``ModelRegistry.inspect_model_cls`` → ``_raise_for_unsupported`` (``model_executor/models/
    registry.py``): ``--hf-overrides '{"architectures": ["X"]}'`` names no registered class, no
    class under another suffix and no transformers class, so ``ModelConfig`` is refused before the
    scheduler's checks (dev miss operators-6001-00106). A registered class under another suffix
    (``…ForSequenceClassification`` of a ``…ForCausalLM``) and a transformers-style name stay."""
    exc = cfg_refusal(GPT2, "h100", release, hf_overrides={"architectures": ["X"]}, max_num_batched_tokens=16)
    assert str(exc).startswith("Model architectures ['X'] are not supported for now.")
    assert exc.stage == "model_config"
    assert cfg_res(GPT2, "h100", release, hf_overrides={"architectures": ["LlamaForSequenceClassification"]})
    assert (
        cfg_res({**GPT2, "architectures": ["FooBarForCausalLM"]}, "h100", release)["runner_type"]
        == "generate"
    )


@pytest.mark.parametrize("release", RELEASES)
def test_whisper_under_a_pooler_still_runs_without_chunked_prefill(release):
    """``SchedulerConfig.__post_init__`` switches chunked prefill off from
    ``ModelConfig.is_encoder_decoder`` (the HF flag), not from ``attn_type``: Whisper with
    ``--convert classify`` has the pooler's ``attn_type`` ``decoder`` and still runs without chunked
    prefill (dev miss operators-6001-00082)."""
    r = res("whisper-large-v3", "a100", release, **cli(["--convert", "classify"], release))
    assert r["runner_type"] == "pooling"
    assert r["enable_chunked_prefill"] is False


@pytest.mark.parametrize("release", RELEASES)
def test_a_pooling_name_of_gpt_oss_runs_the_causal_lm_hook(release):
    """``VllmConfig.try_verify_and_update_config`` looks the hook up under the architecture, then
    under ``ModelRegistry._normalize_arch`` of it: ``GptOssForSequenceClassification`` runs
    ``GptOssForCausalLMConfig`` (capture sizes to 1024; dev miss operators-6001-00376)."""
    over = {"architectures": ["GptOssForSequenceClassification"]}
    r = res("gpt-oss-20b", "a100", release, hf_overrides=over, max_model_len=8192)
    assert r["runner_type"] == "pooling"
    assert r["max_cudagraph_capture_size"] == 1024
    assert r["reasoning_parser"] == "openai_gptoss"
    llama = res(
        "llama-3.1-8b", "a100", release, hf_overrides={"architectures": ["LlamaForSequenceClassification"]}
    )
    assert llama["max_cudagraph_capture_size"] == 512


@pytest.mark.parametrize("release", RELEASES)
def test_a_pooling_name_of_deepseek_v3_2_runs_its_hook(release):
    """The same lookup for ``DeepseekV32ForCausalLMConfig``: ``DeepseekV32ForSequenceClassification``
    on a config without ``index_topk`` fails its assertion (dev miss operators-6001-00105)."""
    base = load_model("deepseek-v3.2").to_dict()
    base.pop("index_topk", None)
    over = {"architectures": ["DeepseekV32ForSequenceClassification"]}
    exc = cfg_refusal(base, "h200", release, hf_overrides=over, tensor_parallel_size=8)
    assert exc.upstream == "AssertionError"


@pytest.mark.parametrize("release", RELEASES)
def test_mtp_tokens_beyond_the_modules_must_be_a_multiple(release):
    """Checked with the config oracle on 0.30 and 0.34 (k 5 and 4 refused, 2 and 6 kept; MiMo-V2-Flash
    builds one module, so any k). ``SpeculativeConfig.__post_init__`` (0.30-0.33) and ``SpeculatorConfig.
    resolve_num_speculative_tokens`` (0.34): with the draft's ``n_predict`` (Step-3.5-Flash: its 3
    ``num_nextn_predict_layers``), more speculative tokens than modules must be a multiple of it."""
    spec = {"method": "mtp", "num_speculative_tokens": 5}
    exc = refusal(
        "step-3.5-flash",
        "h200",
        release,
        **cli(["--tensor-parallel-size", "8", "--speculative-config", json.dumps(spec)], release),
    )
    assert str(exc).startswith("num_speculative_tokens:5 must be divisible by n_predict=3")
    for k in (2, 3, 6):
        spec["num_speculative_tokens"] = k
        r = res(
            "step-3.5-flash",
            "h200",
            release,
            **cli(["--tensor-parallel-size", "8", "--speculative-config", json.dumps(spec)], release),
        )
        assert r["num_speculative_tokens"] == k


@pytest.mark.parametrize("release", ("0.30.0", "0.34.0"))
def test_a_pooling_name_of_a_hybrid_model_keeps_the_mamba_cache_rules(release):
    """``ModelConfig.is_hybrid`` is the registry class's (``_normalize_arch``): LFM2 under
    ``Lfm2ForSequenceClassification`` is still hybrid, so ``MambaModelConfig`` sets the cache mode
    and block size (dev miss operators-6002-00372: align / 64 on 0.34 with prefix caching)."""
    over = {"architectures": ["Lfm2ForSequenceClassification"]}
    r = res("lfm2-1.2b", "h100", release, hf_overrides=over, enable_prefix_caching=True)
    assert r["runner_type"] == "pooling"
    assert r["mamba_cache_mode"] == "align"
    assert r["mamba_block_size"] == (64 if release == "0.34.0" else 16)


@pytest.mark.parametrize("release", ("0.30.0", "0.34.0"))
def test_ngram_checks_the_target_as_its_draft_before_the_scheduler(release):
    """``SpeculativeConfig._verify_args`` runs ``verify_with_parallel_config`` on the draft, which
    for ngram is the target, before ``SchedulerConfig`` exists: PP on bge-m3 (no ``SupportsPP``)
    is refused ahead of the batch-size check (dev miss operators-6002-00548)."""
    spec = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
    argv = [
        "--speculative-config",
        json.dumps(spec),
        "--max-num-batched-tokens",
        "8192",
        "--pipeline-parallel-size",
        "2",
    ]
    exc = cfg_refusal(BGE_M3, "h100", release, **cli(argv, release))
    assert str(exc).startswith("Pipeline parallelism is not supported for this model.")
    exc = cfg_refusal(BGE_M3, "h100", release, **cli(argv[2:], release))
    assert str(exc).startswith("max_num_batched_tokens (8192) is smaller than max_model_len (8194)")


def test_the_dgx_spark_stand_in_lives_in_the_harness_not_the_product():
    """One preset table (issue 26): the config harness's measured DGX Spark stand-in (two ranks of a
    GB10 with 128 GiB) is the harness's own (``tools/agreement_vllm/stand_ins.py``); the product
    knows the chip as the ``gb10`` preset, the same for every engine."""
    import importlib.util
    from pathlib import Path

    from resolvable import Platform
    from resolvable.errors import UnknownPresetError

    with pytest.raises(UnknownPresetError):
        platform("dgx-spark")
    assert set(Platform.presets()) >= {"gb10", "thor", "mi325x", "t4", "a10g"}
    path = Path(__file__).resolve().parents[2] / "tools" / "agreement_vllm" / "stand_ins.py"
    spec = importlib.util.spec_from_file_location("stand_ins", path)
    stand_ins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stand_ins)
    spark = stand_ins.platform("dgx-spark")
    assert (spark.device_name, spark.capability, spark.memory_gib) == ("NVIDIA GB10", (12, 1), 128)
    assert stand_ins.platform("gb10") is Platform.preset("gb10")
