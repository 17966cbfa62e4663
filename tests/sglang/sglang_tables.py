"""Shared helpers of the SGLang decision-table tests (test_families.py, test_passes.py).

A case is a tiny Llama-shaped config.json plus per-row keys, a platform (a preset or a named
variant below), flags, and either the expected fields or the expected refusal.

Every case resolves for sglang 0.5.15, the release the tables state (``golden.GOLDEN``), never
for the pack's default release, which moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from golden import resolve_golden
from resolvable import ConflictError, Platform

#: Tiny Llama-shaped config.json every case starts from (upstream §1.1 `_construct`).
BASE_HF: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "num_key_value_heads": 2,
    "vocab_size": 512,
    "max_position_embeddings": 128,
    "rms_norm_eps": 1e-5,
    "torch_dtype": "bfloat16",
}

#: DeepSeek-V3-shaped MLA keys (128 KV heads: tp 8 -> 16 per rank, spec §4.1 MLA-c).
MLA: dict[str, Any] = {
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
}
#: DeepSeek sparse attention marker (spec §3.1 `is_deepseek_dsa`).
DSA: dict[str, Any] = {**MLA, "index_topk": 2048}

CPU_ENGINE = {"SGLANG_USE_CPU_ENGINE": "1"}
EAGLE = {"speculative_algorithm": "EAGLE"}
DET = {"enable_deterministic_inference": True}
DLLM = {"dllm_algorithm": "LowConfidence"}
KV4 = {"kv_cache_dtype": "fp4_e2m1"}
GRAPHS_OFF = {"cuda_graph_backend_prefill": "disabled", "cuda_graph_backend_decode": "disabled"}

VALUE, ASSERT, NOT_IMPL, RUNTIME = "ValueError", "AssertionError", "NotImplementedError", "RuntimeError"


def quant(method: str, **extra: Any) -> dict[str, Any]:
    return {"quantization_config": {"quant_method": method, **extra}}


#: Platform variants used by the tables (spec §1 predicates).
_VARIANTS: dict[str, Platform] = {
    # A100 without flashinfer installed (spec §8 legend "A100-noFI").
    "a100-nofi": Platform.preset("a100").replace(kernels=frozenset()),
    # Hopper with torch CUDA 12.2: not is_sm90 (needs CUDA >= 12.3), get_device_sm() still 90.
    "h100-cu122": Platform.preset("h100").replace(cuda_version=(12, 2)),
    # B200 with torch CUDA 12.4: neither is_sm100 nor is_blackwell (need CUDA >= 12.8).
    "b200-cu124": Platform.preset("b200").replace(cuda_version=(12, 4)),
    # B200 with an NVIDIA driver >= 595 (GPT-OSS MoE runner, spec §3.3).
    "b200-drv595": Platform.preset("b200").replace(driver_version=(595, 10)),
    "rtx5090-drv595": Platform.preset("rtx5090").replace(driver_version=(595, 10)),
    "h100-drv595": Platform.preset("h100").replace(driver_version=(595, 10)),
    # SM11x (Thor): Blackwell but neither SM100 nor SM120 (spec §1).
    "thor": Platform.preset("b200").replace(capability=(11, 0)),
    # Pre-Ampere CUDA GPU (T4, CC 7.5).
    "t4": Platform.preset("a100").replace(capability=(7, 5)),
    "h100-no-triton-kernels": Platform.preset("h100").replace(kernels=frozenset({"flashinfer"})),
    "cpu+triton-kernels": Platform.preset("cpu").replace(kernels=frozenset({"triton_kernels"})),
    "cpu-amx+triton-kernels": Platform.preset("cpu-amx").replace(kernels=frozenset({"triton_kernels"})),
    "musa": Platform(vendor="musa", name="musa", capability=(8, 0)),
    "mps": Platform(vendor="mps", name="mps"),
}


def platform(name: str) -> Platform:
    return _VARIANTS[name] if name in _VARIANTS else Platform.preset(name)


def make_hf(
    archs: str | Sequence[str], extra: Mapping[str, Any] | None = None, drop: Sequence[str] = ()
) -> dict[str, Any]:
    hf = {k: v for k, v in BASE_HF.items() if k not in drop}
    hf["architectures"] = [archs] if isinstance(archs, str) else list(archs)
    hf.update(extra or {})
    return hf


def resolve(
    archs: str | Sequence[str],
    plat: str = "h100",
    *,
    hf: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    drop: Sequence[str] = (),
    load_time: bool = True,
    **args: Any,
):
    return resolve_golden(
        make_hf(archs, hf, drop), platform(plat), env=dict(env or {}), load_time=load_time, **args
    )


_ALIASES = {
    "A": "attention_backend",
    "P": "prefill_attention_backend",
    "D": "decode_attention_backend",
    "p": "page_size",
}


def E(**fields: Any) -> dict[str, Any]:
    """Expected fields; A/P/D/p abbreviate the three backends and page_size."""
    return {_ALIASES.get(k, k): v for k, v in fields.items()}


@dataclass(frozen=True)
class Err:
    """Expected refusal: sglang's exception type and a regex of its message."""

    upstream: str
    pattern: str


@dataclass(frozen=True)
class Row:
    arch: str | tuple[str, ...]
    plat: str
    expect: Mapping[str, Any] | Err
    hf: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    args: Mapping[str, Any] = field(default_factory=dict)
    drop: tuple[str, ...] = ()


def row(
    id: str,
    arch: str | Sequence[str],
    plat: str,
    expect: Mapping[str, Any] | Err,
    *,
    hf: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    drop: Sequence[str] = (),
    **args: Any,
) -> Any:
    archs = arch if isinstance(arch, str) else tuple(arch)
    return pytest.param(Row(archs, plat, expect, dict(hf or {}), dict(env or {}), args, tuple(drop)), id=id)


def check(r: Row) -> Any:
    """Resolve one row and compare with its expectation; returns the resolution (or None)."""
    archs = r.arch if isinstance(r.arch, str) else list(r.arch)
    if isinstance(r.expect, Err):
        with pytest.raises(ConflictError) as excinfo:
            resolve(archs, r.plat, hf=r.hf, env=r.env, drop=r.drop, **r.args)
        # sglang's own words (``message``; ``str()`` writes a line break in them as ``\n``)
        assert re.search(r.expect.pattern, excinfo.value.message), (r.expect.pattern, excinfo.value.message)
        assert excinfo.value.upstream == r.expect.upstream, (
            f"upstream exception {excinfo.value.upstream!r}, expected {r.expect.upstream!r}"
        )
        return None
    res = resolve(archs, r.plat, hf=r.hf, env=r.env, drop=r.drop, **r.args)
    bad = [f"{k}: got {res[k]!r}, expected {v!r}" for k, v in r.expect.items() if res[k] != v]
    assert not bad, "; ".join(bad)
    return res


def decls(res: Any, rule: str) -> list[Any]:
    return [d for d in res.declarations if d.rule == rule]
