"""vLLM 0.30.0-0.34.0 (issue 17 item 5): selection and block size follow each release (spec §9),
through named changes (`vllm/changes.py`), one rule body each; explain names the change."""

from __future__ import annotations

import re

import pytest
from vllm_cases import candidates, res

from resolvable.errors import ConflictError
from resolvable.vllm import registry
from resolvable.vllm.changes import CHANGES, SELECTION

RELEASES = (
    "0.20.0",
    "0.20.1",
    "0.20.2",
    "0.21.0",
    "0.22.0",
    "0.22.1",
    "0.23.0",
    "0.24.0",
    "0.25.0",
    "0.25.1",
    "0.26.0",
    "0.27.0",
    "0.27.1",
    "0.28.0",
    "0.29.0",
    "0.30.0",
    "0.31.0",
    "0.32.0",
    "0.33.0",
    "0.34.0",
)


def test_releases_and_default():
    assert registry.releases == RELEASES
    assert registry.default_release == "0.34.0"
    with pytest.raises(
        ValueError,
        match=re.escape(", ".join(RELEASES)),
    ):
        res("llama-3.1-8b", "h100", vllm_version="0.19.1")


def test_every_change_arrives_in_a_supported_release():
    assert {c.since for c in CHANGES} <= set(RELEASES[1:])
    assert all(c in CHANGES for changes in SELECTION.values() for c, _ in changes)


@pytest.mark.parametrize(
    ("model", "preset", "block_33", "block_34"),
    [
        ("llama-3.1-8b", "h100", 16, 64),  # FLASH_ATTN
        ("gpt-oss-120b", "h100", 16, 64),
        ("deepseek-v3", "h100", 16, 64),  # FLASH_ATTN_MLA
        ("deepseek-v3", "b200", 32, 64),  # FLASHINFER_MLA accepts 64
        ("llama-3.1-8b", "mi300x", 16, 16),  # ROCM_ATTN keeps 16 (§9.2 item 1)
        ("llama-3.1-8b", "cpu", 128, 128),  # CPU default 128 (§9.6)
    ],
)
def test_default_block_size_64_from_0_34(model, preset, block_33, block_34):
    """§9.2 item 1: DEFAULT_BLOCK_SIZE 16 → 64; every backend that accepts 64 prefers it."""
    assert res(model, preset, vllm_version="0.33.0")["block_size"] == block_33
    assert res(model, preset, vllm_version="0.34.0")["block_size"] == block_34


def test_user_block_size_is_kept_in_every_release():
    for release in RELEASES:
        assert res("llama-3.1-8b", "h100", vllm_version=release, block_size=32)["block_size"] == 32


def test_explain_names_the_release_change():
    r = res("llama-3.1-8b", "h100", vllm_version="0.34.0", trace=True)
    step = r.explain("block_size").steps[-1]
    text = " ".join(str(k) for k, _ in step.inputs)
    assert "vllm ≥ 0.34.0 (DEFAULT_BLOCK_SIZE_64, config/cache.py : CacheConfig.DEFAULT_BLOCK_SIZE)" in text


def test_sparse_fa4_leads_sm100_low_heads_from_0_33():
    """§9.3 item 1: DSV3.2 at TP8 (16 heads per rank) on SM100: FLASHINFER_MLA_SPARSE in 0.32,
    FLASH_ATTN_MLA_SPARSE_FA4 in 0.33."""
    assert (
        res("deepseek-v3.2", "b200", vllm_version="0.32.0", tensor_parallel_size=8)["attn_backend_mla"]
        == "FLASHINFER_MLA_SPARSE"
    )
    assert (
        res("deepseek-v3.2", "b200", vllm_version="0.33.0", tensor_parallel_size=8)["attn_backend_mla"]
        == "FLASH_ATTN_MLA_SPARSE_FA4"
    )
    names = candidates(
        res("deepseek-v3.2", "b200", vllm_version="0.32.0", tensor_parallel_size=8, trace=True),
        "attn_backend_mla",
    )
    assert "FLASH_ATTN_MLA_SPARSE_FA4" not in names


def test_sparse_mla_block_lists_before_0_32():
    """§9.4 item 4: FLASHINFER_MLA_SPARSE's kernel sizes are [32, 64] in 0.30-0.31, MultipleOf(32) later."""
    from resolvable.vllm import load_model
    from resolvable.vllm.backends.cuda import FLASHINFER_MLA_SPARSE
    from resolvable.vllm.layers import changes_of, layer_queries
    from resolvable.vllm.platforms import platform

    class Args(dict):
        __getattr__ = dict.__getitem__

    args = Args(res("deepseek-v3.2", "b200").to_dict()["values"])
    query = layer_queries(
        load_model("deepseek-v3.2"), args, platform("b200"), {}, user_block_size=None, kernels=frozenset()
    )[0]
    for release, sizes in (("0.31.0", ["32", "64"]), ("0.32.0", ["M32"])):
        changes = changes_of(query, lambda c, r=release: c.name in CHANGES.present(r))
        assert [repr(b) for b in FLASHINFER_MLA_SPARSE.block_sizes(query._replace(changes=changes))] == sizes


def test_first_backend_block_size_in_0_30():
    """§9.5 item 1: 0.30 takes the first attention backend's preference (no LCM across backends)."""
    flags = {"attention_config": {"backend_per_kind": {"sliding_window": "FLASHINFER"}}, "block_size": None}
    r30 = res("gpt-oss-120b", "h100", vllm_version="0.30.0", **flags)
    r31 = res("gpt-oss-120b", "h100", vllm_version="0.31.0", **flags)
    assert r30["block_size"] == r31["block_size"] == 16


def test_rocm_list_grows_ultraquant_then_octave():
    def rocm(release):
        return candidates(
            res("llama-3.1-8b", "mi300x", vllm_version=release, trace=True), "attn_backend_full"
        )

    assert "ULTRAQUANT" not in rocm("0.31.0") and "ROCM_OCTAVE" not in rocm("0.31.0")
    assert "ULTRAQUANT" in rocm("0.32.0") and "ROCM_OCTAVE" not in rocm("0.32.0")
    assert "ULTRAQUANT" in rocm("0.33.0") and "ROCM_OCTAVE" in rocm("0.33.0")


def test_xpu_mla_is_triton_before_0_32():
    """§9.4 item 2: XPU MLA always TRITON_MLA (no XPUFlashAttnMLABackend), a selection ignored."""
    assert res("deepseek-v2-lite", "xpu", vllm_version="0.31.0")["attn_backend_mla"] == "TRITON_MLA"
    assert (
        res("deepseek-v2-lite", "xpu", vllm_version="0.31.0", attention_backend="FLASH_ATTN_MLA")[
            "attn_backend_mla"
        ]
        == "TRITON_MLA"
    )
    assert res("deepseek-v2-lite", "xpu", vllm_version="0.32.0")["attn_backend_mla"] == "FLASH_ATTN_MLA"


def test_cpu_kv_dtype_refusals_from_0_33():
    """§9.3 item 3: 0.32 has no "... is not supported by MLA attention on CPU." refusal."""
    with pytest.raises(ConflictError, match="is not supported by MLA attention on CPU"):
        res("deepseek-v2-lite", "cpu", vllm_version="0.33.0", kv_cache_dtype="fp8")
    assert (
        res("deepseek-v2-lite", "cpu", vllm_version="0.32.0", kv_cache_dtype="fp8")["attn_backend_mla"]
        == "CPU_MLA"
    )


def test_fingerprint_differs_per_release():
    a = res("qwen3-8b", "h100", vllm_version="0.33.0").fingerprint()
    b = res("qwen3-8b", "h100", vllm_version="0.34.0").fingerprint()
    assert a != b


def test_fa_fp8_head_512_on_sm90_from_0_31():
    """fa_utils.flash_attn_supports_kv_cache_dtype: 0.30 reads an FP8 cache only with FA3 on SM90 or
    FA4 on SM100, so gemma-4's head-512 full layers leave FLASH_ATTN (with 0.30's words); 0.31 adds
    FA4 at head 512 on SM90."""
    r30 = res("gemma-4-31b", "h100", vllm_version="0.30.0", kv_cache_dtype="fp8", trace=True)
    assert r30["attn_backend_full"] != "FLASH_ATTN"
    assert candidates(r30, "attn_backend_full")["FLASH_ATTN"] == (
        "FP8 KV cache requires FA3 on SM90 or FA4 on SM100",
    )
    assert (
        res("gemma-4-31b", "h100", vllm_version="0.31.0", kv_cache_dtype="fp8")["attn_backend_full"]
        == "FLASH_ATTN"
    )


@pytest.mark.parametrize(
    ("release", "words"),
    [
        ("0.33.0", "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100"),
        ("0.34.0", "FP8 KV requires FA3 (SM90), equal-d512 FA4 (SM90), or FA4 (SM100)."),
    ],
)
def test_fa_fp8_refusal_words_per_release(release, words):
    """The oracle's messages (h17o dev case selector-3117-00000, mimo-v2-flash head 192 on SM121)."""
    with pytest.raises(ConflictError, match=re.escape(words)):
        res(
            "mimo-v2-flash",
            "rtx5090",
            vllm_version=release,
            kv_cache_dtype="fp8",
            attention_backend="FLASH_ATTN",
            block_size=16,
        )


def test_triton_flash_attn_causal_route_fa4_only_in_0_30():
    """§9.5 item 3: 0.30's composite asks FA4 for its causal route ("causal route requires
    FlashAttention v4"); 0.31 accepts FA3 too."""
    from resolvable.vllm.backends.cuda import TRITON_FLASH_ATTN

    q30 = _sm90_mm_prefix_query("0.30.0")
    q31 = _sm90_mm_prefix_query("0.31.0")
    assert "causal route requires FlashAttention v4" in TRITON_FLASH_ATTN.candidate.reasons(q30)
    assert "causal route requires FlashAttention v3 or v4" not in TRITON_FLASH_ATTN.candidate.reasons(q31)


def _sm90_mm_prefix_query(release):
    from resolvable.vllm import load_model
    from resolvable.vllm.layers import changes_of, layer_queries
    from resolvable.vllm.platforms import platform

    class Args(dict):
        __getattr__ = dict.__getitem__

    args = Args(res("gemma-3-27b", "h100", vllm_version="0.33.0").to_dict()["values"])
    q = layer_queries(
        load_model("gemma-3-27b"),
        args,
        platform("h100"),
        {},
        user_block_size=None,
        kernels=frozenset({"fa3"}),
    )[0]
    q = q._replace(head_size=256, use_mm_prefix=True)
    return q._replace(changes=changes_of(q, lambda c: c.name in CHANGES.present(release)))
