"""Seeded generator of realistic sglang launches: bundled model × platform preset × 0–5 flags.

Invariants: the same (seed, n, version) gives the same cases, byte for byte; cases use only
flags and values of sglang's public CLI (0.5.15 names; see FLAG_POOL); no sglang import.
The *dev* seed is for iterating on the pack; the *held-out* seed is for acceptance only and
must not be used while fixing (pass ``--seed`` to use a seed nobody has looked at).

Each case: {"id", "model", "preset", "flags": [...], "env": {...}}.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

DEV_SEED = 1515
HELDOUT_SEED = 90210

ATTENTION_BACKENDS = {
    "cuda": [
        "fa3",
        "flashinfer",
        "triton",
        "fa4",
        "trtllm_mha",
        "trtllm_mla",
        "flashmla",
        "cutlass_mla",
        "dsa",
    ],
    "hip": ["aiter", "triton", "wave", "dsa"],
    "xpu": ["intel_xpu", "triton"],
    "npu": ["ascend"],
    "cpu": ["intel_amx", "torch_native", "triton"],
}
ALL_ATTENTION_BACKENDS = [
    "triton", "torch_native", "flex_attention", "dsa", "nsa", "dsv4", "cutlass_mla", "fa3", "fa4",
    "flashinfer", "flashmla", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla", "trtllm_mha",
    "dual_chunk_flash_attn", "aiter", "wave", "intel_amx", "ascend", "intel_xpu",
]  # fmt: skip
QUANTIZATIONS = [
    "fp8", "awq", "gptq", "awq_marlin", "gptq_marlin", "modelopt_fp8", "modelopt_fp4", "w8a8_int8",
    "w8a8_fp8", "mxfp4", "compressed-tensors", "bitsandbytes", "modelopt", "w4afp8", "quark",
]  # fmt: skip
MOE_RUNNERS = [
    "auto", "triton", "triton_kernel", "deep_gemm", "flashinfer_trtllm", "flashinfer_cutlass",
    "flashinfer_mxfp4", "flashinfer_cutedsl", "flashinfer_trtllm_routed", "cutlass", "aiter", "marlin",
]  # fmt: skip


def _spec(rng: random.Random) -> list[str]:
    algo = rng.choice(["EAGLE", "EAGLE", "EAGLE3", "NEXTN", "eagle", "NGRAM", "NGRAM", "STANDALONE"])
    flags = ["--speculative-algorithm", algo]
    if algo.upper() == "NGRAM":
        if rng.random() < 0.6:
            flags += ["--speculative-num-draft-tokens", str(rng.choice([4, 8, 16]))]
        return flags
    if rng.random() < 0.7:
        flags += ["--speculative-num-steps", str(rng.choice([1, 2, 3, 5]))]
    if rng.random() < 0.7:
        flags += ["--speculative-eagle-topk", str(rng.choice([1, 1, 4, 8]))]
    if rng.random() < 0.6:
        flags += ["--speculative-num-draft-tokens", str(rng.choice([2, 4, 8, 16]))]
    if rng.random() < 0.2:
        flags += ["--speculative-attention-mode", rng.choice(["prefill", "decode"])]
    return flags


def _attention(vendor: str):
    def draw(rng: random.Random) -> list[str]:
        pool = ATTENTION_BACKENDS[vendor] if rng.random() < 0.75 else ALL_ATTENTION_BACKENDS
        return ["--attention-backend", rng.choice(pool)]

    return draw


def _split_attention(vendor: str):
    def draw(rng: random.Random) -> list[str]:
        pool = ATTENTION_BACKENDS[vendor]
        flag = rng.choice(["--prefill-attention-backend", "--decode-attention-backend"])
        return [flag, rng.choice(pool)]

    return draw


def _choice(flag: str, values: list) -> object:
    return lambda rng: [flag, str(rng.choice(values))]


def _bool(flag: str) -> object:
    return lambda rng: [flag]


def flag_pool(vendor: str) -> list[tuple[str, float, object]]:
    """(group name, weight, draw) — one group at most once per launch."""
    return [
        ("tp", 3.0, _choice("--tp", [1, 2, 4, 8])),
        ("dp", 1.0, _choice("--dp", [2, 4, 8])),
        ("ep", 1.0, _choice("--ep", [2, 4, 8])),
        ("pp", 0.3, _choice("--pp", [2])),
        ("attention", 3.0, _attention(vendor)),
        ("split_attention", 0.8, _split_attention(vendor)),
        ("page_size", 1.2, _choice("--page-size", [1, 16, 32, 64, 128])),
        (
            "kv_cache_dtype",
            1.5,
            _choice("--kv-cache-dtype", ["auto", "fp8_e4m3", "fp8_e5m2", "bf16", "bfloat16", "fp4_e2m1"]),
        ),
        ("dtype", 0.8, _choice("--dtype", ["auto", "bfloat16", "float16", "half", "float32"])),
        ("quantization", 1.2, _choice("--quantization", QUANTIZATIONS)),
        ("speculative", 1.5, _spec),
        ("dp_attention", 1.2, _bool("--enable-dp-attention")),
        ("radix", 0.8, _bool("--disable-radix-cache")),
        ("hicache", 0.6, _bool("--enable-hierarchical-cache")),
        ("moe_runner", 1.0, _choice("--moe-runner-backend", MOE_RUNNERS)),
        ("a2a", 0.4, _choice("--moe-a2a-backend", ["deepep", "none", "mooncake"])),
        ("deterministic", 0.6, _bool("--enable-deterministic-inference")),
        ("context_length", 1.0, _choice("--context-length", [4096, 32768, 131072])),
        ("cuda_graph_max_bs", 0.8, _choice("--cuda-graph-max-bs", [8, 64, 256])),
        ("mem_fraction", 1.0, _choice("--mem-fraction-static", [0.7, 0.85, 0.9])),
        ("chunked_prefill", 0.8, _choice("--chunked-prefill-size", [2048, 8192, -1])),
        ("no_cuda_graph", 0.8, _bool("--disable-cuda-graph")),
        ("dllm", 0.3, _choice("--dllm-algorithm", ["LowConfidence"])),
        ("torch_compile", 0.4, _bool("--enable-torch-compile")),
        ("max_running", 0.5, _choice("--max-running-requests", [64, 256])),
        ("trust_remote_code", 0.8, _bool("--trust-remote-code")),
        ("mixed_chunk", 0.3, _bool("--enable-mixed-chunk")),
        ("no_overlap", 0.3, _bool("--disable-overlap-schedule")),
        ("mamba_ssm_dtype", 0.3, _choice("--mamba-ssm-dtype", ["float32", "bfloat16"])),
        ("dp_lm_head", 0.2, _bool("--enable-dp-lm-head")),
        (
            "dsa_backend",
            0.3,
            _choice("--nsa-prefill-backend", ["flashmla_sparse", "flashmla_kv", "fa3", "tilelang"]),
        ),
        ("max_total_tokens", 0.3, _choice("--max-total-tokens", [65536, 200000])),
        ("graph_padding", 0.2, _bool("--disable-cuda-graph-padding")),
        ("ar_fusion", 0.2, _bool("--enable-flashinfer-allreduce-fusion")),
        ("fp8_gemm", 0.2, _choice("--fp8-gemm-backend", ["auto", "deep_gemm", "triton", "cutlass"])),
        ("mm_attention", 0.2, _choice("--mm-attention-backend", ["fa3", "triton_attn", "sdpa"])),
        ("sampling", 0.3, _choice("--sampling-backend", ["flashinfer", "pytorch"])),
        ("mamba_backend", 0.2, _choice("--mamba-backend", ["triton", "flashinfer"])),
        ("chunked_prefix", 0.2, _bool("--disable-chunked-prefix-cache")),
        ("shared_experts", 0.2, _bool("--disable-shared-experts-fusion")),
        ("two_batch", 0.2, _bool("--enable-two-batch-overlap")),
        ("embedding", 0.2, _bool("--is-embedding")),
    ]


def _env(vendor: str, rng: random.Random) -> dict[str, str]:
    if vendor == "hip" and rng.random() < 0.3:
        return {"SGLANG_USE_AITER": "1"}
    return {}


def _weighted_sample(rng: random.Random, pool, k: int):
    pool = list(pool)
    picked = []
    for _ in range(min(k, len(pool))):
        total = sum(w for _, w, _ in pool)
        x = rng.random() * total
        for i, (_, w, _) in enumerate(pool):
            x -= w
            if x <= 0:
                picked.append(pool.pop(i))
                break
        else:
            picked.append(pool.pop())
    return picked


def generate(seed: int, n: int, models: list[str], presets: dict[str, str]) -> list[dict]:
    """``presets``: preset name → vendor. Models and presets are drawn uniformly."""
    rng = random.Random(seed)
    names = sorted(presets)
    cases = []
    for i in range(n):
        model = rng.choice(models)
        preset = rng.choice(names)
        vendor = presets[preset]
        k = rng.choices([0, 1, 2, 3, 4, 5], weights=[1, 2, 3, 3, 2, 1])[0]
        flags: list[str] = []
        for _, _, draw in _weighted_sample(rng, flag_pool(vendor), k):
            flags += draw(rng)
        cases.append({"id": i, "model": model, "preset": preset, "flags": flags, "env": _env(vendor, rng)})
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate seeded random sglang launches (JSON lines).")
    ap.add_argument("--split", choices=["dev", "heldout"], default="dev")
    ap.add_argument("--seed", type=int, help="overrides the split's seed")
    ap.add_argument("-n", type=int, default=2000)
    opts = ap.parse_args(argv)
    from resolvable import Platform
    from resolvable.sglang import catalog

    seed = opts.seed if opts.seed is not None else (DEV_SEED if opts.split == "dev" else HELDOUT_SEED)
    presets = {name: p.vendor for name, p in Platform.presets().items()}
    for case in generate(seed, opts.n, sorted(catalog()), presets):
        sys.stdout.write(json.dumps(case) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
