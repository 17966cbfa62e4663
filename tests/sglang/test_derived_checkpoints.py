"""Golden cases found by measuring derived checkpoints (issue 20 item 6).

The held-out agreement runs of ``tools/agreement`` also vary the bundled samples (quantization,
dtype, sliding window, heads, name) and add flags the plain runs never drew. Each case below is a
miss that oracle (or the independent one the issue cites) found, checked in the named release's
wheel (file and function in each docstring), with the release before it where the rule changed.
"""

from __future__ import annotations

import copy

from release_helpers import refusal_at as _refusal
from release_helpers import resolve_at as _resolve

from resolvable.sglang.models import load_model


def _step35(sliding_heads):
    cfg = copy.deepcopy(load_model("step-3.5-flash").to_dict())
    cfg["attention_other_setting"] = dict(cfg["attention_other_setting"], num_attention_heads=sliding_heads)
    return cfg


def test_step3p5_refuses_only_when_sliding_heads_differ_0_5_22():
    """0.5.22/0.5.23 pin transformers 5.19.0: ``Step3p7Config.__post_init__`` turns the sliding
    layers' head count into a ``per_layer_config`` override and ``integrations/heterogeneity``
    drops an override equal to the global value, so only a different count makes
    ``num_attention_heads`` ambiguous (``HfModelConfigParser.parse`` reads it)."""
    for version in ("0.5.22", "0.5.23"):
        assert _resolve(_step35(64), "b200", version)["attention_backend"] == "fa4"
        assert "per-layer attribute" in _refusal(_step35(96), "b200", version)
    assert "per-layer attribute" in _refusal("step-3.5-flash", "h100", "0.5.23")  # the sample: 96 vs 64
    no_auto_map = _step35(96)
    no_auto_map.pop("auto_map")
    # --trust-remote-code only helps when the checkpoint ships its own class
    assert "per-layer attribute" in _refusal(no_auto_map, "h100", "0.5.23", trust_remote_code=True)
    assert _resolve(_step35(96), "h100", "0.5.23", trust_remote_code=True)["attention_backend"] == "fa3"


def test_mimo_v2_deterministic_on_sm100_keeps_fa4_since_0_5_22():
    """0.5.22 ``model_overrides/mimo_v2.py:_mimo_v2_overrides`` declares fa4 on SM100 with no
    backend named, before ``attention_hook.handle_deterministic_inference``: fa4 is a
    deterministic backend that keeps the radix cache, and the FA4 page rule gives 128. 0.5.21
    filled fa4 only in the default-backend pass, after the deterministic fill (flashinfer)."""
    flags = dict(enable_deterministic_inference=True)
    old = _resolve("mimo-v2-flash", "b200", "0.5.21", **flags)
    assert (old["attention_backend"], old["page_size"], old["disable_radix_cache"]) == ("flashinfer", 1, True)
    for version in ("0.5.22", "0.5.23"):
        new = _resolve("mimo-v2-flash", "b200", version, **flags)
        assert (new["attention_backend"], new["page_size"], new["disable_radix_cache"]) == ("fa4", 128, False)
    named = _resolve("mimo-v2-flash", "b200", "0.5.23", attention_backend="triton", **flags)
    assert named["attention_backend"] == "triton"  # a named backend is left alone


def test_per_phase_graph_switches_reach_the_dllm_backend_choice():
    """0.5.15 ``ServerArgs._parse_cuda_graph_config`` (0.5.23 ``cuda_graph_hook.
    parse_cuda_graph_config``) folds ``--disable-decode-cuda-graph`` into the decode graph before
    ``_handle_dllm_inference``; ``overrides._dllm_attention_backend`` forces flashinfer only
    while the decode graph is on. A per-phase backend flag wins over the off-switch."""
    for version in ("0.5.15", "0.5.23"):
        base = dict(dllm_algorithm="LowConfidence")
        assert _resolve("sdar-8b", "h100", version, **base)["attention_backend"] == "flashinfer"
        off = _resolve("sdar-8b", "h100", version, disable_decode_cuda_graph=True, **base)
        assert off["cuda_graph_backend_decode"] == "disabled"
        assert off["attention_backend"] == "fa3"
        prefill_off = _resolve("sdar-8b", "h100", version, disable_prefill_cuda_graph=True, **base)
        assert prefill_off["cuda_graph_backend_prefill"] == "disabled"
        assert prefill_off["attention_backend"] == "flashinfer"
        kept = _resolve(
            "sdar-8b",
            "h100",
            version,
            disable_decode_cuda_graph=True,
            cuda_graph_backend_decode="full",
            **base,
        )
        assert kept["attention_backend"] == "flashinfer"


def test_dflash_device_gate_per_release():
    """``speculative_hook._handle_dflash``: CUDA only (0.5.16), CUDA and NPU (0.5.17-0.5.19),
    also XPU (0.5.20), and since 0.5.21 a message naming the platform class and the device."""
    flags = dict(speculative_algorithm="DFLASH")
    assert "only supports CUDA device" in _refusal("llama-3.1-8b", "npu", "0.5.16", **flags)
    assert "only supports CUDA and NPU devices" in _refusal("llama-3.1-8b", "xpu", "0.5.19", **flags)
    assert "requires setting --speculative-draft-model-path" in _refusal(
        "llama-3.1-8b", "npu", "0.5.19", **flags
    )
    assert "only supports CUDA, NPU and XPU devices" in _refusal("llama-3.1-8b", "cpu", "0.5.20", **flags)
    for preset in ("xpu", "npu", "h100", "mi300x"):
        assert "draft-model-path" in _refusal("llama-3.1-8b", preset, "0.5.23", **flags)
    assert "not supported by CpuSRTPlatform on device 'cpu'" in _refusal(
        "llama-3.1-8b", "cpu", "0.5.23", **flags
    )


def test_dflash_dp_attention_per_release():
    """``_handle_dflash``: DP attention refused everywhere up to 0.5.19, allowed on NPU since
    0.5.20; 0.5.23 also allows it on CUDA with ``--enable-dp-lm-head``."""
    flags = dict(speculative_algorithm="DFLASH", enable_dp_attention=True, dp_size=2, tp_size=2)
    assert "does not support dp attention." in _refusal("llama-3.1-8b", "h100", "0.5.19", **flags)
    assert "on non-NPU devices" in _refusal("llama-3.1-8b", "h100", "0.5.22", **flags)
    assert "draft-model-path" in _refusal("llama-3.1-8b", "npu", "0.5.22", **flags)
    assert "requires --enable-dp-lm-head" in _refusal("llama-3.1-8b", "h100", "0.5.23", **flags)
    assert "requires CUDA or NPU" in _refusal("llama-3.1-8b", "xpu", "0.5.23", **flags)
    assert "draft-model-path" in _refusal("llama-3.1-8b", "h100", "0.5.23", enable_dp_lm_head=True, **flags)


def test_speculative_decoding_on_cpu_turns_overlap_off_since_0_5_16():
    """``speculative_hook._disable_overlap_schedule_for_cpu`` (since 0.5.16), from
    ``_handle_eagle_family`` and ``_handle_ngram``."""
    res = _resolve("llama-3.1-8b", "cpu", "0.5.23", speculative_algorithm="NGRAM")
    assert res["disable_overlap_schedule"] is True
    assert (
        _resolve("llama-3.1-8b", "h100", "0.5.23", speculative_algorithm="NGRAM")["disable_overlap_schedule"]
        is False
    )
    assert _resolve("llama-3.1-8b", "cpu", "0.5.23")["disable_overlap_schedule"] is False


def test_flashinfer_a2a_topology_wording_per_release():
    """``moe_hook.handle_a2a_moe``: the FlashInfer A2A topology assert names ``dp_size`` up to
    0.5.21, ``--attn-dp-size`` in 0.5.22, and in 0.5.23 (``_flashinfer_a2a_topology_is_supported``)
    also the Muse Spark exceptions."""
    flags = dict(moe_a2a_backend="flashinfer", tp_size=2)
    assert "only supported with dp_size == tp_size" in _refusal("qwen3-30b-a3b", "b200", "0.5.21", **flags)
    assert "only supported with --attn-dp-size equal to --tp-size" in _refusal(
        "qwen3-30b-a3b", "b200", "0.5.22", **flags
    )
    message = _refusal("qwen3-30b-a3b", "b200", "0.5.23", **flags)
    assert message.startswith(
        "Flashinfer MoE A2A requires --attn-dp-size equal to --tp-size, except for Muse Spark"
    )
