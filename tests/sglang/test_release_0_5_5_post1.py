"""sglang 0.5.5 → 0.5.5.post1: one golden case per modelled change
(docs/releases/0.5.5.post1.md).

Each case resolves the same input with 0.5.5 and 0.5.5.post1 (0.5.5.post1 a release of its own)
and asserts both answers, which follow the wheels' ``server_args.py``
(``_handle_attention_backend_compatibility``, ``_handle_model_specific_adjustments``,
``_handle_gpu_memory_settings``), measured against the real ``ServerArgs`` of each
(tools/agreement/compare_step.py, oracle venvs venv-0.5.5 and venv-0.5.5.post1) where the
measurement reaches (the memory reservation is read in the wheels).
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES
from resolvable.sglang.memory import default_mem_fraction_static

OLD, NEW = "0.5.5", "0.5.5.post1"


def test_the_changes_of_0_5_5_post1_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "FA4_PREFILL_PAGES_MHA_ONLY",
        "LLAMA4_INTEL_XPU",
        "PIECEWISE_GRAPH_RESERVE_QUARTER",
    }


def test_fa4_prefill_forced_128_token_pages_on_mla_models_before_0_5_5_post1():
    flags = {"tp_size": 8, "prefill_attention_backend": "fa4"}
    assert resolve_at("deepseek-v3", "b200", OLD, **flags)["page_size"] == 128
    assert resolve_at("deepseek-v3", "b200", NEW, **flags)["page_size"] != 128
    # an MHA model gets them on both
    assert resolve_at("llama-3.1-8b", "b200", OLD, **flags)["page_size"] == 128
    assert resolve_at("llama-3.1-8b", "b200", NEW, **flags)["page_size"] == 128


def test_llama4_accepts_intel_xpu_from_0_5_5_post1():
    flags = {"tp_size": 8, "attention_backend": "intel_xpu"}
    text = refusal_at("llama-4-scout", "xpu", OLD, **flags)
    assert "fa3, aiter, triton or trtllm_mha is required for Llama4 model but got intel_xpu" in text
    assert resolve_at("llama-4-scout", "xpu", NEW, **flags)["attention_backend"] == "intel_xpu"
    assert (
        resolve_at("llama-4-scout", "xpu", OLD, tp_size=8, attention_backend="triton")["attention_backend"]
        == "triton"
    )


def test_piecewise_cuda_graphs_reserve_memory_from_0_5_5_post1():
    """``PIECEWISE_GRAPH_RESERVE_QUARTER``, ``_handle_gpu_memory_settings``: 0.5.5.post1 reserves ``piecewise_cuda_graph_max_tokens // 4``
    MiB (4096 tokens: 1 GiB) with ``--enable-piecewise-cuda-graph``; 0.5.5 reserved nothing, and
    0.5.7 changed the reserve (``PIECEWISE_GRAPH_RESERVE_EIGHTH``, h34m)."""
    gpu = 80 * 1024
    on = {"tp_size": 1, "enable_piecewise_cuda_graph": True}
    off = {"tp_size": 1}
    assert default_mem_fraction_static(on, {}, gpu, version=OLD) == default_mem_fraction_static(
        off, {}, gpu, version=OLD
    )
    new_on = default_mem_fraction_static(on, {}, gpu, version=NEW)
    new_off = default_mem_fraction_static(off, {}, gpu, version=NEW)
    assert round(new_off - new_on, 3) == round(1024 / gpu, 3)
    smaller = default_mem_fraction_static(
        {**on, "piecewise_cuda_graph_max_tokens": 2048}, {}, gpu, version=NEW
    )
    assert new_on < smaller < new_off
    assert default_mem_fraction_static(on, {}, gpu, version="0.5.6.post2") == new_on
    # 0.5.7 (PIECEWISE_GRAPH_RESERVE_EIGHTH): max tokens default the chunk (8192) // 8 = 1024 MiB too
    assert default_mem_fraction_static(on, {}, gpu, version="0.5.7") == new_on
