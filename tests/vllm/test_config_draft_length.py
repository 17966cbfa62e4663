"""Golden facts of a draft model's length limiting ``max_model_len`` (``resolvable.vllm.config.
draft_length``), read from the wheels: 0.33/0.34 ``VllmConfig._limit_max_model_len_to_draft``
(``config/vllm.py``), ``SpeculativeConfig.draft_shares_target_positions`` (0.33) /
``DraftModelSpeculatorConfig.max_model_len`` (0.34, ``v1/worker/gpu/spec_decode/
speculator_config.py``), ``_maybe_override_draft_max_model_len``; 0.28-0.32 have no such call.
Real draft configs: tests/vllm/drafts (sources in tests/vllm/drafts/SOURCES)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.config.draft_length import rope_only_sizes_cache
from resolvable.vllm.config.parallel import with_gpus
from resolvable.vllm.platforms import platform

DRAFTS = Path(__file__).parent / "drafts"
OLD = ("0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0")
NEW = ("0.33.0", "0.34.0")


def _len(release: str, model: str, spec: dict, env: dict | None = None, **flags) -> int:
    hf = load_model(model)
    r = resolve_vllm_args(
        hf, with_gpus(platform("h100"), 1), vllm_version=release, speculative_config=json.dumps(spec),
        env=env or {}, **flags,
    )  # fmt: skip
    return r["max_model_len"]


QWEN06 = str(DRAFTS / "qwen3-0.6b")


LONG = {"hf_overrides": json.dumps({"max_position_embeddings": 65536})}  # Qwen3-8B served at 64K


@pytest.mark.parametrize("release", NEW)
def test_plain_draft_model_lowers_the_target_length(release):
    # Qwen3-8B at 65536 (an --hf-overrides length); the Qwen3-0.6B draft derives 40960 and wins
    assert _len(release, "qwen3-8b", {"model": QWEN06, "num_speculative_tokens": 4}, **LONG) == 40960
    spec = {"method": "draft_model", "model": QWEN06, "num_speculative_tokens": 2}
    assert _len(release, "qwen3-8b", spec, **LONG) == 40960


@pytest.mark.parametrize("release", OLD)
def test_no_limit_before_0_33(release):
    assert _len(release, "qwen3-8b", {"model": QWEN06, "num_speculative_tokens": 4}, **LONG) == 65536


@pytest.mark.parametrize("release", NEW)
def test_a_user_length_is_lowered_too(release):
    # operators-8001-00282 (0.34 oracle): --max-model-len above the draft's is lowered as well
    spec = {"model": QWEN06, "num_speculative_tokens": 4}
    assert _len(release, "qwen3-8b", spec, max_model_len=65536, **LONG) == 40960


@pytest.mark.parametrize("release", NEW)
def test_a_shorter_target_is_kept(release):
    # min(draft, target): the draft never raises the length
    spec = {"model": QWEN06, "num_speculative_tokens": 4}
    assert _len(release, "qwen3-8b", spec, max_model_len=8192) == 8192


def test_0_33_limits_under_the_v2_runner_only():
    spec = {"model": QWEN06, "num_speculative_tokens": 4}
    assert _len("0.33.0", "qwen3-8b", spec, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}, **LONG) == 65536
    assert _len("0.33.0", "qwen3-8b", spec, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}, **LONG) == 40960


@pytest.mark.parametrize("release", OLD + NEW)
def test_a_draft_model_needs_the_target_vocabulary(release):
    # verify_equal_vocab_size_if_draft_model: Llama-3.1-8B (128256) with Qwen3-0.6B (151936);
    # checked with the oracles 0.28/0.30/0.33/0.34 (tools/agreement_vllm_config/draft_check.py)
    with pytest.raises(
        ConflictError, match=r"Target model vocab_size=128256\. Draft model vocab_size=151936"
    ):
        _len(release, "llama-3.1-8b", {"model": QWEN06, "num_speculative_tokens": 4})
    # an EAGLE3 head's own vocabulary is not checked
    spec = {"method": "eagle3", "model": str(DRAFTS / "qwen3-8b-eagle3"), "num_speculative_tokens": 3}
    assert _len(release, "llama-3.1-8b", spec) == 131072


@pytest.mark.parametrize("release", NEW)
@pytest.mark.parametrize("name", ["llama3.1-8b-eagle3", "llama3.3-70b-eagle3", "qwen3-8b-eagle3"])
def test_eagle3_heads_share_the_target_positions(release, name):
    # default / llama3 RoPE only sizes the cos-sin cache: vLLM raises the draft's
    # max_position_embeddings (2048, 4096) to the target's length instead of lowering it
    spec = {"method": "eagle3", "model": str(DRAFTS / name), "num_speculative_tokens": 3}
    assert _len(release, "llama-3.1-8b", spec) == 131072


@pytest.mark.parametrize("release", NEW)
def test_an_eagle3_head_with_yarn_rope_limits(release, tmp_path):
    cfg = json.loads((DRAFTS / "llama3.1-8b-eagle3" / "config.json").read_text())
    cfg["rope_scaling"] = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 2048}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    spec = {"method": "eagle3", "model": str(tmp_path), "num_speculative_tokens": 3}
    # YaRN is not cache-only: the draft's own length (2048; YaRN's factor is not applied from
    # 0.30 on, config/model.py) limits the target's
    assert _len(release, "llama-3.1-8b", spec) == 2048


def test_rope_only_sizes_cache():
    assert rope_only_sizes_cache(HFConfig({"rope_scaling": None}))
    assert rope_only_sizes_cache(HFConfig({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}))
    assert not rope_only_sizes_cache(HFConfig({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}))
    assert not rope_only_sizes_cache(HFConfig({"rope_scaling": {"type": "dynamic", "factor": 2.0}}))


@pytest.mark.parametrize("release", NEW)
def test_draftless_methods_never_limit(release):
    spec = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
    assert _len(release, "llama-3.1-8b", spec) == 131072


@pytest.mark.parametrize("release", OLD + NEW)
def test_mimo_v2_keeps_the_hybrid_manager_with_a_drafter(release):
    # _strip_mimo_v2_attention_chunk_size (transformers_utils/model_arch_config_convertor.py, every
    # release): MiMo-V2-Flash's attention_chunk_size 128 is deleted, so an EAGLE3 or MTP drafter
    # does not turn the hybrid KV-cache manager off (dev operators-8001-00395, 0.34 oracle);
    # Llama-4-Scout's chunked-local attention still does
    for spec in (
        {"method": "eagle3", "model": str(DRAFTS / "llama3.1-8b-eagle3"), "num_speculative_tokens": 3},
        {"method": "mtp", "num_speculative_tokens": 1},
    ):
        r = resolve_vllm_args(
            load_model("mimo-v2-flash"), with_gpus(platform("h200"), 8), vllm_version=release,
            speculative_config=json.dumps(spec), tensor_parallel_size=8,
        )  # fmt: skip
        assert r["disable_hybrid_kv_cache_manager"] is False
    eagle3 = {"method": "eagle3", "model": str(DRAFTS / "llama3.1-8b-eagle3"), "num_speculative_tokens": 3}
    r = resolve_vllm_args(
        load_model("llama-4-scout"), with_gpus(platform("h200"), 8), vllm_version=release,
        speculative_config=json.dumps(eagle3), tensor_parallel_size=8,
    )  # fmt: skip
    assert r["disable_hybrid_kv_cache_manager"] is True


@pytest.mark.parametrize("release", OLD + NEW)
def test_a_dense_draft_under_expert_parallelism(release):
    # create_draft_parallel_config: 0.28/0.29 give the draft no EP, 0.30 the target's (the dense
    # draft's verify_with_parallel_config refuses), 0.31+ EP only for an MoE draft (dev
    # operators-8002-00044 on the 0.30 oracle; draft_check.py q30-eagle3-ep)
    spec = {"method": "eagle3", "model": str(DRAFTS / "qwen3-8b-eagle3"), "num_speculative_tokens": 3}
    kw = {"speculative_config": json.dumps(spec), "tensor_parallel_size": 2, "enable_expert_parallel": True}
    hf, p = load_model("qwen3-30b-a3b"), with_gpus(platform("h100"), 2)
    if release == "0.30.0":
        with pytest.raises(ConflictError, match="Number of experts in the model must be greater than 0"):
            resolve_vllm_args(hf, p, vllm_version=release, **kw)
    else:
        assert resolve_vllm_args(hf, p, vllm_version=release, **kw)["speculative_method"] == "eagle3"


@pytest.mark.parametrize("release", OLD + NEW)
def test_a_draft_directory_under_pipeline_parallelism(release):
    # 0.28/0.29: the draft's parallel config has the target's PP, and the EAGLE3 head's class
    # (Eagle3LlamaForCausalLM) has no SupportsPP (dev operators-8002-00078, 0.28 oracle); a plain
    # Qwen3 draft model does; from 0.30 the draft runs with PP 1
    eagle3 = {"method": "eagle3", "model": str(DRAFTS / "qwen3-8b-eagle3"), "num_speculative_tokens": 3}
    plain = {"model": QWEN06, "num_speculative_tokens": 3}
    hf, p = load_model("qwen3-8b"), with_gpus(platform("h100"), 2)
    kw = {"pipeline_parallel_size": 2, "distributed_executor_backend": "mp"}
    if release in ("0.28.0", "0.29.0"):
        with pytest.raises(ConflictError, match="Pipeline parallelism is not supported for this model"):
            resolve_vllm_args(hf, p, vllm_version=release, speculative_config=json.dumps(eagle3), **kw)
    else:
        r = resolve_vllm_args(hf, p, vllm_version=release, speculative_config=json.dumps(eagle3), **kw)
        assert r["speculative_method"] == "eagle3"
    r = resolve_vllm_args(hf, p, vllm_version=release, speculative_config=json.dumps(plain), **kw)
    assert r["speculative_method"] == "draft_model"
