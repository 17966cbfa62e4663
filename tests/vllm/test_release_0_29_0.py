"""vLLM 0.29.0 (issue 32 item 1): resolved with the rules of 0.30-0.34 minus the changes 0.30.0
brought (`vllm/changes.py`, `vllm/config/changes.py`), one test per change, on 0.29.0 and 0.30.0.
Facts from the two wheels' diff (docs/releases/vllm-0.30.0.md); measured against the 0.29.0 oracle
(docs/vllm.md)."""

from __future__ import annotations

import pytest
from vllm_cases import candidates, res

from resolvable.errors import ConflictError
from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES

MTP = '{"method": "mtp", "num_speculative_tokens": 1}'


def test_0_29_0_is_resolved():
    assert "0.29.0" in registry.releases
    assert {c.name for c in CHANGES.introduced("0.30.0")} >= {
        "MM_PREFIX_COMPOSITE_BACKENDS",
        "FLASHINFER_MLA_SPARSE_SM90",
        "FLASHINFER_SINKS_SM90",
        "PIECEWISE_FALLBACK_WITHOUT_PIECEWISE",
        "YARN_LENGTH_NOT_RESCALED",
        "GPTQ_DESC_ACT_REFUSED",
        "MTP_DRAFTS_SUPPORT_PP",
    }


@pytest.mark.parametrize(
    ("preset", "composite"), [("h100", "TRITON_FLASH_ATTN"), ("b200", "TRITON_FLASHINFER")]
)
def test_mm_prefix_composites_arrive_in_0_30(preset, composite):
    """platforms/cuda.py _get_backend_priorities: 0.29 has no composite backend for Gemma-3's
    bidirectional image prefix."""
    assert composite not in candidates(res("gemma-3-27b", preset, vllm_version="0.29.0"), "attn_backend_full")
    assert composite in candidates(res("gemma-3-27b", preset, vllm_version="0.30.0"), "attn_backend_full")


def test_flashinfer_sparse_mla_sm90_arrives_in_0_30():
    old = candidates(
        res("deepseek-v3.2", "h100", vllm_version="0.29.0", tensor_parallel_size=8), "attn_backend_mla"
    )
    new = candidates(
        res("deepseek-v3.2", "h100", vllm_version="0.30.0", tensor_parallel_size=8), "attn_backend_mla"
    )
    assert "FLASHINFER_MLA_SPARSE_SM90" not in old and "FLASHINFER_MLA_SPARSE_SM90" in new


def test_flashinfer_sinks_on_sm90_from_0_30():
    """FlashInferBackend.supports_sink: 0.29 serves sinks on SM10x/SM12x only (GPT-OSS has sinks)."""
    with pytest.raises(ConflictError, match="sinks not supported"):
        res("gpt-oss-120b", "h100", vllm_version="0.29.0", attention_backend="FLASHINFER")
    assert res("gpt-oss-120b", "h100", vllm_version="0.30.0", attention_backend="FLASHINFER")


def test_piecewise_fallback_is_none_on_0_29():
    """VllmConfig.__post_init__: without VLLM_COMPILE a piecewise mode became NONE in 0.29;
    0.30's _normalize_piecewise_cudagraph_mode keeps the full part."""
    env = {"TORCH_COMPILE_DISABLE": "1"}
    assert res("llama-3.1-8b", "h100", env, vllm_version="0.29.0")["cudagraph_mode"] == "NONE"
    assert res("llama-3.1-8b", "h100", env, vllm_version="0.30.0")["cudagraph_mode"] == "FULL_DECODE_ONLY"


def test_yarn_length_is_rescaled_on_0_29():
    """_get_and_verify_max_len: 0.29 derives original_max_position_embeddings x factor for YaRN
    (GPT-OSS: 4096 x 32), whatever max_position_embeddings says; 0.30 keeps max_position_embeddings."""
    over = '{"max_position_embeddings": 65536}'
    assert res("gpt-oss-20b", "h100", vllm_version="0.29.0", hf_overrides=over)["max_model_len"] == 131072
    assert res("gpt-oss-20b", "h100", vllm_version="0.30.0", hf_overrides=over)["max_model_len"] == 65536


def test_gptq_desc_act_is_served_on_0_29():
    from resolvable.vllm import load_model

    quant = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": True}
    gptq = load_model("qwen3-8b").overlay({"quantization_config": quant}, {"quantization_config": "test"})
    assert res(gptq, "h100", vllm_version="0.29.0")["quantization"] == "auto_gptq"
    with pytest.raises(ConflictError, match="desc_act=True"):
        res(gptq, "h100", vllm_version="0.30.0")


def test_mtp_draft_refuses_pp_on_0_29():
    """SpeculativeConfig: the draft's verify_with_parallel_config; DeepSeekMTPModel implements
    SupportsPP from 0.30 (operators-5528-00106)."""
    kw = {"pipeline_parallel_size": 2, "tensor_parallel_size": 4, "speculative_config": MTP}
    with pytest.raises(ConflictError, match="Pipeline parallelism is not supported for this model"):
        res("deepseek-v3", "h100", vllm_version="0.29.0", **kw)
    assert res("deepseek-v3", "h100", vllm_version="0.30.0", **kw)["speculative_method"] == "mtp"


def test_mtp_draft_without_pp_refuses_before_0_30_only():
    """Qwen3NextMTP has no SupportsPP in any modelled release, but from 0.30
    ``SpeculativeConfig.create_draft_parallel_config`` gives the draft ``pipeline_parallel_size=1``
    (0.28/0.29: the target's), so its ``verify_with_parallel_config`` passes
    (``DRAFT_PIPELINE_PARALLEL_ONE``; checked with the 0.30/0.34 oracles, draft_check.py)."""
    kw = {"pipeline_parallel_size": 2, "speculative_config": MTP}
    before_0_30 = registry.releases[: registry.releases.index("0.30.0")]
    for release in registry.releases:
        if release in before_0_30:
            with pytest.raises(ConflictError, match="Pipeline parallelism is not supported for this model"):
                res("qwen3-next-80b-a3b", "h100", vllm_version=release, **kw)
        else:
            assert (
                res("qwen3-next-80b-a3b", "h100", vllm_version=release, **kw)["speculative_method"] == "mtp"
            )
