"""Golden facts of the order of ``create_engine_config``'s late checks (``resolvable.vllm.config.
late_args``): vLLM builds ``SpeculativeConfig`` (0.30.0 ``engine/arg_utils.py`` 2406) and
``SchedulerConfig`` (2429) before ``LoRAConfig`` (2459) and before it merges the capture-size
spellings (2602-2609), so a launch refused by both is refused for the speculative reason.
Reproduced with the 0.30 oracle on dev cases operators-7025-00120 and operators-7012-00142
(the held-out seed 1796443318's miss class "Unsupported speculative method: 'mtp'", 0.28-0.33)."""

from __future__ import annotations

import pytest
from test_config_operators import RERANKER  # BAAI/bge-reranker-v2-m3's config.json (source there)

from resolvable.errors import ConflictError
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.cli_args import parse, resolution_kwargs
from resolvable.vllm.platforms import platform

MTP = '{"method":"mtp","num_speculative_tokens":1}'


def _refusal(model: str, argv: list[str], release: str) -> str:
    kwargs = resolution_kwargs(parse(["MODEL", *argv], release))
    with pytest.raises(ConflictError) as info:
        resolve_vllm_args(load_model(model), platform("h100"), vllm_version=release, **kwargs)
    return info.value.message


@pytest.mark.parametrize("release", ["0.30.0", "0.31.0", "0.32.0", "0.33.0"])
def test_speculative_refusal_before_the_capture_size_spellings(release):
    # operators-7025-00120 (0.30 oracle): NotImplementedError "Unsupported speculative method: 'mtp'"
    argv = ["--speculative-config", MTP, "--max-cudagraph-capture-size", "512",
            "-cc", '{"max_cudagraph_capture_size":128}']  # fmt: skip
    assert _refusal("qwen3-8b", argv, release) == "Unsupported speculative method: 'mtp'"


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_speculative_refusal_before_the_lora_limits(release):
    # operators-7012-00142 (0.30 oracle): the draft of an embedding model, not max_cpu_loras
    argv = ["--speculative-config", MTP, "--enable-lora", "--max-loras", "4", "--max-cpu-loras", "1"]
    kwargs = resolution_kwargs(parse(["MODEL", *argv], release))
    with pytest.raises(ConflictError, match="Embedding models do not support `--runner draft`"):
        resolve_vllm_args(RERANKER, platform("h200"), vllm_version=release, **kwargs)


@pytest.mark.parametrize("release", ["0.30.0", "0.34.0"])
def test_late_checks_alone_still_refuse(release):
    lora = ["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "1"]
    assert _refusal("llama-3.1-8b", lora, release) == "max_cpu_loras (1) must be >= max_loras (4)."
    both = ["--max-cudagraph-capture-size", "512", "-cc", '{"max_cudagraph_capture_size":128}']
    assert _refusal("llama-3.1-8b", both, release) == (
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive"
    )
