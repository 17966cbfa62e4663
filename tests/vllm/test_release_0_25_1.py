"""vLLM 0.25.1 (issue 32 item 1): resolved with the rules of 0.26-0.34 minus the selection changes
0.26.0 brought, one test per change, on 0.25.1 against 0.26.0. Facts from the two wheels' diff
(docs/releases/vllm-0.26.0.md); measured against the 0.25.1 oracle (docs/vllm.md)."""

from __future__ import annotations

from types import SimpleNamespace

from vllm_cases import res

from resolvable.vllm import registry
from resolvable.vllm.backends import cuda as CUDA
from resolvable.vllm.changes import CHANGES

SELECTION_0_26 = {
    "MLA_PREFILL_FA_DIMS",
    "SM100_NON_CAUSAL_FA_FIRST",
    "SLIDING_WINDOW_CHECK",
    "ROCM_ATTN_ENCODER_DECODER_MODEL",
}


def test_0_25_1_is_resolved():
    i = registry.releases.index("0.25.1")
    assert registry.releases[i : i + 2] == ("0.25.1", "0.26.0")
    assert {c.name for c in CHANGES.introduced("0.26.0")} >= SELECTION_0_26


def test_fa_mla_prefill_takes_any_dims_before_0_26():
    """prefill/flash_attn.py: 0.25 declares no supported dimensions, so GLM-5 keeps FLASH_ATTN
    prefill on B200 under FA4; 0.26 refuses GLM's dims under FA4 (TRTLLM_RAGGED)."""
    assert (
        res("glm-5", "b200", vllm_version="0.25.1", tensor_parallel_size=8)["mla_prefill_backend"]
        == "FLASH_ATTN"
    )
    assert (
        res("glm-5", "b200", vllm_version="0.26.0", tensor_parallel_size=8)["mla_prefill_backend"]
        == "TRTLLM_RAGGED"
    )


def test_sm100_non_causal_order():
    """platforms/cuda.py _get_backend_priorities: non-causal layers on SM10x take the SM90 order
    (FLASH_ATTN first) from 0.26; 0.25 keeps FLASHINFER first."""
    got = {
        v: res("llama-3.1-8b", "b200", vllm_version=v, use_non_causal=True)["attn_backend_full"]
        for v in ("0.25.1", "0.26.0")
    }
    assert got == {"0.25.1": "FLASHINFER", "0.26.0": "FLASH_ATTN"}


def test_sliding_window_check_arrives_in_0_26():
    """AttentionBackend.validate_configuration: "sliding window not supported" exists from 0.26."""
    (check,) = [
        c for c in CUDA.BACKENDS["TURBOQUANT"].candidate.checks if c.reason == "sliding window not supported"
    ]
    layer = dict(has_sliding_window=True)
    assert check.test(SimpleNamespace(**layer, changed=lambda c: c is not CHANGES.SLIDING_WINDOW_CHECK))
    assert not check.test(SimpleNamespace(**layer, changed=lambda c: c is CHANGES.SLIDING_WINDOW_CHECK))


def test_rocm_encoder_decoder_model_drops_rocm_attn_from_0_26():
    """platforms/rocm.py : RocmPlatform.get_valid_backends (0.26.0): when the model's
    ``attn_type`` is "encoder_decoder", ROCM_ATTN leaves the list for every layer, so Whisper's
    decoder and encoder self-attention run on TRITON_ATTN too; 0.25.1 removes it from the cross
    layers only (``supports_attn_type``). Golden from the 0.25.1/0.26.0 wheels' rocm.py."""
    kinds = ("attn_backend_full", "attn_backend_encoder", "attn_backend_cross")
    got = {
        v: tuple(res("whisper-large-v3", "mi300x", vllm_version=v, kernels="aiter=0")[k] for k in kinds)
        for v in ("0.25.1", "0.26.0", "0.34.0")
    }
    assert got == {
        "0.25.1": ("ROCM_ATTN", "ROCM_ATTN", "TRITON_ATTN"),
        "0.26.0": ("TRITON_ATTN", "TRITON_ATTN", "TRITON_ATTN"),
        "0.34.0": ("TRITON_ATTN", "TRITON_ATTN", "TRITON_ATTN"),
    }
    r = res("whisper-large-v3", "mi300x", vllm_version="0.26.0", kernels="aiter=0")
    decl = next(d for d in r.declarations if "attn_backend_full" in d.fields)
    assert r.releases_of(decl.rule, decl.location).since == "0.26.0"  # the traced view saw the change
    # a decoder-only model keeps ROCM_ATTN first
    assert (
        res("llama-3.1-8b", "mi300x", vllm_version="0.26.0", kernels="aiter=0")["attn_backend_full"]
        == "ROCM_ATTN"
    )
