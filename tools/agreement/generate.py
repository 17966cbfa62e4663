"""Seeded generator of realistic sglang launches: bundled model × platform preset × 0–5 flags.

Invariants: the same (seed, n, version) gives the same cases, byte for byte; cases use only
flags and values of sglang's public CLI (0.5.15 names; see FLAG_POOL); no sglang import.
The *dev* seed is for iterating on the pack; the *held-out* seed is for acceptance only and
must not be used while fixing (pass ``--seed`` to use a seed nobody has looked at).

Each case: {"id", "model", "preset", "flags": [...], "env": {...}} and, unless ``--plain``,
"derive": [[op, arg], ...] — how the checkpoint differs from the bundled sample (quantization,
dtype, sliding window, heads, directory name; see ``DERIVATIONS``) — plus extra flags the
derived draw adds. ``materialize(case, sample)`` turns a case into the files of its model
directory and the directory's name. The derived draw uses its own random stream per case
(``random.Random(f"{seed}/derive/{id}")``), so the plain part of every case — model, preset,
flags, env — is the same with and without derivations: the reports of plain runs stay
reproducible.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

DEV_SEED = 1515
#: Held-out seed of the plain generator (samples unchanged); looked at while fixing since.
HELDOUT_SEED = 90210
#: Held-out seed for the derived generator: drawn once (secrets.randbelow) on 2026-12-03, before
#: any run with it, and never used while fixing.
HELDOUT_DERIVED_SEED = 616604

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


# -- derived checkpoints ------------------------------------------------------------------------
# Real checkpoints differ from the bundled samples: other quantizations (in config.json or as
# ModelOpt's hf_quant_config.json), another dtype, sliding window or head layout, another name.
# Each derivation is [op, arg]; ``materialize`` applies them in order to a copy of the sample.

_CT_FP8 = {
    "quant_method": "compressed-tensors",
    "format": "float-quantized",
    "quantization_status": "compressed",
    "ignore": ["lm_head"],
    "config_groups": {
        "group_0": {
            "targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "dynamic": False, "symmetric": True},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True, "symmetric": True},
        }
    },
}  # fmt: skip
_CT_W4A16 = {
    "quant_method": "compressed-tensors",
    "format": "pack-quantized",
    "quantization_status": "compressed",
    "ignore": ["lm_head"],
    "config_groups": {
        "group_0": {
            "targets": ["Linear"],
            "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "dynamic": False, "symmetric": True},
            "input_activations": None,
        }
    },
}  # fmt: skip
#: quantization variant → (quantization_config in config.json or None, hf_quant_config.json or None)
QUANT_VARIANTS: dict[str, tuple[dict | None, dict | None]] = {
    "none": (None, None),
    "fp8_block": ({"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}, None),
    "fp8_tensor": ({"quant_method": "fp8", "activation_scheme": "static"}, None),
    "awq": ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}, None),
    "gptq4": ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}, None),
    "gptq8": ({"quant_method": "gptq", "bits": 8, "group_size": 128, "desc_act": True, "sym": True}, None),
    "ct_fp8": (_CT_FP8, None),
    "ct_w4a16": (_CT_W4A16, None),
    "modelopt_fp8_cfg": ({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]}, None),
    "modelopt_nvfp4_cfg": ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}, None),
    "modelopt_fp8_file": (None, {"producer": {"name": "modelopt", "version": "0.29.0"}, "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]}}),
    "modelopt_nvfp4_file": (None, {"producer": {"name": "modelopt", "version": "0.29.0"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": None, "exclude_modules": ["lm_head"]}}),
    "mxfp4": ({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}, None),
}  # fmt: skip

#: Hub-style directory names: sglang and the pack read some facts from the model path's name
#: (Mistral-native routing by name, among others).
NAME_VARIANTS = [
    "{m}-FP8", "{m}-AWQ", "{m}-GPTQ-Int4", "{m}-NVFP4", "{m}-Instruct", "Mistral-Large-3-675B-Instruct-2512",
    "Mistral-Small-4-24B", "Leanstral-7B", "Llama-2-7b-hf", "{m}-dummy",
]  # fmt: skip


def _text(cfg: dict) -> dict:
    """The object holding the text model's keys (``text_config`` of a multimodal config)."""
    tc = cfg.get("text_config")
    return tc if isinstance(tc, dict) and ("num_attention_heads" in tc or "hidden_size" in tc) else cfg


def _heads_variants(cfg: dict) -> list[list]:
    text = _text(cfg)
    heads = text.get("num_attention_heads")
    out: list[list] = []
    if isinstance(heads, int) and heads > 0:
        out += [["kv_heads", k] for k in (1, 2, 4, 8, heads) if heads % k == 0]
        out += [["heads", h] for h in (heads // 2, heads * 2) if h > 0]
    out += [["head_dim", d] for d in (64, 128, 256)]
    if cfg.get("model_type") == "step3p5":
        out += [["sliding_heads", "global"], ["sliding_heads", "double"]]
    return out


def draw_derivations(seed: int, case_id: int, sample: dict) -> tuple[list[list], list[str]]:
    """The derivations of one case and the extra flags the derived draw adds (own stream)."""
    rng = random.Random(f"{seed}/derive/{case_id}")
    derive: list[list] = []
    if rng.random() < 0.45:
        derive.append(["quant", rng.choice(sorted(QUANT_VARIANTS))])
    if rng.random() < 0.2:
        derive.append(["dtype", rng.choice(["float16", "bfloat16", "float32"])])
    if rng.random() < 0.2:
        derive.append(["sliding_window", rng.choice([None, 512, 4096, 32768])])
    if rng.random() < 0.25:
        derive.append(rng.choice(_heads_variants(sample)))
    if rng.random() < 0.15:
        derive.append(["name", rng.choice(NAME_VARIANTS)])
    extra: list[str] = []
    if rng.random() < 0.12:
        extra += rng.choice(
            [
                ["--disable-decode-cuda-graph"],
                ["--disable-prefill-cuda-graph"],
                ["--cuda-graph-backend-decode", "disabled"],
                ["--cuda-graph-backend-prefill", "disabled"],
            ]
        )
    if rng.random() < 0.05:
        extra += ["--speculative-algorithm", "DFLASH"]
    if rng.random() < 0.04:
        extra += ["--dllm-algorithm", "LowConfidence"]
    return derive, extra


def materialize(case: dict, sample: dict) -> tuple[str, dict[str, str]]:
    """(directory name, {file name: text}) of the case's model directory."""
    cfg = json.loads(json.dumps(sample))
    name = case["model"]
    side: dict[str, str] = {}
    for op, arg in case.get("derive") or ():
        text = _text(cfg)
        if op == "quant":
            qcfg, hf_quant = QUANT_VARIANTS[arg]
            holder = text if "quantization_config" in text and text is not cfg else cfg
            holder.pop("quantization_config", None)
            cfg.pop("quantization_config", None)
            if qcfg is not None:
                holder["quantization_config"] = dict(qcfg)
            if hf_quant is not None:
                side["hf_quant_config.json"] = json.dumps(hf_quant, indent=1)
        elif op == "dtype":
            for obj in {id(cfg): cfg, id(text): text}.values():
                key = "dtype" if "dtype" in obj else "torch_dtype"
                obj[key] = arg
        elif op == "sliding_window":
            text["sliding_window"] = arg
            if arg is not None and "use_sliding_window" in text:
                text["use_sliding_window"] = True
        elif op == "kv_heads":
            text["num_key_value_heads"] = arg
        elif op == "heads":
            text["num_attention_heads"] = arg
        elif op == "head_dim":
            text["head_dim"] = arg
        elif op == "sliding_heads":  # Step-3.5: the sliding layers' own head count
            other = text.get("attention_other_setting")
            if isinstance(other, dict):
                g = text.get("num_attention_heads", 64)
                other["num_attention_heads"] = g if arg == "global" else 2 * g
        elif op == "name":
            name = arg.format(m=case["model"])
        else:
            raise ValueError(f"unknown derivation {op!r}")
    files = {"config.json": json.dumps(cfg, indent=1), **side}
    return name, files


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


def generate(
    seed: int, n: int, models: list[str], presets: dict[str, str], samples: dict[str, dict] | None = None
) -> list[dict]:
    """``presets``: preset name → vendor. Models and presets are drawn uniformly. With
    ``samples`` (model → its bundled config), each case also gets its derivations and extra flags
    (``draw_derivations``); without, the cases are the plain ones."""
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
        case = {"id": i, "model": model, "preset": preset, "flags": flags, "env": _env(vendor, rng)}
        if samples is not None:
            derive, extra = draw_derivations(seed, i, samples[model])
            case["derive"] = derive
            case["flags"] = flags + extra
        cases.append(case)
    return cases


def load_samples(models: list[str]) -> dict[str, dict]:
    """The bundled sample config of each model (read from the pack's data, not imported rules)."""
    import os

    from resolvable.sglang.models import MODELS_DIR

    out = {}
    for name in models:
        with open(os.path.join(MODELS_DIR, f"{name}.json"), encoding="utf-8") as fh:
            out[name] = json.load(fh)
    return out


def default_seed(split: str, *, plain: bool) -> int:
    if split == "dev":
        return DEV_SEED
    return HELDOUT_SEED if plain else HELDOUT_DERIVED_SEED


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate seeded random sglang launches (JSON lines).")
    ap.add_argument("--split", choices=["dev", "heldout"], default="dev")
    ap.add_argument("--seed", type=int, help="overrides the split's seed")
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--plain", action="store_true", help="bundled samples unchanged (no derivations)")
    opts = ap.parse_args(argv)
    from resolvable import Platform
    from resolvable.sglang import catalog

    seed = opts.seed if opts.seed is not None else default_seed(opts.split, plain=opts.plain)
    presets = {name: p.vendor for name, p in Platform.presets().items()}
    models = sorted(catalog())
    samples = None if opts.plain else load_samples(models)
    for case in generate(seed, opts.n, models, presets, samples):
        sys.stdout.write(json.dumps(case) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
