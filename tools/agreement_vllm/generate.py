"""Seeded generator of realistic vLLM launches: a model config × a CUDA device × 0–5 flags.

Invariants: the same (kind, seed, n) gives the same cases, byte for byte; no vLLM import; flags
are vLLM engine-argument names (``EngineArgs`` fields) with values vLLM's CLI accepts, also
rendered as the argv of ``vllm serve``. The *dev* seed is for iterating on the pack; the
*held-out* seed is for acceptance only and must never be used while fixing. Configs vary beyond
the bundled samples: a case's model is a bundled sample with 0–3 *mutations* (checkpoint dtype,
head size, KV heads, sliding window, logit soft-capping, MLA sparse/dense, quantization
checkpoints, context length, RoPE scaling), recorded in the case.

``kind="selector"`` draws the flags the attention selector reads (``tools/agreement_vllm``);
``kind="config"`` also draws engine-configuration flags (``tools/agreement_vllm_config``).

Each case: {"id", "model", "mutations", "config", "platform", "flags", "argv", "env", "install"}.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

DEV_SEED = 3117
HELDOUT_SEED = 604233  # picked once; never iterate on it
#: kind "operators" (issue 28) has its own seeds: its held-out split is measured once, at the end
OPERATORS_DEV_SEED = 5528
#: issue 28's first held-out seed: measured once (h28), its miss counts then read, so no longer held out
OPERATORS_HELDOUT_SEED_H28 = 871339
#: issue 28's second round: `date +%s` at 00:55:29 UTC 5 Dec, written down before any case was drawn;
#: measured once per release at the end; never iterate on it
OPERATORS_HELDOUT_SEED_H28B = 1796432129
#: issue 28's third round (ROCm/CPU presets): `date +%s` at the end of the round, written down
#: before any case was drawn; measured once per release; never iterate on it
OPERATORS_HELDOUT_SEED = 1796439837
#: operators seeds drawn before the generator fixes of issue 28's second round: they keep drawing
#: exactly what they drew (their reports stay reproducible); every other seed gets the fixes
OPERATORS_LEGACY_SEEDS = frozenset({5528, 871339, 6001, 6002})
#: operators seeds drawn before issue 28's third round (no ROCm/CPU presets, no draft directories)
OPERATORS_PRE_ROUND3_SEEDS = OPERATORS_LEGACY_SEEDS | {OPERATORS_HELDOUT_SEED_H28B}
#: issue 28's fifth round (h28f, draft directories): `date +%s` at 05:36:02 UTC 5 Dec, written
#: down before any case was drawn; measured once per release (`--seed`); never iterate on it
OPERATORS_HELDOUT_SEED_H28F = 1796448962
#: operators seeds drawn before the draft directories (issue 28, h28f): their speculative configs
#: stay ngram/suffix/MTP, so their cases and cached oracle answers stay what they were
OPERATORS_PRE_DRAFT_SEEDS = (
    OPERATORS_PRE_ROUND3_SEEDS | {OPERATORS_HELDOUT_SEED, 1796443318} | set(range(7001, 7061))
)
#: real draft directories (tests/vllm/drafts/SOURCES), relative to the repository root: the
#: comparers run from there, so a case's argv (its id, its cache key) does not name the checkout
DRAFTS_DIR = "tests/vllm/drafts"
EAGLE3_DRAFTS = {
    "llama": ("llama3.1-8b-eagle3", "llama3.3-70b-eagle3"),
    "qwen": ("qwen3-8b-eagle3", "qwen3-4b-eagle3"),
}
DRAFT_MODELS = ("qwen3-0.6b",)

ROOT = Path(__file__).resolve().parents[2]
MODELS_DIR = ROOT / "src" / "resolvable" / "sglang" / "models"

#: bundled samples whose architecture vLLM registers in-tree (remote-code-only ones excluded)
MODELS = [
    "llama-3.1-8b", "llama-3.3-70b", "qwen3-8b", "qwen3-30b-a3b", "qwen3-235b-a22b-fp8",
    "qwen2.5-7b-instruct-1m", "gemma-2-9b", "gemma-3-27b", "gemma-4-31b", "gpt-oss-20b",
    "gpt-oss-120b", "exaone-4.0-32b", "olmo-2-7b", "olmo-3-7b", "glm-4.5", "minimax-m2",
    "deepseek-v2-lite", "deepseek-v3", "deepseek-r1", "kimi-k2-instruct", "mistral-large-3",
    "deepseek-v3.2", "glm-5", "qwen3-next-80b-a3b", "qwen3.5-397b-a17b", "nemotron-h-8b",
    "falcon-h1-7b", "granite-4.0-h-small", "granite-4.0-micro", "lfm2-1.2b", "llama-4-scout",
    "qwen3-vl-8b", "qwen3-vl-30b-a3b", "step-3.5-flash", "mimo-v2-flash",
]  # fmt: skip

#: (preset, weight); custom capabilities are "sm<MAJ><MIN>" (the comparer builds the platform)
PLATFORMS = [
    ("h100", 5), ("h200", 4), ("b200", 4), ("a100", 3), ("l40s", 2), ("l4", 1), ("a10g", 1),
    ("t4", 1), ("b300", 2), ("rtx5090", 1), ("rtxpro6000", 1), ("h20", 1), ("a100-40g", 1),
    ("rtx4090", 1), ("sm110", 1), ("sm121", 1),
]  # fmt: skip

INSTALLS = [None] * 8 + ["flashinfer=0", "fa3=0,fa4=0", "cute_dsl=0,tokenspeed_mla=0"]
ENVS = [{}] * 12 + [{"VLLM_BATCH_INVARIANT": "1"}]

MHA_BACKENDS = ["FLASH_ATTN", "TRITON_ATTN", "FLASHINFER", "FLEX_ATTENTION"]
MLA_BACKENDS = [
    "TRITON_MLA",
    "FLASHMLA",
    "FLASHINFER_MLA",
    "CUTLASS_MLA",
    "FLASH_ATTN_MLA",
    "FLASHMLA_SPARSE",
]

QUANT_CONFIGS = {
    "fp8": {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
    "fp8-tensor": {"quant_method": "fp8", "activation_scheme": "static"},
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True},
    "modelopt-fp8-kv": {
        "quant_method": "modelopt",
        "quant_algo": "FP8",
        "kv_cache_quant_algo": "FP8",
    },
    "compressed-tensors-fp8": {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
                "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": True, "dynamic": True},
            }
        },
        "ignore": ["lm_head"],
    },
}  # fmt: skip


def _text(config: dict) -> dict:
    return config.get("text_config") or config


def _is_mla(t: dict) -> bool:
    return bool(t.get("kv_lora_rank"))


def _mutate(rng: random.Random, config: dict) -> tuple[dict, list[str]]:
    config = copy.deepcopy(config)
    t = _text(config)
    done: list[str] = []
    options = ["dtype", "quant", "context", "rope"]
    if not _is_mla(t) and t.get("num_attention_heads"):
        options += ["head_dim", "kv_heads", "sliding_window", "softcap"]
    if _is_mla(t):
        options += ["sparse"]
    for name in rng.sample(options, k=min(len(options), rng.choice([0, 1, 1, 2, 2, 3]))):
        if name == "dtype":
            value = rng.choice(["float16", "float32", "bfloat16"])
            for holder in {id(config): config, id(t): t}.values():
                holder.pop("torch_dtype", None)
                holder["dtype"] = value
            done.append(f"dtype={value}")
        elif name == "quant":
            key = rng.choice(sorted(QUANT_CONFIGS))
            config["quantization_config"] = copy.deepcopy(QUANT_CONFIGS[key])
            done.append(f"quant={key}")
        elif name == "context":
            value = rng.choice([2048, 8192, 32768, 131072, 262144])
            t["max_position_embeddings"] = value
            done.append(f"max_position_embeddings={value}")
        elif name == "rope":
            kind = rng.choice(["linear", "dynamic", "yarn"])
            factor = rng.choice([2.0, 4.0])
            rope = {"rope_type": kind, "factor": factor}
            if kind == "yarn":
                rope["original_max_position_embeddings"] = t.get("max_position_embeddings", 4096)
            t["rope_scaling"] = rope
            done.append(f"rope={kind}x{factor}")
        elif name == "head_dim":
            value = rng.choice([64, 80, 96, 112, 128, 192, 256, 512])
            t["head_dim"] = value
            done.append(f"head_dim={value}")
        elif name == "kv_heads":
            heads = int(t["num_attention_heads"])
            value = rng.choice([d for d in (1, 2, 4, 8, 16, heads) if heads % d == 0])
            t["num_key_value_heads"] = value
            done.append(f"kv_heads={value}")
        elif name == "sliding_window":
            if t.get("sliding_window"):
                t["sliding_window"] = None
                t.pop("layer_types", None)
                done.append("sliding_window=off")
            else:
                t["sliding_window"] = rng.choice([512, 4096])
                done.append(f"sliding_window={t['sliding_window']}")
        elif name == "softcap":
            t["attn_logit_softcapping"] = 50.0
            done.append("softcap=50")
        elif name == "sparse":
            if t.get("index_topk"):
                t.pop("index_topk")
                done.append("sparse=off")
            else:
                t.update(index_topk=2048, index_head_dim=128, index_n_heads=64)
                done.append("sparse=on")
    return config, done


def _draw_flags(rng: random.Random, kind: str, t: dict, mla: bool) -> dict:
    heads = int(t.get("num_attention_heads") or 32)
    pool = {
        "tensor_parallel_size": lambda: rng.choice([d for d in (2, 4, 8) if heads % d == 0] or [1]),
        "kv_cache_dtype": lambda: rng.choice(["fp8", "fp8", "fp8_e4m3", "fp8_e5m2", "auto", "bfloat16"]),
        "block_size": lambda: rng.choice([16, 32, 64, 128]),
        "attention_backend": lambda: rng.choice(
            (MLA_BACKENDS if mla else MHA_BACKENDS) if rng.random() < 0.8 else MHA_BACKENDS + MLA_BACKENDS
        ),
        "dtype": lambda: rng.choice(["auto", "float16", "bfloat16", "half", "float32"]),
    }
    weights = {
        "tensor_parallel_size": 3,
        "kv_cache_dtype": 3,
        "block_size": 2,
        "attention_backend": 3,
        "dtype": 1,
    }
    if kind == "config":
        pool.update(
            {
                "max_model_len": lambda: rng.choice([4096, 8192, 32768, 131072, 1048576]),
                "enforce_eager": lambda: True,
                "max_num_seqs": lambda: rng.choice([64, 128, 256, 512]),
                "max_num_batched_tokens": lambda: rng.choice([2048, 8192, 16384]),
                "enable_prefix_caching": lambda: rng.choice([True, False]),
                "enable_chunked_prefill": lambda: rng.choice([True, False]),
                "speculative_config": lambda: rng.choice(
                    [
                        {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
                        {"method": "mtp", "num_speculative_tokens": 1},
                        {"method": "ngram", "num_speculative_tokens": 5},
                    ]
                ),
                "optimization_level": lambda: rng.choice([0, 1, 2, 3]),
                "async_scheduling": lambda: rng.choice([True, False]),
                "pipeline_parallel_size": lambda: rng.choice([2, 4]),
                "data_parallel_size": lambda: rng.choice([2, 4]),
                "enable_expert_parallel": lambda: True,
                "gpu_memory_utilization": lambda: rng.choice([0.8, 0.9, 0.95]),
                "quantization": lambda: rng.choice(["fp8", "fp8", "awq", "gptq"]),
                "max_cudagraph_capture_size": lambda: rng.choice([64, 256, 512]),
            }
        )
        weights.update(
            {
                "max_model_len": 3, "enforce_eager": 2, "max_num_seqs": 2, "max_num_batched_tokens": 2,
                "enable_prefix_caching": 2, "enable_chunked_prefill": 1, "speculative_config": 2,
                "optimization_level": 1, "async_scheduling": 1, "pipeline_parallel_size": 1,
                "data_parallel_size": 1, "enable_expert_parallel": 1, "gpu_memory_utilization": 1,
                "quantization": 1, "max_cudagraph_capture_size": 1,
            }
        )  # fmt: skip
    names = sorted(pool)
    k = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])
    chosen: list[str] = []
    while len(chosen) < k:
        name = rng.choices(names, weights=[weights[n] for n in names])[0]
        if name not in chosen:
            chosen.append(name)
    return {name: pool[name]() for name in chosen}


#: kind "operators" (issue 28): what operators run that the rules were not tuned on — pooling,
#: rerankers, GPT-2 and encoder-decoder models, bitsandbytes, --hf-overrides, --runner/--convert,
#: LoRA limits, PP with each executor, compilation JSON old and new, --performance-mode, the
#: extensible KV cache (0.34), env variables, the presets H100 PCIe and GB10. CPU and ROCm are
#: out of the oracle's reach (it fakes a CUDA device only).
OPERATOR_PLATFORMS = [*PLATFORMS, ("h100-pcie", 2), ("dgx-spark", 2), ("l4", 1), ("a10g", 1), ("l40s", 1)]
#: third round (new seeds only): the oracle fakes vLLM's own RocmPlatform (amdsmi stub: GCN arch,
#: product name, VRAM) and CpuPlatform (x86 host, ISA probes): MI300X/MI325X (gfx942), MI355X
#: (gfx950), an x86 CPU without AMX and a Sapphire Rapids one (AMX, AVX-512 BF16)
OPERATOR_PLATFORMS_ROUND3 = [
    *OPERATOR_PLATFORMS, ("mi300x", 4), ("mi325x", 2), ("mi355x", 3), ("cpu", 2), ("cpu-amx", 3),
]  # fmt: skip
OPERATOR_ENVS = [{}] * 10 + [
    {"VLLM_BATCH_INVARIANT": "1"},
    {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
    {"VLLM_USE_V2_MODEL_RUNNER": "0"},
    {"VLLM_USE_V2_MODEL_RUNNER": "1"},
]
#: checkpoint quantization configs beyond QUANT_CONFIGS (methods the releases list, and not)
OPERATOR_QUANT = {
    **QUANT_CONFIGS,
    "bitsandbytes": {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
    "awq-marlin": {
        "quant_method": "awq",
        "bits": 4,
        "group_size": 128,
        "zero_point": True,
        "version": "gemm",
    },
    "gptq-8bit": {"quant_method": "gptq", "bits": 8, "group_size": 128, "desc_act": True, "sym": True},
    "experts-int8": {"quant_method": "experts_int8"},
    "hqq": {"quant_method": "hqq", "nbits": 4, "group_size": 64},
}


def _draft_speculative_config(rng: random.Random, model: str) -> dict:
    """A ``--speculative-config`` with a real draft directory (issue 28 item 2): EAGLE3 heads
    (the target family's when there is one), a plain draft model, or a draft-less method;
    k in 1..8 or left to the draft, sometimes a draft TP."""
    kinds = ["eagle3", "eagle3", "draft_model", "draft_model", "ngram", "suffix", "mtp"]
    if model.startswith("qwen3"):  # Qwen3-0.6B shares their vocabulary: a draft vLLM can run
        kinds += ["draft_model", "draft_model"]
    kind = rng.choice(kinds)
    k = rng.choice([None, 1, 2, 3, 4, 5, 6, 7, 8])
    if kind == "ngram":
        spec: dict = {"method": "ngram", "num_speculative_tokens": k or 3, "prompt_lookup_max": 4}
    elif kind in ("suffix", "mtp"):
        spec = {"method": kind, "num_speculative_tokens": k or 2}
    else:
        if kind == "eagle3":
            family = next((f for f in EAGLE3_DRAFTS if model.startswith(f)), None)
            pool = EAGLE3_DRAFTS[family] if family else sorted(sum(EAGLE3_DRAFTS.values(), ()))
        else:
            pool = DRAFT_MODELS
        spec = {"model": f"{DRAFTS_DIR}/{rng.choice(pool)}"}
        if kind == "eagle3" or rng.random() < 0.5:  # a plain draft model's method may be detected
            spec = {"method": kind, **spec}
        if k is not None:
            spec["num_speculative_tokens"] = k
        if rng.random() < 0.3:
            spec["draft_tensor_parallel_size"] = rng.choice([1, 2])
    return spec


def _operator_flags(
    rng: random.Random, t: dict, mla: bool, model: str, outer: dict | None = None, drafts: bool = False
) -> dict:
    """``outer``: the whole config.json (new seeds only): a multimodal config's text config names
    no ``architectures``, the model's are the outer ones (legacy seeds drew a placeholder ``X``,
    an architecture no registry serves). ``drafts``: speculative configs may name a real draft
    directory (seeds outside ``OPERATORS_PRE_DRAFT_SEEDS``)."""
    flags = _draw_flags(rng, "config", t, mla)
    archs = t.get("architectures") or (outer or {}).get("architectures") or ["X"]
    heads = int(t.get("num_attention_heads") or t.get("n_head") or 32)
    extra = {
        "hf_overrides": lambda: rng.choice(
            [
                {"max_position_embeddings": rng.choice([4096, 16384, 65536])},
                {"max_position_embeddings": 65536, "rope_scaling": None},
                {"sliding_window": None},
                {"torch_dtype": rng.choice(["float16", "bfloat16"])},
                {"architectures": [str(archs[0]).replace("ForCausalLM", "ForSequenceClassification")]},
            ]
        ),
        "runner": lambda: rng.choice(["generate", "pooling", "auto"]),
        "convert": lambda: rng.choice(["classify", "embed", "none", "auto"]),
        "enable_lora": lambda: True,
        "max_loras": lambda: rng.choice([1, 2, 4, 8]),
        "max_cpu_loras": lambda: rng.choice([1, 2, 4, 16]),
        "distributed_executor_backend": lambda: rng.choice(["mp", "uni", "external_launcher"]),
        "pipeline_parallel_size": lambda: rng.choice([2, 4]),
        "compilation_config": lambda: rng.choice(
            [
                {"level": 3},
                {"mode": 3},
                {"mode": 0},
                {"mode": "VLLM_COMPILE"},
                {
                    "cudagraph_mode": rng.choice(
                        ["PIECEWISE", "FULL", "FULL_DECODE_ONLY", "NONE", "FULL_AND_PIECEWISE"]
                    )
                },
                {"cudagraph_capture_sizes": [1, 2, 4, 8, 16, 32]},
                {"max_cudagraph_capture_size": 128},
            ]
        ),
        "performance_mode": lambda: rng.choice(["interactivity", "throughput", "balanced"]),
        "enable_extensible_kv_cache": lambda: rng.choice([True, False]),
        "speculative_config": (lambda: _draft_speculative_config(rng, model))
        if drafts
        else lambda: rng.choice(
            [
                {"method": "ngram", "num_speculative_tokens": rng.choice([2, 4]), "prompt_lookup_max": 4},
                {"method": "suffix", "num_speculative_tokens": rng.choice([4, 8])},
                {"method": "mtp", "num_speculative_tokens": rng.choice([1, 2, 3, 5])},
            ]
        ),
        "tensor_parallel_size": lambda: rng.choice([d for d in (2, 4, 8) if heads % d == 0] or [1]),
    }
    k = rng.choice([1, 1, 2, 2, 3])
    for name in rng.sample(sorted(extra), k=k):
        flags[name] = extra[name]()
    if drafts and rng.random() < 0.1:  # more draft directories than the one key in ~14 above
        flags["speculative_config"] = _draft_speculative_config(rng, model)
    if "max_cpu_loras" in flags or "max_loras" in flags:
        flags.setdefault("enable_lora", True)
    if (
        "distributed_executor_backend" in flags
        and "pipeline_parallel_size" not in flags
        and rng.random() < 0.6
    ):
        flags["pipeline_parallel_size"] = 2
    return flags


def generate_operators(seed: int, n: int) -> list[dict]:
    """Kind "operators": bundled samples and ``operator_models`` × the presets above × flags of
    ``_operator_flags`` on top of the config kind's."""
    from operator_models import OPERATOR_MODELS

    rng = random.Random(f"operators:{seed}")
    table = OPERATOR_PLATFORMS if seed in OPERATORS_PRE_ROUND3_SEEDS else OPERATOR_PLATFORMS_ROUND3
    names = [p for p, _ in table]
    weights = [w for _, w in table]
    models = MODELS + ["whisper-large-v3"] + sorted(OPERATOR_MODELS) * 3
    cases = []
    for i in range(n):
        model = rng.choice(models)
        base = copy.deepcopy(OPERATOR_MODELS[model]) if model in OPERATOR_MODELS else load_sample(model)
        config, mutations = _mutate(rng, base) if rng.random() < 0.5 else (base, [])
        if rng.random() < 0.12:
            key = rng.choice(sorted(OPERATOR_QUANT))
            config["quantization_config"] = copy.deepcopy(OPERATOR_QUANT[key])
            mutations = [*mutations, f"quant={key}"]
        t = _text(config)
        outer = None if seed in OPERATORS_LEGACY_SEEDS else config
        drafts = seed not in OPERATORS_PRE_DRAFT_SEEDS
        flags = _operator_flags(rng, t, _is_mla(t), model, outer, drafts)
        env = dict(rng.choice(OPERATOR_ENVS))
        install = rng.choice(INSTALLS)
        platform = rng.choices(names, weights=weights)[0]
        if platform.startswith("cpu"):
            install = None  # the CUDA kernel switches mean nothing there
        elif platform.startswith("mi3"):
            install = "aiter=0"  # the oracle venvs have no aiter package: the pack is told so
        body = json.dumps([model, mutations, platform, flags, env, install], sort_keys=True)
        digest = hashlib.sha1(body.encode()).hexdigest()[:8]
        cases.append(
            {
                "id": f"operators-{seed}-{i:05d}-{digest}", "model": model, "mutations": mutations,
                "config": config, "platform": platform, "flags": flags, "argv": argv_of(flags),
                "env": env, "install": install,
            }
        )  # fmt: skip
    return cases


def argv_of(flags: dict) -> list[str]:
    """The ``vllm serve`` spelling of engine-argument values."""
    out: list[str] = []
    for name, value in flags.items():
        flag = "--" + name.replace("_", "-")
        if name == "optimization_level":
            out.append(f"-O{value}")
        elif name == "compilation_config":
            out += ["-cc", json.dumps(value, separators=(",", ":"))]
        elif value is True:
            out.append(flag)
        elif value is False:
            out.append("--no-" + name.replace("_", "-"))
        elif isinstance(value, dict):
            out += [flag, json.dumps(value, separators=(",", ":"))]
        else:
            out += [flag, str(value)]
    return out


def load_sample(name: str) -> dict:
    return json.loads((MODELS_DIR / f"{name}.json").read_text())


def generate(kind: str, seed: int, n: int) -> list[dict]:
    if kind == "operators":
        return generate_operators(seed, n)
    rng = random.Random(f"{kind}:{seed}")
    names = [p for p, _ in PLATFORMS]
    weights = [w for _, w in PLATFORMS]
    cases = []
    for i in range(n):
        model = rng.choice(MODELS)
        config, mutations = _mutate(rng, load_sample(model))
        t = _text(config)
        flags = _draw_flags(rng, kind, t, _is_mla(t))
        env = dict(rng.choice(ENVS))
        install = rng.choice(INSTALLS)
        platform = rng.choices(names, weights=weights)[0]
        body = json.dumps([model, mutations, platform, flags, env, install], sort_keys=True)
        digest = hashlib.sha1(body.encode()).hexdigest()[:8]
        cases.append(
            {
                "id": f"{kind}-{seed}-{i:05d}-{digest}",
                "model": model,
                "mutations": mutations,
                "config": config,
                "platform": platform,
                "flags": flags,
                "argv": argv_of(flags),
                "env": env,
                "install": install,
            }
        )
    return cases


def seed_for(split: str, seed: int | None, kind: str = "config") -> int:
    if seed is not None:
        return seed
    if kind == "operators":
        return {"dev": OPERATORS_DEV_SEED, "heldout": OPERATORS_HELDOUT_SEED}[split]
    return {"dev": DEV_SEED, "heldout": HELDOUT_SEED}[split]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--kind", choices=("selector", "config", "operators"), default="selector")
    args = parser.parse_args()
    for case in generate(args.kind, seed_for(args.split, args.seed, args.kind), args.n):
        slim = {k: v for k, v in case.items() if k != "config"}
        print(json.dumps(slim))
    return 0


if __name__ == "__main__":
    sys.exit(main())
