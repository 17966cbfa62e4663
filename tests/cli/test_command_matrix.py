"""Issue 26's matrix: every launch command × every pack × every input form (tool flags, a pasted
command, `docker run`) gives the same verdict, exit code and values as `explain`."""

from __future__ import annotations

import json

import pytest

from resolvable import packs
from resolvable.cli import main

COMMANDS = ("explain", "resolve", "fit")
# (pack, model, TP): one launch that starts, one whose weights do not fit one H100
CASES = {
    "sglang": {"release": "0.5.23", "tp": "--tp-size", "image": "lmsysorg/sglang:v0.5.23"},
    "vllm": {"release": "0.34.0", "tp": "--tensor-parallel-size", "image": "vllm/vllm-openai:v0.34.0"},
}


def forms(engine: str, model: str, tp: int) -> dict[str, list[str]]:
    case = CASES[engine]
    pack = packs.get(engine)
    flags = [case["tp"], str(tp)]
    if engine == "sglang":
        command = ["python3", "-m", "sglang.launch_server", "--model-path", model, *flags]
        docker = ["docker", "run", "--gpus", "all", case["image"], *command]
    else:
        command = ["vllm", "serve", model, *flags]
        docker = ["docker", "run", "--gpus", "all", case["image"], model, *flags]
    return {
        "tool flags": [model, "--engine", engine, pack.release_option, case["release"], *flags],
        "pasted": ["--", *command],
        "docker run": ["--", *docker],
    }


def verdict_of(capsys, command: str, argv: list[str]) -> tuple[int, dict]:
    code = main([command, "--platform", "h100", "--json", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize(
    ("model", "tp", "status"), [("llama-3.1-8b", 2, "starts"), ("llama-3.3-70b", 1, "does-not-fit")]
)
def test_every_command_and_input_form_gives_explains_verdict(capsys, engine, model, tp, status):
    expected = None
    for form, argv in forms(engine, model, tp).items():
        for command in COMMANDS:
            code, data = verdict_of(capsys, command, argv)
            verdict = data["verdict"]
            seen = (code, verdict["status"], verdict["allocation"], verdict["message"])
            assert verdict["status"] == status, (command, form, verdict)
            assert code == (0 if status == "starts" else 1), (command, form)
            if expected is None:
                expected = seen
            assert seen == expected, (command, form, seen, expected)


# `from` is not the release before `to` (the default), so the tag must be what names it
UPGRADES = {"sglang": ("0.5.21", "0.5.23"), "vllm": ("0.32.0", "0.34.0")}


@pytest.mark.parametrize("engine", list(CASES))
def test_upgrade_gives_one_answer_for_every_input_form(capsys, engine):
    """`upgrade` of one launch: tool flags and a pasted command with --from, and `docker run` of
    the image whose tag names that release (the tag is the release the launch runs now)."""
    old, new = UPGRADES[engine]
    case = CASES[engine]
    tag = f"{case['image'].rsplit(':', 1)[0]}:v{old}"
    argvs = {
        form: ["--from", old, *argv]
        for form, argv in forms(engine, "llama-3.1-8b", 2).items()
        if form != "docker run"
    }
    docker = forms(engine, "llama-3.1-8b", 2)["docker run"]
    argvs["docker run"] = [tag if w == case["image"] else w for w in docker]
    answers = {}
    for form, argv in argvs.items():
        argv = [w for w in argv if w not in (packs.get(engine).release_option, case["release"])]
        code, data = verdict_of(capsys, "upgrade", argv)
        assert code == 0, (form, data)
        assert (data["from"], data["to"]) == (old, new), form
        answers[form] = (data["outcome"], data["refusal"], data["changes"])
    assert len({json.dumps(a, sort_keys=True) for a in answers.values()}) == 1, answers


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize(("model", "tp"), [("llama-3.1-8b", 2), ("llama-3.3-70b", 1)])
def test_diff_carries_each_sides_verdict_as_explain_gives_it(capsys, engine, model, tp):
    """`diff --json` has a top-level `verdict` per side: on every input form, the left side's is
    `explain`'s on --platform and the right side's is `explain`'s on --vs-platform."""
    argvs = forms(engine, model, tp)
    expected = {}
    for platform in ("h100", "b200"):
        code = main(["explain", "--platform", platform, "--json", *argvs["tool flags"]])
        expected[platform] = (code, json.loads(capsys.readouterr().out)["verdict"])
    assert expected["h100"][1]["status"] == ("starts" if tp == 2 else "does-not-fit")
    for form, argv in argvs.items():
        code, data = verdict_of(capsys, "diff", [*argv, "--vs-platform", "b200"])
        assert code == 0, (form, data)
        assert data["verdict"]["left"] == expected["h100"][1], form
        assert data["verdict"]["right"] == expected["b200"][1], form
        assert data["verdict"]["left"]["exit_code"] == expected["h100"][0], form


@pytest.mark.parametrize("engine", list(CASES))
def test_upgrade_carries_each_sides_verdict_as_explain_gives_it(capsys, engine):
    """`upgrade --json` has a top-level `verdict` per side: `explain`'s verdict for the same
    launch on --from and on --to, for every input form (a docker tag names --from)."""
    old, new = UPGRADES[engine]
    case = CASES[engine]
    pack = packs.get(engine)
    argvs = forms(engine, "llama-3.3-70b", 1)
    tool = [w for w in argvs["tool flags"] if w not in (pack.release_option, case["release"])]
    expected = {}
    for release in (old, new):
        code = main(["explain", "--platform", "h100", "--json", *tool, pack.release_option, release])
        expected[release] = json.loads(capsys.readouterr().out)["verdict"]
        assert code == 1 and expected[release]["status"] == "does-not-fit"
    docker = [
        f"{case['image'].rsplit(':', 1)[0]}:v{old}" if w == case["image"] else w for w in argvs["docker run"]
    ]
    for form, argv in (
        ("tool flags", ["--from", old, *tool]),
        ("pasted", ["--from", old, *argvs["pasted"]]),
        ("docker run", docker),
    ):
        code, data = verdict_of(capsys, "upgrade", argv)
        assert code == 0 and data["engine"] == engine, (form, data)
        assert (data["from"], data["to"]) == (old, new), form
        assert data["verdict"] == {"from": expected[old], "to": expected[new]}, form


#: The fields a matrix cell shows, per pack (its attention backend and page/block size).
MATRIX_FIELDS = {
    "sglang": ("attention_backend", "page_size", "tp_size"),
    "vllm": ("attn_backend_full", "block_size", "tensor_parallel_size"),
}


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize("platform", ["h100", "b200"])
def test_matrix_cells_give_resolves_values_for_every_input_form(capsys, engine, platform):
    """Issue 26's matrix, the `matrix` command: the cell of a launch (`--set` the same flag) holds
    the values `resolve` gives for that launch in every input form (tool flags, pasted command,
    `docker run`), for every pack."""
    pack = packs.get(engine)
    fields = MATRIX_FIELDS[engine]
    argv = ["matrix", "--engine", engine, pack.release_option, CASES[engine]["release"]]
    argv += ["--models", "llama-3.1-8b", "--platforms", platform, "--fields", ",".join(fields)]
    code = main([*argv, "--set", f"{pack.tp_field}=2", "--format", "json"])
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert code == 0 and len(cells) == 1
    expected = cells[0]["values"]
    assert expected[pack.tp_field] == 2
    for form, launch in forms(engine, "llama-3.1-8b", 2).items():
        code = main(["resolve", "--platform", platform, "--json", *launch])
        values = json.loads(capsys.readouterr().out)["values"]
        assert code == 0, form
        assert {f: values[f] for f in fields} == expected, (form, values, expected)


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize(
    ("node", "status", "allocation"),
    [(["--gpus", "2"], "refused", None), (["--used-gib", "70"], "does-not-fit", "weights")],
)
def test_gpus_and_used_gib_mean_the_same_for_every_command_and_engine(
    capsys, engine, node, status, allocation
):
    """Issue 26 (item 5): `--gpus` and `--used-gib` are the tool's options for every engine and
    launch command (SGLang's explain/resolve refused `--gpus` as an unknown engine flag): 4 ranks
    on 2 GPUs is the node check's refusal, 70 GiB held by others leaves no room for the weights."""
    for form, argv in forms(engine, "qwen3-8b", 4 if "--gpus" in node else 1).items():
        seen = set()
        for command in COMMANDS:
            code, data = verdict_of(capsys, command, [*node, *argv])
            verdict = data["verdict"]
            assert code == 1 and verdict["status"] == status, (command, form, verdict)
            assert verdict["allocation"] == allocation, (command, form, verdict)
            # the stage too: an argument-resolution refusal is `resolve` for every command (explain
            # and resolve said the rule's phase, `engine_args`, where fit said `resolve`)
            seen.add((verdict["stage"], verdict["rule"], verdict["message"]))
        assert len(seen) == 1, (form, seen)


def test_every_registered_pack_has_a_case():
    """The matrix covers every registered pack: a new pack needs its launch forms here."""
    assert set(CASES) == set(packs.names())


#: Every command of issue 26's matrix, by the way it takes a launch: the launch commands (a
#: model and flags, a pasted command or `docker run`), and the table commands (no launch).
LAUNCH_COMMANDS = ("explain", "resolve", "fit", "upgrade", "diff")
TABLE_COMMANDS = {
    "matrix": ["--models", "llama-3.1-8b", "--platforms", "h100", "--format", "json"],
    "backends": ["--format", "json"],
    "models": ["--json"],
}


def _extra(command: str) -> list[str]:
    return {"diff": ["--vs-platform", "b200"]}.get(command, [])


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize("command", ["explain", "resolve", "fit", "diff", "matrix", "backends"])
def test_another_packs_release_option_is_one_input_error_everywhere(capsys, engine, command):
    """Every command that models one release takes every pack's release option and refuses the
    one of a pack other than the launch's with the same one-line input error (exit 2), whatever
    the input form (`upgrade` names its releases with --from/--to; `models` has no release)."""
    other = next(packs.get(n) for n in packs.names() if n != engine)
    pack = packs.get(engine)
    argvs = (
        {"tool flags": ["--engine", engine, *TABLE_COMMANDS[command]]}
        if command in TABLE_COMMANDS
        else forms(engine, "llama-3.1-8b", 2)
    )
    for form, argv in argvs.items():
        argv = [w for w in argv if w not in (pack.release_option, CASES[engine]["release"])]
        code = main([command, "--platform", "h100", *argv, *_extra(command), other.release_option, "1.0"]
                    if command not in TABLE_COMMANDS
                    else [command, *argv, other.release_option, "1.0"])  # fmt: skip
        captured = capsys.readouterr()
        assert code == 2, (command, form, captured.err)
        assert captured.err.startswith(f"error: {other.release_option} is for --engine {other.name}"), (
            command,
            form,
            captured.err,
        )
        assert captured.err.count("\n") == 1


@pytest.mark.parametrize("engine", list(CASES))
@pytest.mark.parametrize("command", list(TABLE_COMMANDS))
def test_table_commands_take_every_pack_with_one_parser(capsys, engine, command):
    """matrix, backends and models: one parser for every pack (cli/tables.py); each answers with
    a versioned schema, exit 0, and the release option of the pack names the release."""
    pack = packs.get(engine)
    argv = [command, "--engine", engine, *TABLE_COMMANDS[command]]
    if command != "models":
        argv += [pack.release_option, CASES[engine]["release"]]
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and str(data.get("schema", "")).startswith("resolvable."), data
    if command == "matrix":
        assert len(data["cells"]) == 1 and data["cells"][0]["model"] == "llama-3.1-8b"


@pytest.mark.parametrize("engine", list(CASES))
def test_output_file_is_written_for_every_pack(capsys, tmp_path, engine):
    """`-o FILE` means the same for every pack's tables (written atomically, `wrote` on stderr)."""
    out = tmp_path / "matrix.json"
    argv = ["matrix", "--engine", engine, *TABLE_COMMANDS["matrix"], "-o", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("wrote ")
    assert json.loads(out.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("engine", list(CASES))
def test_no_startup_check_and_set_mean_the_same_for_every_pack(capsys, engine):
    """`--no-startup-check` is a tool option of every pack's explain and resolve (the start-up
    checks are not run, and the header says so), and `--set FLAG=VALUE` is the engine flag
    itself, in every input form."""
    for form, argv in forms(engine, "llama-3.1-8b", 2).items():
        for command in ("explain", "resolve"):
            code = main([command, "--platform", "h100", "--no-startup-check", *argv])
            out = capsys.readouterr().out
            assert code == 0 and ": not run (--no-startup-check)" in out, (command, form, out[-400:])
    pack = packs.get(engine)
    tp = [CASES[engine]["tp"], "2"]
    tool = [w for w in forms(engine, "llama-3.1-8b", 2)["tool flags"] if w not in tp]
    code, data = verdict_of(capsys, "resolve", [*tool, "--set", f"{pack.tp_field}=2"])
    assert code == 0 and data["values"][pack.tp_field] == 2


@pytest.mark.parametrize("engine", list(CASES))
def test_lint_is_one_command_for_every_pack(capsys, engine):
    """`lint --engine NAME`: the pack's registry over its own cases; one schema, exit 0 or 1."""
    code = main(["lint", "--engine", engine, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and data["schema"] == "resolvable.lint/1"
    assert (code == 1) == bool(data["findings"])
