"""Names accepted by sglang for the fields this pack models (spec §2.1, §7).

Invariant: these tuples are data only; every rule and the argparse integration read them
from here, so a backend name is spelled in exactly one place. A tuple is the union over the
supported releases; the names a release added are listed in ``ADDED_IN`` (the rules of
``passes/release_choices.py`` refuse them for the earlier releases).
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
    "hpc_ops",  # since 0.5.17 (HPC-Ops, SM90 only)
)
#: Backends accepted under --enable-deterministic-inference (spec §4.3, §7).
DETERMINISTIC_BACKENDS = ("flashinfer", "fa3", "triton", "ascend")
#: The deterministic backends that keep the radix cache on.
RADIX_DETERMINISTIC_BACKENDS = ("fa3", "triton", "ascend")
#: 0.5.17 ``DETERMINISTIC_ATTENTION_BACKEND_CHOICES`` and ``RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND``
#: (fa4 since 0.5.16); the radix list is also the DeepSeek list in 0.5.17.
DETERMINISTIC_BACKENDS_0_5_17 = ("ascend", "fa3", "fa4", "flashinfer", "triton")
RADIX_DETERMINISTIC_BACKENDS_0_5_17 = ("ascend", "fa3", "fa4", "triton")
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
    "flashinfer_sparse_mla",  # since 0.5.17
)
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
KV_CACHE_DTYPES = ("auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1")
MAMBA_STRATEGIES = ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")
SAMPLING_BACKENDS = ("flashinfer", "pytorch", "ascend")
CUDA_GRAPH_BACKENDS = ("full", "breakable", "tc_piecewise", "disabled")
DEVICES = ("cuda", "xpu", "hpu", "npu", "cpu", "musa", "mps")
SPECULATIVE_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH")
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
    "qoq",
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
    "hpc_ops",  # since 0.5.17 (FP8 MoE on SM90)
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
    "pplx",  # since 0.5.17
)

#: Names each release added to the choices above (field -> names), refused before it
#: (``server_args.py`` choice lists of that release's wheel).
ADDED_IN = {
    "0.5.17": {
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
}
