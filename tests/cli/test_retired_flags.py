"""Issue 26 item 2: an engine flag the release does not accept is the engine's refusal (exit 1),
naming the release that removed or added it and what replaces it, the same in explain, resolve
and fit, for both engines. The releases come from the flag tables (vLLM 0.11.0+, sglang 0.5.1+,
read from the wheels) or the packs' lists of flags retired before the first table."""

from __future__ import annotations

import pytest

from resolvable.cli import main

VLLM = ["--", "vllm", "serve", "Qwen/Qwen3-8B"]
SGLANG = ["--", "python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]

CASES = [
    # vLLM's KV-scale calculation flag, gone in 0.28.0 (scales come from the checkpoint)
    (VLLM, ["--calculate-kv-scales"], "it was removed in vLLM 0.28.0 (last in 0.27.1)", "drop the flag"),
    # V0 multi-step scheduling, gone in 0.10.1 (before the tables: RETIRED_BEFORE_TABLES)
    (VLLM, ["--num-scheduler-steps", "8"], "it was removed in vLLM 0.10.1 (last in 0.10.0)", "drop the flag"),
    # renamed in 0.12.0, the old spelling removed in 0.13.0
    (VLLM, ["--cuda-graph-sizes", "8"], "it was removed in vLLM 0.13.0", "use --cudagraph-capture-sizes"),
    # sglang's MoE flags retired in 0.5.4.post1 (0.5.4's wheel has them, 0.5.4.post1's not)
    (SGLANG, ["--enable-ep-moe"], "it was removed in 0.5.4.post1", "use --ep-size N"),
    (
        SGLANG,
        ["--enable-flashinfer-mxfp4-moe"],
        "it was removed in 0.5.4.post1",
        "use --moe-runner-backend flashinfer_mxfp4",
    ),
    # renamed in 0.5.14
    (SGLANG, ["--hybrid-kvcache-ratio", "0.5"], "it was removed in 0.5.14", "use --swa-full-tokens-ratio"),
]


@pytest.mark.parametrize("command", ["explain", "resolve", "fit"])
@pytest.mark.parametrize(("launch", "flags", "release", "fix"), CASES)
def test_a_retired_flag_is_the_engines_refusal_naming_release_and_replacement(
    command, launch, flags, release, fix, capsys
):
    code = main([command, "--platform", "h100", *launch, *flags])
    out, err = capsys.readouterr()
    text = out + err
    assert code == 1, text
    assert f"{flags[0]} is not a flag of" in text
    assert release in text and fix in text
    assert "did you mean" not in text  # never a spelling guess for a known flag


def test_a_flag_added_later_names_the_release_that_added_it(capsys):
    code = main(
        ["explain", "--platform", "h100", "--vllm-version", "0.32.0", *VLLM, "--disable-chunked-prefill"]
    )
    out, err = capsys.readouterr()
    assert code == 1
    assert "--disable-chunked-prefill is not a flag of vLLM 0.32.0; it was added in vLLM 0.33.0" in out + err
