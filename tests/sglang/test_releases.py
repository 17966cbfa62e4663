"""sglang 0.5.14 vs 0.5.15: golden cases from spec §9 (the observable differences) and §11 #4.

Each case resolves the same input for both releases and checks the value each release gives,
as the spec's table states it. The tests of the default release (no release named, ``auto``
with no sglang installed) state it as ``registry.default_release``; one test says which
release that is.
"""

from __future__ import annotations

import re

import pytest

from resolvable import Platform
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.rules import release_key
from resolvable.sglang import SGLANG_RELEASES, SGLANG_VERSION, registry, resolve_server_args
from resolvable.sglang.api import sglang_release
from resolvable.sglang.grid import cases
from resolvable.sglang.models import load_model

SIX = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "page_size",
    "dtype",
    "kv_cache_dtype",
)


def _both(model: str, preset: str, **flags):
    hf, platform = load_model(model), Platform.preset(preset)
    return tuple(resolve_server_args(hf, platform, sglang_version=v, **flags) for v in ("0.5.14", "0.5.15"))


def test_default_release_is_the_newest_supported():
    # every release is modelled (tests/sglang/test_release_0_5_<N>.py); none named means the
    # newest, and the 0.5.15 golden tests name their release (tests/golden.py)
    assert SGLANG_VERSION == registry.default_release == SGLANG_RELEASES[-1] == registry.releases[-1]


def test_no_release_named_resolves_the_default_release():
    assert registry.releases == SGLANG_RELEASES and "0.5.9" in registry.releases
    assert list(registry.releases) == sorted(registry.releases, key=release_key)  # .postN after its base
    assert registry.default_release in registry.releases
    res = resolve_server_args(load_model("llama-3.1-8b"), Platform.preset("h100"))
    assert res.release == registry.default_release


@pytest.mark.parametrize(
    ("version", "release"),
    [
        (None, registry.default_release),
        ("0.5.14", "0.5.14"),
        ("0.5.15.post1", "0.5.15"),
        ("0.5.13.post1", "0.5.13"),
        ("0.5.12.post1", "0.5.12"),
        ("0.5.6.post2", "0.5.6.post2"),  # a listed post release is a release of its own
    ],
)
def test_release_names(version, release):
    assert sglang_release(version) == release


def test_unmodelled_release_is_refused_with_the_supported_list():
    with pytest.raises(
        InvalidArgumentError,
        match=r"'0\.5\.4'.*supported releases: " + re.escape(", ".join(SGLANG_RELEASES[:3])),
    ):
        resolve_server_args(load_model("llama-3.1-8b"), Platform.preset("h100"), sglang_version="0.5.4")


def test_auto_uses_installed_version_or_the_default(monkeypatch):
    from resolvable.sglang import api

    monkeypatch.setattr(api, "installed_sglang_version", lambda: None)
    assert sglang_release("auto") == registry.default_release
    monkeypatch.setattr(api, "installed_sglang_version", lambda: "0.5.14.post2")
    assert sglang_release("auto") == "0.5.14"
    monkeypatch.setattr(api, "installed_sglang_version", lambda: "0.4.0")
    with pytest.raises(InvalidArgumentError, match=r"0\.4\.0"):
        sglang_release("auto")


def test_row_1_2_step3p5_on_b200_page_1_then_128():
    """§9 #2: Step3p5 on SM100 resolves fa4 in both; 0.5.14 keeps page 1, 0.5.15 snaps to 128."""
    old, new = _both("step-3.5-flash", "b200")
    assert (old["attention_backend"], old["page_size"]) == ("fa4", 1)
    assert (new["attention_backend"], new["page_size"]) == ("fa4", 128)


def test_row_1_fa4_as_prefill_backend_triggers_in_both():
    """§9 #1: only P == fa4 triggers in 0.5.14; A, D or P in 0.5.15."""
    old, new = _both("llama-3.1-8b", "b200", prefill_attention_backend="fa4")
    assert old["page_size"] == new["page_size"] == 128
    old, new = _both("llama-3.1-8b", "b200", decode_attention_backend="fa4")
    assert old["page_size"] != 128 and new["page_size"] == 128


def test_row_1_topk_skip_is_0_5_15_only():
    """§9 #1: 0.5.15 skips the FA4 page rule when EAGLE topk > 1; 0.5.14 has no such skip."""
    flags = dict(
        prefill_attention_backend="fa4",
        speculative_algorithm="EAGLE",
        speculative_num_steps=3,  # a topk needs the steps (0.5.15 speculative_hook)
        speculative_eagle_topk=4,
        speculative_num_draft_tokens=8,
    )
    hf, b200 = load_model("llama-3.1-8b"), Platform.preset("b200")
    old = resolve_server_args(hf, b200, sglang_version="0.5.14", **flags)
    assert old["page_size"] == 128
    try:
        new = resolve_server_args(hf, b200, sglang_version="0.5.15", **flags)
    except ConflictError:
        return  # a later check may refuse it in 0.5.15; what matters is that C16 did not force 128
    assert new["page_size"] != 128


def test_row_3_deepseek_trtllm_mla_prefill_graph_is_0_5_15_only():
    """§9 #3: DeepSeek-V3 + trtllm_mla prefill disables the prefill graph only in 0.5.15."""
    old, new = _both("deepseek-v3", "b200")
    assert (
        old["prefill_attention_backend"] in (None, "trtllm_mla") or old["attention_backend"] == "trtllm_mla"
    )
    assert old["cuda_graph_backend_prefill"] == "tc_piecewise"
    assert new["cuda_graph_backend_prefill"] == "disabled"


@pytest.mark.parametrize(("preset", "new_default"), [("h100", "breakable"), ("mi300x", "tc_piecewise")])
def test_row_4_default_prefill_graph_backend(preset, new_default):
    """§9 #4: tc_piecewise everywhere in 0.5.14; breakable on CUDA in 0.5.15."""
    old, new = _both("llama-3.1-8b", preset)
    assert old["cuda_graph_backend_prefill"] == "tc_piecewise"
    assert new["cuda_graph_backend_prefill"] == new_default


def test_row_5_xpu_graphs_and_dllm_backend():
    """§9 #5: on XPU, 0.5.14 disables prefill graphs and keeps decode graphs (so a dLLM is forced to
    flashinfer); 0.5.15 disables decode graphs by default (the dLLM keeps the XPU default)."""
    old, new = _both("llama-3.1-8b", "xpu")
    assert (old["cuda_graph_backend_prefill"], old["cuda_graph_backend_decode"]) == ("disabled", "full")
    assert new["cuda_graph_backend_decode"] == "disabled"
    old, new = _both("llada2-mini", "xpu", dllm_algorithm="LowConfidence")
    assert old["attention_backend"] == "flashinfer"
    assert new["attention_backend"] != "flashinfer"


def test_row_6_dllm_page_cap_is_0_5_15_only():
    """§9 #6: with the radix cache off, 0.5.15 caps the page at the block size (32 for LLaDA2); 0.5.14
    leaves the argument alone (the scheduler caps it locally)."""
    old, new = _both(
        "llada2-mini", "h100", dllm_algorithm="LowConfidence", page_size=64, disable_radix_cache=True
    )
    assert old["page_size"] == 64 and new["page_size"] == 32


def test_row_6_unknown_dllm_with_radix_off():
    """§9 #6: 0.5.15 always builds the dLLM config, so an unknown dLLM arch is refused even with the
    radix cache off; 0.5.14 only looks the block size up with the radix cache on."""
    hf, h100 = load_model("llama-3.1-8b"), Platform.preset("h100")
    flags = dict(dllm_algorithm="LowConfidence", disable_radix_cache=True)
    resolve_server_args(hf, h100, sglang_version="0.5.14", **flags)
    with pytest.raises(ConflictError, match="Unknown diffusion LLM"):
        resolve_server_args(hf, h100, sglang_version="0.5.15", **flags)


def test_row_7_dllm_pipeline_parallelism():
    """§9 #7: 0.5.14's condition is inverted (PP kept); 0.5.15 sets pp_size 1."""
    old, new = _both("llada2-mini", "h100", dllm_algorithm="LowConfidence", pp_size=2)
    assert old["pp_size"] == 2 and new["pp_size"] == 1


@pytest.mark.parametrize("model", ["minimax-m2", "glm-4.5"])
def test_row_9_tf32_is_0_5_15_only(model):
    """§9 #9: enable_tf32_matmul does not exist in 0.5.14; 0.5.15 declares it for MiniMax-M2 and GLM-4 MoE."""
    old, new = _both(model, "h100")
    assert old["enable_tf32_matmul"] is False and new["enable_tf32_matmul"] is True


def test_row_10_glm4_unquantized_moe_runner_on_sm100():
    """§9 #10: 0.5.14 picks flashinfer_trtllm only for modelopt_fp4; 0.5.15 also for unquantized."""
    old, new = _both("glm-4.5", "b200")
    assert old["moe_runner_backend"] == "auto" and new["moe_runner_backend"] == "flashinfer_trtllm"


def test_row_12_hrm_text_adjustment_is_0_5_15_only():
    """§9 #12: 0.5.14's ModelRunner has no HRM-Text rule."""
    old, new = _both("hrm-text", "h100")
    assert new["attention_backend"] == "triton" and new["disable_radix_cache"] is True
    assert not any(d.stage == "adjust" for d in old.declarations)


def test_row_13_trtllm_mha_topk_check():
    """§9 #13: 0.5.14 checks A, D and P; 0.5.15 the effective prefill/decode backends. They differ
    when A == trtllm_mha but P and D are both something else."""
    flags = dict(
        attention_backend="trtllm_mha",
        prefill_attention_backend="fa3",
        decode_attention_backend="triton",
        speculative_algorithm="EAGLE",
        speculative_num_steps=3,  # a topk needs the steps (0.5.15 speculative_hook)
        speculative_eagle_topk=4,
        speculative_num_draft_tokens=8,
        page_size=1,
    )
    hf, b200 = load_model("llama-3.1-8b"), Platform.preset("b200")
    with pytest.raises(ConflictError, match="trtllm_mha backend only supports topk = 1"):
        resolve_server_args(hf, b200, sglang_version="0.5.14", **flags)
    try:
        resolve_server_args(hf, b200, sglang_version="0.5.15", **flags)
    except ConflictError as exc:
        assert "trtllm_mha backend only supports topk" not in str(exc)


def _outcome(hf, platform, flags, version):
    try:
        res = resolve_server_args(hf, platform, sglang_version=version, load_time=False, **flags)
    except ConflictError as exc:
        return ("refused", exc.message)
    return ("ok", tuple(res[f] for f in SIX))


def test_grid_differences_are_the_ones_spec_11_names():
    """§11 #4: on the grid, the six attention fields and the outcome differ between 0.5.14 and
    0.5.15 only for Step-3.5 on SM100, diffusion LLMs, and explicit FA4/trtllm_mha variants
    (rows #1 and #13) — never for an unrelated model."""
    dllm = {"llada2-mini", "sdar-8b"}
    differing = []
    for model, preset, _variant, hf, platform, flags in cases():
        if _outcome(hf, platform, flags, "0.5.14") != _outcome(hf, platform, flags, "0.5.15"):
            differing.append((model, preset, flags))
    assert differing, "the grid should show the Step-3.5 difference at least"
    for model, preset, flags in differing:
        platform = Platform.preset(preset)
        explained = (
            (model == "step-3.5-flash" and platform.is_sm100)
            or model in dllm
            or "fa4" in flags.values()
            or "trtllm_mha" in flags.values()
            or flags.get("dllm_algorithm") is not None
        )
        assert explained, (model, preset, flags)
