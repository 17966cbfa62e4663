"""Issue 27 (third round, h27c): the memory model's release differences for sglang logs of older
releases, read in the wheels (model_executor/model_runner.py of 0.4.4.post1-post3, 0.4.5-0.4.8;
server_args.py of 0.4.9; model_executor/kv_cache_configurator of 0.5.13.post1 and 0.5.14)."""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable._hfconfig import HFConfig
from resolvable.sglang import load_model, resolve_server_args
from resolvable.sglang.memory import NOT_ENOUGH_MEMORY, capacity, model_runner_vlm_scale

AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}


def _gemma_awq() -> HFConfig:
    return HFConfig({**load_model("gemma-3-27b").to_dict(), "quantization_config": AWQ}, source="test")


def _cap(hf, preset: str, version: str | None, **flags):
    platform = Platform.preset(preset)
    res = resolve_server_args(hf, platform, {}, **flags)
    values = {k: res[k] for k in res}
    return capacity(
        values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
    )


def test_model_runner_vlm_scale_per_release():
    vlm, text = load_model("gemma-3-27b"), load_model("llama-3.1-8b")
    assert model_runner_vlm_scale("0.4.4.post2", vlm) == 0.95
    assert model_runner_vlm_scale("0.4.6", vlm) == model_runner_vlm_scale("0.4.8", vlm) == 0.90
    # from 0.4.9 server_args scales only its own default (default_mem_fraction_static)
    assert model_runner_vlm_scale("0.4.9", vlm) == model_runner_vlm_scale("0.5.23", vlm) == 1.0
    assert model_runner_vlm_scale(None, vlm) == 1.0
    assert model_runner_vlm_scale("0.4.4", text) == 1.0


def test_sglang_044_scales_your_fraction_for_gemma3_and_refuses_with_its_message():
    """sglang#4895's model (gemma-3-27b AWQ int4) on an RTX 4090. At 0.4.4 the model runner takes
    0.95 of the --mem-fraction-static of a multimodal model: 0.70 becomes 0.665, which the ~15.8 GiB
    of weights exceed; 0.4.4 has no "Loaded weights leave no GPU memory" check (0.5.14), so the
    pool is empty and sglang says "Not enough memory". The 0.5.23 model starts at 0.70."""
    hf = _gemma_awq()
    old = _cap(hf, "rtx4090", "0.4.4.post2", mem_fraction_static=0.70)
    assert old.inputs["mem_fraction_static"] == pytest.approx(0.665)
    assert "× 0.95 for a multimodal model in sglang 0.4.4.post2" in old.inputs["mem_fraction_static_from"]
    assert old.status == "refused" and not old.fits and old.kv_tokens == 0
    assert old.refusal == NOT_ENOUGH_MEMORY
    new = _cap(hf, "rtx4090", None, mem_fraction_static=0.70)
    assert new.inputs["mem_fraction_static"] == 0.70 and new.kv_tokens > 0
    # at the issue's 0.88 the 0.4.4 pool is 0.95 × smaller in fraction: fewer tokens, still some
    issue = _cap(hf, "rtx4090", "0.4.4.post2", mem_fraction_static=0.88)
    assert 0 < issue.kv_tokens < _cap(hf, "rtx4090", None, mem_fraction_static=0.88).kv_tokens


def test_vllm_034_extensible_kv_cache_is_sized_after_the_warm_up_and_the_graphs():
    """vLLM 0.34 (v1/worker/extensible_kv_cache.py : measure_kv_cache_bytes): the cache is committed
    after the warm-up and the graph capture; it gets min(requested - held, free - held - margin)
    - the transient peak, the margin max(1 GiB, 0.75 × peak). The README's Qwen3-8B TP 4 example:
    the sampler warm-up and the graphs are measured before the size is fixed, not taken from what
    the cache leaves (they read as a contradiction before)."""
    from resolvable.device_memory import context_overhead
    from resolvable.memory import GIB
    from resolvable.vllm import load_model as vllm_model
    from resolvable.vllm.memory import capacity as vcap

    platform = Platform.preset("h100")
    hf = vllm_model("qwen3-8b")
    rep = vcap(
        {"tensor_parallel_size": 4},
        hf,
        device_name=platform.device_name,
        memory_gib=platform.memory_gib,
        version="0.34",
    )
    est = rep.estimates
    total = rep.device_total_bytes
    held = rep.weights_bytes + est["non_torch"].value + est["cudagraphs"].value
    peak = est["activation_peak"].value
    free = total - context_overhead(4).value
    want = min(total * 1.0 - held, free - held - max(1 * GIB, 0.75 * peak)) - peak
    assert rep.inputs["extensible_kv_cache"] is True and rep.inputs["gpu_memory_utilization"] == 1.0
    assert rep.inputs["available_kv_bytes"] == pytest.approx(want)
    phases = {a.name.split(" (")[0]: a.phase for a in rep.allocations}
    assert phases["CUDA graphs"] == phases["sampler warm-up"] == "before-pool"
    assert rep.status == "starts" and not any(a.phase == "after-pool" for a in rep.allocations)
    # 0.33 (no extensible cache): the budget formula, the warm-up and graphs after the pool
    old = vcap(
        {"tensor_parallel_size": 4},
        hf,
        device_name=platform.device_name,
        memory_gib=platform.memory_gib,
        version="0.33",
    )
    assert old.inputs["extensible_kv_cache"] is False
    assert {a.phase for a in old.allocations if a.name.startswith(("CUDA", "sampler"))} == {"after-pool"}


def test_check_log_says_which_release_a_log_was_compared_at():
    """A log is compared at its own release; a sglang log of a release outside 0.5.14-0.5.23 says
    it was compared at 0.5.23's model with the differences known for it."""
    from resolvable.startup_log import check_log

    vllm_log = (
        "INFO vLLM API server version 0.11.0\n"
        "INFO non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 16000}\n"
        "INFO Model loading took 14.99 GiB and 5.1 seconds\n"
    )
    got = check_log(vllm_log, hf=load_model("llama-3.1-8b"), platform=Platform.preset("h100"))
    assert got.report.inputs["compared_at"].startswith("vLLM 0.11:")
    assert any(line.startswith("model     vLLM 0.11:") for line in got.lines())
    sglang_log = (
        "sglang version: 0.4.4.post2\n"
        "[2025-03-29 18:12:40] server_args=ServerArgs(model_path='/m/gemma-3-27b/', context_length=4096, "
        "mem_fraction_static=0.88, chunked_prefill_size=2048, page_size=1, tp_size=1)\n"
    )
    got = check_log(sglang_log, hf=_gemma_awq(), platform=Platform.preset("rtx4090"))
    assert got.facts.version == "0.4.4.post2"
    assert "0.4.4.post2 is not a modelled release: compared at 0.5.23's" in got.report.inputs["compared_at"]
    assert got.report.inputs["mem_fraction_static"] == pytest.approx(0.836)
    modelled = check_log(sglang_log, hf=_gemma_awq(), platform=Platform.preset("rtx4090"), release="0.5.15")
    assert "a modelled release" in modelled.report.inputs["compared_at"]
    assert modelled.report.inputs["mem_fraction_static"] == 0.88


def test_vllm_034_utilization_default_is_one_only_with_the_extensible_cache():
    """config/cache.py : resolved_gpu_memory_utilization (0.34): 1.0 with the extensible KV cache,
    else DEFAULT_GPU_MEMORY_UTILIZATION (0.92, as in 0.30-0.33); --kv-cache-memory turns it off."""
    from resolvable.vllm import load_model as vllm_model
    from resolvable.vllm.memory import capacity as vcap

    platform = Platform.preset("h100")
    hf = vllm_model("qwen3-8b")

    def util(values, version="0.34"):
        rep = vcap(
            values, hf, device_name=platform.device_name, memory_gib=platform.memory_gib, version=version
        )
        return rep.inputs["gpu_memory_utilization"], rep.inputs["extensible_kv_cache"]

    assert util({}) == (1.0, True)
    assert util({"enable_extensible_kv_cache": False}) == (0.92, False)
    assert util({"kv_cache_memory_bytes": 20 << 30}) == (0.92, False)
    assert util({}, "0.33") == (0.92, False) and util({}, "0.29") == (0.92, False)
    # config/cache.py: 0.9 up to the 0.19.1 wheel, 0.92 from the 0.20.0 wheel (issue 32 item 4)
    assert util({}, "0.20") == (0.92, False) and util({}, "0.19") == (0.9, False)


def test_the_default_fraction_is_not_scaled_for_a_vlm_whose_multimodal_is_off():
    """configs/model_config.py ``mm_disabled_models``: Gemma 3 (and Llama 4, Step3-VL, Inkling)
    run text-only unless ``--enable-multimodal``, so ``adjust_mem_fraction_for_vlm`` leaves
    sglang's default alone. Real sglang 0.5.9 ServerArgs on a faked H100
    (tools/agreement/oracle_worker.py): gemma-3-27b 0.834, with --enable-multimodal 0.7587;
    qwen3-vl-8b (multimodal on) 0.7713."""
    from resolvable.sglang.memory import default_mem_fraction_static

    gemma, qwen_vl = load_model("gemma-3-27b"), load_model("qwen3-vl-8b")
    platform = Platform.preset("h100")
    gpu_mib = platform.memory_gib * 1024

    def fraction(hf, **flags):
        res = resolve_server_args(hf, platform, {}, sglang_version="0.5.9")
        return default_mem_fraction_static(
            {**{k: res[k] for k in res}, **flags}, hf, gpu_mib, version="0.5.9"
        )

    assert fraction(gemma) == pytest.approx(0.834, abs=0.0015)
    assert fraction(gemma, enable_multimodal=True) == pytest.approx(0.7587, abs=0.0015)
    assert fraction(qwen_vl) == pytest.approx(0.7713, abs=0.0015)
    assert fraction(qwen_vl, language_only=True) == pytest.approx(0.834, abs=0.0015)


@pytest.mark.parametrize(("release", "fraction"), [("0.5.9", 0.795), ("0.5.21", 0.789), ("0.5.22", 0.817)])
def test_dp_attention_asked_with_dp_1_is_reserved_before_0_5_22(capsys, release, fraction):
    """``--enable-dp-attention`` with the default ``--dp-size 1``: sglang turns DP attention off,
    but before 0.5.22 (``DP_ATTENTION_RESERVE_AFTER_RESET``) its default fraction was sized first,
    with the DP-attention share of the decode graphs (max_bs 512 × 3 + × 1.5 MiB). Real sglang
    ServerArgs on a faked H100, llama-3.1-8b --tp 4 --enable-dp-attention: 0.5.9 0.795, 0.5.21
    0.789 (the prefill-graph reserve of 0.5.16+), 0.5.22 0.817 (tools/agreement/oracle_worker.py)."""
    got = _fit_fraction(capsys, release, "h100", "--tp", "4", "--enable-dp-attention")
    assert got == pytest.approx(fraction, abs=0.0015)


def _fit_fraction(capsys, release: str, preset: str, *flags: str, model: str = "llama-3.1-8b") -> float:
    """The default fraction ``resolvable fit --json`` reports for a pasted launch."""
    import json

    from resolvable.cli import main

    argv = ["fit", "--json", "--sglang-version", release, "--platform", preset, "--"]
    main([*argv, "python", "-m", "sglang.launch_server", "--model-path", model, *flags])
    return json.JSONDecoder().raw_decode(capsys.readouterr().out)[0]["memory"]["inputs"][
        "mem_fraction_static"
    ]


def test_small_gpus_default_to_4k_chunked_prefill_from_0_5_20(capsys):
    """``SMALL_GPU_CHUNKED_PREFILL_4K``: the 20-35 GiB band's chunked prefill went from 2048 to
    4096 in 0.5.20, and with it the activation reserve. Real sglang ServerArgs, llama-3.1-8b on a
    faked RTX 4090: 0.5.19 chunked_prefill_size 2048, fraction 0.831; 0.5.20 4096, 0.699."""
    assert (
        resolve_server_args(load_model("llama-3.1-8b"), Platform.preset("rtx4090"), sglang_version="0.5.19")[
            "chunked_prefill_size"
        ]
        == 2048
    )
    assert (
        resolve_server_args(load_model("llama-3.1-8b"), Platform.preset("rtx4090"), sglang_version="0.5.20")[
            "chunked_prefill_size"
        ]
        == 4096
    )
    assert _fit_fraction(capsys, "0.5.19", "rtx4090") == pytest.approx(0.831, abs=0.0015)
    assert _fit_fraction(capsys, "0.5.20", "rtx4090") == pytest.approx(0.699, abs=0.0015)


def test_xpu_reserves_2_gib_more_from_0_5_20(capsys):
    """``XPU_ONEDNN_RESERVE``: real sglang on a faked XPU, llama-3.1-8b, goes from 0.901 (0.5.19)
    to 0.886 (0.5.22): 2 GiB of the preset's memory more reserved."""
    gpu_mib = Platform.preset("xpu").memory_gib * 1024
    drop = _fit_fraction(capsys, "0.5.19", "xpu") - _fit_fraction(capsys, "0.5.22", "xpu")
    assert drop == pytest.approx(2048 / gpu_mib, abs=0.0015)


def test_kimi_k25_vision_tower_sizes_come_from_its_config_class(capsys):
    """configs/kimi_k25.py ``KimiK25VisionConfig`` fills num_hidden_layers 27 and hidden_size 1152
    that Kimi-K2.5's config.json leaves out, so ``adjust_mem_fraction_for_vlm`` scales by
    0.95 × 0.9576. Real sglang ServerArgs, kimi-k2.5 on a faked B200: 0.5.9 0.778734, 0.5.22
    0.771456 (tools/agreement/oracle_worker.py)."""
    for release, fraction in (("0.5.9", 0.778734), ("0.5.22", 0.771456)):
        assert _fit_fraction(capsys, release, "b200", model="kimi-k2.5") == pytest.approx(
            fraction, abs=0.0005
        )
