"""vLLM 0.22.1's engine configuration (issue 32): the configuration changes 0.23.0 brought
(``vllm/config/changes.py``, block "0.22.1 -> 0.23.0"), one test per change, 0.22.1 against
0.23.0. Facts from the two wheels' ``config/vllm.py`` (``docs/releases/vllm-0.23.0-config.md``)."""

from __future__ import annotations

import pytest
from vllm_cases import res

from resolvable.errors import ConflictError
from resolvable.rules import HFConfig
from resolvable.vllm import load_model
from resolvable.vllm.changes import CHANGES


def both(model, preset, env=None, **flags):
    return [res(model, preset, env, vllm_version=v, **flags) for v in ("0.22.1", "0.23.0")]


def test_the_0_23_config_changes_are_listed():
    assert {c.name for c in CHANGES.introduced("0.23.0")} >= {
        "V2_DEFAULT_LLAMA_MISTRAL",
        "BREAKABLE_GRAPHS_DEEPSEEK_V4",
        "V2_RUNNER_HYBRID_ALIGN_ONLY",
        "V2_RUNNER_REFUSAL_NAMES_RUNNER",
        "CPU_UNI_EXECUTOR_ENV_GATED",
        "CPU_AWQ_REMOVED",
    }


def test_llama_defaults_to_v2_from_0_23():
    """``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES``: 0.22 lists Qwen3 only (config-3117 dev: 17 Llama
    launches on V1 in the 0.22.1 oracle); 0.23 adds Llama and Mistral."""
    assert [r["use_v2_model_runner"] for r in both("llama-3.1-8b", "h100")] == [False, True]
    assert [r["use_v2_model_runner"] for r in both("qwen3-8b", "h100")] == [True, True]


def test_deepseek_v4_breakable_graphs_from_0_23():
    """``VllmConfig.__post_init__``: 0.23 auto-enables breakable CUDA graphs (torch.compile off) for
    DeepSeek-V4 (the architecture list is read; a dense config under DeepSeek-V4's class name keeps
    the pack's attention selection out of it); 0.22 compiles it."""
    cfg = load_model("qwen3-30b-a3b").to_dict()
    cfg["architectures"] = ["DeepseekV4ForCausalLM"]
    v4 = HFConfig(cfg, source="qwen3-30b-a3b as DeepseekV4ForCausalLM")
    assert [r["compilation_mode"] for r in both(v4, "h200")] == ["VLLM_COMPILE", "NONE"]


def test_v2_forced_refuses_every_hybrid_model_on_0_22():
    """``_get_v2_model_runner_unsupported_features``: 0.22 lists every ``has_inner_state`` model
    ("hybrid/mamba models"), so VLLM_USE_V2_MODEL_RUNNER=1 with Qwen3-Next is refused whatever the
    Mamba cache mode; 0.23 lists it in align mode only (prefix caching off: mode none, V2 runs)."""
    env = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    with pytest.raises(ConflictError, match="does not yet support: hybrid/mamba models Fix"):
        res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.22.1")
    new = res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.23.0")
    assert (new["mamba_cache_mode"], new["use_v2_model_runner"]) == ("none", True)
    with pytest.raises(ConflictError, match="hybrid/mamba models with align cache mode"):
        res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.23.0", enable_prefix_caching=True)


def test_cpu_uni_executor_becomes_mp_whatever_the_variable_on_0_22():
    """``CpuPlatform.check_and_update_config``: 0.22 always turns the ``uni`` executor into ``mp``;
    0.23 only under V1 multiprocessing (VLLM_ENABLE_V1_MULTIPROCESSING, default 1)."""
    env = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    got = [
        r["distributed_executor_backend"]
        for r in both("llama-3.1-8b", "cpu", env, distributed_executor_backend="uni")
    ]
    assert got == ["mp", "uni"]
    assert [
        r["distributed_executor_backend"]
        for r in both("llama-3.1-8b", "cpu", distributed_executor_backend="uni")
    ] == [
        "mp",
        "mp",
    ]


def test_cpu_awq_claims_awq_checkpoints_on_cpu_on_0_22():
    """``CPUAWQConfig.override_quantization_method`` (0.21-0.22, last of the override list): on CPU
    an AWQ checkpoint that AWQ Marlin does not take (no zero point) becomes ``cpu_awq``; 0.23 has
    no such method and keeps ``awq``."""
    cfg = load_model("llama-3.1-8b").to_dict()
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": False}
    awq = HFConfig(cfg, source="llama-3.1-8b (AWQ, no zero point)")
    assert res(awq, "cpu", vllm_version="0.22.1", dtype="float16")["quantization"] == "cpu_awq"
    assert res(awq, "cpu", vllm_version="0.23.0", dtype="float16")["quantization"] == "awq"


def test_awq_marlin_takes_cpu_checkpoints_from_0_23():
    """``AWQMarlinConfig.is_awq_marlin_compatible``: CUDA/ROCm only in 0.21-0.22, so on CPU
    ``CPUAWQConfig`` claims a Marlin-compatible AWQ checkpoint (``cpu_awq``; operators-9101 dev,
    0.21 oracle: AWQ Llama and Qwen3.5 on cpu-amx); 0.23 accepts the CPU (``awq_marlin``)."""
    cfg = load_model("llama-3.1-8b").to_dict()
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}
    awq = HFConfig(cfg, source="llama-3.1-8b (AWQ)")
    assert [r["quantization"] for r in both(awq, "cpu-amx", dtype="float16")] == ["cpu_awq", "awq_marlin"]
    assert [r["quantization"] for r in both(awq, "h100", dtype="float16")] == ["awq_marlin", "awq_marlin"]


@pytest.mark.parametrize(
    ("release", "on"), [("0.21.0", False), ("0.22.1", False), ("0.27.1", False), ("0.28.0", True)]
)
def test_async_scheduling_default_with_a_draft_model(release, on):
    """``VllmConfig.__post_init__``: unset ``--async-scheduling`` with draft-model speculation stays
    off in 0.21-0.27 (the default path lists EAGLE/MTP and n-gram GPU only; operators-9101 dev,
    0.21 oracle: Qwen3-VL with a Qwen3-0.6B draft) and is on from 0.28; asked for, it is accepted
    in every release."""
    spec = '{"method": "draft_model", "model": "tests/vllm/drafts/qwen3-0.6b", "num_speculative_tokens": 4}'
    assert res("qwen3-vl-8b", "h100", vllm_version=release, speculative_config=spec)["async_scheduling"] is on
    asked = res("qwen3-vl-8b", "h100", vllm_version=release, speculative_config=spec, async_scheduling=True)
    assert asked["async_scheduling"] is True


def test_the_forced_v2_refusal_names_the_variable_before_0_23():
    """``VllmConfig._validate_v2_model_runner``: 0.20-0.22 raise "VLLM_USE_V2_MODEL_RUNNER does not
    yet support: ..."; 0.23 on "Model Runner V2 does not yet support: ..." (both wheels'
    ``config/vllm.py``)."""
    env = {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    with pytest.raises(ConflictError, match=r"^VLLM_USE_V2_MODEL_RUNNER does not yet support: hybrid/mamba"):
        res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.22.1")
    with pytest.raises(
        ConflictError, match=r"^Model Runner V2 does not yet support: hybrid/mamba models with"
    ):
        res("qwen3-next-80b-a3b", "h200", env, vllm_version="0.23.0", enable_prefix_caching=True)
