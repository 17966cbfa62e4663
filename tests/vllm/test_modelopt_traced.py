"""Issue 27: ``--quantization modelopt`` on a ModelOpt checkpoint resolves the same with and
without tracing (``_resolve._Traced`` answers ``isinstance`` with the traced object's class;
vLLM ``model_loader/weight_utils.py : get_quant_config`` reads config.json's
``quantization_config`` first, so no ``hf_quant_config.json`` is needed)."""

from __future__ import annotations

import pytest

from resolvable import Platform
from resolvable._hfconfig import HFConfig
from resolvable._resolve import _Traced
from resolvable.errors import ConflictError
from resolvable.vllm import load_model, resolve_vllm_args


def _modelopt_fp8() -> HFConfig:
    cfg = load_model("llama-3.1-8b").to_dict()
    cfg["quantization_config"] = {
        "quant_method": "modelopt",
        "producer": {"name": "modelopt", "version": "0.29.0"},
        "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None},
    }
    return HFConfig(cfg, source="modelopt-fp8 test config")


@pytest.mark.parametrize("trace", [False, True])
def test_modelopt_checkpoint_with_quantization_modelopt_resolves_traced_or_not(trace):
    res = resolve_vllm_args(
        _modelopt_fp8(), Platform.preset("h100"), None, quantization="modelopt", trace=trace
    )
    assert res["quantization"] == "modelopt"


def test_unquantized_checkpoint_is_still_refused_under_tracing():
    with pytest.raises(ConflictError, match="Cannot find the config file for modelopt"):
        resolve_vllm_args(
            load_model("llama-3.1-8b"), Platform.preset("h100"), None, quantization="modelopt", trace=True
        )


def test_traced_config_answers_isinstance_as_the_config():
    hf = _modelopt_fp8()
    view = _Traced(hf, "hf", [])
    assert isinstance(view, HFConfig) and type(view) is _Traced
    assert isinstance(view.get("quantization_config"), HFConfig)
