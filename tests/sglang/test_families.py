"""Decision tables for the per-architecture rules of sglang 0.5.15 (spec §3.1-§3.21).

Source: ``/work/shared/reference/sglang-attention-spec.md`` §3 (per-architecture logic), read
together with §1 (platform predicates), §2.2 (order of resolution), §4 (generic passes that run
after the family rules) and §5 ("not set" semantics). Upstream behaviours from
``sglang-upstream-tests.md`` §2.6 (#23-#50) are cited where a case reproduces one.

The rows complement ``test_worked_examples.py`` (spec §8): they take the other branches of each
family's table. Every row is one parametrized case with the expected fields after the full
0.5.15 resolution, or the expected refusal (sglang's exception type + a message regex).

Rows that set ``speculative_eagle_topk`` also pass ``speculative_num_steps=3``: sglang 0.5.15
(arg_groups/speculative_hook.py ``_handle_eagle_family``) asserts that topk and draft tokens are
unset when it chooses the speculative parameters itself (num_steps unset); DFLASH rows pass a
``speculative_draft_model_path``, which ``_handle_dflash`` requires.
"""

from __future__ import annotations

import pytest

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
from sglang_tables import (
    ASSERT,
    CPU_ENGINE,
    DSA,
    EAGLE,
    MLA,
    NOT_IMPL,
    VALUE,
    E,
    Err,
    Row,
    check,
    decls,
    quant,
    resolve,
    row,
)

# golden cases of sglang 0.5.15 (spec): pinned (sglang_tables.resolve names the release)

# ---------------------------------------------------------------------------------------
# §3.1 DeepSeek family (MLA / DSA)
# ---------------------------------------------------------------------------------------

DSV3, DSV32, KIMI_K25 = "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration"
MISTRAL_L3, PIXTRAL, GLM5 = (
    "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration",
    "GlmMoeDsaForCausalLM",
)

DSA_ROWS = [
    # (a) DSA predicate: architectures[0] in the DSA list and index_topk set.
    row(
        "glm5-h100",
        GLM5,
        "h100",
        E(
            A="dsa",
            p=64,
            kv_cache_dtype="bfloat16",
            dsa_prefill_backend="flashmla_sparse",
            dsa_decode_backend="fa3",
        ),
        hf=DSA,
    ),
    row(
        "dsv3-with-index-topk-b200",
        DSV3,
        "b200",
        E(
            A="dsa",
            p=64,
            kv_cache_dtype="fp8_e4m3",
            dsa_prefill_backend="trtllm",
            dsa_decode_backend="trtllm",
            cuda_graph_backend_prefill="breakable",
        ),
        hf=DSA,
    ),
    row("mistral-large3-index-topk-h100", MISTRAL_L3, "h100", E(A="dsa", p=64, dtype="bfloat16"), hf=DSA),
    row(
        "kimi-k25-is-never-dsa-b200",
        KIMI_K25,
        "b200",
        E(
            A="trtllm_mla",
            p=64,
            kv_cache_dtype="auto",
            dsa_prefill_backend=None,
            dsa_decode_backend=None,
            cuda_graph_backend_prefill="breakable",
        ),
        hf=DSA,
    ),
    # "dsa" fill only when A, P and D are all unset (§5); pages and kv still apply.
    row(
        "split-flag-disables-dsa-fill",
        DSV32,
        "h100",
        E(A="fa3", P="fa3", D=None, p=64, kv_cache_dtype="bfloat16"),
        hf=DSA,
        prefill_attention_backend="fa3",
    ),
    row(
        "user-backend-kept",
        DSV32,
        "h100",
        E(A="flashmla", p=64, kv_cache_dtype="bfloat16"),
        hf=DSA,
        attention_backend="flashmla",
    ),
    # DSA page size: 64 unconditional; 1 on HIP without the AITER preshuffle (§1 predicate).
    row("user-page-overridden-64", DSV32, "h100", E(A="dsa", p=64), hf=DSA, page_size=16),
    row("hip-no-aiter-page-1", DSV32, "mi355x", E(A="dsa", p=1), hf=DSA),
    row("hip-user-page-overridden-1", DSV32, "mi300x", E(A="dsa", p=1), hf=DSA, page_size=64),
    row(
        "hip-aiter-preshuffle-page-64",
        DSV32,
        "mi300x",
        E(A="dsa", p=64, dsa_prefill_backend="tilelang", dsa_decode_backend="tilelang"),
        hf=DSA,
        env={"SGLANG_USE_AITER": "1", "AITER_ENABLE_AOT_GLUON_PA_MQA_LOGITS": "1"},
    ),
    row(
        "hip-preshuffle-disabled-page-1",
        DSV32,
        "mi300x",
        E(A="dsa", p=1),
        hf=DSA,
        env={"SGLANG_USE_AITER": "1", "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE": "1"},
    ),
    row(
        "hip-preshuffle-disabled-nsa-alias-page-1",
        DSV32,
        "mi300x",
        E(A="dsa", p=1),
        hf=DSA,
        env={"SGLANG_USE_AITER": "1", "SGLANG_NSA_HIP_DISABLE_PRESHUFFLE": "1"},
    ),
    # DSA kv-cache dtype (raw capability major: >= 10 -> fp8_e4m3, else bfloat16).
    row("kv-auto-mi300x-bfloat16", DSV32, "mi300x", E(kv_cache_dtype="bfloat16"), hf=DSA),
    row(
        "kv-auto-rtx5090-fp8",
        DSV32,
        "rtx5090",
        E(kv_cache_dtype="fp8_e4m3", dsa_prefill_backend="trtllm", dsa_decode_backend="trtllm"),
        hf=DSA,
    ),
    row(
        "kv-bf16-spelled-bfloat16",
        DSV32,
        "h100",
        E(kv_cache_dtype="bfloat16", dsa_prefill_backend="flashmla_sparse", dsa_decode_backend="fa3"),
        hf=DSA,
        kv_cache_dtype="bf16",
    ),
    row(
        "kv-fp8-hopper",
        DSV32,
        "h100",
        E(kv_cache_dtype="fp8_e4m3", dsa_prefill_backend="flashmla_kv", dsa_decode_backend="flashmla_kv"),
        hf=DSA,
        kv_cache_dtype="fp8_e4m3",
    ),
    row(
        "kv-bf16-blackwell",
        DSV32,
        "b200",
        E(kv_cache_dtype="bfloat16", dsa_prefill_backend="flashmla_sparse", dsa_decode_backend="trtllm"),
        hf=DSA,
        kv_cache_dtype="bf16",
    ),
    row(
        "kv-fp4-refused",
        DSV32,
        "b200",
        Err(ASSERT, r"DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"),
        hf=DSA,
        kv_cache_dtype="fp4_e2m1",
    ),
    row(
        "kv-e5m2-refused-b200",
        DSV32,
        "b200",
        Err(ASSERT, r"DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"),
        hf=DSA,
        kv_cache_dtype="fp8_e5m2",
    ),
    # DSA split backends: hisparse arm first, then HIP, then kv x capability.
    row(
        "hisparse-hip-tilelang",
        DSV32,
        "mi300x",
        E(dsa_prefill_backend="tilelang", dsa_decode_backend="tilelang"),
        hf=DSA,
        enable_hisparse=True,
    ),
    row(
        "hisparse-fp8-flashmla-kv",
        DSV32,
        "b200",
        E(dsa_prefill_backend="flashmla_kv", dsa_decode_backend="flashmla_kv"),
        hf=DSA,
        enable_hisparse=True,
    ),
    row(
        "hisparse-bf16-flashmla-sparse",
        DSV32,
        "h100",
        E(dsa_prefill_backend="flashmla_sparse", dsa_decode_backend="flashmla_sparse"),
        hf=DSA,
        enable_hisparse=True,
    ),
    row(
        "hip-one-side-user-set",
        DSV32,
        "mi300x",
        E(dsa_prefill_backend="flashmla_sparse", dsa_decode_backend="aiter"),
        hf=DSA,
        dsa_decode_backend="aiter",
    ),
    row(
        "user-sets-both-sides",
        DSV32,
        "h100",
        E(dsa_prefill_backend="tilelang", dsa_decode_backend="flashmla_kv"),
        hf=DSA,
        dsa_prefill_backend="tilelang",
        dsa_decode_backend="flashmla_kv",
    ),
    # On XPU only the "dsa" fill applies (no pages, kv dtype or split backends).
    row(
        "xpu-only-dsa-fill",
        DSV32,
        "xpu",
        E(A="dsa", p=1, kv_cache_dtype="auto", dsa_prefill_backend=None, dsa_decode_backend=None),
        hf=DSA,
    ),
    # Two-batch overlap with index-topk sharing.
    row(
        "tbo-topk-freq-refused",
        DSV32,
        "h100",
        Err(VALUE, r"--enable-two-batch-overlap is not supported with DSA index-topk sharing"),
        hf={**DSA, "index_topk_freq": 2},
        enable_two_batch_overlap=True,
    ),
    row(
        "tbo-topk-pattern-refused",
        DSV32,
        "h100",
        Err(VALUE, r"--enable-two-batch-overlap is not supported with DSA index-topk sharing"),
        hf={**DSA, "index_topk_pattern": "FSFS"},
        enable_two_batch_overlap=True,
    ),
    row(
        "tbo-no-sharing-ok",
        DSV32,
        "h100",
        E(A="dsa"),
        hf={**DSA, "index_topk_freq": 1, "index_topk_pattern": "FFFF"},
        enable_two_batch_overlap=True,
    ),
    # Prefill context parallelism (not NPU/XPU).
    row(
        "cp-zigzag",
        DSV32,
        "b200",
        E(
            enable_dp_attention=True,
            moe_dense_tp_size=1,
            moe_a2a_backend="deepep",
            ep_size=8,
            attn_cp_size=4,
            cuda_graph_backend_prefill="disabled",
        ),
        hf=DSA,
        tp_size=8,
        dp_size=2,
        enable_prefill_cp=True,
        cp_strategy="zigzag",
    ),
    # ep_size := tp_size and moe_a2a_backend := deepep are declarations: last writer wins over user input.
    row(
        "cp-zigzag-overrides-user-ep-and-a2a",
        DSV32,
        "b200",
        E(moe_a2a_backend="deepep", ep_size=8, attn_cp_size=8),
        hf=DSA,
        tp_size=8,
        enable_prefill_cp=True,
        cp_strategy="zigzag",
        ep_size=2,
        moe_a2a_backend="mooncake",
    ),
    # Interleave CP with dp 1: step 21 then turns DP attention off again (dp_size == 1).
    row(
        "cp-interleave",
        DSV32,
        "b200",
        E(
            moe_dense_tp_size=1,
            attn_cp_size=8,
            moe_a2a_backend="none",
            ep_size=1,
            cuda_graph_backend_prefill="disabled",
            enable_dp_attention=False,
        ),
        hf=DSA,
        tp_size=8,
        enable_prefill_cp=True,
        cp_strategy="interleave",
    ),
    row(
        "cp-interleave-with-dp-refused",
        DSV32,
        "b200",
        Err(ASSERT, r"interleave DSA CP does not support DP attention\."),
        hf=DSA,
        tp_size=8,
        dp_size=2,
        enable_prefill_cp=True,
    ),
    row(
        "cp-tp-over-8-refused",
        DSV32,
        "b200",
        Err(ASSERT, r"(?i)tp[-_ ]size"),
        hf=DSA,
        tp_size=16,
        enable_prefill_cp=True,
    ),
    row(
        "cp-with-pd-decode-refused",
        DSV32,
        "h100",
        Err(
            ASSERT,
            r"CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp\.",
        ),
        hf=DSA,
        tp_size=8,
        enable_prefill_cp=True,
        disaggregation_mode="decode",
    ),
    row(
        "cp-with-pd-decode-refused-npu",
        DSV32,
        "npu",
        Err(ASSERT, r"CP is only supported for prefill when PD disaggregation"),
        hf=DSA,
        tp_size=8,
        enable_prefill_cp=True,
        disaggregation_mode="decode",
    ),
]

NON_DSA_ROWS = [
    # (b) SM100 and A, P, D all unset -> trtllm_mla (no MLA check: the family list decides).
    row("dsv3-b300-trtllm-mla", DSV3, "b300", E(A="trtllm_mla", p=64), hf=MLA),
    row(
        "kimi-k25-b200-trtllm-mla-graph-kept",
        KIMI_K25,
        "b200",
        E(A="trtllm_mla", p=64, cuda_graph_backend_prefill="breakable"),
        hf=MLA,
    ),
    row("mistral-large3-mha-b200-trtllm-mla", MISTRAL_L3, "b200", E(A="trtllm_mla", p=64, dtype="bfloat16")),
    row(
        "pixtral-mla-b200",
        PIXTRAL,
        "b200",
        E(A="trtllm_mla", p=64, dtype="bfloat16"),
        hf={"text_config": {"kv_lora_rank": 512, "num_attention_heads": 4, "num_key_value_heads": 2}},
    ),
    row(
        "split-prefill-set-no-fill",
        DSV3,
        "b200",
        E(A="flashinfer", P="flashinfer", p=1),
        hf=MLA,
        prefill_attention_backend="flashinfer",
    ),
    row(
        "split-decode-set-no-fill",
        DSV3,
        "b200",
        E(A="flashinfer", D="flashmla", p=64),
        hf=MLA,
        decode_attention_backend="flashmla",
    ),
    row("sm120-no-fill", DSV3, "rtxpro6000", E(A="triton", p=1), hf=MLA),
    row("b200-cuda124-no-fill", DSV3, "b200-cu124", E(A="triton", p=1), hf=MLA),
    # Prefill CP for MLA models (non-DSA arm).
    row(
        "mla-prefill-cp",
        DSV3,
        "b200",
        E(
            moe_dense_tp_size=1,
            moe_a2a_backend="deepep",
            ep_size=8,
            attn_cp_size=4,
            enable_dp_attention=True,
            cuda_graph_backend_prefill="disabled",
        ),
        hf=MLA,
        tp_size=8,
        dp_size=2,
        enable_prefill_cp=True,
    ),
    row(
        "mha-member-prefill-cp-no-effect",
        MISTRAL_L3,
        "h100",
        E(moe_a2a_backend="none", ep_size=1, attn_cp_size=1, cuda_graph_backend_prefill="breakable"),
        tp_size=8,
        enable_prefill_cp=True,
    ),
    # Mistral-Large-3 / Pixtral: dtype bfloat16 unconditionally (overrides the user, upstream #25).
    row("mistral-large3-user-float16", MISTRAL_L3, "h100", E(dtype="bfloat16", A="fa3"), dtype="float16"),
    row("pixtral-user-float32", PIXTRAL, "h100", E(dtype="bfloat16", A="fa3"), dtype="float32"),
]

DEEPSEEK_MOE_ROWS = [
    # (c) SM100 only: adopt the checkpoint's quant_method; flashinfer_trtllm MoE when it fits.
    row(
        "fp8",
        DSV3,
        "b200",
        E(quantization="fp8", moe_runner_backend="flashinfer_trtllm"),
        hf={**MLA, **quant("fp8")},
    ),
    row(
        "modelopt-fp4",
        DSV3,
        "b200",
        E(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm"),
        hf={**MLA, **quant("modelopt_fp4")},
    ),
    row(
        "awq-keeps-auto",
        DSV3,
        "b200",
        E(quantization="awq", moe_runner_backend="auto"),
        hf={**MLA, **quant("awq")},
    ),
    row("unquantized", DSV3, "b200", E(quantization=None, moe_runner_backend="flashinfer_trtllm"), hf=MLA),
    row(
        "kimi-int4-thinking",
        KIMI_K25,
        "b200",
        E(quantization="compressed-tensors", moe_runner_backend="flashinfer_trtllm"),
        hf={
            **MLA,
            **quant(
                "compressed-tensors",
                config_groups={
                    "group_0": {
                        "weights": {"num_bits": 4, "group_size": 32, "strategy": "group", "type": "int"}
                    }
                },
            ),
        },
    ),
    row(
        "compressed-tensors-not-int4",
        KIMI_K25,
        "b200",
        E(quantization="compressed-tensors", moe_runner_backend="auto"),
        hf={
            **MLA,
            **quant(
                "compressed-tensors",
                config_groups={
                    "group_0": {
                        "weights": {"num_bits": 8, "group_size": 32, "strategy": "group", "type": "int"}
                    }
                },
            ),
        },
    ),
    row(
        "explicitly-unquantized",
        DSV3,
        "b200",
        E(quantization=None, moe_runner_backend="flashinfer_trtllm"),
        hf={**MLA, **quant("fp8")},
        quantization="unquant",
    ),
    row(
        "a2a-set-keeps-auto",
        DSV3,
        "b200",
        E(moe_runner_backend="auto"),
        hf={**MLA, **quant("fp8")},
        moe_a2a_backend="deepep",
    ),
    row(
        "user-runner-kept",
        DSV3,
        "b200",
        E(moe_runner_backend="triton"),
        hf={**MLA, **quant("fp8")},
        moe_runner_backend="triton",
    ),
    row(
        "not-sm100-nothing",
        DSV3,
        "h100",
        E(quantization=None, moe_runner_backend="auto"),
        hf={**MLA, **quant("fp8")},
    ),
    # HIP, modelopt_fp4, EAGLE, speculative MoE backends unset. sglang 0.5.15 builds the model
    # config first (spec §2.2 step 5), and configs/model_config.py:_verify_quantization refuses
    # modelopt_fp4 on ROCm (not in its ROCm list) before the DeepSeek branch (step 10f) runs, so
    # the spec's ROCm speculative-MoE rows are refused in 0.5.15; the ROCm refusal is reported
    # first, also where the branch would have refused (ep_size).
    row(
        "hip-spec-moe-default",
        DSV3,
        "mi300x",
        Err(VALUE, r"^modelopt_fp4 quantization is currently not supported in ROCm\."),
        hf=MLA,
        quantization="modelopt_fp4",
        **EAGLE,
    ),
    row(
        "hip-spec-moe-fp8-nextn-env",
        DSV3,
        "mi300x",
        Err(VALUE, r"^modelopt_fp4 quantization is currently not supported in ROCm\."),
        hf=MLA,
        env={"SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE": "1"},
        quantization="modelopt_fp4",
        ep_size=8,
        **EAGLE,
    ),
    row(
        "hip-spec-moe-fp8-nextn-env-needs-ep",
        DSV3,
        "mi300x",
        Err(VALUE, r"^modelopt_fp4 quantization is currently not supported in ROCm\."),
        hf=MLA,
        env={"SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE": "1"},
        quantization="modelopt_fp4",
        **EAGLE,
    ),
    row(
        "hip-spec-moe-nextn-not-matched",
        DSV3,
        "mi300x",
        Err(VALUE, r"^modelopt_fp4 quantization is currently not supported in ROCm\."),
        hf=MLA,
        quantization="modelopt_fp4",
        speculative_algorithm="NEXTN",
    ),
]


class TestDeepSeekFamily:
    """§3.1 DeepSeek family: DSA (a), non-DSA MLA (b), MoE/quantization (c)."""

    @pytest.mark.parametrize("r", DSA_ROWS)
    def test_dsa(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", NON_DSA_ROWS)
    def test_non_dsa(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", DEEPSEEK_MOE_ROWS)
    def test_moe_quantization(self, r: Row) -> None:
        check(r)

    def test_dsa_page_override_is_recorded_as_forced(self) -> None:
        res = resolve(DSV32, "h100", hf=DSA, page_size=16)
        assert res["page_size"] == 64
        assert res.explain("page_size").steps[-1].outcome == "forced"

    def test_mistral_large3_constant_declaration(self) -> None:
        """Upstream #23/#25: the constant entry declares dtype bfloat16, even over a user dtype."""
        for args in ({}, {"dtype": "float16"}):
            res = resolve(MISTRAL_L3, "h100", **args)
            assert res["dtype"] == "bfloat16"
            consts = decls(res, "constant[MistralLarge3ForCausalLM]")
            assert [d.fields for d in consts] == [{"dtype": "bfloat16"}]
        assert resolve(MISTRAL_L3, "h100", dtype="float16").explain("dtype").steps[-1].outcome == "forced"

    def test_mla_prefill_cp_declares_dp_attention(self) -> None:
        """The provider declares enable_dp_attention := True (step 21 resets it only for dp_size 1)."""
        res = resolve(DSV3, "b200", hf=MLA, tp_size=8, enable_prefill_cp=True)
        assert any(d.fields.get("enable_dp_attention") is True for d in decls(res, "deepseek_family"))
        assert res["attn_cp_size"] == 8
        assert res["enable_dp_attention"] is False  # §2.2 step 21: dp_size == 1


# ---------------------------------------------------------------------------------------
# §3.2 DeepseekV4ForCausalLM
# ---------------------------------------------------------------------------------------

DSV4 = "DeepseekV4ForCausalLM"

DSV4_ROWS = [
    row(
        "b300",
        DSV4,
        "b300",
        E(A="dsv4", p=256, kv_cache_dtype="fp8_e4m3", max_running_requests=256, swa_full_tokens_ratio=0.1),
    ),
    row(
        "h100-kv-auto-fp8-regardless-of-capability",
        DSV4,
        "h100",
        E(A="dsv4", p=256, kv_cache_dtype="fp8_e4m3"),
    ),
    row("mi300x", DSV4, "mi300x", E(A="dsv4", p=256, kv_cache_dtype="fp8_e4m3")),
    row("user-backend-overridden", DSV4, "b200", E(A="dsv4"), attention_backend="fa3"),
    row(
        "user-prefill-kept", DSV4, "b200", E(A="dsv4", P="flashinfer"), prefill_attention_backend="flashinfer"
    ),
    row("user-page-overridden", DSV4, "b200", E(p=256), page_size=64),
    row("npu-user-page-overridden", DSV4, "npu", E(A="dsv4", P="dsv4", D="dsv4", p=128), page_size=64),
    row("user-kv-bfloat16-kept", DSV4, "b200", E(kv_cache_dtype="bfloat16"), kv_cache_dtype="bfloat16"),
    row("npu-kv-forced-bfloat16", DSV4, "npu", E(kv_cache_dtype="bfloat16"), kv_cache_dtype="fp8_e4m3"),
    row(
        "kv-e5m2-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"fp8_e5m2 is not supported for DeepseekV4ForCausalLM"),
        kv_cache_dtype="fp8_e5m2",
    ),
    row(
        "kv-bf16-spelling-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"bf16 is not supported for DeepseekV4ForCausalLM"),
        kv_cache_dtype="bf16",
    ),
    row("user-max-running-requests-kept", DSV4, "b200", E(max_running_requests=64), max_running_requests=64),
    row("user-swa-ratio-kept", DSV4, "b200", E(swa_full_tokens_ratio=0.5), swa_full_tokens_ratio=0.5),
    row(
        "nextn-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"Only EAGLE speculative algorithm is supported"),
        speculative_algorithm="NEXTN",
        speculative_eagle_topk=1,
        speculative_num_steps=3,
    ),
    row("eagle-topk-unset-refused", DSV4, "b200", Err(ASSERT, r"topk == 1"), **EAGLE),
    row(
        "eagle-topk-2-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"topk == 1"),
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "eagle-topk-1-ok",
        DSV4,
        "b200",
        E(A="dsv4", p=256),
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "nvfp4-moe-meta",
        DSV4,
        "b200",
        E(moe_runner_backend="flashinfer_trtllm_routed"),
        hf={"nvfp4_moe_meta": {"group_size": 16}},
    ),
    row(
        "nvfp4-moe-meta-user-runner-kept",
        DSV4,
        "b200",
        E(moe_runner_backend="triton"),
        hf={"nvfp4_moe_meta": {"group_size": 16}},
        moe_runner_backend="triton",
    ),
    row(
        "prefill-cp-interleave",
        DSV4,
        "b200",
        E(
            enable_dsa_prefill_context_parallel=True,
            dsa_prefill_cp_mode="round-robin-split",
            moe_dense_tp_size=1,
            attn_cp_size=8,
        ),
        tp_size=8,
        enable_prefill_cp=True,
        cp_strategy="interleave",
    ),
    row(
        "prefill-cp-zigzag-refused",
        DSV4,
        "b200",
        Err(VALUE, r"interleave"),
        tp_size=8,
        enable_prefill_cp=True,
        cp_strategy="zigzag",
    ),
    row(
        "prefill-cp-no-strategy-refused",
        DSV4,
        "b200",
        Err(VALUE, r"interleave"),
        tp_size=8,
        enable_prefill_cp=True,
    ),
    row(
        "prefill-cp-dp-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"(?i)dp[-_ ]size"),
        tp_size=8,
        dp_size=2,
        enable_prefill_cp=True,
        cp_strategy="interleave",
    ),
    row(
        "prefill-cp-tp16-refused",
        DSV4,
        "b200",
        Err(ASSERT, r"(?i)tp[-_ ]size"),
        tp_size=16,
        enable_prefill_cp=True,
        cp_strategy="interleave",
    ),
    row("sm120-moe-marlin", DSV4, "rtx5090", E(moe_runner_backend="marlin", A="dsv4")),
    row("sm120-user-moe-kept", DSV4, "rtx5090", E(moe_runner_backend="triton"), moe_runner_backend="triton"),
    row("b200-moe-auto", DSV4, "b200", E(moe_runner_backend="auto")),
    row(
        "deterministic-refused",
        DSV4,
        "b200",
        Err(VALUE, r"deterministic inference, but you explicitly specified 'dsv4'"),
        enable_deterministic_inference=True,
    ),
]


class TestDeepseekV4:
    """§3.2 DeepseekV4ForCausalLM (MHA; dsv4 forced)."""

    @pytest.mark.parametrize("r", DSV4_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_backend_override_is_forced(self) -> None:
        res = resolve(DSV4, "b200", attention_backend="fa3")
        assert res.explain("attention_backend").steps[-1].outcome == "forced"


# ---------------------------------------------------------------------------------------
# §3.3 GptOssForCausalLM
# ---------------------------------------------------------------------------------------

GPT_OSS = "GptOssForCausalLM"
MXFP4 = quant("mxfp4")

GPT_OSS_ROWS = [
    # Attention fill (A, P, D all unset), first match by platform.
    row("b300", GPT_OSS, "b300", E(A="trtllm_mha", p=64)),
    row("h200", GPT_OSS, "h200", E(A="fa3", p=1)),
    row("cpu-amx", GPT_OSS, "cpu-amx", E(A="intel_amx", p=1), env=CPU_ENGINE),
    row("mi355x", GPT_OSS, "mi355x", E(A="aiter", p=1)),
    row("rtx5090", GPT_OSS, "rtx5090", E(A="triton", p=1)),
    row("l40s", GPT_OSS, "l40s", E(A="triton", p=1)),
    row("musa", GPT_OSS, "musa", E(A="triton", p=64)),
    # CPU without AMX: the device handler sets intel_amx (so no fill); C18 then falls back.
    row("cpu-no-amx", GPT_OSS, "cpu", E(A="torch_native"), env=CPU_ENGINE),
    # ARM CPU: the handler sets torch_native, which GPT-OSS does not accept.
    row(
        "cpu-arm-refused",
        GPT_OSS,
        "cpu-arm",
        Err(ASSERT, r"GptOssForCausalLM requires one of"),
        env=CPU_ENGINE,
    ),
    row("npu", GPT_OSS, "npu", E(A="ascend", P="ascend", D="ascend", p=128)),
    # XPU without XMX: fill intel_xpu, then C19 falls back to triton (before the C21 page rule).
    row("xpu-noxmx", GPT_OSS, "xpu-noxmx", E(A="triton", p=1)),
    # XPU dtype validation (reads the user's dtype).
    row("xpu-bfloat16-ok", GPT_OSS, "xpu", E(A="intel_xpu", dtype="bfloat16"), dtype="bfloat16"),
    row(
        "xpu-float32-refused",
        GPT_OSS,
        "xpu",
        Err(NOT_IMPL, r"GptOssForCausalLM on Intel XPU only supports bfloat16 dtype, but got 'float32'"),
        dtype="float32",
    ),
    row("xpu-half-refused", GPT_OSS, "xpu", Err(NOT_IMPL, r"but got 'half'"), dtype="half"),
    # mxfp4 checkpoints run in bfloat16 (overrides the user).
    row("mxfp4-a100", GPT_OSS, "a100", E(A="triton", dtype="bfloat16"), hf=MXFP4),
    row("mxfp4-user-float32", GPT_OSS, "h100", E(dtype="bfloat16"), hf=MXFP4, dtype="float32"),
    row("no-mxfp4-dtype-auto", GPT_OSS, "h100", E(dtype="auto")),
    row("fp8-checkpoint-dtype-auto", GPT_OSS, "h100", E(dtype="auto"), hf=quant("fp8")),
    # Backend assertion on both effective backends.
    row(
        "user-flashinfer-refused",
        GPT_OSS,
        "h100",
        Err(ASSERT, r"GptOssForCausalLM requires one of .* attention"),
        attention_backend="flashinfer",
    ),
    row("user-fa4-b200", GPT_OSS, "b200", E(A="fa4", p=128), attention_backend="fa4"),
    row(
        "decode-only-refused",
        GPT_OSS,
        "h100",
        Err(ASSERT, r"GptOssForCausalLM requires one of"),
        decode_attention_backend="triton",
    ),
    row(
        "split-pair-triton",
        GPT_OSS,
        "h100",
        E(A="triton", P="triton", D="triton"),
        prefill_attention_backend="triton",
        decode_attention_backend="triton",
    ),
    row(
        "decode-flashinfer-refused",
        GPT_OSS,
        "h100",
        Err(ASSERT, r"GptOssForCausalLM requires one of"),
        attention_backend="triton",
        decode_attention_backend="flashinfer",
    ),
    row("user-aiter-accepted", GPT_OSS, "mi300x", E(A="aiter"), attention_backend="aiter"),
]

GPT_OSS_MOE_ROWS = [
    row("sm120-mxfp4-marlin", GPT_OSS, "rtx5090", E(moe_runner_backend="marlin"), hf=MXFP4),
    row("hip-aiter-triton", GPT_OSS, "mi300x", E(moe_runner_backend="triton"), env={"SGLANG_USE_AITER": "1"}),
    row(
        "hip-aiter-mxfp4-stays-auto",
        GPT_OSS,
        "mi355x",
        E(moe_runner_backend="auto"),
        hf=MXFP4,
        env={"SGLANG_USE_AITER": "1"},
    ),
    row(
        "musa-bf16-dispatch-deep-gemm",
        GPT_OSS,
        "musa",
        E(moe_runner_backend="deep_gemm"),
        env={"SGLANG_DEEPEP_BF16_DISPATCH": "1"},
    ),
    row("h100-triton-kernel", GPT_OSS, "h100", E(moe_runner_backend="triton_kernel")),
    row("h100-mxfp4-triton-kernel", GPT_OSS, "h100", E(moe_runner_backend="triton_kernel"), hf=MXFP4),
    row("h100-new-driver-not-blackwell", GPT_OSS, "h100-drv595", E(moe_runner_backend="triton_kernel")),
    row("b200-old-driver-triton-kernel", GPT_OSS, "b200", E(moe_runner_backend="triton_kernel")),
    row("b200-new-driver-triton", GPT_OSS, "b200-drv595", E(moe_runner_backend="triton")),
    row("sm120-new-driver-triton", GPT_OSS, "rtx5090-drv595", E(moe_runner_backend="triton")),
    row("no-triton-kernels-auto", GPT_OSS, "h100-no-triton-kernels", E(moe_runner_backend="auto")),
    row("ep-2-auto", GPT_OSS, "h100", E(moe_runner_backend="auto"), ep_size=2),
    row("user-quantization-auto", GPT_OSS, "h100", E(moe_runner_backend="auto"), quantization="fp8"),
    row("cpu-amx-excluded", GPT_OSS, "cpu-amx+triton-kernels", E(moe_runner_backend="auto"), env=CPU_ENGINE),
    row(
        "cpu-no-amx-triton-kernel",
        GPT_OSS,
        "cpu+triton-kernels",
        E(moe_runner_backend="triton_kernel"),
        env=CPU_ENGINE,
    ),
    row(
        "user-runner-kept",
        GPT_OSS,
        "b200",
        E(moe_runner_backend="triton"),
        hf=MXFP4,
        moe_runner_backend="triton",
    ),
    row(
        "triton-kernel-needs-ep-1",
        GPT_OSS,
        "h100",
        Err(ASSERT, r"(?i)ep[-_ ]size"),
        moe_runner_backend="triton_kernel",
        ep_size=2,
    ),
]


class TestGptOss:
    """§3.3 GptOssForCausalLM: fill, XPU dtype, mxfp4 dtype, sink-capable backends, MoE runner."""

    @pytest.mark.parametrize("r", GPT_OSS_ROWS)
    def test_attention_and_dtype(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", GPT_OSS_MOE_ROWS)
    def test_moe_runner(self, r: Row) -> None:
        check(r)

    def test_without_mxfp4_no_dtype_declaration(self) -> None:
        """Upstream #36: a bf16 GPT-OSS keeps dtype "auto" and nothing declares dtype."""
        res = resolve(GPT_OSS, "h100")
        assert res["dtype"] == "auto"
        assert not [d for d in res.declarations if "dtype" in d.fields]


# ---------------------------------------------------------------------------------------
# §3.4 Llama4
# ---------------------------------------------------------------------------------------

LLAMA4, LLAMA4_CAUSAL = "Llama4ForConditionalGeneration", "Llama4ForCausalLM"

LLAMA4_ROWS = [
    row("b300", LLAMA4, "b300", E(A="trtllm_mha", p=64)),
    row("h200", LLAMA4, "h200", E(A="fa3", p=1)),
    row("causal-h100", LLAMA4_CAUSAL, "h100", E(A="fa3", p=1)),
    row("mi300x", LLAMA4, "mi300x", E(A="aiter", p=1)),
    row("mi355x", LLAMA4, "mi355x", E(A="aiter", p=1)),
    row("rtx5090", LLAMA4, "rtx5090", E(A="triton", p=1)),
    row("l40s", LLAMA4, "l40s", E(A="triton", p=1)),
    # XPU without XMX: intel_xpu fill, then C19 -> triton.
    row("xpu-noxmx", LLAMA4, "xpu-noxmx", E(A="triton", p=1)),
    row("npu", LLAMA4, "npu", E(A="ascend", P="ascend", D="ascend", p=128)),
    # Skipped entirely on device "cpu": no fill, no assertion.
    row("cpu-amx-skipped", LLAMA4, "cpu-amx", E(A="intel_amx"), env=CPU_ENGINE),
    row("cpu-arm-skipped-torch-native-accepted", LLAMA4, "cpu-arm", E(A="torch_native"), env=CPU_ENGINE),
    row("device-cpu-on-cuda-host-skipped", LLAMA4, "h100", E(A="torch_native"), device="cpu"),
    # Split fields are ignored by the fill (A is None).
    row("split-prefill-ignored", LLAMA4, "h100", E(A="fa3", P="triton"), prefill_attention_backend="triton"),
    row("user-triton-kept", LLAMA4, "b200", E(A="triton", p=1), attention_backend="triton"),
    row(
        "user-fa4-refused",
        LLAMA4,
        "b200",
        Err(
            ASSERT,
            r"fa3, aiter, triton, ascend, trtllm_mha or intel_xpu is required for Llama4 model but got fa4",
        ),
        attention_backend="fa4",
    ),
    # SM100 MoE runner for FP8.
    row("b200-fp8-moe", LLAMA4, "b200", E(moe_runner_backend="flashinfer_trtllm"), quantization="fp8"),
    row(
        "b200-modelopt-fp8-moe",
        LLAMA4,
        "b200",
        E(moe_runner_backend="flashinfer_trtllm"),
        quantization="modelopt_fp8",
    ),
    row("b200-awq-moe-auto", LLAMA4, "b200", E(moe_runner_backend="auto"), quantization="awq"),
    row("h100-fp8-moe-auto", LLAMA4, "h100", E(moe_runner_backend="auto"), quantization="fp8"),
]


class TestLlama4:
    """§3.4 Llama4: platform fill on A only, accepted-set assertion, skipped on device cpu."""

    @pytest.mark.parametrize("r", LLAMA4_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_monolith_callable_facts(self) -> None:
        """Upstream #49: trtllm_mha on SM100; {} on device cpu; {} with an explicit fa3; fa3 on SM90."""
        assert [d.fields for d in decls(resolve(LLAMA4, "b200"), "llama4_defaults")] == [
            {"attention_backend": "trtllm_mha"}
        ]
        assert decls(resolve(LLAMA4, "cpu-amx", env=CPU_ENGINE), "llama4_defaults") == []
        assert decls(resolve(LLAMA4, "b200", attention_backend="fa3"), "llama4_defaults") == []
        assert [d.fields for d in decls(resolve(LLAMA4, "h100"), "llama4_defaults")] == [
            {"attention_backend": "fa3"}
        ]


# ---------------------------------------------------------------------------------------
# §3.5 Gemma4
# ---------------------------------------------------------------------------------------

GEMMA4, GEMMA4_VL, GEMMA4_UNI = (
    "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration",
)

GEMMA4_ROWS = [
    row("vl-b300", GEMMA4_VL, "b300", E(A="trtllm_mha", p=64)),
    row("unified-h100", GEMMA4_UNI, "h100", E(A="triton", p=1)),
    row("mi300x", GEMMA4, "mi300x", E(A="triton", p=1)),
    row("xpu", GEMMA4, "xpu", E(A="triton", p=1)),
    row("rtx5090", GEMMA4, "rtx5090", E(A="triton", p=1)),
    row("a100", GEMMA4, "a100", E(A="triton", p=1)),
    # A None but a split flag set: secondary fill keeps the unset side Gemma4-compatible.
    row(
        "prefill-only-secondary-fill",
        GEMMA4,
        "h100",
        E(A="triton", P="triton", D=None, p=1),
        prefill_attention_backend="triton",
    ),
    row(
        "prefill-trtllm-b200",
        GEMMA4,
        "b200",
        E(A="trtllm_mha", P="trtllm_mha", p=64),
        prefill_attention_backend="trtllm_mha",
    ),
    row("user-triton-b200-kept", GEMMA4, "b200", E(A="triton", p=1), attention_backend="triton"),
    row("user-intel-xpu", GEMMA4, "xpu", E(A="intel_xpu", p=128), attention_backend="intel_xpu"),
    row(
        "user-flashinfer-refused",
        GEMMA4,
        "h100",
        Err(
            ASSERT,
            r"Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend, got prefill=flashinfer",
        ),
        attention_backend="flashinfer",
    ),
    row(
        "prefill-fa3-refused",
        GEMMA4,
        "h100",
        Err(ASSERT, r"got prefill=fa3, decode=triton"),
        prefill_attention_backend="fa3",
    ),
    row(
        "decode-flashinfer-refused",
        GEMMA4,
        "b200",
        Err(ASSERT, r"decode=flashinfer"),
        attention_backend="triton",
        decode_attention_backend="flashinfer",
    ),
    # SM100 NVFP4 MoE.
    row(
        "b200-modelopt-fp4",
        GEMMA4,
        "b200",
        E(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm"),
        hf=quant("modelopt_fp4"),
    ),
    row(
        "h100-modelopt-fp4-nothing",
        GEMMA4,
        "h100",
        E(quantization=None, moe_runner_backend="auto"),
        hf=quant("modelopt_fp4"),
    ),
]


class TestGemma4:
    """§3.5 Gemma4: primary/secondary fill and the accepted-set assertion."""

    @pytest.mark.parametrize("r", GEMMA4_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_monolith_callable_facts(self) -> None:
        """Upstream #49: trtllm_mha with SM100, triton without."""
        assert (
            decls(resolve(GEMMA4, "b200"), "gemma4_defaults")[0].fields["attention_backend"] == "trtllm_mha"
        )
        assert decls(resolve(GEMMA4, "h100"), "gemma4_defaults")[0].fields["attention_backend"] == "triton"


# ---------------------------------------------------------------------------------------
# §3.6 Gemma2 / Gemma3 / Gemma3n
# ---------------------------------------------------------------------------------------

GEMMA2_3_ARCHS = (
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "Gemma3nForCausalLM",
    "Gemma3nForConditionalGeneration",
)

GEMMA2_3_ROWS = [
    *[row(f"{a}-h100", a, "h100", E(A="fa3", p=1, disable_hybrid_swa_memory=True)) for a in GEMMA2_3_ARCHS],
    row(
        "gemma3-b200-generic",
        "Gemma3ForCausalLM",
        "b200",
        E(A="trtllm_mha", p=64, disable_hybrid_swa_memory=True),
    ),
    row(
        "gemma2-a100-generic",
        "Gemma2ForCausalLM",
        "a100",
        E(A="flashinfer", p=1, disable_hybrid_swa_memory=True),
    ),
]


class TestGemma2And3:
    """§3.6 Gemma2/3/3n: hybrid SWA memory off; attention from the generic default."""

    @pytest.mark.parametrize("r", GEMMA2_3_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_declaration(self) -> None:
        """Upstream #31."""
        res = resolve("Gemma2ForCausalLM", "h100")
        assert [d.fields for d in decls(res, "gemma2_gemma3_swa_memory")] == [
            {"disable_hybrid_swa_memory": True}
        ]


# ---------------------------------------------------------------------------------------
# §3.7 Exaone4 / ExaoneMoE
# ---------------------------------------------------------------------------------------

EXAONE4, EXAONE_MOE = "Exaone4ForCausalLM", "ExaoneMoEForCausalLM"
SWP = {"sliding_window_pattern": 4}
EXAONE_MSG = r"One of the attention backends in .* is required for {}, but got {}"

EXAONE_ROWS = [
    row(
        "moe-pattern-triton",
        EXAONE_MOE,
        "h100",
        E(A="triton", p=1, disable_hybrid_swa_memory=True),
        hf=SWP,
        attention_backend="triton",
    ),
    row(
        "moe-pattern-trtllm-b200",
        EXAONE_MOE,
        "b200",
        E(A="trtllm_mha", p=64, disable_hybrid_swa_memory=True),
        hf=SWP,
        attention_backend="trtllm_mha",
    ),
    row(
        "pattern-string-fa3",
        EXAONE4,
        "h100",
        E(A="fa3", disable_hybrid_swa_memory=True),
        hf={"sliding_window_pattern": "LLLG"},
        attention_backend="fa3",
    ),
    row(
        "moe-pattern-no-backend-refused",
        EXAONE_MOE,
        "b200",
        Err(ASSERT, EXAONE_MSG.format(EXAONE_MOE, "None")),
        hf=SWP,
    ),
    row(
        "pattern-flashinfer-refused",
        EXAONE4,
        "a100",
        Err(ASSERT, EXAONE_MSG.format(EXAONE4, "flashinfer")),
        hf=SWP,
        attention_backend="flashinfer",
    ),
    # Split fields are not considered: A stays None at the check.
    row(
        "pattern-split-only-refused",
        EXAONE4,
        "h100",
        Err(ASSERT, EXAONE_MSG.format(EXAONE4, "None")),
        hf=SWP,
        prefill_attention_backend="fa3",
        decode_attention_backend="fa3",
    ),
    # Device handlers set A before step 10.
    row(
        "pattern-npu-ascend-refused",
        EXAONE4,
        "npu",
        Err(ASSERT, EXAONE_MSG.format(EXAONE4, "ascend")),
        hf=SWP,
    ),
    row(
        "pattern-cpu-amx-refused",
        EXAONE4,
        "cpu-amx",
        Err(ASSERT, EXAONE_MSG.format(EXAONE4, "intel_amx")),
        hf=SWP,
        env=CPU_ENGINE,
    ),
    row(
        "moe-no-pattern-generic",
        EXAONE_MOE,
        "b200",
        E(A="trtllm_mha", p=64, disable_hybrid_swa_memory=False),
        hf={"sliding_window_pattern": None},
    ),
]


class TestExaone:
    """§3.7 Exaone4 / ExaoneMoE: sliding-window pattern => SWA pool off + explicit backend required."""

    @pytest.mark.parametrize("r", EXAONE_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_without_pattern_declares_nothing(self) -> None:
        """Upstream #34."""
        res = resolve(EXAONE4, "h100", hf={"sliding_window_pattern": None})
        assert decls(res, "exaone_swa_memory") == []


# ---------------------------------------------------------------------------------------
# §3.8 Olmo2ForCausalLM
# ---------------------------------------------------------------------------------------

OLMO2 = "Olmo2ForCausalLM"

OLMO2_ROWS = [
    row("b300", OLMO2, "b300", E(A="trtllm_mha", p=64, disable_hybrid_swa_memory=True)),
    row("l40s", OLMO2, "l40s", E(A="fa3", p=1)),
    row("h100", OLMO2, "h100", E(A="fa3", p=1)),
    row("sm120", OLMO2, "rtx5090", E(A="fa3", p=1)),
    row("hopper-cuda122", OLMO2, "h100-cu122", E(A="fa3", p=1)),
    row("cc10-cuda124", OLMO2, "b200-cu124", E(A="fa3", p=1)),
    row("pre-ampere", OLMO2, "t4", E(A="triton", p=1)),
    row("mi355x", OLMO2, "mi355x", E(A="triton", p=1)),
    row("xpu", OLMO2, "xpu", E(A="triton", p=1)),
    row("npu", OLMO2, "npu", E(A="ascend", p=128, disable_hybrid_swa_memory=True)),
    # Fill checks only A, so split-only settings still get A; the assertion reads A only.
    row(
        "split-prefill-still-filled",
        OLMO2,
        "h100",
        E(A="fa3", P="triton"),
        prefill_attention_backend="triton",
    ),
    row(
        "split-prefill-flashinfer-not-checked",
        OLMO2,
        "h100",
        E(A="fa3", P="flashinfer"),
        prefill_attention_backend="flashinfer",
    ),
    row(
        "user-triton-swa-off",
        OLMO2,
        "h100",
        E(A="triton", disable_hybrid_swa_memory=True),
        attention_backend="triton",
    ),
    row(
        "user-flashinfer-a100-refused",
        OLMO2,
        "a100",
        Err(ASSERT, r"FlashInfer backend can significantly degrade the performance of Olmo3 models\."),
        attention_backend="flashinfer",
    ),
]


class TestOlmo2:
    """§3.8 Olmo2ForCausalLM."""

    @pytest.mark.parametrize("r", OLMO2_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_swa_declared(self) -> None:
        """Upstream #32."""
        res = resolve(OLMO2, "h100")
        assert any(d.fields.get("disable_hybrid_swa_memory") is True for d in res.declarations)


# ---------------------------------------------------------------------------------------
# §3.9 Step3p5 / Step3p7 predicate
# ---------------------------------------------------------------------------------------

STEP3P5, STEP3P7 = "Step3p5ForCausalLM", "Step3p7ForConditionalGeneration"
STEP_HICACHE_HF = {"layer_types": ["sliding_attention", "full_attention"], "sliding_window": 64}

STEP3P_ROWS = [
    row("b300-fa4-page-128", STEP3P5, "b300", E(A="fa4", p=128)),
    row("step3p7-b200", STEP3P7, "b200", E(A="fa4", p=128)),
    row("substring-match", "Step3p5ForCausalLMNextN", "b200", E(A="fa4", p=128)),
    row("thor-blackwell-not-sm100", STEP3P5, "thor", E(A="fa4", p=1)),
    row("h200", STEP3P5, "h200", E(A="fa3", p=1)),
    row("step3p7-h100", STEP3P7, "h100", E(A="fa3", p=1)),
    row("mi300x-generic", STEP3P5, "mi300x", E(A="aiter", p=1)),
    row("xpu-generic", STEP3P5, "xpu", E(A="triton", p=1)),
    row("b200-cuda124-generic", STEP3P5, "b200-cu124", E(A="flashinfer", p=1)),
    # Any user backend field disables the fill ("not set" semantics, §5).
    row(
        "split-prefill-no-fill",
        STEP3P5,
        "b200",
        E(A="trtllm_mha", P="triton", p=64),
        prefill_attention_backend="triton",
    ),
    row("user-triton-kept", STEP3P5, "b200", E(A="triton", p=1), attention_backend="triton"),
    row("eagle-multi-layer", STEP3P5, "h100", E(A="fa3", enable_multi_layer_eagle=True), **EAGLE),
    row("nextn-not-eagle", STEP3P5, "h100", E(enable_multi_layer_eagle=False), speculative_algorithm="NEXTN"),
    row(
        "hicache",
        STEP3P5,
        "h100",
        E(swa_full_tokens_ratio=1.0, disable_hybrid_swa_memory=True),
        hf=STEP_HICACHE_HF,
        enable_hierarchical_cache=True,
    ),
    # := 1.0 is unconditional (the provider's declaration replaces the pristine value, §6.6).
    row(
        "hicache-overrides-user-ratio",
        STEP3P5,
        "h100",
        E(swa_full_tokens_ratio=1.0),
        hf=STEP_HICACHE_HF,
        enable_hierarchical_cache=True,
        swa_full_tokens_ratio=0.5,
    ),
    row("no-hicache", STEP3P5, "h100", E(swa_full_tokens_ratio=0.8, disable_hybrid_swa_memory=False)),
]


class TestStep3p:
    """§3.9 Step3p5 / Step3p7 (predicate provider, substring match)."""

    @pytest.mark.parametrize("r", STEP3P_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_callable_facts(self) -> None:
        """Upstream #50 (backends already set): EAGLE -> multi-layer; hicache -> SWA; nothing -> {}."""
        res = resolve(STEP3P5, "h100", attention_backend="fa3", **EAGLE)
        assert [d.fields for d in decls(res, "step3p_defaults")] == [{"enable_multi_layer_eagle": True}]
        res = resolve(
            STEP3P5, "h100", hf=STEP_HICACHE_HF, attention_backend="fa3", enable_hierarchical_cache=True
        )
        assert [d.fields for d in decls(res, "step3p_defaults")] == [
            {"swa_full_tokens_ratio": 1.0, "disable_hybrid_swa_memory": True}
        ]
        assert decls(resolve(STEP3P5, "h100", attention_backend="fa3"), "step3p_defaults") == []


# ---------------------------------------------------------------------------------------
# §3.10 MossVLForConditionalGeneration
# ---------------------------------------------------------------------------------------

MOSS = "MossVLForConditionalGeneration"
MOSS_MSG = r"MossVLForConditionalGeneration requires flashinfer prefill attention backend"

MOSS_ROWS = [
    row("b200", MOSS, "b200", E(A="trtllm_mha", P="flashinfer", D=None, p=64)),
    row("a100", MOSS, "a100", E(A="flashinfer", P="flashinfer", D=None, p=1)),
    row("mi300x", MOSS, "mi300x", E(A="aiter", P="flashinfer", D=None)),
    row(
        "user-prefill-flashinfer",
        MOSS,
        "h100",
        E(A="fa3", P="flashinfer"),
        prefill_attention_backend="flashinfer",
    ),
    row("user-backend-flashinfer", MOSS, "h100", E(A="flashinfer", P=None), attention_backend="flashinfer"),
    row(
        "split-pair-flashinfer",
        MOSS,
        "h100",
        E(A="flashinfer", P="flashinfer", D="flashinfer"),
        prefill_attention_backend="flashinfer",
        decode_attention_backend="flashinfer",
    ),
    # Setting only D disables the P fill; effective prefill is then A (None) -> refused.
    row("decode-only-refused", MOSS, "h100", Err(ASSERT, MOSS_MSG), decode_attention_backend="fa3"),
    row("prefill-fa3-refused", MOSS, "h100", Err(ASSERT, MOSS_MSG), prefill_attention_backend="fa3"),
]


class TestMossVL:
    """§3.10 MossVLForConditionalGeneration: prefill must be flashinfer."""

    @pytest.mark.parametrize("r", MOSS_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §3.11 Hybrid linear-attention / mamba families
# ---------------------------------------------------------------------------------------

FALCON_H1, LFM2, NEMOTRON_H = "FalconH1ForCausalLM", "Lfm2ForCausalLM", "NemotronHForCausalLM"
GRANITE, MINICPMV = "GraniteMoeHybridForCausalLM", "MiniCPMV4_6ForConditionalGeneration"
GRANITE_MAMBA = {"layer_types": ["mamba", "attention"]}
GRANITE_ATTN = {"layer_types": ["attention", "attention"]}
TRITON_MSG = r"does not support triton attention backend, as the first layer might not be an attention layer"

HYBRID_ROWS = [
    row("minicpmv-h100-generic", MINICPMV, "h100", E(A="fa3", mamba_radix_cache_strategy="extra_buffer")),
    row("jet-nemotron-b200", "JetNemotronForCausalLM", "b200", E(A="triton", p=1)),
    row("jet-vlm-b200", "JetVLMForConditionalGeneration", "b200", E(A="triton", p=1)),
    row("falcon-b300", FALCON_H1, "b300", E(A="triton", p=1)),
    row("falcon-sm120-generic", FALCON_H1, "rtx5090", E(A="flashinfer", p=1)),
    row("falcon-user-backend-kept", FALCON_H1, "b200", E(A="flashinfer"), attention_backend="flashinfer"),
    row(
        "falcon-split-only-still-filled",
        FALCON_H1,
        "b200",
        E(A="triton", P="fa3"),
        prefill_attention_backend="fa3",
    ),
    row(
        "granite-mamba-h100",
        GRANITE,
        "h100",
        E(A="fa3", uses_mamba_radix_cache=True, mamba_radix_cache_strategy="extra_buffer"),
        hf=GRANITE_MAMBA,
    ),
    row(
        "granite-mamba-user-triton-ok",
        GRANITE,
        "b200",
        E(A="triton"),
        hf=GRANITE_MAMBA,
        attention_backend="triton",
    ),
    row(
        "granite-attention-only-plain",
        GRANITE,
        "h100",
        E(A="fa3", uses_mamba_radix_cache=False, mamba_radix_cache_strategy="auto"),
        hf=GRANITE_ATTN,
    ),
    row("lfm2-b300", LFM2, "b300", E(A="flashinfer", p=1)),
    row(
        "lfm2-user-triton-refused",
        LFM2,
        "h100",
        Err(ASSERT, "Lfm2ForCausalLM " + TRITON_MSG),
        attention_backend="triton",
    ),
    # The assertion reads A before the generic default: a default of triton passes (spec §10 #6).
    row(
        "lfm2-default-triton-not-checked",
        LFM2,
        "a100-nofi",
        E(A="triton", p=1, mamba_radix_cache_strategy="no_buffer"),
    ),
    row(
        "lfm2-split-triton-not-checked",
        LFM2,
        "b200",
        E(A="flashinfer", P="triton"),
        prefill_attention_backend="triton",
    ),
    row("nemotron-puzzle-b200", "NemotronHPuzzleForCausalLM", "b200", E(A="flashinfer", p=1)),
    row(
        "nemotron-user-triton-b200-refused",
        NEMOTRON_H,
        "b200",
        Err(ASSERT, TRITON_MSG),
        attention_backend="triton",
    ),
    # Mamba-radix-only archs: no attention fill.
    row(
        "kimi-linear-b200-mla",
        "KimiLinearForCausalLM",
        "b200",
        E(A="flashinfer", p=1, mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True),
    ),
    row(
        "bailing-v25-b200-mla",
        "BailingMoeV2_5ForCausalLM",
        "b200",
        E(A="flashinfer", p=1, mamba_radix_cache_strategy="extra_buffer"),
    ),
    # Zaya: no_buffer is validated at step 10h (page None, A None), before the trtllm_mha default.
    row(
        "zaya-b200",
        "ZayaForCausalLM",
        "b200",
        E(A="trtllm_mha", p=64, mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True),
    ),
]

MAMBA_RADIX_ROWS = [
    row(
        "radix-off-untouched",
        FALCON_H1,
        "h100",
        E(uses_mamba_radix_cache=False, mamba_radix_cache_strategy="auto", disable_overlap_schedule=False),
        disable_radix_cache=True,
    ),
    row(
        "default-extra-buffer",
        FALCON_H1,
        "h100",
        E(
            uses_mamba_radix_cache=True,
            mamba_radix_cache_strategy="extra_buffer",
            disable_overlap_schedule=False,
        ),
    ),
    row(
        "overlap-off-no-buffer",
        FALCON_H1,
        "h100",
        E(uses_mamba_radix_cache=True, mamba_radix_cache_strategy="no_buffer"),
        disable_overlap_schedule=True,
    ),
    row(
        "overlap-off-paged-extra-buffer",
        FALCON_H1,
        "h100",
        E(mamba_radix_cache_strategy="extra_buffer", p=16),
        disable_overlap_schedule=True,
        page_size=16,
    ),
    row("page-not-dividing-track-interval-refused", FALCON_H1, "h100", Err(ASSERT, r"48"), page_size=48),
    row(
        "page-incommensurate-with-chunk-refused",
        FALCON_H1,
        "h100",
        Err(ASSERT, r"128"),
        hf={"mamba_chunk_size": 48},
        page_size=128,
    ),
    row(
        "page-commensurate-with-chunk",
        FALCON_H1,
        "h100",
        E(p=128, mamba_radix_cache_strategy="extra_buffer"),
        hf={"mamba_chunk_size": 256},
        page_size=128,
    ),
    row(
        "non-triton-linear-attn-no-buffer",
        FALCON_H1,
        "h100",
        E(mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True),
        linear_attn_backend="flashinfer",
    ),
    row(
        "unsupported-arch-extra-buffer-refused",
        LFM2,
        "h100",
        Err(ASSERT, r"extra_buffer"),
        mamba_radix_cache_strategy="extra_buffer",
    ),
    row(
        "extra-buffer-hip-refused", "Qwen3_5ForConditionalGeneration", "mi300x", Err(ASSERT, r"extra_buffer")
    ),
    row(
        "extra-buffer-npu-ok",
        "Qwen3_5ForConditionalGeneration",
        "npu",
        E(A="ascend", p=128, mamba_radix_cache_strategy="extra_buffer"),
    ),
    row(
        "extra-buffer-lazy-kept",
        FALCON_H1,
        "h100",
        E(uses_mamba_radix_cache=True, mamba_radix_cache_strategy="extra_buffer_lazy"),
        mamba_radix_cache_strategy="extra_buffer_lazy",
    ),
    row(
        "no-buffer-paged-refused",
        FALCON_H1,
        "h100",
        Err(ASSERT, r"no_buffer only supports page_size=1\."),
        mamba_radix_cache_strategy="no_buffer",
        disable_overlap_schedule=True,
        page_size=16,
    ),
    row(
        "no-buffer-overlap-on-refused",
        FALCON_H1,
        "h100",
        Err(ASSERT, r"(?i)overlap"),
        mamba_radix_cache_strategy="no_buffer",
    ),
    row(
        "no-buffer-trtllm-mha-refused",
        LFM2,
        "b200",
        Err(ASSERT, r"no_buffer do not support trtllm_mha attention backend\."),
        attention_backend="trtllm_mha",
    ),
]

NEMOTRON_Q_HF = {"mlp_hidden_act": "relu2"}

NEMOTRON_QUANT_ROWS = [
    row(
        "modelopt-fp8",
        NEMOTRON_H,
        "h100",
        E(quantization="modelopt_fp8", moe_runner_backend="flashinfer_cutlass"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="FP8")},
    ),
    row(
        "modelopt-nvfp4-hopper-marlin",
        NEMOTRON_H,
        "h100",
        E(quantization="modelopt_fp4", moe_runner_backend="marlin"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="NVFP4")},
    ),
    # 0.5.15's ModelConfig._parse_quant_hf_config refines quant_method "modelopt" in place:
    # MIXED_PRECISION without NVFP4 layers becomes "w4afp8" (configs/model_config.py:1148), which
    # is not a ModelOpt method, so _nemotron_h_overrides leaves quantization and the MoE runner
    # alone (issue 9: "0.5.15 leaves quantization=None, moe_runner_backend=auto").
    row(
        "modelopt-mixed-without-nvfp4-layers-is-w4afp8",
        NEMOTRON_H,
        "a100",
        E(quantization=None, moe_runner_backend="auto"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="MIXED_PRECISION")},
    ),
    row(
        "modelopt-mixed-nvfp4-layers-ampere-marlin",
        NEMOTRON_H,
        "a100",
        E(quantization="modelopt_mixed", moe_runner_backend="marlin"),
        hf={
            **NEMOTRON_Q_HF,
            **quant(
                "modelopt",
                quant_algo="MIXED_PRECISION",
                quantized_layers={"backbone.layers.1.mixer.experts.0": {"quant_algo": "NVFP4"}},
            ),
        },
    ),
    row(
        "modelopt-nvfp4-b200",
        NEMOTRON_H,
        "b200",
        E(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="NVFP4")},
    ),
    row(
        "modelopt-nvfp4-b200-a2a-cutlass",
        NEMOTRON_H,
        "b200",
        E(quantization="modelopt_fp4", moe_runner_backend="flashinfer_cutlass"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="NVFP4")},
        moe_a2a_backend="deepep",
    ),
    row(
        "modelopt-fp8-value-kept",
        NEMOTRON_H,
        "h100",
        E(quantization="modelopt_fp8"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt_fp8")},
    ),
    row(
        "modelopt-needs-relu2",
        NEMOTRON_H,
        "h100",
        Err(ASSERT, r"relu2"),
        hf={"mlp_hidden_act": "silu", **quant("modelopt", quant_algo="FP8")},
    ),
    row(
        "unquantized-cutlass",
        NEMOTRON_H,
        "h100",
        E(quantization=None, moe_runner_backend="flashinfer_cutlass"),
    ),
    row("unquantized-b200-trtllm", NEMOTRON_H, "b200", E(moe_runner_backend="flashinfer_trtllm")),
    row("awq-auto", NEMOTRON_H, "h100", E(moe_runner_backend="auto"), hf=quant("awq")),
    row(
        "user-runner-kept",
        NEMOTRON_H,
        "h100",
        E(moe_runner_backend="triton"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="NVFP4")},
        moe_runner_backend="triton",
    ),
    # quantization := the concrete ModelOpt method, also when the user passed the generic name.
    row(
        "user-generic-modelopt-refined",
        NEMOTRON_H,
        "h100",
        E(quantization="modelopt_fp4"),
        hf={**NEMOTRON_Q_HF, **quant("modelopt", quant_algo="NVFP4")},
        quantization="modelopt",
    ),
]


class TestHybridMamba:
    """§3.11 hybrid linear-attention / mamba families, mamba radix resolution, NemotronH MoE."""

    @pytest.mark.parametrize("r", HYBRID_ROWS)
    def test_attention(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", MAMBA_RADIX_ROWS)
    def test_mamba_radix_cache(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", NEMOTRON_QUANT_ROWS)
    def test_nemotron_h_quantization(self, r: Row) -> None:
        check(r)

    def test_monolith_callable_facts(self) -> None:
        """Upstream #49: MiniCPM-V/FalconH1 triton and Lfm2 flashinfer on SM100; Granite only with
        mamba layers; nothing for MiniCPM-V off SM100."""
        assert decls(resolve(MINICPMV, "b200"), "hybrid_triton_on_sm100")[0].fields == {
            "attention_backend": "triton"
        }
        assert decls(resolve(FALCON_H1, "b200"), "hybrid_triton_on_sm100")[0].fields == {
            "attention_backend": "triton"
        }
        assert decls(resolve(MINICPMV, "h100"), "hybrid_triton_on_sm100") == []
        assert decls(resolve(GRANITE, "b200", hf=GRANITE_MAMBA), "granite_hybrid_attention")[0].fields == {
            "attention_backend": "flashinfer"
        }
        assert decls(resolve(GRANITE, "b200", hf=GRANITE_ATTN), "granite_hybrid_attention") == []
        assert decls(resolve(LFM2, "b200"), "lfm2_nemotron_attention")[0].fields == {
            "attention_backend": "flashinfer"
        }


# ---------------------------------------------------------------------------------------
# §3.12 Qwen3.5 hybrid
# ---------------------------------------------------------------------------------------

QWEN3_5, QWEN3_NEXT = "Qwen3_5ForConditionalGeneration", "Qwen3NextForCausalLM"
QWEN3_5_MOE, INTERNS2 = "Qwen3_5MoeForConditionalGeneration", "InternS2PreviewForConditionalGeneration"

QWEN3_5_ROWS = [
    row("next-b200", QWEN3_NEXT, "b200", E(A="triton", p=1, mamba_radix_cache_strategy="extra_buffer")),
    row("moe-b300", QWEN3_5_MOE, "b300", E(A="triton", p=1)),
    row("interns2-b200", INTERNS2, "b200", E(A="triton", p=1)),
    row(
        "extra-buffer-lazy",
        QWEN3_5,
        "b200",
        E(A="trtllm_mha", p=64),
        mamba_radix_cache_strategy="extra_buffer_lazy",
    ),
    row(
        "radix-off-with-extra-buffer",
        QWEN3_5,
        "b200",
        E(A="trtllm_mha", p=64, uses_mamba_radix_cache=False, mamba_radix_cache_strategy="extra_buffer"),
        disable_radix_cache=True,
        mamba_radix_cache_strategy="extra_buffer",
    ),
    row(
        "nextn-topk-1",
        QWEN3_5,
        "b200",
        E(A="trtllm_mha", p=64),
        speculative_algorithm="NEXTN",
        speculative_eagle_topk=1,
        speculative_num_steps=3,
    ),
    # The default is evaluated on the pristine page size: topk 1 with page 16 -> flashinfer -> triton/1.
    row(
        "eagle-topk-1-user-page-16",
        QWEN3_5,
        "b200",
        E(A="triton", p=1),
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        page_size=16,
        **EAGLE,
    ),
    row(
        "eagle-topk-4",
        QWEN3_5,
        "b200",
        E(A="triton", p=1),
        speculative_eagle_topk=4,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "user-backend-no-rule",
        QWEN3_5,
        "b200",
        E(A="fa3", p=1, mamba_radix_cache_strategy="extra_buffer"),
        attention_backend="fa3",
    ),
    row(
        "user-backend-user-page-kept",
        QWEN3_5,
        "b200",
        E(A="fa3", p=16),
        attention_backend="fa3",
        page_size=16,
    ),
    # Only A is tested: a split-only user setting still gets the coupled declaration.
    row(
        "split-only-still-filled",
        QWEN3_5,
        "b200",
        E(A="triton", P="triton", p=1),
        prefill_attention_backend="triton",
    ),
    row(
        "sm120-generic", QWEN3_5, "rtx5090", E(A="flashinfer", p=1, mamba_radix_cache_strategy="extra_buffer")
    ),
    row("a100-generic", QWEN3_NEXT, "a100", E(A="flashinfer", p=1)),
    row("h100-user-page-kept", QWEN3_5, "h100", E(A="fa3", p=16), page_size=16),
    row("b200-cuda124-generic", QWEN3_5, "b200-cu124", E(A="flashinfer", p=1)),
    # §3.13 also applies to these archs.
    row(
        "moe-rule-applies",
        QWEN3_5,
        "b200",
        E(A="triton", quantization="fp8", moe_runner_backend="flashinfer_trtllm"),
        hf=quant("fp8"),
    ),
]


class TestQwen35Hybrid:
    """§3.12 Qwen3.5 hybrid: coupled attention_backend/page_size on SM100 when A is None."""

    @pytest.mark.parametrize("r", QWEN3_5_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_page_override_is_forced(self) -> None:
        """§8 #65: the user page is overwritten; the write is recorded as forced."""
        res = resolve(QWEN3_5, "b200", page_size=16)
        assert res["page_size"] == 1
        assert res.explain("page_size").steps[-1].outcome == "forced"


# ---------------------------------------------------------------------------------------
# §3.13 Qwen3 MoE family
# ---------------------------------------------------------------------------------------

QWEN3_MOE, QWEN3_VL_MOE = "Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration"

QWEN3_MOE_ROWS = [
    row(
        "fp8",
        QWEN3_MOE,
        "b200",
        E(quantization="fp8", moe_runner_backend="flashinfer_trtllm", A="trtllm_mha", p=64),
        hf=quant("fp8"),
    ),
    row(
        "modelopt-fp4",
        QWEN3_MOE,
        "b200",
        E(quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm"),
        hf=quant("modelopt_fp4"),
    ),
    row("awq-auto", QWEN3_MOE, "b200", E(quantization="awq", moe_runner_backend="auto"), hf=quant("awq")),
    row("unquantized", QWEN3_MOE, "b200", E(quantization=None, moe_runner_backend="flashinfer_trtllm")),
    row(
        "explicitly-unquantized",
        QWEN3_MOE,
        "b200",
        E(quantization=None, moe_runner_backend="flashinfer_trtllm"),
        hf=quant("fp8"),
        quantization="unquant",
    ),
    row(
        "a2a-set-auto",
        QWEN3_MOE,
        "b200",
        E(moe_runner_backend="auto"),
        hf=quant("fp8"),
        moe_a2a_backend="deepep",
    ),
    row(
        "user-runner-kept",
        QWEN3_MOE,
        "b200",
        E(moe_runner_backend="triton"),
        hf=quant("fp8"),
        moe_runner_backend="triton",
    ),
    row("not-sm100", QWEN3_MOE, "h100", E(quantization=None, moe_runner_backend="auto"), hf=quant("fp8")),
    row(
        "vl-moe-fp8",
        QWEN3_VL_MOE,
        "b200",
        E(quantization="fp8", moe_runner_backend="flashinfer_trtllm"),
        hf=quant("fp8"),
    ),
]


class TestQwen3Moe:
    """§3.13 Qwen3 MoE family (SM100 quantization / MoE runner)."""

    @pytest.mark.parametrize("r", QWEN3_MOE_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §3.14 Qwen3VLForConditionalGeneration
# ---------------------------------------------------------------------------------------

QWEN3_VL = "Qwen3VLForConditionalGeneration"
UNIFIED = {"SGLANG_USE_AITER_UNIFIED_ATTN": "1"}

QWEN3_VL_ROWS = [
    row(
        "hip-env-true-spelling",
        QWEN3_VL,
        "mi300x",
        E(A="aiter", p=16),
        env={"SGLANG_USE_AITER_UNIFIED_ATTN": "true"},
    ),
    row("hip-user-page-kept", QWEN3_VL, "mi300x", E(p=64), env=UNIFIED, page_size=64),
    row("hip-env-unset", QWEN3_VL, "mi300x", E(A="aiter", p=1)),
    row("hip-env-false", QWEN3_VL, "mi300x", E(p=1), env={"SGLANG_USE_AITER_UNIFIED_ATTN": "0"}),
    row("cuda-env-ignored", QWEN3_VL, "h100", E(A="fa3", p=1), env=UNIFIED),
    # The Qwen3-VL writer runs at step 10, the vectorized_5d default only when page is still None.
    row(
        "before-page-default",
        QWEN3_VL,
        "mi300x",
        E(p=16),
        env={**UNIFIED, "SGLANG_AITER_KV_CACHE_LAYOUT": "vectorized_5d"},
    ),
]


class TestQwen3VL:
    """§3.14 Qwen3VLForConditionalGeneration page 16 on HIP with the AITER unified attention."""

    @pytest.mark.parametrize("r", QWEN3_VL_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §3.15 Glm4MoeForCausalLM
# ---------------------------------------------------------------------------------------

GLM4_MOE = "Glm4MoeForCausalLM"

GLM4_MOE_ROWS = [
    row(
        "h100-tf32-only",
        GLM4_MOE,
        "h100",
        E(enable_tf32_matmul=True, quantization=None, moe_runner_backend="auto"),
        hf=quant("modelopt_fp4"),
    ),
    row("a100-tf32", GLM4_MOE, "a100", E(enable_tf32_matmul=True)),
    row(
        "b200-modelopt-fp4",
        GLM4_MOE,
        "b200",
        E(enable_tf32_matmul=True, quantization="modelopt_fp4", moe_runner_backend="flashinfer_trtllm"),
        hf=quant("modelopt_fp4"),
    ),
    row(
        "b200-unquantized-15", GLM4_MOE, "b200", E(quantization=None, moe_runner_backend="flashinfer_trtllm")
    ),
    row("b200-fp8-auto", GLM4_MOE, "b200", E(quantization="fp8", moe_runner_backend="auto"), hf=quant("fp8")),
    row(
        "b200-explicitly-unquantized",
        GLM4_MOE,
        "b200",
        E(quantization=None, moe_runner_backend="flashinfer_trtllm"),
        hf=quant("modelopt_fp4"),
        quantization="unquant",
    ),
    row("b200-a2a-auto", GLM4_MOE, "b200", E(moe_runner_backend="auto"), moe_a2a_backend="deepep"),
]


class TestGlm4Moe:
    """§3.15 Glm4MoeForCausalLM ([15] tf32 always; SM100 MoE incl. unquantized)."""

    @pytest.mark.parametrize("r", GLM4_MOE_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_tf32_declared(self) -> None:
        """Upstream #49: enable_tf32_matmul is declared unconditionally."""
        res = resolve(GLM4_MOE, "h100")
        assert [d.fields for d in decls(res, "glm4_moe_defaults")] == [{"enable_tf32_matmul": True}]


# ---------------------------------------------------------------------------------------
# §3.16 MiMoV2
# ---------------------------------------------------------------------------------------

MIMO, MIMO_FLASH = "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"
FUSED = {"attention_projection_layout": "fused_qkv"}
MIMO_TP_MSG = r"MiMoV2ForCausalLM requires effective attention TP size"

MIMO_ROWS = [
    row("fused-qkv-tp-matches", MIMO, "h100", E(A="fa3"), hf=FUSED, tp_size=2),
    row("fused-qkv-tp-mismatch-refused", MIMO, "h100", Err(VALUE, MIMO_TP_MSG), hf=FUSED, tp_size=4),
    row(
        "fused-qkv-dp-attention",
        MIMO,
        "h100",
        E(A="fa3"),
        hf=FUSED,
        tp_size=4,
        dp_size=2,
        enable_dp_attention=True,
    ),
    row(
        "fused-qkv-dp-without-dp-attention-refused",
        MIMO,
        "h100",
        Err(VALUE, MIMO_TP_MSG),
        hf=FUSED,
        tp_size=4,
        dp_size=2,
    ),
    row("fused-qkv-attn-cp", MIMO, "h100", E(A="fa3"), hf=FUSED, tp_size=4, attn_cp_size=2),
    row(
        "other-layout-refused",
        MIMO,
        "h100",
        Err(VALUE, r"split_qkv"),
        hf={"attention_projection_layout": "split_qkv"},
    ),
    row("no-layout-ok", MIMO, "h100", E(A="fa3"), tp_size=4),
    row("encoder-only-skipped", MIMO, "h100", E(A="fa3"), hf={**FUSED, "encoder_only": True}, tp_size=4),
    row("flash-not-checked", MIMO_FLASH, "h100", E(A="fa3"), hf=FUSED, tp_size=4),
    row("eagle-multi-layer", MIMO, "h100", E(enable_multi_layer_eagle=True), **EAGLE),
    row("flash-eagle-multi-layer", MIMO_FLASH, "h100", E(enable_multi_layer_eagle=True), **EAGLE),
    row(
        "nextn-not-eagle",
        MIMO_FLASH,
        "h100",
        E(enable_multi_layer_eagle=False),
        speculative_algorithm="NEXTN",
    ),
    row(
        "hicache-without-unified-tree-refused",
        MIMO_FLASH,
        "h100",
        Err(VALUE, r"(?i)hierarchical"),
        enable_hierarchical_cache=True,
    ),
    row(
        "hicache-with-unified-tree",
        MIMO_FLASH,
        "h100",
        E(A="fa3"),
        env={"SGLANG_ENABLE_UNIFIED_RADIX_TREE": "1"},
        enable_hierarchical_cache=True,
    ),
    # Attention sinks remove flashinfer from the generic MHA default (§3.21).
    row(
        "sinks-full-bias-a100-triton", MIMO, "a100", E(A="triton"), hf={"add_full_attention_sink_bias": True}
    ),
    row(
        "flash-sinks-full-bias-a100-triton",
        MIMO_FLASH,
        "a100",
        E(A="triton"),
        hf={"add_full_attention_sink_bias": True},
    ),
    row(
        "no-sinks-a100-flashinfer",
        MIMO_FLASH,
        "a100",
        E(A="flashinfer"),
        hf={"add_swa_attention_sink_bias": False, "add_full_attention_sink_bias": False},
    ),
]


class TestMiMoV2:
    """§3.16 MiMoV2 (fused-QKV TP check, multi-layer EAGLE, hicache env, sinks)."""

    @pytest.mark.parametrize("r", MIMO_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_eagle_declaration(self) -> None:
        """Upstream #28/#29: EAGLE declares exactly {enable_multi_layer_eagle: True}; None declares nothing."""
        res = resolve(MIMO_FLASH, "h100", **EAGLE)
        assert [d.fields for d in decls(res, "mimo_v2_defaults")] == [{"enable_multi_layer_eagle": True}]
        assert decls(resolve(MIMO_FLASH, "h100"), "mimo_v2_defaults") == []


# ---------------------------------------------------------------------------------------
# §3.17 MiniMaxM2ForCausalLM
# ---------------------------------------------------------------------------------------


class TestMiniMaxM2:
    """§3.17 MiniMaxM2ForCausalLM: [15] enable_tf32_matmul := True; no attention logic."""

    @pytest.mark.parametrize(
        "plat, backend, page", [("h100", "fa3", 1), ("b200", "trtllm_mha", 64), ("a100", "flashinfer", 1)]
    )
    def test_generic_attention(self, plat: str, backend: str, page: int) -> None:
        res = resolve("MiniMaxM2ForCausalLM", plat)
        assert (res["attention_backend"], res["page_size"], res["enable_tf32_matmul"]) == (
            backend,
            page,
            True,
        )

    def test_declaration(self) -> None:
        """Upstream #27: the declaration is exactly tf32; multi-layer EAGLE keeps its pristine False."""
        res = resolve("MiniMaxM2ForCausalLM", "h100")
        assert [d.fields for d in decls(res, "minimax_m2_tf32")] == [{"enable_tf32_matmul": True}]
        assert res["enable_multi_layer_eagle"] is False


# ---------------------------------------------------------------------------------------
# §3.18 Whisper
# ---------------------------------------------------------------------------------------

WHISPER = "WhisperForConditionalGeneration"
ENC_DEC = {"is_encoder_decoder": True}

WHISPER_ROWS = [
    row(
        "a100-no-flashinfer-still-flashinfer",
        WHISPER,
        "a100-nofi",
        E(A="flashinfer", disable_radix_cache=True),
        hf=ENC_DEC,
    ),
    row("mi300x-flashinfer", WHISPER, "mi300x", E(A="flashinfer"), hf=ENC_DEC),
    row("b200-flashinfer-not-trtllm", WHISPER, "b200", E(A="flashinfer", p=1), hf=ENC_DEC),
    row(
        "anywhere-in-architectures",
        ("SomeAudioWrapper", WHISPER),
        "h100",
        E(A="flashinfer", disable_radix_cache=True),
        hf=ENC_DEC,
    ),
    row(
        "user-backend-kept-radix-off",
        WHISPER,
        "h100",
        E(A="triton", disable_radix_cache=True),
        hf=ENC_DEC,
        attention_backend="triton",
    ),
]


class TestWhisper:
    """§3.18 Whisper: generic default flashinfer (before MLA/MHA), radix cache off (C3)."""

    @pytest.mark.parametrize("r", WHISPER_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §3.19 HRM-Text (ModelRunner.model_specific_adjustment, [15] only)
# ---------------------------------------------------------------------------------------

HRM = "HrmTextForCausalLM"


class TestHrmText:
    """§3.19 HRM-Text: triton forced after __post_init__ for prefix-LM models."""

    def test_model_type_alone_triggers(self) -> None:
        res = resolve("SomethingForCausalLM", "h100", hf={"model_type": "hrm_text"})
        assert (res["attention_backend"], res["chunked_prefill_size"], res["disable_radix_cache"]) == (
            "triton",
            -1,
            True,
        )
        assert (res["cuda_graph_backend_prefill"], res["cuda_graph_backend_decode"]) == (
            "disabled",
            "disabled",
        )

    def test_prefix_lm_false_untouched(self) -> None:
        res = resolve(HRM, "h100", hf={"model_type": "hrm_text", "prefix_lm": False})
        # 8192: the H100's memory default (server_args._handle_gpu_memory_settings), not HRM's -1.
        assert (res["attention_backend"], res["chunked_prefill_size"], res["disable_radix_cache"]) == (
            "fa3",
            8192,
            False,
        )

    def test_user_backend_forced(self) -> None:
        res = resolve(HRM, "h100", hf={"model_type": "hrm_text"}, attention_backend="fa3")
        assert res["attention_backend"] == "triton"
        step = res.explain("attention_backend").steps[-1]
        assert (step.rule, step.outcome) == ("ModelRunner.model_specific_adjustment", "forced")

    def test_split_fields_untouched(self) -> None:
        res = resolve(HRM, "h100", hf={"model_type": "hrm_text"}, prefill_attention_backend="fa3")
        assert (res["attention_backend"], res["prefill_attention_backend"]) == ("triton", "fa3")

    def test_not_applied_before_load_time(self) -> None:
        res = resolve(HRM, "b200", hf={"model_type": "hrm_text"}, load_time=False)
        assert (res["attention_backend"], res["page_size"]) == ("trtllm_mha", 64)


# ---------------------------------------------------------------------------------------
# §3.20 Everything else
# ---------------------------------------------------------------------------------------

GENERIC_ROWS = [
    row("unknown-arch-h100", "TotallyNewForCausalLM", "h100", E(A="fa3", p=1)),
    row("unknown-arch-b200", "TotallyNewForCausalLM", "b200", E(A="trtllm_mha", p=64)),
    row("qwen3-dense-a100", "Qwen3ForCausalLM", "a100", E(A="flashinfer", p=1)),
    row("glm4-moe-lite-mla-b200", "Glm4MoeLiteForCausalLM", "b200", E(A="flashinfer", p=1), hf=MLA),
    row("minicpm3-mla-h100", "MiniCPM3ForCausalLM", "h100", E(A="fa3", p=1)),
    row("minicpm3-mla-a100", "MiniCPM3ForCausalLM", "a100", E(A="triton", p=1)),
    row("kimi-vl-mla-b200", "KimiVLForConditionalGeneration", "b200", E(A="flashinfer", p=1)),
    row("deepseek-v2-not-family-b300", "DeepseekV2ForCausalLM", "b300", E(A="flashinfer", p=1), hf=MLA),
]


class TestEverythingElse:
    """§3.20: no model-specific attention logic; the generic passes decide."""

    @pytest.mark.parametrize("r", GENERIC_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_unknown_architecture_is_noted(self) -> None:
        res = resolve("TotallyNewForCausalLM", "h100")
        assert any("TotallyNewForCausalLM" in note for note in res.notes)
        assert res["dtype"] == "auto"

    def test_known_architecture_is_not_noted(self) -> None:
        res = resolve("Gemma2ForCausalLM", "h100")
        assert not any("Gemma2ForCausalLM" in note for note in res.notes)

    def test_llama_keeps_auto_dtype(self) -> None:
        """Upstream #26: Llama keeps dtype "auto" and nothing declares dtype."""
        res = resolve("LlamaForCausalLM", "h100")
        assert res["dtype"] == "auto"
        assert not [d for d in res.declarations if "dtype" in d.fields]


# ---------------------------------------------------------------------------------------
# §3.21 MLA detection
# ---------------------------------------------------------------------------------------

# On A100 with flashinfer the generic default is flashinfer for MHA (MHA-e) and triton for MLA
# (MLA-f), so the resolved backend shows the classification.
MHA_A100, MLA_A100 = E(A="flashinfer"), E(A="triton")

MLA_DETECTION_ROWS = [
    *[
        row(f"mla-{a}", a, "a100", MLA_A100)
        for a in (
            "DeepseekV2ForCausalLM",
            "DeepseekV32ForCausalLM",
            "DeepseekV3ForCausalLM",
            "DeepseekV3ForCausalLMNextN",
            "Glm4MoeLiteForCausalLM",
            "Glm4MoeLiteForCausalLMNextN",
            "GlmMoeDsaForCausalLM",
            "LongcatFlashForCausalLM",
            "LongcatFlashForCausalLMNextN",
            "DotsVLMForCausalLM",
            "MistralLarge3ForCausalLMEagle",
            "KimiK25ForConditionalGeneration",
            "Eagle3DeepseekV2ForCausalLM",
            "MiniCPM3ForCausalLM",
            "KimiVLForConditionalGeneration",
            "KimiLinearForCausalLM",
            "BailingMoeV2_5ForCausalLM",
            "BailingMoeForCausalLMNextN",
            "SarvamMLAForCausalLM",
        )
    ],
    row("mistral-large3-with-kv-lora", MISTRAL_L3, "a100", MLA_A100, hf={"kv_lora_rank": 512}),
    row("mistral-large3-without-kv-lora", MISTRAL_L3, "a100", MHA_A100),
    row(
        "pixtral-text-config-kv-lora",
        PIXTRAL,
        "a100",
        MLA_A100,
        hf={"text_config": {"kv_lora_rank": 512, "num_attention_heads": 4, "num_key_value_heads": 2}},
    ),
    row("pixtral-without-kv-lora", PIXTRAL, "a100", MHA_A100),
    row("deepseek-v4-nextn-mha", "DeepseekV4ForCausalLMNextN", "a100", MHA_A100),
    row("glm4-moe-nextn-mha", "Glm4MoeForCausalLMNextN", "a100", MHA_A100),
    row("deepseek-vl2-default-mla", "DeepseekVL2ForCausalLM", "a100", MLA_A100),
    row("deepseek-vl2-use-mla-false", "DeepseekVL2ForCausalLM", "a100", MHA_A100, hf={"use_mla": False}),
    row("llama-mha", "LlamaForCausalLM", "a100", MHA_A100),
    # Membership is tested anywhere in architectures; the MHA rule precedes the later MLA rules.
    row("mla-in-second-position", ("FooForCausalLM", "DeepseekV2ForCausalLM"), "a100", MLA_A100),
    row("mha-rule-before-minicpm3", ("Glm4MoeForCausalLMNextN", "MiniCPM3ForCausalLM"), "a100", MHA_A100),
    row(
        "mla-rule-before-mha-rule", ("DeepseekV4ForCausalLMNextN", "DeepseekV2ForCausalLM"), "a100", MLA_A100
    ),
]


class TestMlaDetection:
    """§3.21 MLA detection (use_mla_backend) and attention sinks."""

    @pytest.mark.parametrize("r", MLA_DETECTION_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)
