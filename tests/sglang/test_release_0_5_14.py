"""sglang 0.5.13 → 0.5.14: one golden case per modelled change (docs/releases/0.5.14.md).

Each case resolves the same input with 0.5.13 (the oldest resolved release; 0.5.13.post1 maps to
it) and with 0.5.14 and asserts both answers. The 0.5.13 answers were checked against the real
sglang 0.5.13.post1 ``ServerArgs`` (tools/agreement, oracle venv-0.5.13.post1).
"""

from __future__ import annotations

import pytest
from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table
from resolvable.sglang.flags.values import normalise

OLD, NEW = "0.5.13", "0.5.14"


def test_the_changes_of_0_5_14_are_named():
    names = {c.name for c in CHANGES.introduced(NEW)}
    assert {
        "MAMBA_AUTO_STRATEGY",
        "QWEN3_5_SM100_PAGE_SIZE",
        "MIMO_V2_HICACHE_NEEDS_UNIFIED_TREE",
        "GPT_OSS_SM120_MARLIN",
        "GEMMA4_ASCEND",
        "GEMMA4_FP4_MOE_TRTLLM_MHA",
        "CHOICES_NVFP4_ONLINE",
    } <= names


def test_mamba_auto_was_no_buffer_and_a_page_size_was_reset():
    """server_args._handle_mamba_radix_cache: 0.5.13 resets the page size to 1 under no_buffer;
    0.5.14 refuses it (no_buffer) or picks extra_buffer (auto, paging)."""
    old = resolve_at("falcon-h1-7b", "h100", OLD, page_size=16)
    assert (old["page_size"], old["mamba_radix_cache_strategy"], old["disable_overlap_schedule"]) == (
        1,
        "no_buffer",
        True,
    )
    new = resolve_at("falcon-h1-7b", "h100", NEW, page_size=16)
    assert new["mamba_radix_cache_strategy"] == "extra_buffer" and new["page_size"] == 16


def test_mamba_extra_buffer_off_cuda_and_speculation_under_no_buffer():
    """The 0.5.13 platform message; no_buffer with speculation is refused (ROCm: radix off)."""
    message = refusal_at("qwen3-next-80b-a3b", "cpu-amx", OLD, mamba_radix_cache_strategy="extra_buffer")
    assert "only supported on CUDA and MUSA and NPU" in message
    spec = {
        "speculative_algorithm": "NEXTN",
        "speculative_eagle_topk": 1,
        "speculative_num_steps": 1,
        "speculative_num_draft_tokens": 2,
    }
    assert "not compatible with radix cache" in refusal_at("qwen3-next-80b-a3b", "h100", OLD, **spec)
    assert resolve_at("qwen3-next-80b-a3b", "mi300x", OLD, **spec)["disable_radix_cache"] is True


def test_kimi_linear_ran_without_the_radix_cache_and_extra_buffer_needed_it():
    """0.5.13: extra_buffer with --disable-radix-cache is refused (0.5.14 ignores the strategy)."""
    message = refusal_at(
        "falcon-h1-7b", "h100", OLD, mamba_radix_cache_strategy="extra_buffer", disable_radix_cache=True
    )
    assert "not compatible with --disable-radix-cache" in message
    assert resolve_at(
        "falcon-h1-7b", "h100", NEW, mamba_radix_cache_strategy="extra_buffer", disable_radix_cache=True
    )


def test_qwen3_5_sm100_default_brings_its_page_size_from_0_5_14():
    flags = {"disable_radix_cache": True, "page_size": 32}
    old, new = (resolve_at("qwen3-next-80b-a3b", "b200", r, **flags) for r in (OLD, NEW))
    assert (old["attention_backend"], old["page_size"]) == ("trtllm_mha", 32)  # the user's page size
    assert (new["attention_backend"], new["page_size"]) == ("trtllm_mha", 64)


def test_mimo_v2_hierarchical_cache():
    old = resolve_at("mimo-v2-flash", "h20", OLD, enable_hierarchical_cache=True)
    assert old["swa_full_tokens_ratio"] == 1.0 and old["disable_hybrid_swa_memory"] is True
    # 0.5.13's HiCache step 3: implicit FA3 decode with kernel I/O -> triton (attention sinks)
    assert (old["attention_backend"], old["decode_attention_backend"]) == ("fa3", "triton")
    assert "SGLANG_ENABLE_UNIFIED_RADIX_TREE" in refusal_at(
        "mimo-v2-flash", "h20", NEW, enable_hierarchical_cache=True
    )


def test_gpt_oss_mxfp4_on_sm120():
    assert resolve_at("gpt-oss-20b", "rtx5090", OLD)["moe_runner_backend"] == "triton_kernel"
    assert resolve_at("gpt-oss-20b", "rtx5090", NEW)["moe_runner_backend"] == "marlin"


def test_gemma4_ascend_accepted_from_0_5_14():
    assert "Gemma4 only supports" in refusal_at("gemma-4-31b", "npu", OLD, attention_backend="ascend")
    assert resolve_at("gemma-4-31b", "npu", NEW, attention_backend="ascend")["attention_backend"] == "ascend"


@pytest.mark.parametrize("release", [OLD, NEW])
def test_nvfp4_online_is_a_choice_from_0_5_14(release):
    choices = load_table(release).by_option["--quantization"].choices
    assert ("nvfp4_online" in choices) == (release == NEW)


def test_0_5_13_parallel_flags_and_the_renamed_strategy():
    table = load_table(OLD)
    assert table.by_option["--dp-size"].dest == "dp_size" and table.by_option["--ep"].dest == "ep_size"
    out, _, consumed = normalise({"mamba_scheduler_strategy": "extra_buffer"}, {})
    assert out == {"mamba_radix_cache_strategy": "extra_buffer"} and consumed == {"mamba_scheduler_strategy"}


@pytest.mark.parametrize("tag", ["v0.5.13.post1-cu126", "v0.5.13-rocm630"])
def test_an_image_tag_of_0_5_13_is_a_resolved_release(tag):
    from resolvable import packs

    sglang = packs.get("sglang")
    assert sglang.tag_release(tag) == "0.5.13" and "0.5.13" in sglang.releases
    assert sglang.tag_release("v0.5.7-cu126") not in sglang.releases  # still parse-only
