"""The named behaviour changes of sglang, release by release (the pack's change table).

A rule is written once; where sglang changed its behaviour in a release, the rule asks
``ctx.release.has(CHANGES.NAME)`` (traced: explain names the change, its release and the
upstream function). Adding a release means adding its changes here and the branches that ask
for them (docs/adding-a-release.md).

Invariants: a name says what the newer behaviour does; ``since`` is the first release with it
(``until`` the first without it again); ``upstream`` is the file/function of the wheel that
holds the behaviour (relative to ``sglang/srt``); every entry is asked by at least one rule
(``tests/sglang/test_change_table.py``).
"""

from __future__ import annotations

from ..rules import Change, ChangeTable, ReleaseView

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

CHANGES = ChangeTable(
    "sglang",
    [
        # -- DeepSeek / DSA family (families/deepseek.py) -----------------------------------
        Change(
            "DSA_FP8_KERNELS_USER_KEPT",
            "0.5.11",
            upstream="server_args._set_default_nsa_backends (fp8_e4m3 arm)",
            summary="with an FP8 DSA KV cache a named prefill/decode kernel is kept on SM100+ and Hopper's "
            "prefill default is flashmla_kv (before: trtllm forced on SM100+, flashmla_auto on Hopper)",
        ),
        Change(
            "DSA_NAMING",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch, is_deepseek_dsa)",
            summary="a DSA model's default attention backend is named dsa (nsa before; nsa stays an alias)",
        ),
        Change(
            "DSA_TBO_TOPK_SHARING_REFUSED",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch)",
            summary="--enable-two-batch-overlap is refused for DSA configs that share index-topk across layers",
        ),
        Change(
            "DSA_GLM5_SM120_FP8",
            "0.5.17",
            upstream="arg_groups/overrides._dsa_split_backend_resolution",
            summary="GLM-5 with an FP8 KV cache on SM120/SM121 fills both DSA kernels with flashinfer_sparse_mla",
        ),
        Change(
            "DSA_TILELANG_FP8_REFUSED",
            "0.5.17",
            "0.5.22",
            upstream="arg_groups/overrides._check_tilelang_dsa_fp8_kv",
            summary="a tilelang DSA kernel with an FP8 KV cache is refused on CUDA",
        ),
        Change(
            "DSA_BACKEND_CONSTRAINTS",
            "0.5.20",
            upstream="arg_groups/overrides._check_dsa_backend_constraints",
            summary="the DSA kernel checks run after every branch (HiSparse too); triton is refused off ROCm",
        ),
        Change(
            "DSA_TRITON_ON_ROCM",
            "0.5.20",
            upstream="arg_groups/overrides._dsa_split_backend_resolution",
            summary="ROCm fills triton per unset DSA side (was tilelang, only when both were unset)",
        ),
        Change(
            "DSA_INTEL_XPU_KERNELS",
            "0.5.20",
            upstream="arg_groups/overrides._dsa_split_backend_resolution",
            summary="XPU fills the intel_xpu DSA kernels",
        ),
        Change(
            "DSA_LEARNABLE_SINK",
            "0.5.20",
            upstream="arg_groups/overrides._dsa_split_backend_resolution, _dsa_kv_cache_dtype_default",
            summary="configs with learnable_sink run flashmla_sparse on both sides and a bf16 KV cache",
        ),
        Change(
            "DSA_KV_BF16_ON_XPU",
            "0.5.20",
            upstream="arg_groups/overrides._dsa_kv_cache_dtype_default",
            summary="on XPU an auto DSA KV cache becomes bfloat16",
        ),
        Change(
            "DSA_TILELANG_FP8_SCALED",
            "0.5.22",
            upstream="arg_groups/overrides._check_dsa_backend_constraints",
            summary="CUDA tilelang takes an FP8 KV cache when both sides are tilelang, on SM89+, without DCP",
        ),
        Change(
            "DSA_DCP",
            "0.5.22",
            upstream="arg_groups/model_overrides/deepseek_v2._dsa_dcp_overrides",
            summary="DSA with --dcp-size > 1: refusals, trtllm DSA kernels",
        ),
        Change(
            "DSA_KPOOL_PAGES",
            "0.5.22",
            upstream="arg_groups/model_overrides/deepseek_v2._deepseek_family_overrides",
            summary="DSA pages hold whole pooled index groups (64 * index_kpool)",
        ),
        Change(
            "PREFILL_CP_ATTN_DP",
            "0.5.22",
            upstream="arg_groups/model_override_base.context_parallel_attn_dp_size",
            summary="prefill CP runs --dp-size groups as attention DP; interleave DSA CP accepts DP",
        ),
        Change(
            "LONGCAT_NO_TRTLLM_MOE",
            "0.5.17",
            upstream="arg_groups/overrides._deepseek_moe_quant_resolution",
            summary="LongCat-Flash keeps its MoE runner on SM100 (zero-expert logits)",
        ),
        # -- Gemma 4 (families/gemma4.py) ------------------------------------------------------
        Change(
            "GEMMA4_ASCEND",
            "0.5.14",
            upstream="server_args._handle_model_specific_adjustments (Gemma4)",
            summary="Gemma 4 accepts the ascend attention backend",
        ),
        Change(
            "GEMMA4_FP4_MOE_TRTLLM_MHA",
            "0.5.14",
            upstream="server_args._handle_model_specific_adjustments (Gemma4)",
            summary="a modelopt_fp4 Gemma 4 MoE defaults to trtllm_mha on SM100 too (was triton)",
        ),
        Change(
            "GEMMA4_INTEL_AMX",
            "0.5.18",
            upstream="server_args._handle_model_specific_adjustments (Gemma4 branch)",
            summary="Gemma 4 accepts intel_amx; the refusal names every accepted backend",
        ),
        Change(
            "GEMMA4_AITER",
            "0.5.20",
            upstream="arg_groups/model_hook.handle_model_specific_adjustments (Gemma4 arm)",
            summary="Gemma 4 accepts aiter",
        ),
        Change(
            "GEMMA4_FA4",
            "0.5.22",
            upstream="arg_groups/model_hook.handle_model_specific_adjustments (Gemma4 accepted_backends)",
            summary="Gemma 4 accepts fa4",
        ),
        # -- DeepSeek-V4 (families/deepseek_v4.py) -------------------------------------------
        Change(
            "DSV4_DSPARK",
            "0.5.16",
            upstream="arg_groups/deepseek_v4_hook.apply_deepseek_v4_defaults",
            summary="DeepSeek-V4 accepts DSPARK next to EAGLE (topk 1 asked of EAGLE only)",
        ),
        Change(
            "DSV4_SM120_MXFP4",
            "0.5.16",
            upstream="arg_groups/overrides._deepseek_v4_sm120_moe",
            summary="DeepSeek-V4 on SM120 defaults the MoE runner to flashinfer_mxfp4 (was marlin)",
        ),
        # -- GLM-4 MoE, GPT-OSS ---------------------------------------------------------------
        Change(
            "GLM4_MOE_TF32_BF16_TRTLLM",
            "0.5.15",
            upstream="server_args._handle_model_specific_adjustments (Glm4MoeForCausalLM)",
            summary="GLM-4 MoE allows TF32 matmuls; unquantized experts run flashinfer_trtllm on SM100 too",
        ),
        Change(
            "GPT_OSS_SM120_MARLIN",
            "0.5.14",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM)",
            summary="GPT-OSS MXFP4 on SM120 runs marlin (was triton_kernel)",
        ),
        Change(
            "GPT_OSS_SM120_MXFP4",
            "0.5.17",
            upstream="arg_groups/overrides._gpt_oss_overrides",
            summary="GPT-OSS MXFP4 on SM120 runs flashinfer_mxfp4 (was marlin)",
        ),
        # -- hybrid linear-attention families (families/hybrid_mamba.py) -----------------------
        Change(
            "NEMOTRON_H_MOE_RUNNER_WHEN_AUTO",
            "0.5.11",
            upstream="server_args._handle_model_specific_adjustments (NemotronHForCausalLM branch)",
            summary="Nemotron-H picks its MoE runner only when --moe-runner-backend is auto, flashinfer_trtllm "
            "on SM100 (before: a ModelOpt checkpoint always ran flashinfer_cutlass)",
        ),
        Change(
            "NEMOTRON_H_BLACKWELL_DEFAULTS",
            "0.5.19",
            upstream="arg_groups/model_overrides/nemotron_h._nemotron_h_overrides",
            summary="Nemotron-H on Blackwell picks trtllm_mha/triton (and draft backends) when no backend is set",
        ),
        Change(
            "NEMOTRON_H_TRITON_ALLOWED",
            "0.5.19",
            upstream="arg_groups/model_hook.handle_model_specific_adjustments",
            summary="the Nemotron-H triton assertion is gone (LFM2 keeps it)",
        ),
        Change(
            "QWEN3_5_SM100_PAGE_SIZE",
            "0.5.14",
            upstream="server_args._handle_model_specific_adjustments (Qwen3-Next / Qwen3.5)",
            summary="the SM100 default backend of Qwen3-Next/Qwen3.5 brings its page size (64 for trtllm_mha, 1 for triton)",
        ),
        # -- mamba radix cache (families/mamba_radix.py) -------------------------------------
        Change(
            "MAMBA_AUTO_STRATEGY",
            "0.5.14",
            upstream="server_args._handle_mamba_radix_cache",
            summary="'auto' picks extra_buffer where overlap or paging needs it and the model supports it, and "
            "no_buffer is validated (before: 'auto' was no_buffer, a page size other than 1 was reset to 1, "
            "trtllm_mha or ROCm speculation turned the radix cache off, Kimi-Linear ran without it)",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_ON_ROCM",
            "0.5.16",
            upstream="server_args._handle_mamba_radix_cache",
            summary="extra_buffer runs on ROCm too (FLA)",
        ),
        Change(
            "MAMBA_LAZY_WITH_SPEC",
            "0.5.17",
            upstream="server_args._validate_mamba_extra_buffer",
            summary="extra_buffer_lazy works with speculative verify; it is refused under PD disaggregation",
        ),
        Change(
            "MAMBA_LAZY_DFLASH_REFUSED",
            "0.5.17",
            "0.5.18",
            upstream="server_args._validate_mamba_extra_buffer",
            summary="extra_buffer_lazy is refused with DFLASH",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_ON_XPU",
            "0.5.18",
            upstream="server_args._validate_mamba_extra_buffer",
            summary="extra_buffer runs on XPU too (FLA)",
        ),
        Change(
            "MAMBA_NO_EXTRA_BUFFER_ON_XPU",
            "0.5.20",
            upstream="arg_groups/overrides.supports_mamba_cache_extra_buffer",
            summary="no model supports extra_buffer on XPU (auto resolves to no_buffer)",
        ),
        Change(
            "MAMBA_SNAPSHOT_MESSAGE",
            "0.5.22",
            upstream="arg_groups/mamba_hook.validate_mamba_extra_buffer",
            summary="the platform refusal reads 'extra_buffer requires platform support for Mamba cache state snapshots.'",
        ),
        # -- MiMo-V2 (families/mimo_v2.py) ---------------------------------------------------
        Change(
            "MIMO_V2_HICACHE_NEEDS_UNIFIED_TREE",
            "0.5.14",
            "0.5.19",
            upstream="server_args._handle_model_specific_adjustments (MiMoV2)",
            summary="the hierarchical cache needs SGLANG_ENABLE_UNIFIED_RADIX_TREE=1 (before: it set "
            "swa_full_tokens_ratio 1.0 and turned hybrid SWA memory off)",
        ),
        Change(
            "MIMO_V2_TP_DIVIDES",
            "0.5.17",
            upstream="arg_groups/overrides._mimo_v2_overrides",
            summary="the effective attention TP only has to divide the fused-QKV TP (new wording)",
        ),
        Change(
            "MIMO_V2_FP8_TRTLLM_MOE",
            "0.5.17",
            upstream="server_args._handle_model_specific_adjustments (MiMoV2)",
            summary="an FP8 MiMo-V2 checkpoint on SM100 with MoE runner auto gets flashinfer_trtllm",
        ),
        Change(
            "MIMO_V2_HICACHE_ANY_TREE",
            "0.5.19",
            upstream="arg_groups/model_hook.handle_model_specific_adjustments",
            summary="the MiMoV2 branch no longer asks HiCache for the unified radix tree",
        ),
        # -- MiniMax-M3 (families/minimax_m3.py) ---------------------------------------------
        Change(
            "MINIMAX_M3_FP8_ATTN_GEMM",
            "0.5.17",
            upstream="arg_groups/overrides._minimax_m3_overrides",
            summary="on SM100 an fp8_e4m3 KV cache runs trtllm_mha (with 128-token pages)",
        ),
        Change(
            "MINIMAX_M3_MIXED_ROUTED_MOE",
            "0.5.17",
            upstream="arg_groups/overrides._minimax_m3_overrides",
            summary="a modelopt_mixed checkpoint on SM100 runs flashinfer_trtllm_routed",
        ),
        Change(
            "MINIMAX_M3_ROCM_CUSTOM_AR_ENV",
            "0.5.17",
            upstream="arg_groups/overrides._minimax_m3_overrides",
            summary="SGLANG_M3_ALLOW_CUSTOM_AR keeps the custom all-reduce on ROCm",
        ),
        Change(
            "MINIMAX_M3_NVFP4",
            "0.5.23",
            upstream="arg_groups/model_overrides/minimax_m3._minimax_m3_overrides, _resolve_quant_method",
            summary="an NVFP4-packed mxfp8 checkpoint is minimax_m3_nvfp4 with its own stack",
        ),
        # -- attention backend checks (passes/backend_checks.py) ------------------------------
        Change(
            "TRTLLM_MLA_NO_FP4_KV",
            "0.5.21",
            upstream="arg_groups/overrides._mla_kv_cache_dtype_checks",
            summary="trtllm_mla no longer takes an fp4_e2m1 KV cache",
        ),
        Change(
            "TRTLLM_MHA_FMHAV2_PREFILL",
            "0.5.19",
            upstream="arg_groups/attention_hook.handle_attention_backend_compatibility",
            summary="trtllm_mha prefill runs on SM90/SM100/SM120 (FMHAv2 off SM100; not SM120 with fp8 KV, not with prefill CP off SM100)",
        ),
        Change(
            "ASYMMETRIC_KV_FA4",
            "0.5.17",
            upstream="server_args._get_default_attn_backend",
            summary="an MHA model with asymmetric K/V widths gets fa4 on SM100 (trtllm_mha needs equal widths)",
        ),
        # -- deterministic inference (passes/deterministic.py) --------------------------------
        Change(
            "DETERMINISTIC_FA4",
            "0.5.16",
            upstream="server_args.DETERMINISTIC_ATTENTION_BACKEND_CHOICES, RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND",
            summary="fa4 is deterministic and keeps the radix cache; the lists are sorted",
        ),
        Change(
            "DETERMINISTIC_DEEPSEEK_RADIX_LIST",
            "0.5.17",
            upstream="server_args._handle_deterministic_inference",
            summary="DeepSeek models accept the radix list (ascend, fa3, fa4, triton), fa4 only on SM100/SM110",
        ),
        Change(
            "DETERMINISTIC_ABSORBED_MLA",
            "0.5.18",
            upstream="arg_groups/overrides._deterministic_is_deepseek_model",
            summary="the DeepSeek list adds GLM-4.7-Flash and is called absorbed-MLA models",
        ),
        Change(
            "DETERMINISTIC_INTEL_XPU",
            "0.5.19",
            upstream="arg_groups/attention_hook.handle_deterministic_inference",
            summary="intel_xpu is a deterministic backend",
        ),
        # -- device stage (passes/device.py) ---------------------------------------------------
        Change(
            "TOKENSPEED_MLA_ALIAS",
            "0.5.23",
            upstream="arg_groups/serving_hook._handle_deprecated_args",
            summary="tokenspeed_mla is a deprecated name of cutedsl_mla (prefill: trtllm_mla; keeps its FP8 KV cache)",
        ),
        Change(
            "BREAKABLE_PREFILL_GRAPH",
            "0.5.15",
            upstream="server_args._handle_cuda_graph_config",
            summary="the prefill CUDA graph defaults to breakable on CUDA (was tc_piecewise)",
        ),
        Change(
            "INKLING_FULL_PREFILL_GRAPH",
            "0.5.16",
            upstream="server_args._apply_inkling_prefill_cuda_graph_default",
            summary="Inkling's prefill graph is full unless the prefill backend was given",
        ),
        Change(
            "PD_ROLE_CUDA_GRAPHS",
            "0.5.16",
            upstream="server_args._apply_cuda_graph_disaggregation_roles",
            summary="a PD prefill server disables the decode graph, a decode server the prefill graph",
        ),
        Change(
            "XPU_DECODE_GRAPHS_OFF",
            "0.5.15",
            upstream="server_args._handle_xpu_backends",
            summary="XPU decode graphs are off unless locked to full; prefill graphs keep only tc_piecewise (were always off)",
        ),
        Change(
            "XPU_PREFILL_ANY_GRAPH",
            "0.5.17",
            upstream="server_args._handle_xpu_backends",
            summary="the XPU prefill restriction to tc_piecewise is gone",
        ),
        # -- diffusion LLMs (passes/dllm.py) ---------------------------------------------------
        Change(
            "DLLM_PAGE_CAP",
            "0.5.15",
            upstream="server_args._handle_dllm_inference",
            summary="dLLM pages never exceed the block size; unknown dLLMs are refused with the radix cache off too",
        ),
        Change(
            "DLLM_NO_PP",
            "0.5.15",
            upstream="server_args._handle_dllm_inference",
            summary="a dLLM runs without pipeline parallelism (0.5.14's condition was inverted)",
        ),
        # -- FP4 KV cache (passes/kv4.py) ------------------------------------------------------
        Change(
            "KV4_NVFP4_RECIPES",
            "0.5.16",
            upstream="server_args._handle_kv4_compatibility",
            summary="the FP4 KV checks guard nvfp4 and fp4_mx_block16 (not fp4_e2m1); nvfp4 needs SM100/SM120; flashmla leaves the MLA list",
        ),
        Change(
            "KV4_NATIVE_NVFP4",
            "0.5.21",
            upstream="arg_groups/kv_cache_hook.handle_kv4_compatibility",
            summary="FP4 KV refuses unified memory; SM100 native NVFP4 (trtllm_mha) limits speculation, PD and host caches; cutlass_mla leaves the lists",
        ),
        Change(
            "MAMBA_FLASHINFER_REWORDED",
            "0.5.15",
            upstream="server_args._handle_mamba_backend",
            summary="the missing-FlashInfer refusal says 'the FlashInfer installation'",
        ),
        # -- page-size constraints (passes/page_constraints.py) -------------------------------
        Change(
            "TRTLLM_MHA_PAGE_128",
            "0.5.17",
            upstream="arg_groups/overrides._mla_backend_page_constraints",
            summary="trtllm_mha (also as the draft backend) accepts 128-token pages; hpc_ops needs 64",
        ),
        Change(
            "FA4_PAGES_ANY_SIDE",
            "0.5.15",
            upstream="server_args._handle_attention_backend_compatibility",
            summary="FA4 as A, D or P on SM100 for MHA uses 128-token pages unless EAGLE topk > 1 (was: FA4 prefill only)",
        ),
        Change(
            "INTEL_XPU_PAGES_EITHER_SIDE",
            "0.5.20",
            upstream="arg_groups/overrides._intel_xpu_page_constraint",
            summary="the intel_xpu page lists apply when prefill or decode is intel_xpu (was: decode only)",
        ),
        Change(
            "ATTN_DP_SIZE_WORDING",
            "0.5.22",
            upstream="arg_groups/parallel_hook.handle_data_parallelism",
            summary="the DP-attention assert names attn_dp_size (--dp-size with DP attention is its deprecated spelling)",
        ),
        Change(
            "UNIFIED_MLA_PAGED_BACKENDS",
            "0.5.17",
            upstream="server_args._handle_page_major_kv_layout",
            summary="an MLA model on the unified memory pool may use the paged MLA backends (new wording)",
        ),
        # -- MoE runners and A2A (passes/moe_kernels.py) -------------------------------------
        Change(
            "MOE_MXFP8_DEEP_GEMM",
            "0.5.16",
            upstream="arg_groups/overrides._moe_runner_backend_quant_constraints, server_args.MXFP8_MOE_RUNNER_BACKEND_CHOICES",
            summary="mxfp8 MoE also runs deep_gemm, and triton on gfx95 ROCm (its default there)",
        ),
        Change(
            "MOE_NVFP4_ONLINE_CUTEDSL",
            "0.5.18",
            upstream="arg_groups/overrides._moe_runner_backend_quant_constraints",
            summary="nvfp4_online also accepts flashinfer_cutedsl; the mxfp8 arm is skipped on NPU",
        ),
        Change(
            "MOE_MIXED_CUTEDSL_ROUTED",
            "0.5.16",
            upstream="server_args._handle_moe_kernel_config",
            summary="modelopt_mixed is accepted by the CuteDSL and the routed TRT-LLM runners",
        ),
        Change(
            "MOE_CUTEDSL_NVFP4_ONLINE",
            "0.5.18",
            upstream="server_args._handle_moe_kernel_config",
            summary="CuteDSL serves nvfp4_online and refuses deepep with it (per-token NVFP4 activation)",
        ),
        Change(
            "CUTLASS_MOE_ENV_GONE",
            "0.5.18",
            upstream="server_args._handle_moe_kernel_config",
            summary="SGLANG_CUTLASS_MOE and _cutlass_moe_env_override are gone",
        ),
        Change(
            "WATERFILL_DEEPEP_OR_MEGAMOE",
            "0.5.18",
            upstream="arg_groups/overrides._a2a_backend_overrides",
            summary="Waterfill accepts deepep or megamoe; SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE is no longer read",
        ),
        Change(
            "DEEPEP_CUTEDSL_LOW_LATENCY",
            "0.5.17",
            upstream="server_args._handle_a2a_moe",
            summary="DeepEP with the flashinfer_cutedsl FP4 runner refuses --deepep-mode normal",
        ),
        Change(
            "PPLX_A2A",
            "0.5.17",
            upstream="server_args._handle_a2a_moe",
            summary="the pplx A2A backend and its checks",
        ),
        Change(
            "DEEPEP_V2_A2A",
            "0.5.19",
            upstream="arg_groups/moe_hook.handle_a2a_moe",
            summary="the deepep_v2 A2A backend and its checks",
        ),
        Change(
            "DFLASH_ON_NPU",
            "0.5.17",
            upstream="arg_groups/speculative_hook._handle_dflash",
            summary="DFLASH runs on NPU too (CUDA and NPU)",
        ),
        Change(
            "DFLASH_ON_XPU",
            "0.5.20",
            upstream="arg_groups/speculative_hook._handle_dflash",
            summary="DFLASH runs on XPU too (CUDA, NPU and XPU)",
        ),
        Change(
            "DFLASH_PLATFORM_CLASS_MESSAGE",
            "0.5.21",
            upstream="arg_groups/speculative_hook._handle_dflash",
            summary="the DFLASH device refusal names sglang's platform class and the device",
        ),
        Change(
            "DFLASH_DP_ATTENTION_ON_NPU",
            "0.5.20",
            upstream="arg_groups/speculative_hook._handle_dflash",
            summary="DFLASH allows DP attention on NPU (refused elsewhere, new words)",
        ),
        Change(
            "DFLASH_DP_ATTENTION_ON_CUDA",
            "0.5.23",
            upstream="arg_groups/speculative_hook._handle_dflash",
            summary="DFLASH allows DP attention on CUDA with --enable-dp-lm-head and no attention CP",
        ),
        Change(
            "FLASHINFER_A2A_ATTN_DP_WORDING",
            "0.5.22",
            upstream="arg_groups/moe_hook.handle_a2a_moe",
            summary="FlashInfer A2A's topology assert names --attn-dp-size",
        ),
        Change(
            "FLASHINFER_A2A_TOPOLOGY_WORDING",
            "0.5.23",
            upstream="arg_groups/moe_hook._flashinfer_a2a_topology_is_supported",
            summary="FlashInfer A2A's topology assert in new words, with the Muse Spark exceptions",
        ),
        Change(
            "FLASHINFER_A2A_MORE_RUNNERS",
            "0.5.19",
            upstream="arg_groups/moe_hook.handle_a2a_moe",
            summary="FlashInfer A2A also accepts flashinfer_trtllm and deep_gemm (new message)",
        ),
        Change(
            "MEGAMOE_RUNNER_ALIAS",
            "0.5.18",
            upstream="server_args._handle_moe_runner_backend_alias",
            summary="--moe-runner-backend megamoe means --moe-a2a-backend megamoe (before: not a choice)",
        ),
        # -- speculative decoding (passes/speculative.py) ------------------------------------
        Change(
            "EAGLE_TRTLLM_EFFECTIVE_BACKENDS",
            "0.5.15",
            upstream="server_args._handle_eagle_family",
            summary="the trtllm_mha topk check reads the effective prefill/decode backends (was the three fields as given)",
        ),
        Change(
            "SPEC_MIXED_CHUNK",
            "0.5.19",
            upstream="arg_groups/speculative_hook._handle_eagle_family, _handle_dflash (spec_info.supports_mixed_chunk)",
            summary="mixed chunked prefill stays on for EAGLE/EAGLE3/NEXTN and DFLASH (STANDALONE still turns it off)",
        ),
        Change(
            "NGRAM_ON_CPU",
            "0.5.16",
            upstream="arg_groups/speculative_hook._handle_ngram",
            summary="NGRAM runs on CPU too",
        ),
        Change(
            "NGRAM_ON_XPU",
            "0.5.21",
            upstream="arg_groups/speculative_hook._handle_ngram",
            summary="NGRAM runs on XPU too",
        ),
        # -- start-up checks (passes/startup.py) ---------------------------------------------
        Change(
            "HPC_OPS_BACKEND",
            "0.5.17",
            upstream="layers/attention/attention_registry",
            summary="the attention registry registers hpc_ops",
        ),
        Change(
            "MINICPM_ATTENTION_BACKENDS",
            "0.5.19",
            upstream="layers/attention/attention_registry",
            summary="the attention registry registers minicpm_flashattn and minicpm_flashinfer",
        ),
        Change(
            "HYBRID_GDN_PD_BACKENDS",
            "0.5.18",
            upstream="layers/attention/attention_registry.attn_backend_wrapper",
            summary="hybrid GDN models check the effective prefill and decode backends, per Blackwell arch",
        ),
        Change(
            "HYBRID_GDN_BLACKWELL_FLASHINFER",
            "0.5.21",
            upstream="layers/attention/attention_registry.attn_backend_wrapper",
            summary="hybrid GDN models accept flashinfer on non-SM120 Blackwell (mixed NVFP4 recipe)",
        ),
        Change(
            "EXAONE_FILLS_ATTENTION",
            "0.5.22",
            upstream="arg_groups/model_overrides/exaone._exaone_overrides",
            summary="a sliding-window EXAONE fills an unset attention backend (trtllm_mha on SM100, fa3 on SM80+, else triton)",
        ),
        # -- quantization (passes/quantization.py) -------------------------------------------
        Change(
            "QUANT_REGISTRY_HUMMING",
            "0.5.16",
            upstream="layers/quantization/__init__.py, configs/model_config.ModelConfig._verify_quantization",
            summary="qoq and fbgemm_fp8 leave the registry, humming joins (and claims the checkpoint), mxfp4 also on NPU; ROCm list without fbgemm_fp8",
        ),
        Change(
            "QUANT_REQUANTIZE",
            "0.5.17",
            upstream="configs/model_config.ModelConfig._verify_quantization (REQUANTIZATION_METHODS)",
            summary="an online method of REQUANTIZATION_METHODS (quark_mxfp4) requantizes a checkpoint of another method",
        ),
        Change(
            "QUANT_MODELOPT_EXACT",
            "0.5.18",
            upstream="configs/model_config._parse_modelopt_quant_config, compatible_quantization_methods",
            summary="modelopt_fp4 serves fp8 checkpoints, nvfp4_online modelopt_fp8 ones; ModelOpt FP8 only exactly, MXFP8 is mxfp8",
        ),
        Change(
            "QUANT_MODELOPT_ALLOWLIST",
            "0.5.19",
            upstream="layers/modelopt_utils.canonicalize_modelopt_quant_algo",
            summary="--quantization modelopt maps quant_algo through an exact allowlist",
        ),
        Change(
            "QUANT_GPTQ_PLATFORMS",
            "0.5.20",
            upstream="layers/quantization/__init__.py, unwrap_modelopt_quantization_config",
            summary="plain gptq only on NPU/CPU engine/XPU, mxfp4 also on XPU, ROCm without gptq; flat or nested ModelOpt objects",
        ),
        Change(
            "QUANT_MINIMAX_M3_NVFP4",
            "0.5.23",
            upstream="layers/quantization/__init__.py, configs/model_config.ModelConfig._verify_quantization",
            summary="minimax_m3_nvfp4 is registered (after mxfp8) and serves an mxfp8 checkpoint",
        ),
        # -- 0.5.12 (what 0.5.11 did not do yet; docs/releases/0.5.12.md) ------------------------
        Change(
            "DSA_V32_DEEPSEEK_BRANCH",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch list)",
            summary="DeepseekV32ForCausalLM joins the DeepSeek branch: DSA backend, pages, KV cache and kernels "
            "(before: DeepSeek-V3.2 got none of the DSA defaults)",
        ),
        Change(
            "DSA_GPU_ARM_SKIPS_XPU",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek DSA arm: not is_npu() and not is_xpu())",
            summary="the DSA GPU arm (prefill CP, pages, KV cache, kernels) skips XPU (before: XPU took the CUDA path)",
        ),
        Change(
            "DSA_ROCM_PRESHUFFLE_PAGES",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments, nsa/utils.aiter_can_use_preshuffle_paged_mqa",
            summary="DSA on ROCm with the AITER preshuffle uses 64-token pages (before: 1-token pages on every ROCm)",
        ),
        Change(
            "DSA_PREFILL_CP_TP_AT_MOST_8",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments (DSA prefill context parallelism)",
            summary="DSA prefill context parallelism accepts --tp-size <= 8 (before: exactly 8)",
        ),
        Change(
            "SPEC_MOE_RUNNER_TRTLLM",
            "0.5.12",
            upstream="server_args._handle_speculative_decoding",
            summary="the draft MoE runner defaults to the target's even when it is flashinfer_trtllm, and an "
            "explicit flashinfer_trtllm draft runner is accepted (before: auto, and refused)",
        ),
        Change(
            "DETERMINISTIC_FLASHINFER_AR_FUSION_OFF",
            "0.5.12",
            upstream="server_args.__post_init__ / _handle_deterministic_inference",
            summary="deterministic inference also turns the FlashInfer all-reduce fusion off (before: AITER's only)",
        ),
        Change(
            "CPU_ARM64_TORCH_NATIVE",
            "0.5.12",
            upstream="server_args._handle_cpu_backends (is_host_cpu_arm64)",
            summary="the CPU engine on an arm64 host defaults to torch_native attention (before: intel_amx)",
        ),
        Change(
            "DEEPSEEK_BF16_TRTLLM_MOE",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek MoE runner on SM100)",
            summary="an unquantized DeepSeek-family checkpoint on SM100 gets the flashinfer_trtllm MoE runner "
            "(before: only fp8/ModelOpt/int4-thinking ones)",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_ON_NPU",
            "0.5.12",
            upstream="server_args._handle_mamba_radix_cache (extra_buffer platform assertion)",
            summary="the mamba extra_buffer strategy also runs on NPU (before: CUDA and MUSA only)",
        ),
        Change(
            "GPT_OSS_MUSA_DEEP_GEMM",
            "0.5.12",
            upstream="server_args._handle_model_specific_adjustments (GptOss MoE runner)",
            summary="a bf16 GPT-OSS on MUSA with SGLANG_DEEPEP_BF16_DISPATCH gets the deep_gemm MoE runner",
        ),
        Change(
            "MEGAMOE_A2A_WATERFILL",
            "0.5.12",
            upstream="server_args._handle_a2a_moe",
            summary="DeepEP Waterfill and the MegaMoE A2A backend (SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE selects it) arrive",
        ),
        Change(
            "HISPARSE_DSA_KV_AWARE",
            "0.5.12",
            upstream="arg_groups/hisparse_hook.apply_hisparse_nsa_backend_defaults",
            summary="HiSparse picks flashmla_kv for an fp8_e4m3 KV cache (before: flashmla_sparse always)",
        ),
        # -- 0.5.13 (what 0.5.12 did not do yet; docs/releases/0.5.13.md) ------------------------
        Change(
            "GPT_OSS_CPU_AMX",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (GptOss branch)",
            summary="GPT-OSS on an AMX CPU defaults to intel_amx, accepts it, and skips the triton_kernel MoE runner",
        ),
        Change(
            "GEMMA4_BACKEND_POLICY",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (Gemma4 branch)",
            summary="every Gemma 4 architecture: trtllm_mha on SM100, the unset side filled, the backend check, "
            "the SM100 modelopt_fp4 MoE runner (before: triton for Gemma4ForConditionalGeneration only)",
        ),
        Change(
            "GRANITE_HYBRID_SM100_FLASHINFER",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (GraniteMoeHybrid branch)",
            summary="Granite-4.0-H with mamba layers defaults to flashinfer on SM100 (triton before)",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_FALCON_GRANITE",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (FalconH1/Jet-Nemotron, GraniteMoeHybrid)",
            summary="Falcon-H1, Jet-Nemotron/JetVLM and Granite-4.0-H accept the mamba extra_buffer strategy",
        ),
        Change(
            "BAILING_V2_5_MAMBA_CACHE",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (BailingMoeV2_5 branch)",
            summary="Bailing-MoE-V2.5 keeps the radix cache (mamba cache with extra_buffer; before: radix cache off)",
        ),
        Change(
            "DETERMINISTIC_ASCEND",
            "0.5.13",
            upstream="server_args.py DETERMINISTIC_ATTENTION_BACKEND_CHOICES, _handle_deterministic_inference",
            summary="deterministic inference accepts ascend (radix cache kept) and keeps the ascend sampling backend",
        ),
        Change(
            "EAGLE_PAGE_TREE_TRITON",
            "0.5.13",
            upstream="arg_groups/speculative_hook._handle_eagle_family (before: server_args._handle_speculative_decoding)",
            summary="EAGLE topk > 1 with pages > 1 also runs on triton (before: flashinfer and fa3 only)",
        ),
        Change(
            "GPTQ_MARLIN_OFF_CUDA",
            "0.5.13",
            upstream="layers/quantization/gptq/gptq.GPTQMarlinConfig.is_gptq_marlin_compatible",
            summary="a GPTQ checkpoint converts to gptq_marlin off CUDA too (before: CUDA only, so ROCm kept gptq)",
        ),
        Change(
            "STEP3P_BACKEND_DEFAULT",
            "0.5.13",
            upstream="server_args._handle_model_specific_adjustments (Step3p5/Step3p7 branch)",
            summary="Step-3.5 with no backend chosen gets fa4 on Blackwell and fa3 on Hopper",
        ),
        # -- 0.5.5.post1 (what 0.5.5 did not do yet; docs/releases/0.5.5.post1.md) -----------------
        Change(
            "FA4_PREFILL_PAGES_MHA_ONLY",
            "0.5.5.post1",
            upstream="server_args._handle_attention_backend_compatibility (fa4 prefill page size)",
            summary="an fa4 prefill backend forces 128-token pages for MHA models only (before: for MLA "
            "models too)",
        ),
        Change(
            "PIECEWISE_GRAPH_RESERVE_QUARTER",
            "0.5.5.post1",
            "0.5.7",
            upstream="server_args._handle_gpu_memory_settings (memory.default_mem_fraction_static)",
            summary="--enable-piecewise-cuda-graph reserves piecewise_cuda_graph_max_tokens // 4 MiB before "
            "the static fraction (before: nothing; 0.5.7: PIECEWISE_GRAPH_RESERVE_EIGHTH)",
        ),
        # -- the default fraction's reserves, 0.5.7-0.5.14 (memory.default_mem_fraction_static; h34m) --
        Change(
            "PIECEWISE_GRAPH_RESERVE_EIGHTH",
            "0.5.7",
            "0.5.8",
            upstream="server_args._handle_gpu_memory_settings (memory.default_mem_fraction_static)",
            summary="--enable-piecewise-cuda-graph reserves piecewise_cuda_graph_max_tokens // 8 MiB, the "
            "maximum defaulting to the chunked-prefill size",
        ),
        Change(
            "PIECEWISE_GRAPH_RESERVE_PER_SIZE",
            "0.5.8",
            "0.5.10",
            upstream="server_args._handle_gpu_memory_settings (memory.default_mem_fraction_static)",
            summary="--enable-piecewise-cuda-graph reserves 8 MiB per captured size (the maximum: the "
            "chunked-prefill size, 2048 with an MLA backend), before the 10 GiB floor",
        ),
        Change(
            "PREFILL_GRAPH_RESERVE_BY_DEFAULT",
            "0.5.10",
            upstream="server_args._handle_gpu_memory_settings (memory.default_mem_fraction_static)",
            summary="the piecewise prefill graph is on unless disabled and the default fraction reserves "
            "for it (8 MiB per captured size, 1.5 GiB with an MLA backend); before: only with "
            "--enable-piecewise-cuda-graph",
        ),
        Change(
            "EAGLE_DRAFT_RESERVE_4GIB",
            "0.5.10",
            "0.5.14",
            upstream="server_args._handle_gpu_memory_settings (memory.draft_reserve_mib)",
            summary="speculative decoding other than NGRAM/STANDALONE reserves 4 GiB after the 10 GiB "
            "floor (2 GiB before)",
        ),
        Change(
            "DRAFT_RESERVE_DROPPED",
            "0.5.14",
            upstream="server_args._handle_gpu_memory_settings (memory.draft_reserve_mib)",
            summary="the default fraction no longer reserves for a draft model (before: STANDALONE 6 GiB, "
            "other algorithms but NGRAM 2 GiB, 4 GiB from 0.5.10)",
        ),
        Change(
            "MAX_RUNNING_REQUESTS_FROM_POOL",
            "0.5.10",
            upstream="model_executor/model_runner_kv_cache_mixin._resolve_max_num_reqs (memory.max_running_requests)",
            summary="the request table is sized by the resolved max running requests (your "
            "--max-running-requests per DP rank, capped by the estimate); before: by your value undivided "
            "(or the estimate), running min(yours // DP or tokens // 2, the table)",
        ),
        Change(
            "MAX_RUNNING_REQUESTS_HALF_POOL",
            "0.5.14",
            upstream="model_executor/model_runner_kv_cache_mixin._resolve_max_num_reqs (memory.max_running_requests)",
            summary="a --max-running-requests per DP rank is capped by half the KV tokens (before: by the "
            "estimate clamp(tokens / context × 512, 2048, 4096))",
        ),
        Change(
            "DSA_FP8_SCALED_CELL",
            "0.5.9",
            upstream="model_executor/model_runner_kv_cache_mixin.calculate_mla_kv_cache_dim (memory.kv_cell)",
            summary="a DSA model's fp8 KV token is sized in FlashMLA's layout (kv_lora_rank fp8 + an fp32 "
            "scale per 128 + the rope key in bf16: 656 B for V3.2) unless a DSA kernel is trtllm; before: "
            "kv_lora_rank + rope at 1 byte (576 B)",
        ),
        Change(
            "DSA_FP8_RAW_CELL_ON_ROCM",
            "0.5.10",
            upstream="model_executor/model_runner_kv_cache_mixin.calculate_mla_kv_cache_dim (memory.kv_cell)",
            summary="on ROCm a tilelang DSA kernel (aiter too from 0.5.14) keeps the raw fp8 cell (576 B); "
            "0.5.9 sizes the scaled one there too",
        ),
        Change(
            "SYMM_MEM_PREALLOC_POOL",
            "0.5.9",
            upstream="model_executor/model_runner.prealloc_symmetric_memory_pool (memory.after_pool_allocations)",
            summary="--enable-symm-mem pre-allocates a symmetric-memory pool after the CUDA graphs, "
            "SGLANG_SYMM_MEM_PREALLOC_GB_SIZE GiB (4 unless set, server_args._handle_gpu_memory_settings); "
            "before: no pool",
        ),
        Change(
            "NOT_ENOUGH_MEMORY_PLAIN_VALUE",
            "0.5.10",
            upstream="model_executor/model_runner_kv_cache_mixin.MemoryPoolConfig.__post_init__",
            summary="the empty-pool refusal ends 'Current value: mem_fraction_static=F' (before: "
            "'Current value: self.server_args.mem_fraction_static=F', init_memory_pool)",
        ),
        Change(
            "LLAMA4_INTEL_XPU",
            "0.5.5.post1",
            upstream="server_args._handle_model_specific_adjustments (Llama4 branch)",
            summary="Llama 4 accepts the intel_xpu attention backend (before: fa3, aiter, triton or "
            "trtllm_mha)",
        ),
        # -- 0.5.5.post2 (what 0.5.5.post1 did not do yet; docs/releases/0.5.5.post2.md) ---------
        Change(
            "QWEN3_NEXT_RADIX_OVERLAP_OFF",
            "0.5.5.post2",
            upstream="server_args._handle_model_specific_adjustments (Qwen3NextForCausalLM branch)",
            summary="Qwen3-Next with the radix cache on turns the overlap schedule off (MambaRadixCache; "
            "in 0.5.7 only without the extra_buffer strategy, whose checks ran there; 0.5.8 moved the block "
            "to the GLM-4 MoE branch, MAMBA_BLOCK_IN_GLM4_MOE_BRANCH) (before: no Qwen3-Next branch, overlap kept)",
        ),
        Change(
            "HYBRID_GDN_BLACKWELL_TRTLLM_MHA",
            "0.5.5.post2",
            upstream="layers/attention/attention_registry.attn_backend_wrapper",
            summary="hybrid GDN models on Blackwell accept --attention-backend trtllm_mha as well as triton "
            "(before: triton only)",
        ),
        # -- 0.5.6.post2 (what 0.5.6.post1 did not do yet; docs/releases/0.5.6.post2.md) ---------
        Change(
            "SM90_PROBE_CUDA_ONLY",
            "0.5.6.post2",
            upstream="utils/common.is_sm90_supported (server_args._handle_model_specific_adjustments, Llama4 arm)",
            summary="the SM90 probe answers False off CUDA; before, a ROCm GPU of capability 9 (MI300, MI350) "
            "compared the unset torch.version.cuda with '12.3' and failed (TypeError), so Llama 4 without "
            "--attention-backend did not start there",
        ),
        # -- 0.5.7 (what 0.5.6.post2 did not do yet; docs/releases/0.5.7.md) ---------------------
        Change(
            "TRTLLM_MHA_DEFAULT_SM100_ONLY",
            "0.5.7",
            upstream="server_args._handle_attention_backend_compatibility (MHA default arm)",
            summary="the MHA default is trtllm_mha on SM100 only (SM120 falls back to flashinfer), and with "
            "speculation only when --speculative-eagle-topk is given (before: on any Blackwell, capability "
            "10 or 12, then refused there off SM100)",
        ),
        Change(
            "TRTLLM_MOE_BF16_COMPRESSED",
            "0.5.7",
            upstream="server_args._handle_moe_kernel_config (flashinfer_trtllm)",
            summary="the FlashInfer TRT-LLM MoE runner also takes compressed-tensors and unquantized "
            "(bfloat16) models (before: modelopt_fp4, modelopt_fp8 or fp8 only)",
        ),
        Change(
            "NEMOTRON_H_SM100_FLASHINFER",
            "0.5.7",
            upstream="server_args._handle_model_specific_adjustments (NemotronHForCausalLM arm)",
            summary="Nemotron-H defaults to flashinfer on SM100 and refuses triton (before: it shared the "
            "Falcon-H1 arm, which only turned the overlap schedule off: the generic default, trtllm_mha on "
            "Blackwell)",
        ),
        Change(
            "TRTLLM_MLA_BF16_KV",
            "0.5.7",
            upstream="server_args._handle_attention_backend_compatibility (trtllm_mla)",
            summary="trtllm_mla accepts a bf16 KV cache (before: fp8_e4m3, fp4_e2m1 or auto)",
        ),
        Change(
            "DETERMINISTIC_ROCM_KEEPS_CUSTOM_AR",
            "0.5.7",
            upstream="server_args._handle_deterministic_inference (TP > 1)",
            summary="deterministic inference with TP > 1 keeps the custom all-reduce on ROCm (its one-stage "
            "kernel); before, every vendor turned it off",
        ),
        Change(
            "SPEC_MOE_RUNNER_FILLED",
            "0.5.7",
            upstream="server_args._handle_speculative_decoding (speculative_moe_runner_backend)",
            summary="the draft MoE runner is filled (auto for flashinfer_trtllm, else the main runner) and an "
            "explicit flashinfer_trtllm draft runner is refused (before: left unset, layers/moe/utils.py "
            "read the main runner)",
        ),
        Change(
            "SPEC_V2_EAGLE3_TOPK_ONE",
            "0.5.7",
            upstream="server_args._handle_speculative_decoding (SGLANG_ENABLE_SPEC_V2)",
            summary="spec v2 keeps the overlap schedule for EAGLE3 too and refuses a topk above 1; every other "
            "case turns it off (before: EAGLE only, no topk check, and EAGLE3/STANDALONE under spec v2 left "
            "it as it was)",
        ),
        Change(
            "SWA_RATIO_RANGE_CHECKED",
            "0.5.7",
            upstream="server_args._handle_cache_compatibility",
            summary="--swa-full-tokens-ratio outside (0, 1] is refused (before: not checked)",
        ),
        # -- 0.5.9 (what 0.5.8 did not do yet; docs/releases/0.5.9.md) ---------------------------
        Change(
            "QUANT_MXFP8",
            "0.5.9",
            upstream="layers/quantization/__init__.py BASE_QUANTIZATION_METHODS, configs/model_config."
            "ModelConfig._verify_quantization (rocm_supported_quantization)",
            summary="mxfp8 joins the quantization registry (served by Fp8Config) after fp8, and the ROCm list",
        ),
        Change(
            "DSA_DEFAULT_KERNELS",
            "0.5.9",
            upstream="server_args._set_default_nsa_backends",
            summary="the DSA kernels an FP8 or bf16-on-SM100 KV cache picks are defaults a named kernel "
            "overrides, and bf16 on SM100+ decodes with trtllm (before: FP8 forced flashmla_auto/flashmla_kv and "
            "bf16 on SM100+ forced flashmla_sparse on both sides, whatever was named)",
        ),
        Change(
            "GPT_OSS_SPEC_KEEPS_HYBRID_SWA",
            "0.5.9",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM branch)",
            summary="GPT-OSS under speculative decoding keeps the hybrid SWA memory pool (before: turned off)",
        ),
        Change(
            "GPT_OSS_MOE_RUNNER_AITER_ARMS",
            "0.5.9",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM branch)",
            summary="GPT-OSS's MoE runner: ROCm with SGLANG_USE_AITER keeps auto (MXFP4) or takes triton, and "
            "triton_kernel needs --quantization unset (before: neither arm, triton_kernel whatever the "
            "quantization)",
        ),
        Change(
            "DLLM_LORA_PD_MIXED_OFF",
            "0.5.9",
            upstream="server_args._handle_dllm_inference",
            summary="a diffusion LLM turns LoRA, PD disaggregation and mixed chunked prefill off (before: left on)",
        ),
        Change(
            "STEP3P5_BRANCH",
            "0.5.9",
            upstream="server_args._handle_model_specific_adjustments (Step3p5ForCausalLM branch)",
            summary="Step-3.5 gets its branch: multi-layer EAGLE with spec v2, and a full-size SWA pool under "
            "the hierarchical cache (before: no branch, with no Step-3.5 model either)",
        ),
        Change(
            "MAMBA_RADIX_HANDLER",
            "0.5.9",
            upstream="server_args._handle_mamba_radix_cache",
            summary="one handler serves every hybrid branch: extra_buffer checks and the no_buffer overlap/"
            "radix adjustments for Qwen3-Next too, speculation turns the radix cache off (before: per-branch "
            "code; Qwen3-Next had no extra_buffer checks before 0.5.7, Falcon-H1 turned overlap off even with speculation, and the "
            "extra_buffer checks ran in the GLM-4 MoE branch instead)",
        ),
        Change(
            "QUANT_MXFP4_ON_CPU",
            "0.5.14",
            upstream="layers/quantization/__init__.py (the mxfp4 update)",
            summary="the CPU engine registers mxfp4 too (before: CUDA and gfx95 ROCm only)",
        ),
        Change(
            "CHOICES_MXFP8_MORI_FLASHINFER_A2A",
            "0.5.9",
            upstream="server_args.py QUANTIZATION_CHOICES, MOE_A2A_BACKEND_CHOICES",
            summary="argparse accepts --quantization mxfp8 and the mori and flashinfer MoE A2A backends",
        ),
        # -- 0.5.8 (what 0.5.7 did not do yet; docs/releases/0.5.8.md) ----------------------------
        Change(
            "MAMBA_BLOCK_IN_GLM4_MOE_BRANCH",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (Qwen3NextForCausalLM, Glm4MoeForCausalLM)",
            summary="the mamba radix-cache block (extra_buffer checks; with the radix cache on and no "
            "extra_buffer, the overlap schedule off) sits in the GLM-4 MoE branch (before: in the Qwen3-Next "
            "branch, QWEN3_NEXT_RADIX_OVERLAP_OFF)",
        ),
        Change(
            "HOPPER_MHA_FA3_EVERY_MODEL",
            "0.5.8",
            upstream="server_args._handle_attention_backend_compatibility (MHA default on Hopper)",
            summary="Hopper (CUDA 12.3+) defaults every MHA model to fa3 (before: only the architectures of "
            "utils/common.is_fa3_default_architecture; the others flashinfer, else triton)",
        ),
        Change(
            "FA4_DECODE_ALLOWED",
            "0.5.8",
            upstream="server_args._handle_attention_backend_compatibility (fa4 check)",
            summary="--attention-backend fa4 and --decode-attention-backend fa4 are no longer refused "
            "(before: fa4 was prefill-only)",
        ),
        Change(
            "CPU_ENGINE_ARM64",
            "0.5.8",
            upstream="utils/common.is_cpu (is_host_cpu_arm64), get_device",
            summary="the CPU engine runs on arm64 hosts (before: x86 only; an arm64 CPU host had no device "
            "and get_device refused with 'No accelerator')",
        ),
        Change(
            "HICACHE_AFTER_ATTENTION",
            "0.5.8",
            upstream="server_args._handle_hicache (effective decode backend), ServerArgs.__post_init__",
            summary="HiCache's kernel-I/O fix runs after the attention defaults and picks a decode backend only "
            "when the effective one is fa3 (before: it ran before them and filled every unset decode backend)",
        ),
        Change(
            "QUANT_REGISTRY_BNB_MODELSLIM",
            "0.5.8",
            upstream="layers/quantization/__init__.BASE_QUANTIZATION_METHODS, ModelConfig._verify_quantization",
            summary="the registry holds bitsandbytes, modelslim (on every platform) and quark_int4fp8_moe, "
            "and ROCm accepts quark_int4fp8_moe (before: none of them; modelslim only on NPU)",
        ),
        Change(
            "DSA_DP_ATTENTION_WITH_CP_ONLY",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch, is_deepseek_nsa)",
            summary="a DSA model turns DP attention on only with prefill context parallelism (before: on "
            "every launch off NPU)",
        ),
        Change(
            "DSA_ROCM_ONE_TOKEN_PAGES",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch, is_deepseek_nsa)",
            summary="a DSA model on ROCm uses 1-token pages (before: 64, as on CUDA)",
        ),
        Change(
            "DSA_CP_PD_DECODE_REFUSED",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch, is_deepseek_nsa)",
            summary="prefill context parallelism is refused on a PD decode server (before: accepted)",
        ),
        Change(
            "GPT_OSS_ASCEND_HYBRID_SWA",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM)",
            summary="GPT-OSS accepts the ascend attention backend and no longer always turns the hybrid SWA "
            "memory pool off (before: off for every launch; ascend refused)",
        ),
        Change(
            "QWEN3_MOE_SM100_UNQUANTIZED_TRTLLM",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (Qwen3MoeForCausalLM, Qwen3VLMoe)",
            summary="on SM100 unquantized Qwen3-MoE experts run on flashinfer_trtllm too (before: only fp8 and "
            "modelopt_fp4)",
        ),
        Change(
            "GLM4_MOE_SM100_ARM",
            "0.5.8",
            upstream="server_args._handle_model_specific_adjustments (Glm4MoeForCausalLM)",
            summary="GLM-4 MoE on SM100 adopts the checkpoint's quantization and runs NVFP4 experts on "
            "flashinfer_trtllm (before: no GLM-4 MoE branch)",
        ),
        Change(
            "SPEC_V2_STANDALONE",
            "0.5.8",
            upstream="server_args._handle_speculative_decoding (SGLANG_ENABLE_SPEC_V2 arm)",
            summary="with SGLANG_ENABLE_SPEC_V2 STANDALONE speculation keeps the overlap schedule on as EAGLE does "
            "(before: spec v2 took EAGLE and EAGLE3 only; STANDALONE turned the overlap schedule off)",
        ),
        Change(
            "DLLM_ROCM_TRITON",
            "0.5.8",
            upstream="server_args._handle_dllm_inference (is_hip arm)",
            summary="a diffusion LLM on ROCm runs without CUDA graphs on triton (or aiter) (before: flashinfer "
            "with CUDA graphs on, as on CUDA)",
        ),
        # -- argparse choices a release added or removed (choices.CHOICE_CHANGES) ---------------
        # -- 0.5.5.post3 (docs/releases/0.5.5.post3.md) ------------------------------------
        Change(
            "CHOICES_SAMPLING_ASCEND",
            "0.5.5.post3",
            upstream="server_args.py --sampling-backend choices",
            summary="argparse accepts --sampling-backend ascend",
        ),
        # -- 0.5.6 (docs/releases/0.5.6.md) ------------------------------------------------
        Change(
            "LLAMA4_PLATFORM_DEFAULT",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (Llama4 branch)",
            summary="Llama 4 with no attention backend named gets the platform's pick (trtllm_mha, fa3, aiter, "
            "intel_xpu, triton; before: the supported-backend assertion refused the unset backend)",
        ),
        Change(
            "QWEN3_NEXT_SM100_TRITON",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (Qwen3NextForCausalLM branch, SM100 arm)",
            summary="Qwen3-Next on SM100 runs triton attention and, with FP8/NVFP4, the flashinfer_trtllm MoE "
            "runner (before: no SM100 arm: the generic default)",
        ),
        Change(
            "QWEN3_MOE_SM100_ARM",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (Qwen3MoeForCausalLM / Qwen3VLMoe branch)",
            summary="Qwen3-MoE and Qwen3-VL-MoE on SM100 adopt the checkpoint's quantization and run FP8/NVFP4 "
            "experts on flashinfer_trtllm (before: no such branch)",
        ),
        Change(
            "NEMOTRON_H_MODELOPT_ARM",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (NemotronHForCausalLM branch)",
            summary="a ModelOpt Nemotron-H must use relu2, takes the checkpoint's ModelOpt method and the "
            "flashinfer_cutlass MoE runner (before: no Nemotron-H branch)",
        ),
        Change(
            "DSA_IN_DEEPSEEK_BRANCH",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (is_deepseek_nsa arm)",
            summary="the DeepSeek sparse-attention arm runs inside the DeepseekV3ForCausalLM branch (before: for "
            "every is_deepseek_nsa architecture, DeepSeek-V3.2 included)",
        ),
        Change(
            "DSA_DP_SIZE_KEPT",
            "0.5.6",
            upstream="server_args._handle_model_specific_adjustments (is_deepseek_nsa arm, off NPU)",
            summary="a DeepSeek sparse-attention model keeps --dp-size when DP attention is turned on (before: "
            "dp_size was set to tp_size)",
        ),
        Change(
            "EAGLE_PAGE_TREE_FA3",
            "0.5.6",
            upstream="server_args._handle_speculative_decoding (topk > 1 with page_size > 1)",
            summary="EAGLE topk > 1 with pages > 1 is accepted on fa3 too (before: flashinfer only)",
        ),
        Change(
            "FLASHINFER_CUTLASS_MOE_FP8_BF16",
            "0.5.6",
            upstream="server_args._handle_moe_kernel_config (flashinfer_cutlass arm)",
            summary="the flashinfer_cutlass MoE runner accepts modelopt_fp8 and unquantized models (before: "
            "modelopt_fp4 only)",
        ),
        Change(
            "CHOICES_ASCEND_FUSEEP",
            "0.5.6",
            upstream="server_args.py --moe-a2a-backend choices",
            summary="argparse accepts --moe-a2a-backend ascend_fuseep",
        ),
        # -- 0.5.6.post1 (docs/releases/0.5.6.post1.md) ------------------------------------
        Change(
            "BLACKWELL_MHA_TRTLLM_DEFAULT",
            "0.5.6.post1",
            upstream="server_args._handle_attention_backend_compatibility (MHA default arms)",
            summary="an MHA model on Blackwell without EAGLE topk > 1 defaults to trtllm_mha (before: "
            "flashinfer where available, else triton)",
        ),
        Change(
            "NPU_DEFAULT_SERVER_ARGS",
            "0.5.6.post1",
            upstream="server_args._handle_npu_backends (hardware_backend/npu/utils.set_default_server_args)",
            summary="on Ascend the attention, prefill and decode backends are all forced to ascend, pages "
            "default to 128 and custom all-reduce is off (before: ascend only as the unset default, and "
            "128-token pages forced whenever the backend is ascend)",
        ),
        Change(
            "MISTRAL_LARGE_3_PARAMS_JSON",
            "0.5.6.post1",
            upstream="utils/hf_transformers_utils.get_config (_load_mistral_large_3_for_causal_LM)",
            summary="a model whose name holds mistral-large-3 is read from params.json (before: config.json "
            "through AutoConfig, for every name)",
        ),
        Change(
            "MISTRAL_LARGE_3_MLA",
            "0.5.6.post1",
            upstream="configs/model_config.ModelConfig._derive_model_shapes (MistralLarge3/Pixtral MLA arm)",
            summary="MistralLarge3ForCausalLM and PixtralForConditionalGeneration with a kv_lora_rank are MLA "
            "models (before: MHA)",
        ),
        Change(
            "DLLM_CUDA_GRAPH_KEPT",
            "0.5.6.post1",
            upstream="server_args._handle_dllm_inference",
            summary="diffusion LLMs keep CUDA graphs (batch sizes [1]) with the flashinfer backend forced "
            "(before: CUDA graphs off, the attention backend left as chosen)",
        ),
        Change(
            "CHOICES_MODELSLIM",
            "0.5.6.post1",
            upstream="server_args.py QUANTIZATION_CHOICES",
            summary="argparse accepts --quantization modelslim (Ascend)",
        ),
        Change(
            "QWEN3_NEXT_SM100_TRITON_WHEN_UNSET",
            "0.5.6.post1",
            upstream="server_args._handle_model_specific_adjustments (Qwen3NextForCausalLM branch, SM100 arm)",
            summary="Qwen3-Next on SM100 gets triton only when no attention backend is named (before: "
            "triton forced over the user's choice)",
        ),
        Change(
            "ATTENTION_SINKS_NOT_FLASHINFER",
            "0.5.11",
            upstream="server_args._get_default_attn_backend, _resolve_io_decode_attention_compatibility "
            "(configs/model_config.ModelConfig._detect_attention_sinks)",
            summary="a model with attention sinks (GPT-OSS, MiMo-V2 with a sink bias) gets triton where "
            "flashinfer would be the default",
        ),
        Change(
            "DEEPSEEK_SM100_FP8_BY_WEIGHTS",
            "0.5.11",
            upstream="server_args._handle_model_specific_adjustments (DeepSeek branch, SM100 arm)",
            summary="an unquantized DeepseekV3ForCausalLM on SM100 is FP8 only when the checkpoint holds FP8 "
            "expert weights (before: always taken as FP8)",
        ),
        Change(
            "INTEL_XPU_MLA_DECODE_ONLY",
            "0.5.11",
            upstream="server_args._handle_attention_backend_compatibility (intel_xpu arm)",
            summary="intel_xpu prefill is refused for MLA models and the decode backend's pages are checked "
            "({64, 128}, MLA {16, 32, 64, 128}); before: --attention-backend intel_xpu needed {32, 64, 128}",
        ),
        Change(
            "MUSA_PAGE_SIZE_64",
            "0.5.11",
            upstream="server_args._handle_page_size",
            summary="an unset page size is 64 on MUSA (before: 1 everywhere)",
        ),
        Change(
            "MAMBA_NO_BUFFER_ADJUSTS",
            "0.5.11",
            upstream="server_args._handle_mamba_radix_cache (no_buffer arm)",
            summary="no_buffer with the radix cache sets page_size 1, and on ROCm speculation turns the radix "
            "cache off (before: the page size was kept and ROCm speculation was refused)",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_ON_MUSA",
            "0.5.11",
            upstream="server_args._handle_mamba_radix_cache (extra_buffer assertion)",
            summary="mamba extra_buffer is accepted on MUSA (before: CUDA only)",
        ),
        Change(
            "GPT_OSS_INTEL_XPU",
            "0.5.11",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM branch)",
            summary="GPT-OSS on Intel XPU defaults to intel_xpu, lists it as sink-capable and runs in bfloat16 "
            "only (before: triton, intel_xpu refused, any dtype)",
        ),
        Change(
            "MOE_CUTEDSL_CHECKS_ROUTED_FP4",
            "0.5.11",
            upstream="server_args._handle_moe_kernel_config",
            summary="the flashinfer_cutedsl MoE runner is checked (modelopt_fp4 only, ep_size 1 or tp_size, "
            "A2A none or deepep) and flashinfer_trtllm_routed accepts modelopt_fp4 (before: neither)",
        ),
        Change(
            "SPEC_V2_BY_DEFAULT",
            "0.5.11",
            upstream="server_args._handle_speculative_decoding (environ.SGLANG_ENABLE_SPEC_V2 default)",
            summary="EAGLE/EAGLE3/STANDALONE keep the overlap schedule on by default (spec v2); before: off "
            "unless SGLANG_ENABLE_SPEC_V2 was set, which then refused a topk above 1",
        ),
        Change(
            "CHOICES_UNQUANT_DFLASH_AITER_MOE",
            "0.5.11",
            upstream="server_args.py choice lists",
            summary="argparse accepts --quantization unquant, the DFLASH speculative algorithm and the aiter "
            "MoE runner (target and draft)",
        ),
        Change(
            "CHOICES_DSV4_TOKENSPEED_QUARK_MLX",
            "0.5.12",
            upstream="server_args.py choice lists",
            summary="argparse accepts the dsv4, compressed and tokenspeed_mla attention backends, --quantization "
            "quark, mlx_q4 and mlx_q8, the marlin MoE runner and the megamoe A2A backend",
        ),
        Change(
            "CHOICES_DSA_CUTEDSL_MLA_QUARK_MXFP4",
            "0.5.13",
            upstream="server_args.py choice lists",
            summary="argparse accepts the dsa and cutedsl_mla attention backends (nsa becomes dsa's alias), "
            "--quantization quark_mxfp4 and the experimental_sgl_trtllm MoE runner",
        ),
        Change(
            "CHOICES_NVFP4_ONLINE",
            "0.5.14",
            upstream="server_args.py QUANTIZATION_CHOICES",
            summary="argparse accepts --quantization nvfp4_online",
        ),
        Change(
            "CHOICES_AUTO_ROUND_INT8_MXFP_W4A8",
            "0.5.15",
            upstream="server_args.py QUANTIZATION_CHOICES",
            summary="argparse accepts --quantization auto-round-int8 and mxfp_w4a8",
        ),
        Change(
            "CHOICES_FP4_KV_HUMMING_ASCEND_TP",
            "0.5.16",
            upstream="server_args.py choice lists",
            summary="argparse accepts the mxfp8/nvfp4/fp4_mx_block16 KV caches, flashmla_sparse_q8, humming, "
            "experimental_sgl_marlin, ascend_tp and DSPARK",
        ),
        Change(
            "CHOICES_QOQ_GONE",
            "0.5.16",
            upstream="server_args.py QUANTIZATION_CHOICES",
            summary="argparse no longer accepts --quantization qoq",
        ),
        Change(
            "CHOICES_HPC_OPS_PPLX_SPARSE_MLA",
            "0.5.17",
            upstream="server_args.py ATTENTION_BACKEND_CHOICES, DSA_CHOICES, MOE_RUNNER/MOE_A2A_BACKEND_CHOICES",
            summary="argparse accepts hpc_ops (attention, MoE), flashinfer_sparse_mla and pplx",
        ),
        Change(
            "CHOICES_MINICPM_INTEL_XPU_DEEPEP_V2",
            "0.5.19",
            upstream="server_args.py ATTENTION_BACKEND_CHOICES, MOE_RUNNER/MOE_A2A_BACKEND_CHOICES",
            summary="argparse accepts the MiniCPM attention backends, the intel_xpu MoE runner and deepep_v2",
        ),
        Change(
            "CHOICES_QSA_MEGAMOE_UNO_DSA_TRITON",
            "0.5.20",
            upstream="arg_groups/choices.py",
            summary="argparse accepts qsa, the triton DSA kernels, flashinfer_megamoe and UNO",
        ),
        Change(
            "CHOICES_CUTLASS_MLA_MARLIN_GONE",
            "0.5.20",
            upstream="layers/attention/attention_registry.py, arg_groups/choices.py QUANTIZATION_CHOICES",
            summary="argparse no longer accepts cutlass_mla, dual_chunk_flash_attn and --quantization marlin",
        ),
        Change(
            "CHOICES_INTEL_XPU_SAMPLING",
            "0.5.21",
            upstream="arg_groups/choices.py SAMPLING_BACKEND_CHOICES",
            summary="argparse accepts --sampling-backend intel_xpu",
        ),
        Change(
            "CHOICES_FP4_E2M1_KV_GONE",
            "0.5.21",
            upstream="arg_groups/choices.py KV_CACHE_DTYPE_CHOICES",
            summary="argparse no longer accepts --kv-cache-dtype fp4_e2m1",
        ),
        Change(
            "CHOICES_LLADA2_CFG_FLASHINFER",
            "0.5.22",
            upstream="arg_groups/choices.py ATTENTION_BACKEND_CHOICES",
            summary="argparse accepts the llada2_cfg_flashinfer attention backend",
        ),
        Change(
            "CUDA_GRAPH_TC_PIECEWISE_GONE",
            "0.5.22",
            upstream="cuda_graph_config.parse_cuda_graph_backend_arg",
            summary="the tc_piecewise CUDA-graph backend is refused by the flag's type parser",
        ),
        Change(
            "XPU_ONEDNN_RESERVE",
            "0.5.20",
            upstream="arg_groups/memory_hook.handle_gpu_memory_settings (is_xpu)",
            summary="on Intel XPU the default --mem-fraction-static reserves 2 GiB more, after the floor, "
            "for oneDNN's matmul scratch space",
        ),
        Change(
            "SMALL_GPU_CHUNKED_PREFILL_4K",
            "0.5.20",
            upstream="arg_groups/memory_hook.handle_gpu_memory_settings (the 20-35 GiB band)",
            summary="GPUs of 20-35 GiB (A10, L4, RTX 4090/5090) default to 4096-token chunked prefill "
            "(before: 2048)",
        ),
        Change(
            "DP_ATTENTION_RESERVE_AFTER_RESET",
            "0.5.22",
            upstream="arg_groups/memory_hook.handle_gpu_memory_settings (the resolved enable_dp_attention)",
            summary="the default --mem-fraction-static reserves for DP attention only when it stays on "
            "(dp_size > 1); before, --enable-dp-attention with dp_size 1 still reserved its share, "
            "sized before DP attention was turned off",
        ),
        Change(
            "CHOICES_LORA_MOE_RUNNERS",
            "0.5.23",
            upstream="arg_groups/choices.py MOE_RUNNER_BACKEND_CHOICES",
            summary="argparse accepts the LoRA MoE runners",
        ),
        Change(
            "NGRAM_KEEPS_OVERLAP",
            "0.5.14",
            upstream="arg_groups/speculative_hook._handle_ngram",
            summary="NGRAM speculative decoding leaves the overlap schedule as it is (before: turned it off)",
        ),
        # -- sglang 0.5.10 (the step from 0.5.9; docs/releases/0.5.10.md) ----------------------
        Change(
            "LLAMA4_ASCEND",
            "0.5.10",
            upstream="server_args._handle_model_specific_adjustments (Llama4 branch)",
            summary="Llama 4 accepts the ascend attention backend (before: fa3, aiter, triton, trtllm_mha "
            "or intel_xpu)",
        ),
        Change(
            "HYBRID_GDN_BLACKWELL_FA4_FLASHINFER",
            "0.5.10",
            upstream="layers/attention/attention_registry.attn_backend_wrapper",
            summary="hybrid GDN models on Blackwell accept fa4 and flashinfer too (before: triton or trtllm_mha)",
        ),
        Change(
            "CHOICES_NIXL_TRTLLM_ROUTED_MODELOPT_MIXED",
            "0.5.10",
            upstream="server_args.py choice lists (MOE_A2A_BACKEND_CHOICES, MOE_RUNNER_BACKEND_CHOICES, "
            "QUANTIZATION_CHOICES)",
            summary="argparse accepts the nixl MoE A2A backend, the flashinfer_trtllm_routed MoE runner "
            "(target and draft) and --quantization modelopt_mixed",
        ),
        Change(
            "MISTRAL_NATIVE_SMALL4_LEANSTRAL",
            "0.5.10",
            upstream="utils/hf_transformers_utils.get_config (the Mistral-Large-3 name check)",
            summary="a model named mistral-small-4 or leanstral reads its config from params.json, like "
            "mistral-large-3 (before: only mistral-large-3; the others read config.json)",
        ),
        Change(
            "DLLM_RADIX_CACHE_KEPT",
            "0.5.10",
            upstream="server_args._handle_dllm_inference (DllmConfig.from_server_args)",
            summary="a diffusion LLM keeps the radix cache: pages align to the block size of a known dLLM "
            "(an unknown architecture is refused) and hierarchical cache and LMCache go off (before: the "
            "radix cache was turned off and the architecture was not looked up)",
        ),
        Change(
            "DLLM_ASCEND_ON_NPU",
            "0.5.10",
            upstream="server_args._handle_dllm_inference (is_npu arm)",
            summary="a diffusion LLM on Ascend uses the ascend backend (before: the CUDA-graph arm, flashinfer)",
        ),
        Change(
            "MAMBA_SPEC_NO_BUFFER_REFUSED",
            "0.5.10",
            upstream="server_args._handle_mamba_radix_cache (no_buffer arm)",
            summary="speculative decoding on a hybrid mamba model with no_buffer and the radix cache on is "
            "refused (before: the radix cache was turned off)",
        ),
        Change(
            "MAMBA_EXTRA_BUFFER_RADIX_OFF_REFUSED",
            "0.5.10",
            upstream="server_args._handle_mamba_radix_cache (extra_buffer arm)",
            summary="mamba extra_buffer with --disable-radix-cache is refused (before: accepted)",
        ),
        Change(
            "WHISPER_ARMS",
            "0.5.10",
            upstream="server_args._get_default_attn_backend, _handle_attention_backend_compatibility "
            "(Whisper arms)",
            summary="WhisperForConditionalGeneration defaults to flashinfer and runs without the radix cache "
            "(before: the MHA tree and the radix cache kept)",
        ),
        Change(
            "MPS_TORCH_NATIVE_DEFAULT",
            "0.5.10",
            upstream="server_args._get_default_attn_backend (is_mps arms)",
            summary="on Apple MPS the default attention backend is torch_native (before: flashinfer/triton "
            "for MHA, triton for MLA)",
        ),
        Change(
            "TRTLLM_MHA_SPLIT_DEVICE_CHECK",
            "0.5.10",
            upstream="server_args._handle_attention_backend_compatibility (trtllm_mha check)",
            summary="trtllm_mha is checked per side: prefill needs SM100, decode SM90/SM100/SM120 (before: "
            "trtllm_mha named anywhere, --attention-backend included, needed SM100)",
        ),
        Change(
            "FA4_PREFILL_PAGES_SM100_ONLY",
            "0.5.10",
            upstream="server_args._handle_attention_backend_compatibility (fa4 prefill page size)",
            summary="an fa4 prefill backend forces 128-token pages for MHA models only on SM100 (before: on "
            "every device)",
        ),
        Change(
            "MOE_MXFP8_TRTLLM",
            "0.5.10",
            upstream="server_args._handle_moe_kernel_config (mxfp8 arm)",
            summary="mxfp8 quantization runs its MoE on cutlass or the TRT-LLM runners, auto meaning "
            "flashinfer_trtllm (before: cutlass, forced over any other runner)",
        ),
        Change(
            "GPT_OSS_AITER",
            "0.5.10",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM branch)",
            summary="GPT-OSS defaults to aiter on ROCm and accepts it (before: triton by default, aiter refused)",
        ),
        Change(
            "GPT_OSS_TRTLLM_SWA_KEPT",
            "0.5.10",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM branch)",
            summary="GPT-OSS with a trtllm_mha prefill or decode backend keeps hybrid SWA memory (before: "
            "--disable-hybrid-swa-memory was set)",
        ),
        Change(
            "QUANT_MODELOPT_IN_CONFIG_JSON",
            "0.5.10",
            upstream="configs/model_config.py ModelConfig._parse_quant_hf_config",
            summary="a config.json quantization_config with quant_method modelopt is read by its quant_algo "
            "(modelopt_fp8 / modelopt_fp4) (before: only one without a quant_method was; modelopt stayed "
            "modelopt, so --quantization of another method is refused and ROCm serves it as petit_nvfp4)",
        ),
        Change(
            "GPT_OSS_SM120_TRITON_KERNEL",
            "0.5.10",
            upstream="server_args._handle_model_specific_adjustments (GptOssForCausalLM MoE runner)",
            summary="an MXFP4 GPT-OSS on SM120 gets the triton_kernel MoE runner and flashinfer_mxfp4 only "
            "on SM100 (before: flashinfer_mxfp4 on any Blackwell); on Blackwell with an NVIDIA driver "
            ">= 595 the triton_kernels arm picks triton",
        ),
        Change(
            "CHOICES_QUARK_INT4FP8_MOE",
            "0.5.8",
            upstream="server_args.py QUANTIZATION_CHOICES",
            summary="argparse accepts --quantization quark_int4fp8_moe",
        ),
    ],
)


def in_release(release: ReleaseView, entries: Iterable[tuple[Any, Change | None]]) -> tuple[Any, ...]:
    """The items of an upstream list that ``release`` has, in the list's order: each entry is
    ``(item, change)`` where ``change`` (or None: every release) is the change that added it."""
    return release.pick(entries)
