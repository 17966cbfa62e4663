"""``upgrade --from`` a parse-only release (issue 32): the journey split at the oldest resolved
release, on every entry of both real corpora, and golden answers read from the wheels' tables.

Corpora: tests/cli/data/sglang_launch_corpus.json (each entry with its source; hub ids served by
a local stand-in of the hub, as tests/cli/test_launch_corpus.py does) upgraded 0.5.5 → 0.5.23, and
tests/vllm/vllm_serve_corpus.py (each entry with its source) upgraded 0.20.0 → 0.34.0. The
boundary is read from the pack, never named here: when a branch resolves more releases, the
split moves with it and these tests still hold. ``--from`` is the oldest parse-only release at or
below the one the issue names, so each corpus entry crosses the boundary.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
from pathlib import Path

import pytest

from resolvable import packs
from resolvable.cli import main
from resolvable.flag_history import version_key
from resolvable.upgrade_across import boundary_of

ROOT = Path(__file__).resolve().parents[2]
SGLANG = json.loads((ROOT / "tests/cli/data/sglang_launch_corpus.json").read_text())
_spec = importlib.util.spec_from_file_location("vllm_serve_corpus", ROOT / "tests/vllm/vllm_serve_corpus.py")
_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_corpus)
VLLM = _corpus.CORPUS


def _from(engine: str, wanted: str) -> str:
    """The release the issue names when the pack still parses it only, else the newest
    parse-only release (the boundary moved past it)."""
    parse_only = packs.get(engine).parse_only_releases()
    return wanted if wanted in parse_only else parse_only[-1]


SGLANG_FROM = _from("sglang", "0.5.5")
VLLM_FROM = _from("vllm", "0.20.0")

#: sglang corpus entries that 0.5.5 cannot take, and what the answer names: the command's own
#: typo, a flag removed before 0.5.5, or a model directory that is not on this machine (the table
#: half is answered; the resolved half needs --model-config).
SGLANG_ERRORS = {
    "recall-24-config": "unrecognized arguments: --disable-custom-all-reduce,",
    "issue-6017-decode": "--enable-deepep-moe is not a flag of sglang 0.5.",
    "kimi-eagle3-local": "is not on this machine",
    "recall-43-local": "is not on this machine",
    "issue-3765-local": "is not on this machine",
}


def _tool_options(options: list[str]) -> list[str]:
    """The corpus entry's resolvable options, for upgrade: no release option (--from/--to name
    them) and --config spelled --model-config."""
    out, i = [], 0
    while i < len(options):
        if options[i] in ("--sglang-version", "--from", "--to"):
            i += 2
            continue
        out.append("--model-config" if options[i] == "--config" else options[i])
        i += 1
    return out


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _typed(words: list[str]) -> set[str]:
    return {w.split("=", 1)[0] for w in words if w.startswith("--")}


def _check_answer(data: dict, words: list[str], engine: str, old: str, new: str) -> None:
    """What every answer across the boundary holds (issue 32 item 3)."""
    pack = packs.get(engine)
    boundary = boundary_of(pack, new)
    assert data["schema"] == "resolvable.upgrade-across/1" and data["from_resolved"] is False
    assert (data["from"], data["to"], data["boundary"]) == (old, new, boundary)
    assert boundary in data["split"] and "parse-only" in data["split"]
    # every removed flag the command types is named, with its replacement (or that none is named)
    typed = _typed(words)
    named = {c["option"]: c for c in data["launch_flags_removed"]}
    for change in data["flags_removed"]:
        if change["option"] in typed:
            assert change["option"] in named, change
    for change in named.values():
        assert change["source"] and "replacement" in change
        assert version_key(old) < version_key(change["removed_in"]) <= version_key(new)
    # the ones the boundary no longer has are replaced (or dropped) in the launch judged on it
    tables = data["tables"]
    assert (tables["from"], tables["to"]) == (old, boundary)
    for change in tables["launch_flags_removed"]:
        assert version_key(change["removed_in"]) <= version_key(boundary)
        assert any(note.startswith(change["option"]) for note in data["rewritten"]["notes"]), change
    # every default change is attributed to the tables that made it, chained from old to boundary
    for d in tables["defaults_changed"]:
        assert d["option"] not in typed
        steps = d["steps"]
        assert steps and all(s["named"] and "flag table" in s["named_by"] for s in steps), d
        assert steps[0]["before"] == d["before"] and steps[-1]["after"] == d["after"], d
        assert all(version_key(old) < version_key(s["release"]) <= version_key(boundary) for s in steps)
    assert "not resolved below" in data["not_attributed"]["note"]
    # the resolved half: every changed value carries a named change (or a table's entry)
    resolved = data["resolved"]
    if resolved is not None:
        assert (resolved["from"], resolved["to"]) == (boundary, new)
        for change in resolved["changes"]:
            assert change["named"] and change["named_by"] != "(nothing named)", change


@pytest.mark.parametrize("case", SGLANG["commands"], ids=[c["id"] for c in SGLANG["commands"]])
def test_every_sglang_corpus_command_crosses_the_boundary(sglang_corpus_online, capsys, case):
    words = shlex.split(case["command"])
    argv = ["upgrade", "--from", SGLANG_FROM, "--to", "0.5.23", "--json", *_tool_options(case["resolvable"])]
    code, out, err = _run(capsys, [*argv, "--", *words])
    assert "internal error" not in err and "Traceback" not in err, err
    if case["id"] in SGLANG_ERRORS:
        assert code == 2 and SGLANG_ERRORS[case["id"]] in err, err
        assert len([line for line in err.splitlines() if line.startswith("error: ")]) == 1
        if out:  # the table half was answered before the resolved half's input error
            data = json.loads(out)
            assert data["resolved"] is None and data["resolved_error"]
            _check_answer(data, words, "sglang", SGLANG_FROM, "0.5.23")
        return
    assert code == 0, err
    data = json.loads(out)
    _check_answer(data, words, "sglang", SGLANG_FROM, "0.5.23")
    assert data["resolved"] is not None and data["resolved_error"] is None


@pytest.mark.parametrize("case", VLLM, ids=[f"{i:02d}" for i in range(len(VLLM))])
def test_every_vllm_corpus_command_crosses_the_boundary(capsys, case):
    argv = ["upgrade", "--from", VLLM_FROM, "--to", "0.34.0", "--platform", case.platform, "--json"]
    code, out, err = _run(capsys, [*argv, "--", case.command])
    assert "internal error" not in err and "Traceback" not in err, err
    assert code == 0, err
    data = json.loads(out)
    from resolvable.cli.paste import read

    _check_answer(data, read([case.command]).words, "vllm", VLLM_FROM, "0.34.0")
    assert data["resolved"] is not None
    if case.outcome == "accepted":
        assert data["resolved"]["outcome"]["to"] == "accepted", data["resolved"]["refusal"]


# -- golden answers, read from the wheels ------------------------------------------------------

# https://qwen.readthedocs.io/zh-cn/stable/_sources/deployment/sglang.md.txt (corpus "qwen-docs-tp4")
QWEN_TP4 = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tensor-parallel-size 4"


def test_golden_sglang_default_named_by_its_table(capsys):
    """sglang/srt/server_args.py ServerArgs.hicache_write_policy: "write_through_selective" in the
    0.5.1.post3 wheel, "write_through" in the 0.5.2 wheel (and every later one); the launch does
    not set it. 0.5.2 lies below the boundary (the oldest resolved release), so the change is on
    the table half; resolving 0.5.2 or older would move it onto the resolved half (pick another
    default then)."""
    boundary = packs.get("sglang").releases[0]
    assert version_key(boundary) > version_key("0.5.2"), boundary
    argv = ["upgrade", "--from", "0.5.1", "--to", "0.5.23", "--platform", "h100", "--json"]
    code, out, err = _run(capsys, [*argv, "--", *shlex.split(QWEN_TP4)])
    assert code == 0, err
    data = json.loads(out)
    defaults = {d["option"]: d for d in data["tables"]["defaults_changed"]}
    policy = defaults["--hicache-write-policy"]
    assert (policy["before"], policy["after"]) == ("write_through_selective", "write_through")
    assert [s["release"] for s in policy["steps"]] == ["0.5.2"]
    assert policy["steps"][0]["named_by"] == (
        "default of --hicache-write-policy: write_through_selective in 0.5.1.post3 → write_through in 0.5.2 "
        "(SGLang 0.5.2's flag table)"
    )
    # a flag the launch sets is not listed (--tensor-parallel-size is --tp-size)
    assert all(d["dest"] != "tp_size" for d in data["tables"]["defaults_changed"])
    code, out, _ = _run(capsys, [*argv[:-1], "--", *shlex.split(QWEN_TP4)])
    b = data["boundary"]
    assert b == boundary
    assert f"split at {b}" in out and "SGLang 0.5.2's flag table" in out
    assert f"── 0.5.1 → {b}: flag tables" in out and f"── {b} → 0.5.23: resolved ──" in out
    assert "not attributed:" in out and f"on {b} the rules derive, for this launch:" in out


def test_golden_vllm_default_and_named_change(capsys, tmp_path):
    """vllm/config/model.py ModelConfig.disable_cascade_attn: False in the 0.17.0 wheel, True in
    0.18.0; the V2 model runner for Llama from 0.23.0 (V2_DEFAULT_LLAMA_MISTRAL) found by the walk;
    --swap-space (removed in 0.18.0, no successor) dropped before the launch is judged on the boundary.
    The launch: https://github.com/vllm-project/vllm/issues/2136, with its model config as
    tests/memory/corpus/vllm-2136-codellama-13b-2x4090.json records it."""
    entry = json.loads((ROOT / "tests/memory/corpus/vllm-2136-codellama-13b-2x4090.json").read_text())
    config = tmp_path / "config.json"
    config.write_text(json.dumps(entry["model"]["config"]))
    argv = ["upgrade", "--engine", "vllm", "--from", "0.12.0", "--platform", "h100", "--json"]
    code, out, err = _run(capsys, [*argv, "--model-config", str(config), "--", entry["command"]])
    assert code == 0, err
    data = json.loads(out)
    assert data["boundary"] == boundary_of(packs.get("vllm"), "0.34.0")
    defaults = {d["option"]: d for d in data["tables"]["defaults_changed"]}
    cascade = defaults["--disable-cascade-attn"]
    assert (cascade["before"], cascade["after"], cascade["steps"][0]["release"]) == (False, True, "0.18.0")
    assert data["rewritten"]["notes"][0].startswith("--swap-space 8: dropped (vLLM 0.18.0 removed it")
    assert "--swap-space" not in " ".join(data["rewritten"]["command"])
    changes = {c["field"]: c for c in data["resolved"]["changes"]}
    assert changes["block_size"]["named_by"] == "0.34.0 (DEFAULT_BLOCK_SIZE_64)"
    v2 = changes["use_v2_model_runner"]
    assert (v2["before"], v2["after"], v2["since"]) == (False, True, None)
    assert v2["attributions"][-1]["change"] == "V2_DEFAULT_LLAMA_MISTRAL"
    assert v2["named_by"] == "0.23.0 (V2_DEFAULT_LLAMA_MISTRAL)"


def test_golden_sglang_rewrite_names_the_successor(capsys):
    """https://github.com/sgl-project/sglang/issues/6017 (corpus "issue-6017-decode") on 0.5.4:
    --enable-deepep-moe left in 0.5.4.post1 for --moe-a2a-backend deepep; the launch judged on the
    boundary carries the successor, and --cuda-graph-bs (removed in 0.5.20) is named on the way."""
    command = next(c for c in SGLANG["commands"] if c["id"] == "issue-6017-decode")["command"]
    argv = ["upgrade", "--from", "0.5.4", "--to", "0.5.23", "--platform", "h200", "--json"]
    code, out, err = _run(capsys, [*argv, "--", *shlex.split(command)])
    assert code == 0, err
    data = json.loads(out)
    _check_answer(data, shlex.split(command), "sglang", "0.5.4", "0.5.23")
    rewritten = data["rewritten"]["command"]
    assert "--enable-deepep-moe" not in rewritten
    at = rewritten.index("--moe-a2a-backend")
    assert rewritten[at + 1] == "deepep"
    removed = {c["option"]: c for c in data["launch_flags_removed"]}
    assert removed["--cuda-graph-bs"]["replacement"] == "--cuda-graph-bs-decode"
    assert removed["--enable-deepep-moe"]["removed_in"] == "0.5.4.post1"
    # on the resolved half the newest release refuses the flag 0.5.20 removed, naming it
    assert "--cuda-graph-bs is not a flag of sglang 0.5.23" in data["resolved"]["refusal"]["to"]["message"]


def test_parse_only_to_parse_only_compares_tables_only(capsys):
    """Both releases parse-only: no resolved half, and the answer says why."""
    old, new = packs.get("sglang").parse_only_releases()[:2]
    argv = ["upgrade", "--from", old, "--to", new, "--json", "--", *shlex.split(QWEN_TP4)]
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    data = json.loads(out)
    assert data["boundary"] == new and data["resolved"] is None and data["rewritten"] is None
    assert "both parse-only" in data["split"]


def test_a_to_older_than_from_is_an_input_error(capsys):
    parse_only = packs.get("sglang").parse_only_releases()
    argv = ["upgrade", "--from", parse_only[1], "--to", parse_only[0], "--", *shlex.split(QWEN_TP4)]
    code, _, err = _run(capsys, argv)
    assert code == 2 and "is not newer than --from" in err and "Traceback" not in err


def test_the_boundary_is_read_from_the_pack():
    class Pack:
        releases = ("0.9.0", "0.7.1", "0.8.0")

    assert boundary_of(Pack(), "0.9.0") == "0.7.1"
    assert boundary_of(Pack(), "0.6.0") == "0.6.0"  # a parse-only --to: no resolved half
    for name in packs.names():
        pack = packs.get(name)
        if pack.parse_only_releases():
            assert boundary_of(pack, pack.default_release) == pack.releases[0]


def test_a_release_range_names_the_changes_behind_it(capsys):
    """SGLang's own answer is the deciding rule's release range ("since 0.5.15"); the named
    change the rule read, which arrived in that range, is named beside it."""
    argv = ["upgrade", "step-3.5-flash", "--platform", "b200", "--from", "0.5.14", "--to", "0.5.15", "--json"]
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    changes = {c["field"]: c for c in json.loads(out)["changes"]}
    prefill = changes["cuda_graph_backend_prefill"]
    assert prefill["since"] == "since 0.5.15" and prefill["changes"] == ["BREAKABLE_PREFILL_GRAPH"]
    assert prefill["named"] and prefill["named_by"] == "since 0.5.15 (BREAKABLE_PREFILL_GRAPH)"
