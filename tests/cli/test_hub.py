"""Issue 20 items 1 and 2: models from the hub (a local stand-in on 127.0.0.1, no network), local
model paths that are not on this machine (``--config``), and family-aware suggestions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hubserver import HubServer
from resolvable.cli import main
from resolvable.errors import ConfigError
from resolvable.hub import (
    HubAccessError,
    HubNotFoundError,
    HubOfflineError,
    HubUnreachableError,
    fetch_config,
)
from resolvable.sglang import load_model
from resolvable.sglang.models import SAMPLES as BUNDLED

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "resolvable" / "sglang" / "models"


def sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text())


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """A hub on 127.0.0.1 (HF_ENDPOINT) with an empty cache (HF_HUB_CACHE), online."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with HubServer() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


def test_a_hub_id_not_cached_is_fetched_config_and_side_files_never_weights(hub, capsys):
    quant = {"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None}}
    hub.add(
        "acme/Llama-3-8B-FP8",
        {
            "config.json": sample("llama-3.1-8b"),
            "hf_quant_config.json": quant,
            "model.safetensors.index.json": {"metadata": {"total_size": 16}, "weight_map": {}},
            "model-00001-of-00002.safetensors": b"\0" * 64,
        },
    )
    hf = load_model("acme/Llama-3-8B-FP8")
    assert hf.architecture == "LlamaForCausalLM"
    assert hf.sidecar("hf_quant_config.json") is not None  # side file read as sglang reads it
    asked = {path.rsplit("/", 1)[-1] for _, path in hub.requests}
    assert "config.json" in asked and "model.safetensors.index.json" in asked
    assert not any(name.endswith(".safetensors") for name in asked)  # never weights
    # now cached: a second read asks the hub nothing
    before = len(hub.requests)
    assert load_model("acme/Llama-3-8B-FP8").architecture == "LlamaForCausalLM"
    assert len(hub.requests) == before
    # the CLI, pasted: the model comes from the hub
    assert (
        main(
            ["explain", "--platform", "h100", "--", "sglang", "serve", "--model-path", "acme/Llama-3-8B-FP8"]
        )
        == 0
    )
    assert "acme/Llama-3-8B-FP8  [LlamaForCausalLM]" in capsys.readouterr().out


def test_revision_inside_a_pasted_command_is_honoured(hub, capsys):
    hub.add("acme/Model", {"config.json": sample("llama-3.1-8b")}, revisions={"v1": "a" * 40})
    paste = ["--", "python", "-m", "sglang.launch_server", "--model-path", "acme/Model", "--revision", "v1"]
    assert main(["explain", "--platform", "h100", *paste]) == 0
    assert any("/resolve/v1/config.json" in path for _, path in hub.requests)
    assert "--revision v1" in capsys.readouterr().out  # listed as a flag of the launch (not modelled)
    with pytest.raises(HubNotFoundError, match=r"no revision 'v9'.*--revision"):
        fetch_config("acme/Model", revision="v9")


def test_token_is_sent_for_a_private_repo(hub, monkeypatch):
    hub.add("acme/private", {"config.json": sample("qwen3-8b")}, token="secret")
    with pytest.raises(HubAccessError, match=r"401 .*private.*no HF_TOKEN is set.*set HF_TOKEN"):
        fetch_config("acme/private")
    monkeypatch.setenv("HF_TOKEN", "secret")
    assert load_model("acme/private").architecture == "Qwen3ForCausalLM"


@pytest.mark.parametrize(
    ("repo", "error", "words"),
    [
        ("acme/gated", HubAccessError, r"gated repo .*accept its terms .*HF_TOKEN"),
        ("acme/missing", HubAccessError, r"private repo, or none by that name.*check the name"),
        ("acme/no-config", HubNotFoundError, r"has no config.json.*--model-config PATH"),
    ],
)
def test_gated_private_missing_repos_get_one_line_errors_with_the_fix(hub, capsys, repo, error, words):
    hub.add("acme/gated", {"config.json": {}}, gated=True)
    hub.add("acme/no-config", {"README.md": "hello"})
    with pytest.raises(error, match=words):
        fetch_config(repo)
    assert main(["explain", repo, "--platform", "h100"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_unreachable_hub_is_one_line_and_falls_back_to_a_bundled_copy(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(HubUnreachableError, match=r"cannot reach the hub at http://127.0.0.1:9"):
        fetch_config("acme/anything")
    assert main(["explain", "zai-org/GLM-4.6-FP8", "--platform", "h100"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the hub" in err and "--model-config glm-4.5" in err and err.count("\n") == 1
    # a repo that a bundled sample copies is still answered, from that sample
    assert load_model("deepseek-ai/DeepSeek-V3").architecture == "DeepseekV3ForCausalLM"


def test_offline_reads_only_the_cache(hub, monkeypatch):
    hub.add("acme/Cached", {"config.json": sample("qwen3-8b")})
    fetch_config("acme/Cached")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub.requests.clear()
    assert load_model("acme/Cached").architecture == "Qwen3ForCausalLM"
    with pytest.raises(HubOfflineError, match=r"HF_HUB_OFFLINE is set: unset HF_HUB_OFFLINE"):
        fetch_config("acme/Other")
    assert hub.requests == []


def test_a_download_that_fails_midway_leaves_no_cache_entry(hub, tmp_path):
    hub.add(
        "acme/Flaky", {"config.json": sample("qwen3-8b"), "params.json": {"dim": 4096, "pad": "x" * 4000}}
    )
    hub.truncate.add("params.json")
    with pytest.raises(HubUnreachableError):
        fetch_config("acme/Flaky")
    cache = Path(os.environ["HF_HUB_CACHE"])
    snapshots = list(cache.glob("models--acme--Flaky/snapshots/*/*"))
    assert snapshots == []  # config.json fetched before the failure was taken back
    hub.truncate.clear()
    assert load_model("acme/Flaky").architecture == "Qwen3ForCausalLM"


def test_an_absent_local_model_path_names_config_and_config_stands_for_it(capsys):
    with pytest.raises(
        ConfigError, match=r"'/models/glm-4.7' is not on this machine.*--model-config PATH\|SAMPLE.*glm-4.5"
    ):
        load_model("/models/glm-4.7")
    argv = ["explain", "--platform", "h100", "--field", "attention_backend"]
    paste = ["--", "python", "-m", "sglang.launch_server", "--model-path", "/models/glm-4.7", "--tp", "8"]
    assert main(argv + paste) == 2
    assert "--model-config" in capsys.readouterr().err
    assert main([*argv, "--config", "glm-4.5", *paste]) == 1  # read; GLM-4.5 bf16 at TP 8 on H100: memory
    out = capsys.readouterr().out
    assert "/models/glm-4.7  [Glm4MoeForCausalLM]" in out
    assert "read from glm-4.5 (--model-config), standing for /models/glm-4.7" in out


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Qwen/Qwen3-VL-235B-A22B-Instruct", "qwen3-vl-30b-a3b"),
        ("Qwen/Qwen3-VL-4B-Instruct", "qwen3-vl-8b"),
        ("zai-org/GLM-4.6-FP8", "glm-4.5"),
        ("zai-org/GLM-4.7", "glm-4.5"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek-v3"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.2"),
        ("moonshotai/Kimi-K2-Thinking", "kimi-k2-instruct"),
        ("moonshotai/Kimi-K2.5", "kimi-k2.5"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b-fp8"),
    ],
)
def test_suggestions_use_the_family_in_the_name_before_spelling(name, expected):
    assert BUNDLED.suggest(name) == expected
