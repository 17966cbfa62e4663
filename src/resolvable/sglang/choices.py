"""Names accepted by sglang for the fields this pack models (spec §2.1, §7).

Invariant: these tuples are data only; every rule and the argparse integration read them
from here, so a backend name is spelled in exactly one place. A tuple is the union over the
supported releases; the names a release added or removed are listed in ``ADDED_IN`` /
``REMOVED_IN`` (``passes/release_choices.py`` refuses them for the other releases).
"""

from __future__ import annotations

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
    "cutlass_mla",
    "fa3",
    "fa4",
    "flashinfer",
    "flashmla",
    "trtllm_mla",
    "cutedsl_mla",
    "tokenspeed_mla",
    "trtllm_mha",
    "dual_chunk_flash_attn",
    # AMD
    "aiter",
    "wave",
    # other platforms
    "intel_amx",
    "ascend",
    "intel_xpu",
)
#: Backends accepted under --enable-deterministic-inference (spec §4.3, §7).
DETERMINISTIC_BACKENDS = ("flashinfer", "fa3", "triton", "ascend")
#: The deterministic backends that keep the radix cache on.
RADIX_DETERMINISTIC_BACKENDS = ("fa3", "triton", "ascend")
#: 0.5.16 (``DETERMINISTIC_ATTENTION_BACKEND_CHOICES``, sorted, with fa4) and its radix list.
DETERMINISTIC_BACKENDS_0_5_16 = ("ascend", "fa3", "fa4", "flashinfer", "triton")
RADIX_DETERMINISTIC_BACKENDS_0_5_16 = ("ascend", "fa3", "fa4", "triton")
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
)
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
#: ``mxfp8``, ``nvfp4`` and ``fp4_mx_block16`` since 0.5.16 (``fp4_e2m1`` is then deprecated).
KV_CACHE_DTYPES = (
    "auto",
    "fp8_e5m2",
    "fp8_e4m3",
    "bf16",
    "bfloat16",
    "fp4_e2m1",
    "mxfp8",  # since 0.5.16
    "nvfp4",  # since 0.5.16
    "fp4_mx_block16",  # since 0.5.16
)
#: The FP4 KV-cache recipes the KV4 checks guard (0.5.15: fp4_e2m1; 0.5.16: the two new ones).
FP4_KV_CACHE_DTYPES = ("fp4_e2m1", "nvfp4", "fp4_mx_block16")
MAMBA_STRATEGIES = ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")
SAMPLING_BACKENDS = ("flashinfer", "pytorch", "ascend")
CUDA_GRAPH_BACKENDS = ("full", "breakable", "tc_piecewise", "disabled")
DEVICES = ("cuda", "xpu", "hpu", "npu", "cpu", "musa", "mps")
SPECULATIVE_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK")
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN")
DISAGGREGATION_MODES = ("null", "prefill", "decode")
CP_STRATEGIES = ("zigzag", "interleave")
DEEPEP_MODES = ("auto", "normal", "low_latency")

QUANTIZATIONS = (
    "awq",
    "fp8",
    "mxfp8",
    "gptq",
    "marlin",
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
)

#: Choices a release added, per field: refused (as argparse would) by the releases before it.
ADDED_IN = {
    "0.5.16": {
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
}
#: Choices a release removed, per field: refused by that release and the later ones.
REMOVED_IN = {
    "0.5.16": {"quantization": ("qoq",)},
}
