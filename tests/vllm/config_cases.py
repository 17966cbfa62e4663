"""Shared helpers of the vLLM engine-configuration tests (vllm-config-spec.md)."""

from __future__ import annotations

from typing import Any

import pytest

from resolvable.errors import ConflictError
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.config.parallel import with_gpus
from resolvable.vllm.platforms import platform

#: The release the spec's examples describe (vllm-config-spec.md: "0.33.0 unless noted").
SPEC_RELEASE = "0.33.0"


def res(
    model: str,
    plat: str = "h100",
    version: str | None = SPEC_RELEASE,
    env: Any = None,
    gpus: int | None = None,
    **flags: Any,
):
    return resolve_vllm_args(
        load_model(model), with_gpus(platform(plat), gpus), env, vllm_version=version, **flags
    )


def refusal(
    model: str,
    plat: str = "h100",
    version: str | None = SPEC_RELEASE,
    env: Any = None,
    gpus: int | None = None,
    **flags: Any,
) -> ConflictError:
    with pytest.raises(ConflictError) as info:
        res(model, plat, version, env, gpus, **flags)
    return info.value


def llama(**overrides: Any) -> dict[str, Any]:
    """A small Llama-style config.json (overrides merged in; a None value removes the key)."""
    cfg: dict[str, Any] = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "vocab_size": 128256,
        "max_position_embeddings": 4096,
        "torch_dtype": "bfloat16",
    }
    cfg.update(overrides)
    return {k: v for k, v in cfg.items() if v is not None}


def cfg_res(
    config: dict[str, Any],
    plat: str = "h100",
    version: str | None = SPEC_RELEASE,
    env: Any = None,
    **flags: Any,
):
    return resolve_vllm_args(config, platform(plat), env, vllm_version=version, **flags)


def cfg_refusal(
    config: dict[str, Any],
    plat: str = "h100",
    version: str | None = SPEC_RELEASE,
    env: Any = None,
    **flags: Any,
):
    with pytest.raises(ConflictError) as info:
        cfg_res(config, plat, version, env, **flags)
    return info.value
