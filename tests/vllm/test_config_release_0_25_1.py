"""vLLM 0.25.1's engine configuration (issue 32): the configuration changes 0.26.0 brought
(``vllm/config/changes.py``, block "0.25.1 -> 0.26.0"), one test per change, 0.25.1 against
0.26.0. Facts from the two wheels' diff (``config/vllm.py``, ``config/parallel.py``,
``model_executor/models/config.py``; docs/vllm.md "vLLM 0.25.0")."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm.changes import CHANGES


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.25.1", "0.26.0")]


def _as(model: str, arch: str) -> HFConfig:
    cfg = load_model(model).to_dict()
    cfg["architectures"] = [arch]
    return HFConfig(cfg, source=f"{model} as {arch}")


def test_the_0_26_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.26.0")} >= {
        "V2_DEFAULT_INKLING_LONGCAT_NGRAM",
        "BREAKABLE_GRAPHS_INKLING",
        "V2_RUNNER_PCP_MLA",
        "V2_RUNNER_RAW_LOGPROBS",
        "LONGCAT_NGRAM_HOOK",
        "PCP_DCP_AXES",
        "HYBRID_POOLING_PREFIX_CACHING_OPT_IN",
        "QUANTIZATION_NVFP4_PER_TOKEN",
    }


def test_inkling_default_v2_and_breakable_from_0_26():
    """DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES and the breakable-graph list of __post_init__: 0.26
    runs an Inkling MoE on V2 with torch.compile off. 0.25.1's model registry has no Inkling class
    (``model_registry_history.json``: from 0.26.0) and its Transformers fallback takes only an
    ``is_backend_compatible()`` class, so 0.25.1 refuses the architecture first."""
    inkling = _as("qwen3-30b-a3b", "InklingForCausalLM")
    with pytest.raises(ConflictError, match=r"registered in vLLM from 0\.26\.0 on"):
        res(inkling, "h100", vllm_version="0.25.1")
    new = res(inkling, "h100", vllm_version="0.26.0")
    assert (new["use_v2_model_runner"], new["compilation_mode"]) == (True, "NONE")


def test_longcat_ngram_default_v2_and_hook_from_0_26():
    """Longcat-Flash-Ngram joins the default-V2 list, and its config hook (compilation NONE,
    CUDA graphs FULL) is new in 0.26, with the class itself: 0.25.1's registry has none
    (``model_registry_history.json``), so 0.25.1 refuses the architecture."""
    longcat = _as("qwen3-30b-a3b", "LongcatFlashNgramForCausalLM")
    with pytest.raises(ConflictError, match=r"registered in vLLM from 0\.26\.0 on"):
        res(longcat, "h100", vllm_version="0.25.1")
    new = res(longcat, "h100", vllm_version="0.26.0")
    assert (new["use_v2_model_runner"], new["compilation_mode"], new["cudagraph_mode"]) == (
        True,
        "NONE",
        "FULL",
    )


def test_raw_logits_logprobs_mode_sends_0_25_to_v1():
    """_get_v2_model_runner_unsupported_features: 0.25 lists logprobs modes raw_logits and
    processed_logits; 0.26 does not. The default mode (raw_logprobs) is V2 in both."""
    old, new = both("llama-3.1-8b", "h100", logprobs_mode="raw_logits")
    assert (old["use_v2_model_runner"], new["use_v2_model_runner"]) == (False, True)
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100")] == [True, True]


def test_pcp_runs_on_v1_in_0_25():
    """0.25 lists prefill context parallelism as V2-unsupported (no V1 refusal in its config);
    the pack's 0.26 keeps PCP on V2."""
    old, new = both("deepseek-v3.2", "h200", tensor_parallel_size=4, prefill_context_parallel_size=2)
    assert (old["use_v2_model_runner"], new["use_v2_model_runner"]) == (False, True)


def test_dcp_must_divide_tp_with_pcp_in_0_25():
    """ParallelConfig._validate_parallel_config: 0.25 checks tp % dcp whatever PCP is (its message
    lacks a space); 0.26 lets DCP span the PCP axis."""
    flags = dict(tensor_parallel_size=2, prefill_context_parallel_size=4, decode_context_parallel_size=4)
    with pytest.raises(ConflictError, match=r"tp_size=2 must be divisible bydcp_size=4\."):
        res("deepseek-v3.2", "h200", vllm_version="0.25.1", **flags)
    assert res("deepseek-v3.2", "h200", vllm_version="0.26.0", **flags)["world_size"] == 8


def test_hybrid_pooling_prefix_caching_default_on_in_0_25():
    """_set_default_chunked_prefill_and_prefix_caching_args: 0.26 keeps prefix caching opt-in for
    every hybrid model; 0.25 asks is_prefix_caching_supported only, which judges a hybrid model
    under --convert classify (attn_type "decoder", LAST pooling) as supported, so it is on (and
    the Mamba cache mode 'align' follows). A generating hybrid model keeps it off in both
    (operators-5528-00229, 0.25.1 oracle)."""
    old, new = both("qwen3-next-80b-a3b", "h200", convert="classify")
    assert (old["enable_prefix_caching"], new["enable_prefix_caching"]) == (True, False)
    assert (old["mamba_cache_mode"], new["mamba_cache_mode"]) == ("align", "none")
    assert [r["enable_prefix_caching"] for r in both("qwen3-next-80b-a3b", "h200")] == [False, False]


def test_nvfp4_per_token_is_a_method_from_0_26():
    """``QuantizationMethods``: 0.26 adds the online shorthand ``nvfp4_per_token``; 0.25 refuses it
    as an unknown method (the 0.25.1 wheel's list)."""
    with pytest.raises(ConflictError, match="Unknown quantization method: nvfp4_per_token"):
        res("llama-3.1-8b", "h100", vllm_version="0.25.1", quantization="nvfp4_per_token")
    assert res("llama-3.1-8b", "h100", vllm_version="0.26.0", quantization="nvfp4_per_token")[
        "quantization"
    ] == ("nvfp4_per_token")
