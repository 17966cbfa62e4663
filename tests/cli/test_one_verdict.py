"""Issue 26's repros: one launch, one verdict, whatever the command and the input form."""

from __future__ import annotations

import json

import pytest

from resolvable import packs
from resolvable.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_fit_takes_a_pasted_vllm_command(capsys):
    code, out, err = run(
        capsys, "fit", "--engine", "vllm", "--platform", "h100", "--",
        "vllm", "serve", "qwen3-8b", "--tensor-parallel-size", "4", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["verdict"]["status"] == "starts"
    assert data["memory"]["inputs"]["tensor_parallel_size"] == 4
    assert data["launch"]["launcher"] == "vllm serve"


def test_fit_accepts_a_dp_attention_launch_that_explain_accepts(capsys):
    argv = ["deepseek-v3", "--platform", "h200", "--tp-size", "8", "--dp-size", "8", "--enable-dp-attention"]
    code, out, err = run(capsys, "fit", *argv, "--json")
    assert code == 0, err
    assert json.loads(out)["smallest_tp"] == 8  # smaller TPs are refused by the DP divisor, skipped
    code, _, err = run(capsys, "explain", *argv)
    assert code == 0, err


def test_fit_reads_flags_with_the_release_named(capsys):
    code, out, err = run(
        capsys, "fit", "llama-3.1-8b", "--platform", "h100", "--sglang-version", "0.5.19",
        "--cuda-graph-max-bs", "32", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["release"] == "0.5.19" and data["release_from"] == "flag"
    code, out, _ = run(capsys, "fit", "llama-3.1-8b", "--platform", "h100")
    assert "engine    sglang 0.5.23 (the default release)" in out  # the number, and where it came from


def test_fit_takes_gpus_and_env(capsys):
    code, out, err = run(
        capsys, "fit", "qwen3-8b", "--engine", "vllm", "--platform", "h100", "--gpus", "2",
        "--tensor-parallel-size", "4", "--env", "VLLM_USE_V1=1", "--json",
    )  # fmt: skip
    assert code == 1
    data = json.loads(out)
    assert data["verdict"]["status"] == "refused"
    assert "World size (4) is larger than the number of available GPUs (2)" in data["verdict"]["message"]
    assert data["launch"]["env"]["VLLM_USE_V1"] == "1"
    assert err.startswith("error: refused at start-up")


def test_fit_weights_that_do_not_fit_name_the_allocation(capsys):
    code, out, _ = run(
        capsys, "fit", "--platform", "h100", "--json", "--",
        "python", "-m", "sglang.launch_server", "--model-path", "llama-3.3-70b",
    )  # fmt: skip
    assert code == 1
    verdict = json.loads(out)["verdict"]
    assert verdict["status"] == "does-not-fit" and verdict["allocation"] == "weights"
    assert verdict["shortfall_bytes"] > 50 * (1 << 30)
    assert verdict["fix"].startswith("--tp-size 4")


@pytest.mark.parametrize(
    "argv",
    [
        ["fit", "qwen3-8b", "--engine", "vllm", "--sglang-version", "0.5.19"],
        ["fit", "qwen3-8b", "--platform", "h100", "--no-such-tool-option-xyz=1", "--json"],
    ],
)
def test_fit_input_errors_and_engine_refusals(capsys, argv):
    code, _, err = run(capsys, *argv)
    if "--sglang-version" in argv:
        assert code == 2 and "--sglang-version is for --engine sglang" in err
    else:  # an unknown flag is the engine's parser refusing the launch
        assert code == 1 and "unrecognized arguments: --no-such-tool-option-xyz" in err


def test_explain_folds_memory_into_the_verdict_vllm(capsys):
    """Repro: `explain --platform b200 -- vllm serve deepseek-ai/DeepSeek-V3.2` said "would start"."""
    code, out, err = run(
        capsys, "explain", "--platform", "b200", "--json", "--", "vllm", "serve", "deepseek-v3.2"
    )
    assert code == 1
    verdict = json.loads(out)["verdict"]
    assert verdict["status"] == "does-not-fit" and verdict["allocation"] == "weights"
    assert err.startswith("error: refused at start-up (memory)")


def test_explain_folds_memory_into_the_verdict_sglang(capsys):
    code, out, _ = run(
        capsys, "explain", "--platform", "h100", "--", "python", "-m", "sglang.launch_server",
        "--model-path", "llama-3.3-70b",
    )  # fmt: skip
    assert code == 1
    assert "verdict   would not start: does not fit (weights" in out
    code, out, _ = run(capsys, "resolve", "llama-3.3-70b", "--platform", "h100", "--tp-size", "4", "--json")
    assert code == 0 and json.loads(out)["verdict"]["status"] == "starts"


def test_explain_checks_the_node_for_sglang(capsys):
    """Repro: --tp 64 on an 8-GPU node for a 32-head model said "would start" (vLLM refused)."""
    code, out, err = run(
        capsys, "explain", "--platform", "h100", "--json", "--", "python", "-m", "sglang.launch_server",
        "--model-path", "qwen3-8b", "--tp", "64",
    )  # fmt: skip
    assert code == 1
    verdict = json.loads(out)["verdict"]
    assert verdict["status"] == "refused" and verdict["stage"] == "node"
    assert "64 ranks" in verdict["message"] and "--tp-size 8" in verdict["fix"]
    code, _, err = run(
        capsys,
        "explain",
        "qwen3-8b",
        "--engine",
        "vllm",
        "--platform",
        "h100",
        "--tensor-parallel-size",
        "64",
    )
    assert code == 1 and "World size (64)" in err


def test_why_not_is_the_tools_option_for_vllm_too(capsys):
    """Repro: `explain --engine vllm --why-not FLASHINFER` answered "did you mean --host?"."""
    code, out, err = run(
        capsys, "explain", "qwen3-8b", "--engine", "vllm", "--platform", "h100", "--why-not", "FLASHINFER"
    )
    assert code == 0, err
    assert out.startswith("attention_backend='FLASHINFER' would be accepted")
    assert "did you mean" not in out + err


def test_a_retired_vllm_flag_names_its_release_not_a_spelling_guess(capsys):
    """Repro: --calculate-kv-scales got "did you mean --disable-scale-out?"."""
    code, _, err = run(
        capsys, "explain", "qwen3-8b", "--engine", "vllm", "--platform", "h100", "--calculate-kv-scales"
    )
    assert code == 1  # the engine's parser refuses it: would not start
    assert "it was removed in vLLM 0.28.0 (last in 0.27.1)" in err
    assert "did you mean" not in err


def test_the_header_says_where_the_release_came_from(capsys):
    code, out, _ = run(capsys, "explain", "qwen3-8b", "--engine", "vllm", "--platform", "h100")
    assert code == 0 and "release   vLLM 0.34.0  (the default release)" in out
    code, out, _ = run(capsys, "explain", "qwen3-8b", "--platform", "h100", "--sglang-version", "0.5.19")
    assert code == 0 and "release   SGLang 0.5.19  (named by --sglang-version" in out


@pytest.mark.parametrize(
    ("launch", "release"),
    [
        (["--", "docker", "run", "lmsysorg/sglang:v0.5.21", "python3", "-m", "sglang.launch_server",
          "--model-path", "qwen3-8b"], "SGLang 0.5.21  (from the image tag 'v0.5.21')"),
        (["--", "docker", "run", "vllm/vllm-openai:v0.33.0", "qwen3-8b"],
         "vLLM 0.33.0  (from the image tag 'v0.33.0')"),
        (["qwen3-8b", "--sglang-version", "auto"], None),
    ],
)  # fmt: skip
def test_both_engines_headers_say_the_node_and_the_releases_origin(capsys, launch, release):
    """Issue 26 item 3: SGLang's header prints the node (GPUs per node × the device, the memory
    other processes hold) and where the release came from, in vLLM's words."""
    code, out, err = run(capsys, "explain", "--platform", "h100", "--gpus", "4", "--used-gib", "2", *launch)
    if release is None:  # `auto`: the installed engine's release, or the default when none is
        installed = packs.get("sglang").installed_version()
        said = (
            "no sglang is installed here: the default release" if installed is None else f"sglang {installed}"
        )
        assert said in out
        return
    assert code == 0, err
    assert f"release   {release}" in out
    assert "node      4 × NVIDIA H100 80GB HBM3, 79.19 GiB each; 2 GiB of each held by other processes" in out


@pytest.mark.parametrize(
    "argv", [["explain", "--help"], ["explain", "--engine", "vllm", "--help"], ["fit", "--help"]]
)
def test_help_is_for_people(capsys, argv):
    """Repro: `explain --help` was 2,042 lines, the tool's own options from line 499."""
    code, out, _ = run(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) <= 150, len(lines)
    assert any("--platform" in line for line in lines[:40])
    if argv[0] == "explain":
        assert "resolvable flags --engine" in out


def test_flags_lists_an_engines_flags_of_one_release(capsys):
    code, out, _ = run(capsys, "flags", "--engine", "vllm", "--release", "0.33.0", "tensor-parallel")
    assert code == 0 and out.startswith("vLLM 0.33.0: ") and "--tensor-parallel-size" in out
    code, out, _ = run(capsys, "flags", "--engine", "sglang", "--release", "0.5.19", "cuda-graph-max-bs")
    assert code == 0 and "  --cuda-graph-max-bs\n" in out
    code, out, _ = run(capsys, "flags", "--engine", "sglang", "--release", "0.5.23", "cuda-graph-max-bs")
    assert "  --cuda-graph-max-bs\n" not in out  # removed in 0.5.21


def test_no_engine_flag_of_any_modelled_release_collides_with_a_tool_option():
    from resolvable import packs
    from resolvable.cli.flags import engine_flags

    tool = {"--model-config", "--platform", "--gpus", "--env", "--json", "--field", "--why-not", "--engine"}
    tool |= {packs.get(n).release_option for n in packs.names()}
    for name in packs.names():
        pack = packs.get(name)
        for release in pack.releases:
            options = {o.strip() for row in engine_flags(pack, release) for o in row[0].split(",")}
            assert not tool & options, (name, release, tool & options)


def test_model_config_stands_in_for_both_engines(capsys):
    code, out, err = run(
        capsys, "explain", "--platform", "h100", "--model-config", "llama-3.1-8b", "--",
        "vllm", "serve", "/models/llama", "--tensor-parallel-size", "2",
    )  # fmt: skip
    assert code == 0, err
    assert "config    read from llama-3.1-8b (--model-config), standing for /models/llama" in out
    code, out, err = run(
        capsys, "fit", "--platform", "h100", "--model-config", "llama-3.1-8b", "--json", "--",
        "python", "-m", "sglang.launch_server", "--model-path", "/models/llama",
    )  # fmt: skip
    assert code == 0, err
    launch = json.loads(out)["launch"]
    assert launch["config_source"] == "stand-in" and launch["model_config"] == "llama-3.1-8b"


def test_advice_names_the_hf_command_the_installed_hub_ships():
    """Repro: the advice named `huggingface-cli`, which the installed huggingface_hub no longer ships."""
    from resolvable.sglang.models import unknown_message

    message = unknown_message("some-org/some-model")
    assert "`hf download some-org/some-model config.json`" in message
    assert "huggingface-cli" not in message


def test_fields_that_do_not_apply_are_left_out_unless_all(capsys):
    """Repro: `sparse_mla_prefill_workspace_factor` was printed for a model without MLA."""
    argv = ["explain", "qwen3-8b", "--engine", "vllm", "--platform", "h100", "--json"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "sparse_mla_prefill_workspace_factor" not in json.loads(out)["fields"]
    code, out, _ = run(capsys, *argv, "--all")
    assert code == 0 and "sparse_mla_prefill_workspace_factor" in json.loads(out)["fields"]
    code, out, _ = run(capsys, "explain", "deepseek-v3", "--engine", "vllm", "--platform", "h100", "--json")
    # MLA without the sparse indexer: only FLASHMLA_SPARSE and the indexer read it (0.34 wheel)
    assert "sparse_mla_prefill_workspace_factor" not in json.loads(out)["fields"]
    code, out, _ = run(capsys, "explain", "deepseek-v3.2", "--engine", "vllm", "--platform", "h100", "--json")
    assert "sparse_mla_prefill_workspace_factor" in json.loads(out)["fields"]  # sparse MLA: it applies


@pytest.mark.parametrize("command", ["explain", "resolve", "fit"])
@pytest.mark.parametrize(
    "launch, said",
    [
        # vLLM's CompilationConfig refuses the retired "level" key (its parser, not the tool)
        (
            ["--", "vllm", "serve", "qwen3-8b", "-cc", '{"level":3}'],
            "argument --compilation-config/-cc",
        ),
        # an invalid choice of sglang's own parser
        (["llama-3.1-8b", "--attention-backend", "no-such-backend"], "invalid choice: 'no-such-backend'"),
    ],
)
def test_a_value_the_engines_parser_rejects_is_refused_in_every_launch_command(capsys, command, launch, said):
    code, out, err = run(capsys, command, "--platform", "h100", "--json", *launch)
    assert code == 1, err
    verdict = json.loads(out)["verdict"]
    assert verdict["status"] == "refused" and verdict["stage"] == "parse" and verdict["exit_code"] == 1
    assert said in verdict["message"] and err.startswith("error: ") and "Traceback" not in err


def test_a_tool_options_bad_value_stays_an_input_error(capsys):
    code, _, err = run(capsys, "explain", "llama-3.1-8b", "--engine", "no-such-engine")
    assert code == 2 and "--engine" in err


def test_upgrade_is_one_command_for_every_engine(capsys):
    """Repro: the top-level help called `upgrade` sglang-only; it is one command over the packs."""
    from resolvable import packs

    code, out, _ = run(capsys, "--help")
    line = " ".join(out[out.index("upgrade   ") :].split()[:40])
    assert code == 0 and "sglang" not in line.split("matrix")[0] and "any engine" in line
    code, out, _ = run(capsys, "upgrade", "--help")
    assert code == 0 and len(out.splitlines()) <= 150
    for name in packs.names():
        assert f"{name} {packs.get(name).default_release}" in " ".join(out.split())
        assert packs.get(name).release_option not in out  # upgrade names its releases --from/--to
    code, _, err = run(capsys, "upgrade", "qwen3-8b", "--platform", "h100", "--sglang-version", "0.5.23")
    assert code == 2 and "upgrade takes --from VERSION and --to VERSION, not --sglang-version" in err


def test_sglang_fields_that_do_not_apply_are_left_out_unless_all(capsys):
    """`--all` for SGLang too: the DSA fields of a model without an indexer (``index_topk``)."""
    argv = ["resolve", "llama-3.1-8b", "--platform", "h100"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "dsa_decode_backend" not in out
    code, out, _ = run(capsys, *argv, "--all")
    assert code == 0 and "attn.dsa_decode_backend" in out
    code, out, _ = run(capsys, "resolve", "deepseek-v3.2", "--platform", "h200", "--tp-size", "8")
    assert "attn.dsa_decode_backend" in out  # a DSA model: they apply
    argv = ["explain", "llama-3.1-8b", "--platform", "h100", "--dsa-decode-backend", "flashmla_kv"]
    code, out, _ = run(capsys, *argv)
    assert "not shown, irrelevant for this model: dsa_decode_backend (--all shows them)" in out
    code, out, _ = run(capsys, *argv, "--json", "--all")
    assert "dsa_decode_backend" in json.loads(out)["fields"]


@pytest.mark.parametrize(
    ("launch", "commands"),
    [
        (["olmo-2-7b", "--platform", "rtx5090"], ("explain", "resolve", "fit")),  # fa3 on sm120
        (
            ["qwen3-8b", "--engine", "vllm", "--platform", "h100", "--tensor-parallel-size", "2"],
            ("explain", "resolve", "fit"),
        ),
        # memory not modelled on a CPU preset: an unknown of the verdict (fit refuses the input)
        (["qwen3-8b", "--platform", "cpu"], ("explain", "resolve")),
        (["qwen3-8b", "--engine", "vllm", "--platform", "cpu"], ("explain", "resolve")),
    ],
)
def test_explain_resolve_and_fit_give_one_verdict(capsys, launch, commands):
    """explain and resolve are judged by Pack.verdict, as fit is: the same verdict object (a
    start-up refusal's fix checked by resolving again, the memory model's unknowns) and exit code."""
    verdicts = []
    for command in commands:
        code, out, _ = run(capsys, command, *launch, "--json")
        verdicts.append((code, json.loads(out)["verdict"]))
    assert all(v == verdicts[0] for v in verdicts)
    if "cpu" in launch:
        assert verdicts[0][1]["status"] == "starts"
        assert any(
            u.startswith("memory: the platform has no device memory") for u in verdicts[0][1]["unknowns"]
        )


def test_a_start_up_refusals_fix_is_checked_in_explain(capsys):
    code, out, err = run(capsys, "explain", "olmo-2-7b", "--platform", "rtx5090")
    assert code == 1
    assert (
        "fix: pass --attention-backend triton (checked by resolving again: --attention-backend flashinfer is refused here)"
        in out
    )
    assert err.startswith("error: refused at start-up (after ServerArgs)")


def test_sglang_why_not_sees_the_pasted_commands_environment(capsys, monkeypatch):
    """Repro (issue 26): SGLang's `--why-not` ran its start-up check without the pasted command's
    `KEY=VALUE` words (only `--env` reached it); every check of the launch sees the same env."""
    from resolvable import packs

    pack = packs.get(packs.names()[0])
    seen: list[dict] = []
    real = pack.check_startup

    def spy(res, hf, env=None, *rest, **kw):
        seen.append(dict(env or {}))
        return real(res, hf, env, *rest, **kw)

    monkeypatch.setattr(pack, "check_startup", spy, raising=False)
    command = ["SGLANG_USE_AITER=1", "python", "-m", "sglang.launch_server", "--model-path", "llama-3.1-8b"]
    code, out, _ = run(capsys, "explain", "--platform", "mi300x", "--why-not", "triton", "--", *command)
    assert code == 0 and "would be accepted" in out
    assert seen and all(env.get("SGLANG_USE_AITER") == "1" for env in seen), seen


@pytest.mark.parametrize(
    ("model", "hidden", "shown"),
    [
        # a dense model: no speculative, linear-attention/mamba, hybrid-SWA or DSA leaves
        ("llama-3.1-8b", ("spec.num_steps", "cache.mamba_strategy", "cache.swa_full_tokens_ratio"), ()),
        # a hybrid linear-attention model: its mamba fields apply, the speculative ones do not
        ("qwen3-next-80b-a3b", ("spec.num_steps", "cache.swa_full_tokens_ratio"), ("cache.mamba_strategy",)),
        # an is_hybrid_swa_model architecture: its SWA pool fields apply
        ("gpt-oss-20b", ("spec.num_steps", "cache.mamba_strategy"), ("cache.swa_full_tokens_ratio",)),
    ],
)
def test_sglang_not_applicable_covers_speculative_linear_and_swa_fields(capsys, model, hidden, shown):
    """Issue 26 (item 7): `--all` for SGLang covered only the DSA fields; the groups tied to
    speculative decoding, hybrid linear attention / mamba and the hybrid SWA pool are left out of
    `resolve` where the model or launch has no such feature, and `--all` shows them."""
    argv = ["resolve", model, "--platform", "h200", "--tp-size", "2"]
    code, out, _ = run(capsys, *argv)
    code_all, out_all, _ = run(capsys, *argv, "--all")
    assert code == code_all == 0
    leaves = {line.split()[0] for line in out.splitlines() if line.strip()}
    leaves_all = {line.split()[0] for line in out_all.splitlines() if line.strip()}
    for leaf in hidden:
        assert leaf not in leaves and leaf in leaves_all, leaf
    for leaf in shown:
        assert leaf in leaves, leaf
    spec = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "llama-3.1-8b"]
    code, out, _ = run(capsys, "resolve", "llama-3.1-8b", "--platform", "h200", *spec)
    assert "spec.num_steps" in out, out  # speculative decoding asked for: they apply
