"""The case builder of tools/agreement/real_launches.py (issue 32 item 3): a published command of
tests/cli/data/sglang_launch_corpus.json in, the oracle/pack case out. No oracle runs here; this
keeps the harness from rotting as the corpus or the pack moves."""

from __future__ import annotations

import json

from harness_tools import ROOT, load_tool

real_launches = load_tool("sglang_real_launches", "tools/agreement/real_launches.py")

from resolvable.sglang import SGLANG_RELEASES  # noqa: E402

DATA = json.loads((ROOT / "tests" / "cli" / "data" / "sglang_launch_corpus.json").read_text())
ENTRIES = {c["id"]: c for c in DATA["commands"]}


def test_a_hub_id_with_env_words_becomes_a_case():
    case, why = real_launches.build_case(ENTRIES["npu-qwen3-32b"], DATA["repos"], "0.5.23")
    assert why is None
    assert case["preset"] == "npu"
    assert case["sample"] == "qwen3-8b"  # Qwen/Qwen3-32B is served by the qwen3-8b sample
    assert case["model_name"] == "Qwen3-32B"
    assert case["env"] == {
        "SGLANG_SET_CPU_AFFINITY": "1",
        "PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True",
        "STREAMS_PER_DEVICE": "32",
        "HCCL_BUFFSIZE": "1536",
        "HCCL_OP_EXPANSION_MODE": "AIV",
    }
    # the launcher words and the model argument are gone; the rest is as published
    assert case["flags"] == [
        "--device", "npu", "--attention-backend", "ascend", "--trust-remote-code",
        "--tp-size", "4", "--mem-fraction-static", "0.8",
    ]  # fmt: skip
    assert case["sglang_version"] == "0.5.23"


def test_a_local_path_uses_the_config_stand_in_or_is_counted_as_not_measured():
    case, why = real_launches.build_case(ENTRIES["issue-3765-config"], DATA["repos"], "0.5.23")
    assert why is None
    assert (case["preset"], case["sample"], case["model_name"]) == (
        "l40s",
        "qwen2.5-7b-instruct-1m",
        "DeepSeek-R1-Distill-Qwen-32B",
    )
    assert case["flags"][:4] == ["--context-length", "32768", "--tensor-parallel-size", "2"]
    assert "--model-path" not in case["flags"] and case["env"] == {}

    case, why = real_launches.build_case(ENTRIES["issue-3765-local"], DATA["repos"], "0.5.23")
    assert case is None and "/root/sdb2/DeepSeek-R1-Distill-Qwen-32B" in why


def test_the_model_flag_spellings_and_the_own_release():
    assert real_launches.take_model(["--model", "a/b", "--tp", "2"]) == ("a/b", ["--tp", "2"])
    assert real_launches.take_model(["--model-path=a/b", "--tp", "2"]) == ("a/b", ["--tp", "2"])
    pinned = ENTRIES["issue-6017-decode"]
    assert real_launches.own_release(pinned) == "0.5.15"
    releases = [r for r, _ in real_launches.releases_of(pinned, SGLANG_RELEASES)]
    assert releases == ["0.5.23", "0.5.15"]
    unknown = real_launches.releases_of({"resolvable": ["--sglang-version", "0.4.0"]}, SGLANG_RELEASES)
    assert unknown[1] == ("0.4.0", "release 0.4.0 is not one the pack resolves")
