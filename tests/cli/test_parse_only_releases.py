"""Parse-only releases through the CLI (issue 32 item 2): the release listing, a pasted command of
such a release read with its own flags (exit code 3, "parsed, not resolved"), image tags with
``-cuXXX``/``-rocm`` suffixes and ``.postN``, and ``upgrade --from`` an old release naming every
removed or renamed flag with its replacement.

The commands are real published launches (sources beside each)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from resolvable.cli import main
from resolvable.cli.older import EXIT_PARSED_ONLY
from resolvable.flag_history import release_of_tag
from resolvable.vllm import registry as vllm_registry

ROOT = Path(__file__).resolve().parents[2]
_CORPUS = json.loads((ROOT / "tests/cli/data/sglang_launch_corpus.json").read_text())["commands"]
# https://github.com/sgl-project/sglang/issues/6017 (the corpus entry "issue-6017-decode", shell
# variables filled in as it records): --enable-deepep-moe (retired in 0.5.4.post1), --cuda-graph-bs
SGLANG_OLD = next(c for c in _CORPUS if c["id"] == "issue-6017-decode")["command"]
# https://github.com/vllm-project/vllm/issues/2136 (tests/memory/corpus/vllm-2136-codellama-13b-2x4090.json):
# --swap-space, removed in vLLM 0.18.0
_VLLM_OLD_ENTRY = json.loads((ROOT / "tests/memory/corpus/vllm-2136-codellama-13b-2x4090.json").read_text())
VLLM_OLD = _VLLM_OLD_ENTRY["command"]


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_release_listing_names_every_release(capsys):
    code, out, _ = _run(capsys, "releases", "--json")
    assert code == 0
    engines = json.loads(out)["engines"]
    assert engines["vllm"]["parse_only"][0] == "0.11.0" and engines["vllm"]["parse_only"][-1] == "0.19.1"
    assert engines["sglang"]["parse_only"][0] == "0.5.1"
    assert "0.5.4.post3" in engines["sglang"]["parse_only"]
    assert "0.5.5.post3" in engines["sglang"]["resolved"]  # a post release resolved as its own
    assert engines["vllm"]["resolved"] == list(vllm_registry.releases)  # pinned in test_vllm_releases.py
    code, out, _ = _run(capsys, "releases", "--engine", "vllm")
    assert code == 0 and "parse-only (16)" in out and "0.19.1" in out


def test_the_release_listing_names_the_patch_releases_resolved_as_their_base(capsys):
    """sglang 0.5.10.post1 differs from 0.5.10 only in a FlashInfer pin (docs/releases/0.5.11.md):
    it is resolved as 0.5.10, and the listing says so instead of leaving it out."""
    code, out, _ = _run(capsys, "releases", "--json")
    assert code == 0
    sglang = json.loads(out)["engines"]["sglang"]
    assert sglang["resolved_as_base"]["0.5.10.post1"] == "0.5.10"
    assert "0.5.10.post1" not in sglang["resolved"] and "0.5.10.post1" not in sglang["parse_only"]
    code, out, _ = _run(capsys, "releases", "--engine", "sglang")
    assert code == 0 and "0.5.10.post1 (as 0.5.10)" in out


@pytest.mark.parametrize(
    ("tag", "release"),
    [
        ("v0.5.5.post3-cu126", "0.5.5.post3"),
        ("v0.11.0", "0.11.0"),
        ("v0.20.1-cu130", "0.20.1"),
        ("v0.5.6-rocm700-mi30x", "0.5.6"),
        ("0.10.1.1", "0.10.1.1"),
        ("latest", None),
        ("nightly-2026-12-01", None),
    ],
)
def test_image_tags_keep_their_post_release(tag, release):
    assert release_of_tag(tag) == release


def test_sglang_old_release_is_parsed_not_resolved(capsys):
    code, out, _ = _run(capsys, "explain", "--sglang-version", "0.5.4", "--", *shlex.split(SGLANG_OLD))
    assert code == EXIT_PARSED_ONLY == 3
    assert "SGLang 0.5.4: parsed, not resolved" in out
    assert "flag    --enable-deepep-moe" in out and "flag    --cuda-graph-bs [256]" in out


def test_sglang_old_release_from_the_image_tag(capsys):
    code, out, _ = _run(
        capsys,
        "resolve",
        "--json",
        "--",
        "docker",
        "run",
        "--gpus",
        "all",
        "lmsysorg/sglang:v0.5.3.post3-cu126",
        *shlex.split(SGLANG_OLD),
    )
    assert code == EXIT_PARSED_ONLY
    data = json.loads(out)
    assert data["schema"] == "resolvable.parse-only/1" and data["release"] == "0.5.3.post3"
    assert data["resolved"] is False and data["model"] == "deepseek-ai/DeepSeek-R1"


def test_a_flag_gone_by_a_post_release_names_it(capsys):
    """--enable-deepep-moe left in 0.5.4.post1: the image v0.5.4.post3 (parse-only) refuses the launch."""
    words = ["docker", "run", "lmsysorg/sglang:v0.5.4.post3-cu126", *shlex.split(SGLANG_OLD)]
    code, _, err = _run(capsys, "explain", "--", *words)
    assert code == 2
    assert "--enable-deepep-moe is not a flag of sglang 0.5.4.post3; it was removed in 0.5.4.post1" in err


def test_a_flag_the_old_release_lacks_is_a_usage_error(capsys):
    words = ["sglang", "serve", "--model-path", "m", "--mm-feature-transport", "cpu"]
    code, _, err = _run(capsys, "explain", "--sglang-version", "0.5.1", "--", *words)
    assert code == 2
    assert "sglang 0.5.1: unrecognized arguments: --mm-feature-transport cpu" in err
    assert "it was added in 0.5.16" in err


def test_vllm_old_release_from_the_image_tag(capsys):
    code, out, _ = _run(
        capsys, "explain", "--", "docker", "run", "vllm/vllm-openai:v0.12.0-cu130", "--model", "Qwen/Qwen3-8B",
        "--swap-space", "8", "--task", "generate",
    )  # fmt: skip
    assert code == EXIT_PARSED_ONLY
    assert "vLLM 0.12.0: parsed, not resolved" in out and "--swap-space 8" in out


def test_vllm_flag_removed_on_a_modelled_release_names_the_release(capsys):
    code, _, err = _run(capsys, "explain", "--", *shlex.split(VLLM_OLD))
    assert code == 1  # vLLM's parser refuses the flag: it would not start
    assert "--swap-space is not a flag of vLLM 0.34.0; it was removed in vLLM 0.18.0" in err


def test_vllm_old_release_reads_the_api_server_module(capsys):
    code, out, _ = _run(capsys, "resolve", "--vllm-version", "0.12.0", "--", *shlex.split(VLLM_OLD))
    assert code == EXIT_PARSED_ONLY
    assert "model   TheBloke/CodeLlama-13B-Instruct-fp16" in out and "flag    --swap-space 8.0" in out


def test_vllm_0_11_0_reads_a_registry_filled_choice_list_as_dynamic(capsys):
    """0.11.0's `--reasoning-parser` takes `choices=list(ReasoningParserManager.reasoning_parsers)`
    (vllm/engine/arg_utils.py), a dict the `@register_module("qwen3")` decorators of
    vllm/reasoning/ fill at import: empty as written. The table records it as dynamic, so a
    published `--reasoning-parser qwen3` is read, not refused by an empty choice list."""
    cmd = "vllm serve Qwen/Qwen3-8B --reasoning-parser qwen3"
    code, out, err = _run(capsys, "explain", "--vllm-version", "0.11.0", "--", *shlex.split(cmd))
    assert code == EXIT_PARSED_ONLY, err
    assert "flag    --reasoning-parser qwen3" in out


def test_upgrade_from_an_old_vllm_names_every_removed_flag(capsys, tmp_path):
    config = tmp_path / "config.json"  # the model config, as the corpus entry records it
    config.write_text(json.dumps(_VLLM_OLD_ENTRY["model"]["config"]))
    argv = ["upgrade", "--engine", "vllm", "--from", "0.12.0", "--json", "--model-config", str(config)]
    code, out, _ = _run(capsys, *argv, "--", *shlex.split(VLLM_OLD))
    assert code == 0
    data = json.loads(out)
    assert data["from_resolved"] is False and data["to"] == "0.34.0"
    yours = {c["option"]: (c["removed_in"], c["replacement"]) for c in data["launch_flags_removed"]}
    assert yours == {"--swap-space": ("0.18.0", None)}
    every = {c["option"]: c["replacement"] for c in data["flags_removed"]}
    assert every["--cuda-graph-sizes"] == "--cudagraph-capture-sizes"
    assert every["--disable-mm-preprocessor-cache"] == "--mm-processor-cache-gb 0"
    assert {"--task", "--max-num-partial-prefills"} <= set(every)


def test_upgrade_from_an_old_sglang_names_replacements(capsys):
    code, out, _ = _run(
        capsys, "upgrade", "--from", "0.5.4", "--to", "0.5.23", "--", *shlex.split(SGLANG_OLD)
    )
    assert code == 0
    assert "0.5.4 is parse-only" in out
    lines = [
        line for line in out.splitlines() if line.startswith(("--enable-deepep-moe", "--cuda-graph-bs "))
    ]
    assert any("--moe-a2a-backend deepep" in line and "0.5.4.post1" in line for line in lines)
    assert any("--cuda-graph-bs-decode" in line and "0.5.20" in line for line in lines)


def test_upgrade_follows_a_successor_that_went_too():
    """sglang 0.5.20 renamed --piecewise-cuda-graph-compiler to --cuda-graph-tc-compiler, which
    0.5.22 removed without a successor: on 0.5.23 there is nothing to set."""
    from resolvable.sglang.flags import removed_between

    change = {c.option: c for c in removed_between("0.5.13", "0.5.23")}["--piecewise-cuda-graph-compiler"]
    assert change.replacement is None and "--cuda-graph-tc-compiler was removed too" in change.source
    kept = {c.option: c for c in removed_between("0.5.13", "0.5.21")}["--piecewise-cuda-graph-compiler"]
    assert kept.replacement == "--cuda-graph-tc-compiler"


def test_a_command_that_needs_resolution_refuses_a_parse_only_release(capsys):
    code, _, err = _run(capsys, "matrix", "--engine", "vllm", "--vllm-version", "0.19.1")
    assert code == 2
    assert "vLLM 0.19.1 is parse-only" in err and "upgrade --from 0.19.1" in err


def test_sglang_reads_a_unique_prefix_as_its_flag(capsys):
    """sglang's prepare_server_args uses a plain ArgumentParser: 0.5.4.post3 has no --tp alias, and
    `--tp 8` (https://docs.sglang.io/docs/basic_usage/qwen3_vl, the corpus entry "qwen3-vl-fp8")
    is --tp-size 8."""
    command = next(c for c in _CORPUS if c["id"] == "qwen3-vl-fp8")["command"]
    code, out, _ = _run(
        capsys, "explain", "--sglang-version", "0.5.4.post3", "--json", "--", *shlex.split(command)
    )
    assert code == EXIT_PARSED_ONLY
    flags = {f["dest"]: f["value"] for f in json.loads(out)["flags"]}
    assert flags["tp_size"] == 8  # from_cli_args copies it onto the field


def test_diff_names_a_parse_only_release_for_both_engines(capsys):
    """`diff` (one command over the packs) says a parse-only release is parse-only, with what
    reads it, on either side and for either engine."""
    for argv, release in (
        (
            ["diff", "qwen3-8b", "--platform", "h100", "--vs-sglang-version", "0.5.4.post3"],
            "SGLang 0.5.4.post3",
        ),
        (
            ["diff", "qwen3-8b", "--engine", "vllm", "--vllm-version", "0.12.0", "--vs-platform", "b200"],
            "vLLM 0.12.0",
        ),
    ):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "", err
        assert f"{release} is parse-only" in err and "`diff` needs a resolved one" in err
