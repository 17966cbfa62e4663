"""The checks sglang 0.5.15 runs while constructing ``ServerArgs`` beyond the attention chain.

Each case is built from the 0.5.15 source (cited per class) and asserts the outcome, sglang's
message wording (or, for bare asserts, the meaning), the exception type sglang raises
(``ConflictError.upstream``) and that a fix is named. ``TestOrder`` covers the cases where
the order of checks decides which refusal is reported first.
"""

from __future__ import annotations

import pytest
from sglang_tables import ASSERT, MLA, VALUE, E, Err, check, quant, resolve, row

from resolvable import ConflictError

# golden cases of sglang 0.5.15 (spec): pinned (sglang_tables.resolve names the release)

LLAMA, DSV3, NEMOTRON_H = "LlamaForCausalLM", "DeepseekV3ForCausalLM", "NemotronHForCausalLM"
QWEN3_MOE = "Qwen3MoeForCausalLM"


def refused(arch, plat="h100", *, hf=None, env=None, **args) -> ConflictError:
    with pytest.raises(ConflictError) as excinfo:
        resolve(arch, plat, hf=hf, env=env, **args)
    err = excinfo.value
    assert err.fix, "every refusal names a fix"
    return err


# configs/model_config.py:ModelConfig._verify_quantization (+ _parse_quant_hf_config,
# _parse_modelopt_quant_config, layers/quantization/*:override_quantization_method).
QUANT_ROWS = [
    row(
        "mismatch-refused",
        LLAMA,
        "h100",
        Err(
            VALUE,
            r"^Quantization method specified in the model config \(fp8\) does not match the quantization "
            r"method specified in the `quantization` argument \(awq\)\.",
        ),
        hf=quant("fp8"),
        quantization="awq",
    ),
    row(
        "compatible-pair-kept",
        LLAMA,
        "b200",
        E(quantization="modelopt_fp4"),
        hf=quant("modelopt"),
        quantization="modelopt_fp4",
    ),
    row(
        "w8a8-on-compressed-tensors",
        LLAMA,
        "h100",
        E(quantization="w8a8_int8"),
        hf=quant("compressed-tensors"),
        quantization="w8a8_int8",
    ),
    row(
        "marlin-unregistered",
        LLAMA,
        "h100",
        Err(VALUE, r"^Unknown quantization method: marlin\. Must be one of \["),
        quantization="marlin",
    ),
    # GPTQMarlinConfig.override_quantization_method turns --quantization marlin into gptq_marlin.
    row(
        "marlin-gptq-override",
        LLAMA,
        "h100",
        E(quantization="marlin"),
        hf=quant("gptq", bits=4, group_size=128, sym=True, desc_act=False),
        quantization="marlin",
    ),
    row(
        "rocm-whitelist",
        LLAMA,
        "mi300x",
        Err(VALUE, r"^w8a8_int8 quantization is currently not supported in ROCm\."),
        quantization="w8a8_int8",
    ),
    row("rocm-fp8-ok", LLAMA, "mi300x", E(A="aiter"), quantization="fp8"),
    # A gptq checkpoint on MI300X becomes gptq_marlin (capability 9.4 >= 8.0): not on the ROCm list.
    row(
        "rocm-gptq-marlin-refused",
        LLAMA,
        "mi300x",
        Err(VALUE, r"^gptq_marlin quantization is currently not supported in ROCm\."),
        hf=quant("gptq", bits=4, group_size=128, sym=True, desc_act=False),
    ),
    row(
        "checkpoint-without-method",
        LLAMA,
        "h100",
        Err(VALUE, r"^Unknown quantization method: \. Must be one of"),
        hf={"quantization_config": {"bits": 4}},
    ),
]


class TestVerifyQuantization:
    @pytest.mark.parametrize("r", QUANT_ROWS)
    def test_table(self, r) -> None:
        check(r)

    def test_mismatch_names_fix(self) -> None:
        err = refused(LLAMA, hf=quant("fp8"), quantization="awq")
        assert "fp8" in err.fix and err.fields == ("quantization",)

    def test_kimi_k25_nested_quant_config(self) -> None:
        """configs/kimi_k25.py hoists text_config.quantization_config: the checkpoint is
        compressed-tensors, so --quantization fp8 is a mismatch."""
        hf = {"model_type": "kimi_k25", "text_config": {**MLA, **quant("compressed-tensors")}}
        err = refused("KimiK25ForConditionalGeneration", hf=hf, quantization="fp8")
        assert "(compressed-tensors) does not match" in err.message

    def test_modelopt_refined_by_quant_algo(self) -> None:
        """``--quantization modelopt`` on an NVFP4 checkpoint is modelopt_fp4 to the model config
        (base_config.py:_modelopt_override_quantization_method): accepted, no mismatch."""
        res = resolve(LLAMA, "b200", hf=quant("modelopt", quant_algo="NVFP4"), quantization="modelopt")
        assert res["quantization"] == "modelopt"  # ServerArgs keeps the user's value


# overrides.py:_nemotron_h_overrides reads model_config.quantization (0.5.15).
class TestNemotronHMixed:
    def test_mixed_without_nvfp4_layers(self) -> None:
        hf = {"mlp_hidden_act": "relu2", **quant("modelopt", quant_algo="MIXED_PRECISION")}
        res = resolve(NEMOTRON_H, "b200", hf=hf)
        assert (res["quantization"], res["moe_runner_backend"]) == (None, "auto")


# server_args.py:_handle_moe_kernel_config, overrides.py:_moe_runner_backend_quant_constraints,
# _moe_runner_fusion_disable, _cutlass_moe_env_override.
MOE_ROWS = [
    row(
        "cutedsl-needs-nvfp4",
        LLAMA,
        "b200",
        Err(
            ASSERT,
            r"^Invalid quantization 'fp8'\. \nFlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4'",
        ),
        quantization="fp8",
        moe_runner_backend="flashinfer_cutedsl",
    ),
    row(
        "cutedsl-fp4-fusion-off",
        LLAMA,
        "b200",
        E(disable_shared_experts_fusion=True),
        quantization="modelopt_fp4",
        moe_runner_backend="flashinfer_cutedsl",
    ),
    row(
        "cutlass-ep-1-or-tp",
        LLAMA,
        "h100",
        Err(ASSERT, r"^The expert parallel size must be 1 or the same as the tensor parallel size"),
        moe_runner_backend="flashinfer_cutlass",
        tp_size=8,
        ep_size=2,
    ),
    row(
        "trtllm-routed-quant-list",
        LLAMA,
        "b200",
        Err(ASSERT, r"FlashInfer TRTLLM routed MOE supports only: 'fp8', 'mxfp8', 'modelopt_fp4'"),
        quantization="modelopt_fp8",
        moe_runner_backend="flashinfer_trtllm_routed",
    ),
    row(
        "nvfp4-online-needs-sm100",
        LLAMA,
        "h100",
        Err(VALUE, r"^--quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs\."),
        quantization="nvfp4_online",
    ),
    row(
        "nvfp4-online-trtllm",
        LLAMA,
        "b200",
        E(moe_runner_backend="flashinfer_trtllm"),
        quantization="nvfp4_online",
    ),
    row("mxfp8-auto-trtllm", LLAMA, "b200", E(moe_runner_backend="flashinfer_trtllm"), quantization="mxfp8"),
    row(
        "modelopt-fp4-sm120-cutlass",
        LLAMA,
        "rtx5090",
        E(moe_runner_backend="flashinfer_cutlass"),
        quantization="modelopt_fp4",
    ),
    row(
        "cutlass-env-needs-fp8",
        LLAMA,
        "h100",
        Err(ASSERT, r"^cutlass MoE is only supported with fp8/mxfp8 quantization"),
        env={"SGLANG_CUTLASS_MOE": "1"},
    ),
    row(
        "cutlass-env-fp8",
        LLAMA,
        "h100",
        E(moe_runner_backend="cutlass"),
        env={"SGLANG_CUTLASS_MOE": "1"},
        quantization="fp8",
    ),
    row(
        "cutlass-fp8-ep-1",
        LLAMA,
        "h100",
        Err(ASSERT, r"^FP8/MXFP8 Cutlass MoE is only supported with ep_size == 1"),
        quantization="fp8",
        moe_runner_backend="cutlass",
        tp_size=2,
        ep_size=2,
    ),
]

# server_args.py:_handle_a2a_moe, overrides.py:_a2a_backend_overrides, _a2a_ep_size.
A2A_ROWS = [
    row(
        "flashinfer-a2a-needs-dp-attention",
        LLAMA,
        "b200",
        Err(
            ASSERT, r"^Flashinfer MoE A2A is only supported with dp_size == tp_size and --enable-dp-attention"
        ),
        moe_a2a_backend="flashinfer",
        moe_runner_backend="flashinfer_cutlass",
        tp_size=4,
    ),
    row(
        "flashinfer-a2a-ok",
        LLAMA,
        "b200",
        E(ep_size=4, disable_shared_experts_fusion=True),
        moe_a2a_backend="flashinfer",
        moe_runner_backend="flashinfer_cutlass",
        tp_size=4,
        dp_size=4,
        enable_dp_attention=True,
    ),
    row("deepep-ep-spans-tp", LLAMA, "h100", E(ep_size=8), moe_a2a_backend="deepep", tp_size=8),
    row(
        "deepep-normal-no-graphs",
        LLAMA,
        "h100",
        E(cuda_graph_backend_prefill="disabled", cuda_graph_backend_decode="disabled"),
        moe_a2a_backend="deepep",
        deepep_mode="normal",
    ),
    row("waterfill-deepep", LLAMA, "h100", E(moe_a2a_backend="deepep"), enable_deepep_waterfill=True),
]

# server_args.py:_handle_data_parallelism, overrides.py:_dp_lm_head_validation,
# _pipeline_parallel_overlap_disable.
PARALLEL_ROWS = [
    row(
        "dp-attention-tp-divisible",
        LLAMA,
        "h100",
        Err(ASSERT, r"tp_size \(6\) must be divisible by dp_size \(4\)"),
        tp_size=6,
        dp_size=4,
        enable_dp_attention=True,
    ),
    row(
        "dp-attention-chunk-divided",
        LLAMA,
        "h100",
        E(chunked_prefill_size=2048),
        tp_size=4,
        dp_size=4,
        enable_dp_attention=True,
        chunked_prefill_size=8192,
    ),
    row(
        "dp-lm-head-needs-dp-attention",
        LLAMA,
        "h100",
        Err(ASSERT, r"^Please enable dp attention when setting enable_dp_lm_head\."),
        tp_size=4,
        dp_size=2,
        enable_dp_lm_head=True,
    ),
    row("pp-disables-overlap", LLAMA, "h100", E(disable_overlap_schedule=True), pp_size=2),
]

# arg_groups/speculative_hook.py.
SPEC_ROWS = [
    row(
        "llama-eagle-auto-params",
        LLAMA,
        "h100",
        E(
            speculative_num_steps=5,
            speculative_eagle_topk=4,
            speculative_num_draft_tokens=8,
            max_running_requests=48,
        ),
        speculative_algorithm="EAGLE",
    ),
    # Llama's implicit topk 4 meets fa4's 128-token pages (C16 reads the raw, unset topk).
    row(
        "llama-eagle-implicit-topk-paged",
        LLAMA,
        "b200",
        Err(
            VALUE,
            r"^speculative_eagle_topk > 1 with page_size > 1 is only supported on \('flashinfer', 'fa3', 'triton'\)",
        ),
        speculative_algorithm="EAGLE",
        attention_backend="fa4",
    ),
    row(
        "eagle-topk-needs-steps",
        LLAMA,
        "h100",
        Err(ASSERT, r"need --speculative-num-steps"),
        speculative_algorithm="EAGLE",
        speculative_eagle_topk=2,
    ),
    row(
        "eagle-topk1-draft-tokens",
        QWEN3_MOE,
        "h100",
        E(speculative_num_draft_tokens=4, enable_mixed_chunk=False),
        speculative_algorithm="EAGLE",
        speculative_num_steps=3,
        speculative_eagle_topk=1,
        speculative_num_draft_tokens=7,
        enable_mixed_chunk=True,
    ),
    row(
        "standalone-no-dp-attention",
        LLAMA,
        "h100",
        Err(VALUE, r"^Currently standalone speculative decoding does not support dp attention\."),
        speculative_algorithm="STANDALONE",
        tp_size=2,
        dp_size=2,
        enable_dp_attention=True,
    ),
    row(
        "ngram-cuda-only",
        LLAMA,
        "xpu",  # ROCm's device string is "cuda" (get_device), so NGRAM passes there
        Err(VALUE, r"^Ngram speculative decoding only supports CUDA device\."),
        speculative_algorithm="NGRAM",
    ),
    # The implicit topk is --speculative-ngram-max-bfs-breadth (10), not the user's topk.
    row(
        "ngram-implicit-topk-paged",
        LLAMA,
        "h100",
        Err(VALUE, r"^speculative_eagle_topk\(10\) > 1 with page_size\(16\) > 1 is unstable"),
        speculative_algorithm="NGRAM",
        attention_backend="fa3",
        page_size=16,
    ),
    row(
        "ngram-defaults",
        LLAMA,
        "h100",
        E(speculative_eagle_topk=10, speculative_num_draft_tokens=12, speculative_num_steps=1),
        speculative_algorithm="NGRAM",
    ),
    row(
        "dflash-needs-draft-path",
        LLAMA,
        "h100",
        Err(VALUE, r"^DFLASH speculative decoding requires setting --speculative-draft-model-path\."),
        speculative_algorithm="DFLASH",
    ),
    row(
        "dflash-pp",
        LLAMA,
        "h100",
        Err(VALUE, r"^Currently DFLASH speculative decoding only supports pp_size == 1\."),
        speculative_algorithm="DFLASH",
        pp_size=2,
    ),
    row(
        "dflash-writes",
        LLAMA,
        "h100",
        E(speculative_num_steps=1, speculative_eagle_topk=1, speculative_num_draft_tokens=16),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
        speculative_eagle_topk=4,
    ),
    row(
        "spec-moe-runner-default",
        LLAMA,
        "h100",
        E(speculative_moe_runner_backend="auto"),
        speculative_algorithm="EAGLE",
    ),
]

# server_args.py:_handle_cache_compatibility.
CACHE_ROWS = [
    row(
        "hicache-vs-no-radix",
        LLAMA,
        "h100",
        Err(
            VALUE, r"^The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive"
        ),
        enable_hierarchical_cache=True,
        disable_radix_cache=True,
    ),
    row(
        "swa-ratio-range",
        LLAMA,
        "h100",
        Err(VALUE, r"^--swa-full-tokens-ratio should be in range \(0, 1\.0\]\."),
        swa_full_tokens_ratio=1.5,
    ),
]


class TestHandlers:
    @pytest.mark.parametrize("r", MOE_ROWS)
    def test_moe_kernel_config(self, r) -> None:
        check(r)

    @pytest.mark.parametrize("r", A2A_ROWS)
    def test_a2a(self, r) -> None:
        check(r)

    @pytest.mark.parametrize("r", PARALLEL_ROWS)
    def test_parallelism(self, r) -> None:
        check(r)

    @pytest.mark.parametrize("r", SPEC_ROWS)
    def test_speculative(self, r) -> None:
        check(r)

    @pytest.mark.parametrize("r", CACHE_ROWS)
    def test_cache(self, r) -> None:
        check(r)

    def test_every_refusal_names_a_fix(self) -> None:
        for rows in (QUANT_ROWS, MOE_ROWS, A2A_ROWS, PARALLEL_ROWS, SPEC_ROWS, CACHE_ROWS):
            for p in rows:
                r = p.values[0]
                if isinstance(r.expect, Err):
                    refused(r.arch, r.plat, hf=r.hf, env=r.env, **r.args)


class TestOrder:
    """Where two checks refuse, sglang's call order decides which is reported."""

    def test_quantization_before_model_rules(self) -> None:
        """The model config is built at step 5: a quantization mismatch beats LFM2's triton assert (step 10f)."""
        err = refused("Lfm2ForCausalLM", hf=quant("fp8"), quantization="awq", attention_backend="triton")
        assert err.rule == "verify_quantization"

    def test_dp_before_moe(self) -> None:
        """_handle_data_parallelism runs before _handle_moe_kernel_config."""
        err = refused(
            LLAMA,
            tp_size=8,
            dp_size=2,
            enable_dp_lm_head=True,
            moe_runner_backend="flashinfer_cutlass",
            ep_size=2,
        )
        assert err.rule == "dp_lm_head_validation"

    def test_moe_runner_before_a2a(self) -> None:
        """The runner asserts of _handle_moe_kernel_config come before _handle_a2a_moe's."""
        err = refused(
            LLAMA,
            "b200",
            quantization="fp8",
            moe_runner_backend="flashinfer_cutedsl",
            moe_a2a_backend="flashinfer",
        )
        assert err.rule == "moe_runner_backend_checks"

    def test_parallelism_before_speculative(self) -> None:
        """Step 21 (A2A) before step 22 (speculative hook)."""
        err = refused(
            LLAMA,
            "b200",
            moe_a2a_backend="flashinfer",
            moe_runner_backend="flashinfer_cutlass",
            speculative_algorithm="DFLASH",
        )
        assert err.rule == "a2a_moe_checks"

    def test_speculative_before_cache(self) -> None:
        """Step 22 before step 23 (_handle_cache_compatibility)."""
        err = refused(
            LLAMA, speculative_algorithm="DFLASH", enable_hierarchical_cache=True, disable_radix_cache=True
        )
        assert err.rule == "dflash_speculative"

    def test_dflash_dp_attention_first(self) -> None:
        """_handle_dflash: DP attention before pp before the draft path."""
        err = refused(
            LLAMA, speculative_algorithm="DFLASH", tp_size=2, dp_size=2, enable_dp_attention=True, pp_size=2
        )
        assert err.message.startswith("Currently DFLASH speculative decoding does not support dp attention.")
