"""LongCat-Flash follows the DeepSeek/DSA family (issue 16): one rule per upstream function.

In the wheels (0.5.16 on) ``LongcatFlashForCausalLM`` is in the DeepSeek family list of the model
hook / ``model_overrides/deepseek_v2._deepseek_family_overrides``, in
``overrides._DEEPSEEK_FAMILY_ARCHS`` and in ``model_config.is_deepseek_dsa``; so a LongCat config
with ``index_topk`` takes DeepSeek-V3.2's path on every platform — except that since 0.5.17
``_deepseek_moe_quant_resolution`` keeps LongCat's MoE runner on SM100 (zero-expert logits).
The sample is the bundled ``deepseek-v3.2`` config with only the architecture renamed.
"""

from __future__ import annotations

import json
import os

import pytest

import resolvable.sglang as S
from resolvable import Platform
from resolvable.sglang import resolve_server_args

FIELDS = (
    "attention_backend",
    "dsa_prefill_backend",
    "dsa_decode_backend",
    "kv_cache_dtype",
    "page_size",
    "moe_runner_backend",
)
PRESETS = sorted(Platform.presets())
SM100 = {"b200", "b300", "gb200", "gb300"}  # the Grace-Blackwell presets are SM100 too

with open(os.path.join(os.path.dirname(S.__file__), "models", "deepseek-v3.2.json"), encoding="utf-8") as fh:
    DSV32 = json.load(fh)
LONGCAT = dict(DSV32, architectures=["LongcatFlashForCausalLM"])


def _answer(config: dict, preset: str, release: str) -> dict | str:
    try:
        res = resolve_server_args(config, Platform.preset(preset), sglang_version=release)
    except ValueError as exc:
        return f"refused: {getattr(exc, 'message', exc)}"
    return {f: res[f] for f in FIELDS}


#: The issue's worked example (sglang 0.5.23): before, LongCat's copies stopped following
#: DeepSeek at 0.5.17 (ROCm ``tilelang``/``tilelang``; XPU ``None``/``None``, ``auto``, page 1).
GOLDEN_0_5_23 = {
    "mi300x": ("dsa", "triton", "triton", "bfloat16", 1, "auto"),
    "mi355x": ("dsa", "triton", "triton", "bfloat16", 1, "auto"),
    "xpu": ("dsa", "intel_xpu", "intel_xpu", "bfloat16", 128, "auto"),
    "xpu-noxmx": ("dsa", "intel_xpu", "intel_xpu", "bfloat16", 128, "auto"),
    "h100": ("dsa", "flashmla_sparse", "fa3", "bfloat16", 64, "auto"),
    "b200": ("dsa", "trtllm", "trtllm", "fp8_e4m3", 64, "auto"),
    "rtx5090": ("dsa", "trtllm", "trtllm", "fp8_e4m3", 64, "auto"),
    "npu": ("ascend", None, None, "auto", 128, "auto"),
}


@pytest.mark.parametrize("preset", sorted(GOLDEN_0_5_23))
def test_longcat_golden_0_5_23(preset):
    assert _answer(LONGCAT, preset, "0.5.23") == dict(zip(FIELDS, GOLDEN_0_5_23[preset], strict=True))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("release", ["0.5.16", "0.5.17", "0.5.20", "0.5.22", "0.5.23"])
def test_longcat_takes_deepseek_v32s_path_on_every_platform(preset, release):
    longcat, deepseek = _answer(LONGCAT, preset, release), _answer(DSV32, preset, release)
    if preset in SM100 and release != "0.5.16" and isinstance(deepseek, dict):
        # 0.5.17 ``_deepseek_moe_quant_resolution``: not model_arch.startswith("LongcatFlash")
        assert (deepseek["moe_runner_backend"], longcat["moe_runner_backend"]) == (
            "flashinfer_trtllm",
            "auto",
        )
        deepseek = dict(deepseek, moe_runner_backend="auto")
    assert longcat == deepseek


def test_longcat_joins_the_family_in_0_5_16():
    """0.5.15 has no LongCat entry: only the generic rules apply (no DSA backend)."""
    assert _answer(LONGCAT, "h100", "0.5.15")["attention_backend"] != "dsa"
    assert _answer(LONGCAT, "h100", "0.5.16")["attention_backend"] == "dsa"


def test_explain_names_the_change_that_moved_rocm_to_triton():
    res = resolve_server_args(LONGCAT, Platform.preset("mi300x"), sglang_version="0.5.23", trace=True)
    (decl,) = [d for d in res.declarations if d.rule.endswith("dsa_split_backends")]
    assert (
        "release: sglang ≥ 0.5.20 (DSA_TRITON_ON_ROCM, arg_groups/overrides._dsa_split_backend_resolution)",
        True,
    ) in decl.inputs
