"""Names accepted by sglang for the fields this pack models (spec §2.1, §7).

Invariant: these tuples are data only; every rule and the argparse integration read them
from here, so a backend name is spelled in exactly one place. A tuple is the union over the
supported releases; the names a release added or removed are listed in ``CHOICE_CHANGES``, each
group with its named change (``passes/release_choices.py`` refuses them for the other releases).
"""

from __future__ import annotations

from .changes import CHANGES

ATTENTION_BACKENDS = (
    # common
    "triton",
    "torch_native",
    "flex_attention",
    "dsa",
    "nsa",
    "dsv4",
    "compressed",
    # NVIDIA
    "cutlass_mla",  # until 0.5.20
    "fa3",
    "fa4",
    "flashinfer",
    "flashmla",
    "trtllm_mla",
    "cutedsl_mla",
    "tokenspeed_mla",
    "trtllm_mha",
    "dual_chunk_flash_attn",  # until 0.5.20
    # AMD
    "aiter",
    "wave",
    # other platforms
    "intel_amx",
    "ascend",
    "intel_xpu",
    # MiniCPM sparse attention (since 0.5.19; last, so the 0.5.15 matrix colours stay put)
    "minicpm_flashattn",
    "minicpm_flashinfer",
    "qsa",  # since 0.5.20 (last, so the existing backends keep their places and colours)
    "hpc_ops",  # since 0.5.17 (HPC-Ops, SM90 only)
    # since 0.5.22 (non-MLA, LLaDA2 CFG)
    "llada2_cfg_flashinfer",
)
#: Backends accepted under --enable-deterministic-inference (spec §4.3, §7).
DETERMINISTIC_BACKENDS = ("flashinfer", "fa3", "triton", "ascend")
#: The deterministic backends that keep the radix cache on.
RADIX_DETERMINISTIC_BACKENDS = ("fa3", "triton", "ascend")
#: Hard-coded list for DeepSeek models under deterministic inference.
DEEPSEEK_DETERMINISTIC_BACKENDS = ("fa3", "triton")

DSA_BACKENDS = (
    "flashmla_sparse",
    "flashmla_kv",
    "flashmla_auto",
    "fa3",
    "tilelang",
    "aiter",
    "trtllm",
    "flashmla_sparse_q8",  # since 0.5.16
    "triton",  # since 0.5.20 (ROCm only)
    "intel_xpu",  # declared by sglang 0.5.20 on XPU; never a user choice (choices.INTERNAL)
    "flashinfer_sparse_mla",  # since 0.5.17
)
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
#: ``mxfp8``, ``nvfp4`` and ``fp4_mx_block16`` since 0.5.16 (``fp4_e2m1`` is then deprecated,
#: and removed in 0.5.21).
KV_CACHE_DTYPES = (
    "auto",
    "fp8_e5m2",
    "fp8_e4m3",
    "bf16",
    "bfloat16",
    "fp4_e2m1",  # until 0.5.21
    "mxfp8",  # since 0.5.16
    "nvfp4",  # since 0.5.16
    "fp4_mx_block16",  # since 0.5.16
)
#: The FP4 KV-cache recipes the KV4 checks guard (0.5.15: fp4_e2m1; 0.5.16: the two new ones).
FP4_KV_CACHE_DTYPES = ("fp4_e2m1", "nvfp4", "fp4_mx_block16")
MAMBA_STRATEGIES = ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")
SAMPLING_BACKENDS = ("flashinfer", "pytorch", "ascend", "intel_xpu")  # intel_xpu since 0.5.21
CUDA_GRAPH_BACKENDS = ("full", "breakable", "tc_piecewise", "disabled")
DEVICES = ("cuda", "xpu", "hpu", "npu", "cpu", "musa", "mps")
SPECULATIVE_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO")
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN")
DISAGGREGATION_MODES = ("null", "prefill", "decode")
CP_STRATEGIES = ("zigzag", "interleave")
DEEPEP_MODES = ("auto", "normal", "low_latency")

QUANTIZATIONS = (
    "awq",
    "fp8",
    "mxfp8",
    "gptq",
    "marlin",  # until 0.5.20
    "gptq_marlin",
    "awq_marlin",
    "bitsandbytes",
    "gguf",
    "modelopt",
    "modelopt_fp8",
    "modelopt_fp4",
    "nvfp4_online",
    "modelopt_mixed",
    "petit_nvfp4",
    "w8a8_int8",
    "w8a8_fp8",
    "moe_wna16",
    "qoq",  # until 0.5.15
    "w4afp8",
    "mxfp4",
    "auto-round",
    "auto-round-int8",
    "compressed-tensors",
    "modelslim",
    "mxfp_w4a8",
    "quark",
    "quark_int4fp8_moe",
    "quark_mxfp4",
    "mlx_q4",
    "mlx_q8",
    "unquant",
    "humming",  # since 0.5.16
    "minimax_m3_nvfp4",  # declared by sglang 0.5.23 for MiniMax-M3.1 NVFP4; never a user choice
)
MOE_RUNNER_BACKENDS = (
    "auto",
    "deep_gemm",
    "triton",
    "triton_kernel",
    "flashinfer_trtllm",
    "experimental_sgl_trtllm",
    "flashinfer_trtllm_routed",
    "flashinfer_cutlass",
    "flashinfer_mxfp4",
    "flashinfer_cutedsl",
    "cutlass",
    "aiter",
    "marlin",
    "humming",  # since 0.5.16
    "experimental_sgl_marlin",  # since 0.5.16
    # 0.5.18 (an alias for --moe-a2a-backend megamoe; refused for earlier releases by
    # passes/moe_kernels.py:moe_runner_choices_before_0_5_18)
    "megamoe",
    "intel_xpu",  # since 0.5.19
    "flashinfer_megamoe",  # since 0.5.20
    "hpc_ops",  # since 0.5.17 (FP8 MoE on SM90)
    "lora_cutedsl",  # since 0.5.23
    "lora_triton",  # since 0.5.23
    "lora_marlin",  # since 0.5.23
)
MOE_A2A_BACKENDS = (
    "none",
    "deepep",
    "mooncake",
    "nixl",
    "mori",
    "ascend_fuseep",
    "flashinfer",
    "megamoe",
    "ascend_tp",  # since 0.5.16
    "pplx",  # since 0.5.17
    "deepep_v2",  # since 0.5.19
    "flashinfer_megamoe",  # since 0.5.20
)

#: Names a rule may declare but sglang's parser never accepts from the user (0.5.20 declares
#: ``intel_xpu`` as the DSA kernel on XPU, ``overrides._dsa_split_backend_resolution``).
#: 0.5.23 declares ``minimax_m3_nvfp4`` for a MiniMax-M3.1 checkpoint (``model_overrides/minimax_m3.py``).
INTERNAL = {
    "dsa_prefill_backend": ("intel_xpu",),
    "dsa_decode_backend": ("intel_xpu",),
    "quantization": ("minimax_m3_nvfp4",),
}
#: The choices a release added or removed, per field, each group with the named change that made
#: the difference, in the order sglang's parser meets them (``passes/release_choices.py``): an
#: "added" group is refused by the releases without its change (argparse's "invalid choice"), a
#: "removed" group by the releases with it, the "internal" names (``INTERNAL``) always.
CHOICE_CHANGES = (
    (
        "added",
        CHANGES.CHOICES_SAMPLING_ASCEND,
        {"sampling_backend": ("ascend",)},
    ),
    (
        "added",
        CHANGES.CHOICES_ASCEND_FUSEEP,
        {"moe_a2a_backend": ("ascend_fuseep",)},
    ),
    (
        "added",
        CHANGES.CHOICES_MODELSLIM,
        {"quantization": ("modelslim",)},
    ),
    (
        "added",
        CHANGES.CHOICES_QUARK_INT4FP8_MOE,
        {
            "quantization": ("quark_int4fp8_moe",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_MXFP8_MORI_FLASHINFER_A2A,
        {
            "quantization": ("mxfp8",),
            "moe_a2a_backend": ("mori", "flashinfer"),
            "speculative_moe_a2a_backend": ("mori", "flashinfer"),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_NIXL_TRTLLM_ROUTED_MODELOPT_MIXED,
        {
            "quantization": ("modelopt_mixed",),
            "speculative_moe_runner_backend": ("flashinfer_trtllm_routed",),
            "speculative_moe_a2a_backend": ("nixl",),
            "moe_a2a_backend": ("nixl",),
            "moe_runner_backend": ("flashinfer_trtllm_routed",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_UNQUANT_DFLASH_AITER_MOE,
        {
            "quantization": ("unquant",),
            "speculative_algorithm": ("DFLASH",),
            "moe_runner_backend": ("aiter",),
            "speculative_moe_runner_backend": ("aiter",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_DSV4_TOKENSPEED_QUARK_MLX,
        {
            "attention_backend": ("compressed", "dsv4", "tokenspeed_mla"),
            "prefill_attention_backend": ("compressed", "dsv4", "tokenspeed_mla"),
            "decode_attention_backend": ("compressed", "dsv4", "tokenspeed_mla"),
            "quantization": ("quark", "mlx_q4", "mlx_q8"),
            "moe_runner_backend": ("marlin",),
            "speculative_moe_runner_backend": ("marlin",),
            "moe_a2a_backend": ("megamoe",),
            "speculative_moe_a2a_backend": ("megamoe",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_DSA_CUTEDSL_MLA_QUARK_MXFP4,
        {
            "attention_backend": ("dsa", "cutedsl_mla"),
            "prefill_attention_backend": ("dsa", "cutedsl_mla"),
            "decode_attention_backend": ("dsa", "cutedsl_mla"),
            "quantization": ("quark_mxfp4",),
            "moe_runner_backend": ("experimental_sgl_trtllm",),
            "speculative_moe_runner_backend": ("experimental_sgl_trtllm",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_NVFP4_ONLINE,
        {
            "quantization": ("nvfp4_online",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_AUTO_ROUND_INT8_MXFP_W4A8,
        {
            "quantization": ("auto-round-int8", "mxfp_w4a8"),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_FP4_KV_HUMMING_ASCEND_TP,
        {
            "kv_cache_dtype": ("mxfp8", "nvfp4", "fp4_mx_block16"),
            "dsa_prefill_backend": ("flashmla_sparse_q8",),
            "dsa_decode_backend": ("flashmla_sparse_q8",),
            "quantization": ("humming",),
            "moe_runner_backend": ("humming", "experimental_sgl_marlin"),
            "speculative_moe_runner_backend": ("humming", "experimental_sgl_marlin"),
            "moe_a2a_backend": ("ascend_tp",),
            "speculative_moe_a2a_backend": ("ascend_tp",),
            "speculative_algorithm": ("DSPARK",),
        },
    ),
    (
        "removed",
        CHANGES.CHOICES_QOQ_GONE,
        {
            "quantization": ("qoq",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_HPC_OPS_PPLX_SPARSE_MLA,
        {
            "attention_backend": ("hpc_ops",),
            "prefill_attention_backend": ("hpc_ops",),
            "decode_attention_backend": ("hpc_ops",),
            "dsa_prefill_backend": ("flashinfer_sparse_mla",),
            "dsa_decode_backend": ("flashinfer_sparse_mla",),
            "moe_runner_backend": ("hpc_ops",),
            "speculative_moe_runner_backend": ("hpc_ops",),
            "moe_a2a_backend": ("pplx",),
            "speculative_moe_a2a_backend": ("pplx",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_MINICPM_INTEL_XPU_DEEPEP_V2,
        {
            "attention_backend": ("minicpm_flashattn", "minicpm_flashinfer"),
            "prefill_attention_backend": ("minicpm_flashattn", "minicpm_flashinfer"),
            "decode_attention_backend": ("minicpm_flashattn", "minicpm_flashinfer"),
            "moe_runner_backend": ("intel_xpu",),
            "speculative_moe_runner_backend": ("intel_xpu",),
            "moe_a2a_backend": ("deepep_v2",),
            "speculative_moe_a2a_backend": ("deepep_v2",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_QSA_MEGAMOE_UNO_DSA_TRITON,
        {
            "attention_backend": ("qsa",),
            "prefill_attention_backend": ("qsa",),
            "decode_attention_backend": ("qsa",),
            "dsa_prefill_backend": ("triton",),
            "dsa_decode_backend": ("triton",),
            "moe_runner_backend": ("flashinfer_megamoe",),
            "speculative_moe_runner_backend": ("flashinfer_megamoe",),
            "moe_a2a_backend": ("flashinfer_megamoe",),
            "speculative_moe_a2a_backend": ("flashinfer_megamoe",),
            "speculative_algorithm": ("UNO",),
        },
    ),
    (
        "removed",
        CHANGES.CHOICES_CUTLASS_MLA_MARLIN_GONE,
        {
            "attention_backend": ("cutlass_mla", "dual_chunk_flash_attn"),
            "prefill_attention_backend": ("cutlass_mla", "dual_chunk_flash_attn"),
            "decode_attention_backend": ("cutlass_mla", "dual_chunk_flash_attn"),
            "quantization": ("marlin",),
        },
    ),
    ("internal", None, INTERNAL),
    (
        "added",
        CHANGES.CHOICES_INTEL_XPU_SAMPLING,
        {
            "sampling_backend": ("intel_xpu",),
        },
    ),
    (
        "removed",
        CHANGES.CHOICES_FP4_E2M1_KV_GONE,
        {
            "kv_cache_dtype": ("fp4_e2m1",),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_LORA_MOE_RUNNERS,
        {
            "moe_runner_backend": ("lora_cutedsl", "lora_triton", "lora_marlin"),
            "speculative_moe_runner_backend": ("lora_cutedsl", "lora_triton", "lora_marlin"),
        },
    ),
    (
        "added",
        CHANGES.CHOICES_LLADA2_CFG_FLASHINFER,
        {
            "attention_backend": ("llada2_cfg_flashinfer",),
            "prefill_attention_backend": ("llada2_cfg_flashinfer",),
            "decode_attention_backend": ("llada2_cfg_flashinfer",),
        },
    ),
    (
        "removed",
        CHANGES.CUDA_GRAPH_TC_PIECEWISE_GONE,
        {
            "cuda_graph_backend_prefill": ("tc_piecewise",),
            "cuda_graph_backend_decode": ("tc_piecewise",),
        },
    ),
)
#: The LoRA MoE runners 0.5.23 added (``lora_hook.check_lora_moe_runner_args``; passes/lora_moe.py).
LORA_MOE_RUNNERS = ("lora_cutedsl", "lora_triton", "lora_marlin")


def choices_in(release: str, field: str, values: tuple) -> tuple:
    """``values`` (a union over releases) as ``release`` knows them for ``field``: without the
    names a later release added or an earlier (or this) release removed (``CHOICE_CHANGES``)."""
    from ._base import registry

    has = registry.release_view(release).has
    gone = {
        name
        for kind, change, fields in CHOICE_CHANGES
        if (kind == "added" and not has(change)) or (kind == "removed" and has(change))
        for name in fields.get(field, ())
    }
    return tuple(v for v in values if v not in gone)
