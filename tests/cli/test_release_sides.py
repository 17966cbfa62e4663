"""Issue 20 item 3 (and the env part of item 4): each side of upgrade / diff / matrix across
releases is parsed with its own release's flag table; a flag one side lacks is that side's finding."""

from __future__ import annotations

import json

from resolvable.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_upgrade_parses_each_side_with_its_release(capsys):
    code, out, err = run(
        capsys,
        "upgrade",
        "qwen3-8b",
        "--platform",
        "h100",
        "--from",
        "0.5.14",
        "--to",
        "0.5.15",
        "--cuda-graph-max-bs",
        "32",
    )
    assert code == 0 and "ambiguous" not in err and "upgrade   sglang 0.5.14 → 0.5.15" in out
    code, out, err = run(
        capsys,
        "upgrade",
        "qwen3-8b",
        "--platform",
        "h100",
        "--from",
        "0.5.19",
        "--to",
        "0.5.23",
        "--cuda-graph-max-bs",
        "32",
    )
    assert code == 0, err
    assert "REFUSED by sglang 0.5.23 argument parser" in out
    assert (
        "--cuda-graph-max-bs is not a flag of sglang 0.5.23; it was removed in 0.5.20, use --cuda-graph-max-bs-decode"
        in out
    )
    code, out, err = run(
        capsys,
        "upgrade",
        "qwen3-8b",
        "--platform",
        "h100",
        "--from",
        "0.5.19",
        "--to",
        "0.5.23",
        "--cuda-graph-max-bs",
        "32",
        "--json",
    )
    data = json.loads(out)
    assert data["outcome"] == {"from": "accepted", "to": "refused"}
    assert "use --cuda-graph-max-bs-decode" in data["refusal"]["to"]["message"]


def test_upgrade_a_flag_added_later_is_a_finding_of_the_old_side(capsys):
    paste = ["--", "python", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", "--uno-lora-path", "x"]
    code, out, err = run(
        capsys, "upgrade", "--platform", "h100", "--from", "0.5.15", "--to", "0.5.23", *paste
    )
    assert code == 0, err
    assert "your launch on 0.5.23: accepted (it was refused before: " in out
    assert "--uno-lora-path is not a flag of sglang 0.5.15; it was added in 0.5.20)" in out


def test_diff_across_releases_reports_the_removed_flag_not_nothing_differs(capsys):
    code, out, err = run(
        capsys,
        "diff",
        "qwen3-8b",
        "--platform",
        "h100",
        "--sglang-version",
        "0.5.19",
        "--vs-sglang-version",
        "0.5.20",
        "--cuda-graph-max-bs",
        "32",
    )
    assert code == 0, err
    assert "no resolved field differs" not in out
    assert (
        "refused on 0.5.20: --cuda-graph-max-bs is not a flag of sglang 0.5.20; it was removed in 0.5.20, use --cuda-graph-max-bs-decode"
        in out
    )


def test_matrix_across_releases_refuses_the_side_that_lacks_the_flag(capsys):
    code, out, err = run(
        capsys,
        "matrix",
        "--models",
        "qwen3-8b",
        "--platforms",
        "h100",
        "--sglang-version",
        "0.5.19",
        "--vs-sglang-version",
        "0.5.20",
        "--set",
        "cuda-graph-max-bs=32",
        "--format",
        "json",
    )
    assert code == 0, err
    text = json.dumps(json.loads(out))
    assert "it was removed in 0.5.20, use --cuda-graph-max-bs-decode" in text


def test_single_release_ambiguous_prefix_names_the_removal(capsys):
    code, _out, err = run(capsys, "explain", "qwen3-8b", "--platform", "h100", "--cuda-graph-max-bs", "32")
    assert code == 2
    assert err == (
        "error: --cuda-graph-max-bs is not a flag of sglang 0.5.23; it was removed in 0.5.20, "
        "use --cuda-graph-max-bs-decode\n"
    )


def test_upgrade_help_states_the_defaults_it_uses():
    from resolvable.cli.upgrade import build_parser as upgrade_parser

    helps = {a.dest: a.help for a in upgrade_parser()._actions}
    assert (
        "installed sglang" in helps["from_version"]
        and "before --to" in helps["to_version"] + helps["from_version"]
    )
    from resolvable.sglang import registry

    assert str(registry.default_release) in helps["to_version"]
    from resolvable.cli.upgrade import default_versions

    frm, to = default_versions(None, None)
    assert to == registry.default_release and frm != to


def test_unread_environment_variables_are_listed_as_not_modelled(capsys):
    code, out, err = run(
        capsys,
        "explain",
        "--platform",
        "h100",
        "--field",
        "attention_backend",
        "--",
        "SGLANG_ENABLE_SPEC_V2=1",
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "qwen3-8b",
    )
    assert code == 0, err
    assert "not modelled  env SGLANG_ENABLE_SPEC_V2=1: no rule of this pack reads it" in out
    code, out, err = run(
        capsys,
        "resolve",
        "--platform",
        "h100",
        "--json",
        "--",
        "SGLANG_ENABLE_SPEC_V2=1",
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "qwen3-8b",
    )
    assert json.loads(out)["not_modelled"]["env"] == {"SGLANG_ENABLE_SPEC_V2": "1"}


def test_a_flag_removed_before_the_oldest_table_names_its_replacement(capsys):
    from resolvable.sglang.flags import REMOVED_BEFORE_TABLES, load_table, releases

    for option, use in REMOVED_BEFORE_TABLES.items():
        assert all(option not in load_table(r).by_option for r in releases())
        assert use.split()[0] in load_table(releases()[-1]).by_option
    code, _out, err = run(capsys, "explain", "deepseek-v3", "--platform", "h200", "--enable-deepep-moe")
    assert code == 1
    assert "it was removed before 0.5.11, use --moe-a2a-backend deepep" in err
