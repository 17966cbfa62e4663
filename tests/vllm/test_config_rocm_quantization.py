"""Issue 28, fourth round: ROCm's ``supported_quantization`` (``platforms/rocm.py``,
``Platform.verify_quantization`` at the end of ``ModelConfig._verify_quantization``, 0.28-0.34).
Found on dev seeds 7004 (case 518) and 7005 (``operators``): an experts-int8 checkpoint on MI300X,
which vLLM refuses "experts_int8 quantization is currently not supported in rocm." and the pack
accepted."""

from __future__ import annotations

import pytest
from config_cases import cfg_refusal, cfg_res, llama

from resolvable.vllm.config.quantization import ROCM_QUANTIZATION
from resolvable.vllm.config.report import CONFIG_STAGES

RELEASES = ("0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")


@pytest.mark.parametrize("release", RELEASES)
def test_experts_int8_is_refused_on_rocm_only(release):
    cfg = llama(quantization_config={"quant_method": "experts_int8"})
    exc = cfg_refusal(cfg, "mi300x", release)
    assert str(exc).startswith("experts_int8 quantization is currently not supported in rocm.")
    assert exc.stage in CONFIG_STAGES
    assert cfg_res(cfg, "h100", release)["quantization"] == "experts_int8"
    # the user's --quantization on an unquantized checkpoint is checked the same way
    exc = cfg_refusal(llama(), "mi355x", release, quantization="experts_int8")
    assert "not supported in rocm" in str(exc)


@pytest.mark.parametrize("release", RELEASES)
def test_rocm_keeps_its_listed_methods(release):
    """fp8 is in the list: an fp8 checkpoint resolves on MI300X as on H100."""
    cfg = llama(quantization_config={"quant_method": "fp8", "activation_scheme": "dynamic"})
    assert cfg_res(cfg, "mi300x", release)["quantization"] == "fp8"
    assert "fp8" in ROCM_QUANTIZATION and "experts_int8" not in ROCM_QUANTIZATION
