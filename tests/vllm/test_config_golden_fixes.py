"""Pack fixes found while writing the golden tests of vllm-config-spec.md (each case: the spec's
statement, the release range, the message or value it gives)."""

from __future__ import annotations

import pytest
from config_cases import res

from resolvable.errors import ConflictError
from resolvable.vllm import load_model
from resolvable.vllm.config.fixes import check_refusal
from resolvable.vllm.platforms import platform

BATCH_INVARIANT = {"VLLM_BATCH_INVARIANT": "1"}


# -- §4 XPU: batch invariance refuses quantized models and quantized KV caches (0.31+) ----------
@pytest.mark.parametrize(
    ("model", "flags", "start", "fix"),
    [
        (
            "qwen3-235b-a22b-fp8",
            {},
            "XPU batch invariance currently supports only unquantized models; got quantization='fp8'.",
            "pass --env VLLM_BATCH_INVARIANT=0",
        ),
        (
            "llama-3.1-8b",
            {"kv_cache_dtype": "fp8"},
            "XPU batch invariance currently does not support quantized KV caches; got kv_cache_dtype='fp8'.",
            "pass --kv-cache-dtype auto",
        ),
    ],
)
@pytest.mark.parametrize("version", ["0.31.0", "0.33.0", "0.34.0"])
def test_xpu_batch_invariance_refusals(model, flags, start, fix, version):
    with pytest.raises(ConflictError) as info:
        res(model, "xpu", version, env=BATCH_INVARIANT, **flags)
    exc = info.value
    assert exc.message.startswith(start)
    assert exc.rule == "xpu_batch_invariance"
    check = check_refusal(
        exc, load_model(model), platform("xpu"), BATCH_INVARIANT, flags, vllm_version=version
    )
    assert check.status == "verified" and check.text == fix


@pytest.mark.parametrize(
    ("model", "plat", "version", "env", "flags"),
    [
        ("qwen3-235b-a22b-fp8", "xpu", "0.30.0", BATCH_INVARIANT, {}),  # no check before 0.31
        ("llama-3.1-8b", "xpu", "0.30.0", BATCH_INVARIANT, {"kv_cache_dtype": "fp8"}),
        ("qwen3-235b-a22b-fp8", "xpu", "0.33.0", {}, {}),  # only with VLLM_BATCH_INVARIANT
        ("llama-3.1-8b", "xpu", "0.33.0", BATCH_INVARIANT, {"kv_cache_dtype": "bfloat16"}),  # unquantized
        ("qwen3-235b-a22b-fp8", "h100", "0.33.0", BATCH_INVARIANT, {}),  # XPU only
    ],
)
def test_xpu_batch_invariance_accepts(model, plat, version, env, flags):
    r = res(model, plat, version, env=env, **flags)
    assert r["kv_cache_dtype"] == flags.get("kv_cache_dtype", "auto")
