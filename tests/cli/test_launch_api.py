"""The public Launch / Verdict API (resolvable.launch, resolvable.verdict, Pack.build_launch,
Pack.verdict): one launch record per input form, one verdict, for every registered pack."""

from __future__ import annotations

import dataclasses

import pytest

from resolvable import packs
from resolvable.launch import Launch, Node
from resolvable.verdict import Verdict


def test_launch_is_frozen_and_says_where_the_release_came_from() -> None:
    launch = packs.get("sglang").build_launch(model="llama-3.1-8b", argv=["--tp-size", "2"], platform="h100")
    assert launch.release == packs.get("sglang").default_release
    assert launch.release_from == "default"
    assert launch.config_source == "sample"
    assert dict(launch.user) == {"tp_size": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        launch.release = "0.5.15"  # type: ignore[misc]
    with pytest.raises(TypeError):
        launch.user["tp_size"] = 4  # type: ignore[index]
    named = packs.get("sglang").build_launch(model="llama-3.1-8b", release="0.5.19", platform="h100")
    assert (named.release, named.release_from) == ("0.5.19", "flag")
    assert "named by the release option" in named.release_text()


def test_launch_rejects_a_bad_source_and_node() -> None:
    with pytest.raises(ValueError, match="release_from"):
        Launch(engine="x", release="1", release_from="guess", model="m", config_source="hub")
    with pytest.raises(ValueError, match="--gpus"):
        Node("h100", 0)


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_the_same_launch_from_tool_flags_and_from_a_pasted_command(engine: str) -> None:
    pack = packs.get(engine)
    tp = "--tp-size" if engine == "sglang" else "--tensor-parallel-size"
    command = (
        ["python", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", tp, "2"]
        if engine == "sglang"
        else ["vllm", "serve", "qwen3-8b", tp, "2"]
    )
    flags = pack.build_launch(model="qwen3-8b", argv=[tp, "2"], platform="h100")
    pasted = pack.build_launch(command=command, platform="h100")
    assert dict(flags.user) == dict(pasted.user)
    assert pasted.launcher is not None
    (res_a, a), (res_b, b) = pack.verdict(flags), pack.verdict(pasted)
    assert a.status == b.status == "starts"
    assert res_a.fingerprint() == res_b.fingerprint()
    assert a.exit_code == 0


def test_sglang_flags_are_read_with_the_release_named() -> None:
    """Repro: --cuda-graph-max-bs with 0.5.19 is read with 0.5.19's table (no module global)."""
    sglang = packs.get("sglang")
    launch = sglang.build_launch(
        model="llama-3.1-8b", argv=["--cuda-graph-max-bs", "32"], release="0.5.19", platform="h100"
    )
    assert launch.rejected is None
    assert sglang.verdict(launch)[1].status == "starts"


def test_an_unknown_engine_flag_is_the_engines_refusal() -> None:
    vllm = packs.get("vllm")
    launch = vllm.build_launch(model="qwen3-8b", argv=["--no-such-flag"], platform="h100")
    res, verdict = vllm.verdict(launch)
    assert res is None
    assert verdict.status == "refused" and verdict.stage == "parse"
    assert verdict.exit_code == 1
    assert "--no-such-flag" in (verdict.message or "")


def test_weights_that_do_not_fit_are_does_not_fit() -> None:
    """Repro: vLLM DeepSeek-V3.2 on one B200 — the memory line said the weights do not fit."""
    vllm = packs.get("vllm")
    launch = vllm.build_launch(command=["vllm", "serve", "deepseek-v3.2"], platform="b200")
    _, verdict = vllm.verdict(launch)
    assert verdict.status == "does-not-fit"
    assert verdict.allocation == "weights"
    assert verdict.shortfall_bytes and verdict.shortfall_bytes > 100 * (1 << 30)
    assert verdict.to_dict()["status"] == "does-not-fit"
    assert verdict.exit_code == 1


def test_sglang_node_check_refuses_more_ranks_than_gpus() -> None:
    """Repro: --tp 64 for Qwen3-8B on an 8-GPU node (the vLLM pack refused it, sglang did not)."""
    sglang = packs.get("sglang")
    launch = sglang.build_launch(
        command=["python", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", "--tp", "64"],
        platform="h100",
    )
    _, verdict = sglang.verdict(launch)
    assert verdict.status == "refused" and verdict.stage == "node"
    assert "64 ranks" in (verdict.message or "")
    assert "--tp-size 8" in (verdict.fix or "")
    two_nodes = launch.replace(node=Node("h100", None, 8))
    assert sglang.verdict(two_nodes)[1].rule == "node: heads per TP rank"  # 32 heads, TP 64


def test_sglang_node_check_refuses_heads_that_tp_cannot_split() -> None:
    sglang = packs.get("sglang")
    launch = sglang.build_launch(model="qwen3-8b", argv=["--tp-size", "3"], platform="h100")
    _, verdict = sglang.verdict(launch)
    assert verdict.status == "refused"
    assert "attention heads" in (verdict.message or "")


def test_verdict_status_is_checked() -> None:
    with pytest.raises(ValueError, match="status"):
        Verdict("maybe")
    assert Verdict("starts").line().startswith("verdict   would start")


def test_verdict_line_counts_checks_in_words() -> None:
    assert Verdict("starts", checks_passed=1).line() == "verdict   would start (1 check passed)"
    assert Verdict("starts", checks_passed=21).line() == "verdict   would start (21 checks passed)"
    assert Verdict("starts").line() == "verdict   would start"
