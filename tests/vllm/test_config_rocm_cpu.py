"""Golden tests of issue 28's third round: ROCm and CPU launches (the config oracle now fakes
vLLM's own ``RocmPlatform`` and ``CpuPlatform``, ``tools/agreement_vllm/oracle.py``), and the
attention-selection refusals that ``create_engine_config`` accepts (item 3).

Each test names the vLLM function that decides it (wheels 0.30.0-0.34.0); the selection refusals
were checked one by one against vLLM's own selector (``tools/agreement_vllm_config/
selection_refusals.py``, which runs ``tools/agreement_vllm/oracle.py`` on the pack's layer
arguments) and against the config oracle, which accepts them.
"""

from __future__ import annotations

import pytest
from config_cases import cfg_refusal, cfg_res, llama, refusal, res

from resolvable.rules import HFConfig
from resolvable.vllm.config.report import CONFIG_STAGES
from resolvable.vllm.layers import head_size
from resolvable.vllm.platforms import platform

RELEASES = ("0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")

#: https://huggingface.co/openai-community/gpt2/blob/main/config.json
GPT2 = {
    "architectures": ["GPT2LMHeadModel"],
    "model_type": "gpt2",
    "vocab_size": 50257,
    "n_positions": 1024,
    "n_ctx": 1024,
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
}


# -- presets ------------------------------------------------------------------------------------


def test_mi325x_preset_is_gfx942_with_256_gb():
    """``platforms/rocm.py : _ROCM_DEVICE_ID_NAME_MAP``: PCI id 0x74a5 is the MI325X (gfx942)."""
    p = platform("mi325x")
    assert (p.vendor, p.gcn_arch, p.capability, p.memory_gib) == (
        "hip",
        "gfx942",
        (9, 4),
        255.98,
    )  # 256 GB as torch reports it
    assert p.device_name == "AMD Instinct MI325X"


# -- CPU: VllmConfig.__post_init__ outside support_static_graph_mode() -------------------------


@pytest.mark.parametrize("release", RELEASES)
def test_cpu_leaves_max_capture_size_as_the_user_gave_it(release):
    """``VllmConfig.__post_init__`` (0.30-0.34) runs ``_set_cudagraph_sizes`` only where
    ``current_platform.support_static_graph_mode()``; on CPU it sets the mode NONE and nothing
    else, so ``max_cudagraph_capture_size`` stays unset (None, not 0); the CPU hook empties the
    sizes. On CUDA, eager mode sets it to 0."""
    r = res("llama-3.1-8b", "cpu", release)
    assert (r["max_cudagraph_capture_size"], r["cudagraph_capture_sizes"], r["cudagraph_mode"]) == (
        None,
        [],
        "NONE",
    )
    r = res("llama-3.1-8b", "cpu-amx", release, max_cudagraph_capture_size=128)
    assert (r["max_cudagraph_capture_size"], r["cudagraph_capture_sizes"]) == (128, [])
    assert res("llama-3.1-8b", "h100", release, enforce_eager=True)["max_cudagraph_capture_size"] == 0


def test_extensible_kv_cache_is_refused_off_cuda_and_rocm():
    """0.34 ``VllmConfig._resolve_extensible_kv_cache``: an explicit ``--enable-extensible-kv-cache``
    where ``current_platform.is_cuda_alike()`` is False raises "enable_extensible_kv_cache: it is
    only supported on CUDA and ROCm."; unset, it is simply off (0.92 utilisation)."""
    exc = refusal("llama-3.1-8b", "cpu", "0.34.0", enable_extensible_kv_cache=True)
    assert str(exc).startswith("enable_extensible_kv_cache: it is only supported on CUDA and ROCm.")
    assert exc.stage in CONFIG_STAGES
    assert res("llama-3.1-8b", "cpu", "0.34.0")["gpu_memory_utilization"] == 0.92
    r = res("llama-3.1-8b", "mi300x", "0.34.0", enable_extensible_kv_cache=True)
    assert r["gpu_memory_utilization"] == 1.0


# -- GPT-2's head size (transformers' attribute map) --------------------------------------------


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_gpt2_head_size_reads_n_embd_and_n_head(release):
    """``ModelConfig.get_head_size``: hidden_size / num_attention_heads, which ``GPT2Config`` maps
    to ``n_embd`` / ``n_head`` (768 / 12 = 64). Read as 0 before, every ROCm backend refused
    GPT-2 ("head_size not supported") while vLLM serves it."""
    assert head_size(HFConfig(GPT2), False) == 64
    r = cfg_res(GPT2, "mi300x", release, runner="pooling")
    assert r["attn_backend_full"] is not None  # a ROCm backend takes head size 64


# -- item 3: selection refusals (vLLM raises them when the model is built) ----------------------

#: (config or sample, platform, env, flags, vLLM's message start, vLLM's reason); every one was
#: refused by vLLM's own selector (``CudaPlatform.get_attn_backend_cls``, ``platforms/cuda.py``:
#: "Selected backend {b} is not valid for this configuration. Reason: {reasons}" / "No valid
#: attention backend found for cuda with …"; ``CpuPlatform.get_attn_backend_cls``) on 0.34.0,
#: while ``create_engine_config`` accepted the launch
SELECTION_REFUSALS = [
    ("deepseek-v2-lite", "a100", None, {"attention_backend": "CUTLASS_MLA"},
     "Selected backend CUTLASS_MLA is not valid", "compute capability not supported"),
    ("qwen3-8b", "b200", None, {"attention_backend": "CUTLASS_MLA"},
     "Selected backend CUTLASS_MLA is not valid", "non-MLA not supported"),
    ("deepseek-v3.2", "h100", None, {"attention_backend": "FLASHINFER_MLA"},
     "Selected backend FLASHINFER_MLA is not valid", "sparse not supported"),
    ("gemma-3-27b", "h100", None, {"attention_backend": "FLASHINFER"},
     "Selected backend FLASHINFER is not valid", "partial multimodal token full attention not supported"),
    ("llama-3.1-8b", "rtx5090", {"VLLM_BATCH_INVARIANT": "1"}, {"attention_backend": "FLASHINFER"},
     "Selected backend FLASHINFER is not valid", "batch invariance not supported"),
    (llama(hidden_size=2560), "h100", None, {"attention_backend": "FLASHINFER"},
     "Selected backend FLASHINFER is not valid", "head_size not supported"),
    ("deepseek-v2-lite", "h200", None, {"attention_backend": "FLASH_ATTN_MLA", "kernels": "fa3=0,fa4=0"},
     "Selected backend FLASH_ATTN_MLA is not valid", "FlashAttention MLA not supported on this device"),
    ("llama-3.1-8b", "h100", None, {"attention_backend": "FLASHINFER", "kernels": "flashinfer=0"},
     "Selected backend FLASHINFER is not valid", "flashinfer"),
]  # fmt: skip


@pytest.mark.parametrize(("model", "plat", "env", "flags", "start", "reason"), SELECTION_REFUSALS)
def test_selection_refusal_is_vllms_and_raised_at_selection(model, plat, env, flags, start, reason):
    """The verdict carries vLLM's message and the stage that raises it: attention selection
    (``stage == "attention"``, not an engine-configuration stage), which vLLM runs when the model is
    built, after ``create_engine_config`` (the config oracle accepts these launches)."""
    if isinstance(model, dict):
        exc = cfg_refusal(model, plat, "0.34.0", env, **flags)
    else:
        exc = refusal(model, plat, "0.34.0", env, **flags)
    assert str(exc).startswith(start + " for this configuration")
    assert reason in str(exc)
    assert exc.stage == "attention" and exc.stage not in CONFIG_STAGES
    assert exc.upstream == "ValueError"


def test_sparse_attention_on_cpu_is_refused_at_selection():
    """``CpuPlatform.get_attn_backend_cls`` (``platforms/cpu.py``, 0.30-0.34) raises
    ``NotImplementedError("Sparse Attention is not supported on CPU.")``; ``check_and_update_config``
    accepts DeepSeek-V3.2 (the config oracle, x86 CPU fake)."""
    exc = refusal("deepseek-v3.2", "cpu-amx", "0.34.0")
    assert str(exc).startswith("Sparse Attention is not supported on CPU.")
    assert (exc.stage, exc.upstream) == ("attention", "NotImplementedError")


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_rocm_mla_prefill_needs_aiter(release):
    """``RocmPlatform.get_mla_prefill_backend_cls`` tries ROCM_AITER_FA, then FLASH_ATTN, whose
    ``is_available`` (``fa_utils.is_flash_attn_varlen_func_available``) on ROCm needs aiter's (or
    upstream flash_attn's) varlen kernel: without aiter both are refused ("No valid MLA prefill
    backend found … required dependencies not available"), at model build (vLLM's selector on the
    ROCm fake refuses DeepSeek-V3 on MI355X the same way)."""
    exc = refusal("deepseek-v3", "mi355x", release, kernels="aiter=0")
    assert str(exc).startswith("No valid MLA prefill backend found.")
    assert "required dependencies not available" in str(exc)
    assert exc.stage not in CONFIG_STAGES
    assert res("deepseek-v3", "mi355x", release)["mla_prefill_backend"] == "ROCM_AITER_FA"
