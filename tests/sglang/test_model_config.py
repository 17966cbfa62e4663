"""What sglang 0.5.15 refuses or rewrites while it loads and builds the model config.

Found by the agreement harness against the real wheel (tools/agreement/reports/FINDINGS.md):
``configs/model_config.py:_derive_context_length``, ``configs/granitemoehybrid.py``
(``GraniteMoeHybridConfig.__init__``) and ``configs/olmo3.py`` (``Olmo3Config``).
"""

from __future__ import annotations

import pytest

from golden import resolve_golden
from resolvable import Platform
from resolvable.errors import ConflictError
from resolvable.sglang import load_model
from resolvable.sglang.passes.model_config import derived_context_length

# golden cases of sglang 0.5.15 (spec): pinned

H100 = Platform.preset("h100")
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 8192}


def test_context_length_above_the_derived_one_is_refused():
    """_derive_context_length: a user length above the derived one raises ValueError."""
    with pytest.raises(ConflictError) as info:
        resolve_golden(load_model("hrm-text"), H100, context_length=131072)
    exc = info.value
    assert exc.rule == "context_length_limit"
    assert exc.message.startswith(
        "Warning: User-specified context_length (131072) is greater than the derived"
    )
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in exc.message and "--context-length" in exc.fix


def test_context_length_override_env_and_equal_length_are_accepted():
    env = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
    assert resolve_golden(LLAMA, H100, env, context_length=65536)["context_length"] == 65536
    assert resolve_golden(LLAMA, H100, context_length=8192)["context_length"] == 8192


@pytest.mark.parametrize(
    ("extra", "derived"),
    [
        ({}, 8192),
        ({"rope_scaling": {"type": "yarn", "factor": 4.0}}, 32768),
        ({"rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 8192}}, 8192),
        ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, 8192),
        ({"max_sequence_length": 1024}, 1024),  # the first CONTEXT_LENGTH_KEYS entry wins
    ],
)
def test_derived_context_length_follows_get_context_length(extra, derived):
    from resolvable import HFConfig

    assert derived_context_length(HFConfig({**LLAMA, **extra})) == derived


def test_granite_mamba_dimensions_must_match():
    """GraniteMoeHybridConfig: mamba_d_head * mamba_n_heads must equal mamba_expand * hidden_size;
    granite-4.0-micro's config (64 * 128 != 2 * 2560) does not load in sglang 0.5.15."""
    with pytest.raises(ConflictError) as info:
        resolve_golden(load_model("granite-4.0-micro"), H100)
    assert info.value.rule == "granite_mamba_dims"
    assert info.value.message == (
        "Class validation error for validator 'validate_architecture': The dimensions for the Mamba head "
        "state do not match the model intermediate_size (mamba_d_head (64) * mamba_n_heads (128) != "
        "mamba_intermediate_size (5120))"
    )
    resolve_golden(load_model("granite-4.0-h-small"), H100)  # a consistent hybrid loads


def test_olmo3_is_served_as_olmo2():
    """Olmo3Config renames Olmo3ForCausalLM to Olmo2ForCausalLM, so Olmo2's rule picks fa3 on Hopper."""
    hf = load_model("olmo-3-7b")
    assert hf.architecture == "Olmo2ForCausalLM" and "Olmo3ForCausalLM" in hf.raw["architectures"]
    res = resolve_golden(hf, H100)
    assert res["attention_backend"] == "fa3" and res.decided_by("attention_backend")[0] == "olmo2_defaults"


# -- --mamba-backend (ServerArgs._handle_mamba_backend; found by the agreement runs) ----------------
@pytest.mark.parametrize("version", ["0.5.14", "0.5.15", "0.5.23"])
def test_mamba_backend_flashinfer_needs_flashinfer(version):
    from release_helpers import refusal_at, resolve_at

    # radix cache off: 0.5.14 refuses mamba's extra_buffer on ROCm first
    message = refusal_at(
        "qwen3-next-80b-a3b", "mi300x", version, mamba_backend="flashinfer", disable_radix_cache=True
    )
    assert "FlashInfer mamba module not available" in message
    assert ("check flashinfer installation" in message) == (version == "0.5.14")
    assert (
        resolve_at("qwen3-next-80b-a3b", "h100", version, mamba_backend="flashinfer")["mamba_backend"]
        == "flashinfer"
    )
    assert (
        resolve_at("qwen3-next-80b-a3b", "mi300x", version, disable_radix_cache=True)["mamba_backend"]
        == "triton"
    )


def test_mamba_backend_flashinfer_disabled_by_env():
    from resolvable import Platform
    from resolvable.errors import ConflictError
    from resolvable.sglang import resolve_server_args
    from resolvable.sglang.models import load_model

    with pytest.raises(ConflictError, match="FlashInfer mamba module not available"):
        resolve_server_args(
            load_model("qwen3-next-80b-a3b"),
            Platform.preset("h100"),
            {"SGLANG_IS_FLASHINFER_AVAILABLE": "false"},
            mamba_backend="flashinfer",
            sglang_version="0.5.15",
        )
