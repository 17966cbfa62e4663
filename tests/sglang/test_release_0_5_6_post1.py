"""sglang 0.5.6 → 0.5.6.post1: one golden case per modelled change (docs/releases/0.5.6.post1.md).

Each case resolves the same input with 0.5.6 (the oldest resolved release on this branch) and with
0.5.6.post1 and asserts both answers. The 0.5.6 answers follow the 0.5.6 wheel's
``server_args.py`` (``_handle_attention_backend_compatibility``) and were measured against the
real sglang 0.5.6 ``ServerArgs`` (tools/agreement, oracle venv-0.5.6). A ``.postN`` release with
behaviour of its own is a release of its own (``rules.release_key`` keeps the suffix).
"""

from __future__ import annotations

import json

import pytest
from release_helpers import SIX, resolve_at

from resolvable.errors import ConfigError, InvalidArgumentError
from resolvable.rules import release_key
from resolvable.sglang._base import SGLANG_RELEASES, registry
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.facts import is_mla
from resolvable.sglang.models import load_model

OLD, NEW = "0.5.6", "0.5.6.post1"


def test_the_changes_of_0_5_6_post1_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "BLACKWELL_MHA_TRTLLM_DEFAULT",
        "NPU_DEFAULT_SERVER_ARGS",
        "DLLM_CUDA_GRAPH_KEPT",
        "MISTRAL_LARGE_3_PARAMS_JSON",
        "MISTRAL_LARGE_3_MLA",
        "CHOICES_MODELSLIM",
        "QWEN3_NEXT_SM100_TRITON_WHEN_UNSET",
    }


def test_the_post_release_is_a_release_of_its_own():
    assert SGLANG_RELEASES[SGLANG_RELEASES.index(OLD) + 1] == NEW
    assert release_key(OLD) < release_key(NEW) < release_key("0.5.6.post2") < release_key("0.5.7")
    assert resolve_at("llama-3.1-8b", "b200", NEW).release == NEW


def test_blackwell_mha_default_is_trtllm_mha_from_0_5_6_post1():
    old = resolve_at("llama-3.1-8b", "b200", OLD)
    assert (old["attention_backend"], old["page_size"]) == ("flashinfer", 1)
    new = resolve_at("llama-3.1-8b", "b200", NEW)
    assert (new["attention_backend"], new["page_size"]) == ("trtllm_mha", 64)
    # Hopper is untouched: fa3 on both sides
    assert resolve_at("llama-3.1-8b", "h100", OLD)["attention_backend"] == "fa3"
    assert resolve_at("llama-3.1-8b", "h100", NEW)["attention_backend"] == "fa3"


def test_npu_backends_are_forced_from_0_5_6_post1():
    """0.5.6: ascend is only the unset default and forces 128-token pages; 0.5.6.post1's
    ``_handle_npu_backends`` forces all three backends and fills only an unset page size."""
    old = resolve_at("llama-3.1-8b", "npu", OLD, page_size=64)
    assert {k: old[k] for k in SIX[:4]} == {
        "attention_backend": "ascend",
        "prefill_attention_backend": None,
        "decode_attention_backend": None,
        "page_size": 128,
    }
    assert old["disable_custom_all_reduce"] is False
    new = resolve_at("llama-3.1-8b", "npu", NEW, page_size=64)
    assert {k: new[k] for k in SIX[:4]} == {
        "attention_backend": "ascend",
        "prefill_attention_backend": "ascend",
        "decode_attention_backend": "ascend",
        "page_size": 64,
    }
    assert new["disable_custom_all_reduce"] is True
    assert resolve_at("llama-3.1-8b", "npu", OLD, attention_backend="triton")["attention_backend"] == "triton"
    assert resolve_at("llama-3.1-8b", "npu", NEW, attention_backend="triton")["attention_backend"] == "ascend"


def test_qwen3_next_on_sm100_keeps_a_named_backend_from_0_5_6_post1():
    assert resolve_at("qwen3-next-80b-a3b", "b200", OLD)["attention_backend"] == "triton"
    assert resolve_at("qwen3-next-80b-a3b", "b200", NEW)["attention_backend"] == "triton"
    named = {"attention_backend": "flashinfer"}
    assert resolve_at("qwen3-next-80b-a3b", "b200", OLD, **named)["attention_backend"] == "triton"
    assert resolve_at("qwen3-next-80b-a3b", "b200", NEW, **named)["attention_backend"] == "flashinfer"


def test_dllm_keeps_cuda_graphs_and_takes_flashinfer_from_0_5_6_post1():
    """0.5.6's ``_handle_dllm_inference`` turned CUDA graphs off and left the backend alone."""
    flags = {"dllm_algorithm": "LowConfidence", "attention_backend": "triton"}
    old = resolve_at("llada2-mini", "a100", OLD, **flags)
    assert (old["attention_backend"], old["disable_cuda_graph"], old["cuda_graph_backend_decode"]) == (
        "triton",
        True,
        "disabled",
    )
    new = resolve_at("llada2-mini", "a100", NEW, **flags)
    assert (new["attention_backend"], new["disable_cuda_graph"], new["cuda_graph_backend_decode"]) == (
        "flashinfer",
        False,
        "full",
    )


def test_a_mistral_large_3_name_reads_params_json_from_0_5_6_post1(tmp_path):
    """0.5.6's ``get_config`` read config.json through AutoConfig for every name."""
    model = tmp_path / "Mistral-Large-3-675B-Instruct-2512"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(load_model("llama-3.1-8b").to_dict()))
    assert load_model(str(model), release=OLD).architectures == ("LlamaForCausalLM",)
    with pytest.raises(ConfigError, match=r"params\.json"):
        load_model(str(model), release=NEW)


def test_mistral_large_3_is_mla_and_bfloat16_from_0_5_6_post1():
    hf = load_model("mistral-large-3")
    assert not is_mla(hf, registry.release_view(OLD)) and is_mla(hf, registry.release_view(NEW))
    old = resolve_at("mistral-large-3", "a100", OLD, dtype="half")
    assert (old["attention_backend"], old["dtype"]) == ("flashinfer", "half")
    new = resolve_at("mistral-large-3", "a100", NEW, dtype="half")
    assert (new["attention_backend"], new["dtype"]) == ("triton", "bfloat16")


def test_modelslim_is_a_quantization_choice_from_0_5_6_post1():
    with pytest.raises(InvalidArgumentError, match="invalid choice: 'modelslim'"):
        resolve_at("llama-3.1-8b", "npu", OLD, quantization="modelslim")
    assert resolve_at("llama-3.1-8b", "npu", NEW, quantization="modelslim")["quantization"] == "modelslim"


def test_qwen3_vl_joins_the_hopper_fa3_list_in_0_5_6_post1():
    """``utils/common.is_fa3_default_architecture``: Qwen3-VL, Qwen3-VL-MoE and GLM-4V are not on
    0.5.6's list (Hopper gives Qwen3-VL flashinfer) and are on 0.5.6.post1's (fa3); found by the
    held-out seed 1796473277 (docs/fidelity.md)."""
    assert resolve_at("qwen3-vl-8b", "h100", OLD)["attention_backend"] == "flashinfer"
    assert resolve_at("qwen3-vl-8b", "h100", NEW)["attention_backend"] == "fa3"
    assert resolve_at("llama-3.1-8b", "h100", OLD)["attention_backend"] == "fa3"
