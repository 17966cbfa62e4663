"""`--sglang-version`, `diff --vs-sglang-version` and `upgrade` through main().

A test of what happens when no release is named states the default as ``registry.default_release``;
the others name their releases.
"""

from __future__ import annotations

import json

from golden import GOLDEN, GOLDEN_FLAGS
from resolvable.cli import main
from resolvable.sglang import SGLANG_RELEASES, registry

# golden cases of sglang 0.5.15 (spec): pinned where the default is not the subject


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_header_names_the_release(capsys):
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100")  # the default release
    assert code == 0 and f"rules     sglang {registry.default_release} (" in out
    code, out, _ = run(capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--sglang-version", "0.5.14")
    assert code == 0 and "rules     sglang 0.5.14 (" in out


def test_explain_shows_the_release_range_of_a_rule(capsys):
    argv = ["explain", "step-3.5-flash", "--platform", "b200", "--field", "page_size", *GOLDEN_FLAGS]
    code, out, _ = run(capsys, *argv)
    assert code == 1  # the rules accept it; the weights do not fit one B200 (memory)
    assert "page_size = 128" in out and "fa4_page_size" in out and "(sglang since 0.5.15)" in out
    code, out, _ = run(
        capsys,
        "explain",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--sglang-version",
        "0.5.14",
        "--field",
        "cuda_graph_backend_prefill",
    )
    assert "cuda_graph_defaults" in out and "(sglang up to 0.5.14)" in out


def test_json_carries_the_release_and_fingerprints_differ(capsys):
    docs = []
    for version in ("0.5.14", "0.5.15"):
        code, out, _ = run(
            capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--json", "--sglang-version", version
        )
        assert code == 0
        docs.append(json.loads(out))
    assert [d["sglang_version"] for d in docs] == ["0.5.14", "0.5.15"]
    assert docs[0]["fingerprint"] != docs[1]["fingerprint"]
    code, out, _ = run(capsys, "resolve", "llama-3.1-8b", "--platform", "h100", "--json")
    assert json.loads(out)["sglang_version"] == registry.default_release  # none named


def test_unknown_release_is_one_error_line(capsys):
    code, out, err = run(
        capsys, "explain", "llama-3.1-8b", "--platform", "h100", "--sglang-version", "0.5.51"
    )
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert (
        "supported releases: 0.5.5.post3, 0.5.6, 0.5.6.post1, 0.5.10, 0.5.11" in err
        and "Traceback" not in err
    )


def test_diff_across_releases_names_the_rule_on_each_side(capsys):
    code, out, _ = run(
        capsys,
        "diff",
        "glm-4.5",
        "--platform",
        "b200",
        "--sglang-version",
        "0.5.14",
        "--vs-sglang-version",
        "0.5.15",
    )
    assert code == 0
    assert "b200 @ sglang 0.5.14  vs  b200 @ sglang 0.5.15" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("moe_runner_backend"))
    assert "auto" in line and "flashinfer_trtllm" in line and "glm4_moe_defaults" in line


def test_upgrade_one_change_in_one_line(capsys):
    code, out, _ = run(
        capsys, "upgrade", "deepseek-v3", "--platform", "b200", "--from", "0.5.14", "--to", "0.5.15"
    )
    assert code == 0
    assert "upgrade   sglang 0.5.14 → 0.5.15" in out
    assert (
        "your launch on 0.5.15: cuda_graph_backend_prefill 'tc_piecewise' → 'disabled' "
        "(rule deepseek_trtllm_mla_prefill_graph, sglang since 0.5.15); still accepted"
    ) in out


def test_upgrade_that_refuses_the_launch(capsys):
    code, out, _ = run(
        capsys,
        "upgrade",
        "llama-3.1-8b",
        "--platform",
        "h100",
        "--dllm-algorithm",
        "LowConfidence",
        "--disable-radix-cache",
        "--from",
        "0.5.14",
        "--to",
        GOLDEN,
    )
    assert code == 0
    assert "your launch on 0.5.15: REFUSED by dllm_page_size" in out and "Unknown diffusion LLM" in out


def test_upgrade_json(capsys):
    code, out, _ = run(
        capsys,
        "upgrade",
        "step-3.5-flash",
        "--platform",
        "b200",
        "--from",
        "0.5.14",
        "--to",
        GOLDEN,
        "--json",
    )
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "resolvable.upgrade/1"
    assert (doc["from"], doc["to"]) == ("0.5.14", "0.5.15")
    assert doc["outcome"] == {"from": "accepted", "to": "accepted"}
    page = next(c for c in doc["changes"] if c["field"] == "page_size")
    assert (page["before"], page["after"], page["since"]) == (1, 128, "since 0.5.15")


def test_upgrade_to_the_same_release_is_a_usage_error(capsys):
    same = registry.default_release  # --to defaults to it
    code, _, err = run(capsys, "upgrade", "llama-3.1-8b", "--platform", "h100", "--from", same)
    assert code == 2 and f"both sglang {same}" in err


def test_upgrade_default_from_is_the_installed_release(capsys, monkeypatch):
    from resolvable.sglang import api

    to = registry.default_release  # --to defaults to the default release
    before = registry.releases[registry.releases.index(to) - 1]
    monkeypatch.setattr(api, "installed_sglang_version", lambda: "0.5.14.post1")
    code, out, _ = run(capsys, "upgrade", "glm-4.5", "--platform", "b200")
    assert code == 0 and f"upgrade   sglang 0.5.14 → {to}" in out
    monkeypatch.setattr(api, "installed_sglang_version", lambda: None)
    code, out, _ = run(capsys, "upgrade", "glm-4.5", "--platform", "b200")
    assert code == 0 and f"upgrade   sglang {before} → {to}" in out  # the release before --to


def test_lint_covers_every_release(capsys):
    code, out, _ = run(capsys, "lint")
    assert code == 0, out
    # one per supported release (0.5.14, 0.5.15 and the releases modelled since)
    assert f"in {len(SGLANG_RELEASES)} sglang releases" in out and "no findings" in out


def test_upgrade_takes_a_pasted_launch_command(capsys):
    code, out, _ = run(
        capsys,
        "upgrade",
        "--platform",
        "b200",
        "--from",
        "0.5.14",
        "--to",
        "0.5.15",
        "--",
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "deepseek-ai/DeepSeek-V3",
        "--tp",
        "8",
    )
    assert code == 0
    assert "command   python -m sglang.launch_server" in out and "upgrade   sglang 0.5.14 → 0.5.15" in out
    assert "cuda_graph_backend_prefill 'tc_piecewise' → 'disabled'" in out and "still accepted" in out
