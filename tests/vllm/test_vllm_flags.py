"""The `vllm serve` flag tables of vLLM 0.30.0-0.34.0 (issue 17 items 1 and 2): generated from the
wheels, with vLLM's option strings, aliases, negative spellings, converters and choices; vLLM's argv
pre-processing (spec §1.3) and input normalisations, one test each."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from required_inputs import vllm_wheel
from resolvable.errors import ConfigError
from resolvable.rules import release_key
from resolvable.vllm import registry as vllm_registry
from resolvable.vllm.cli_args import CONFIG_MAX_BYTES, VllmArgumentError, parse, preprocess
from resolvable.vllm.flags import load_table, modelled_dests, option_history, releases
from resolvable.vllm.flags.values import human_readable_int, human_readable_int_or_auto

ROOT = Path(__file__).resolve().parents[2]
#: The flag tables are exactly the pack's releases (pinned once, in test_vllm_releases.py).
RELEASES = vllm_registry.releases


def _extractor():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extract_vllm_flags as extractor
    finally:
        sys.path.pop(0)
    return extractor


def test_one_table_per_release():
    assert tuple(releases()) == RELEASES


@pytest.mark.parametrize("release", RELEASES)
def test_table_regenerates_from_the_wheel_byte_for_byte(release):
    """Every committed table is what tools/extract_vllm_flags.py writes from that release's wheel."""
    wheel = vllm_wheel(release)  # in CI a missing wheel fails (.ci/run fetches it)
    extractor = _extractor()
    committed = ROOT / f"src/resolvable/vllm/flags/vllm-{release}.json"
    assert extractor.dump(extractor.extract(str(wheel))) == committed.read_text()


#: vllm-config-spec.md §1.7: argparse actions, option strings (with aliases and the positional
#: model), negative spellings, BooleanOptionalAction flags and JSON config flags per release.
SPEC_COUNTS = {
    "0.20.0": (240, 261, 66, 66, 13),
    "0.20.1": (240, 261, 66, 66, 13),
    "0.20.2": (240, 261, 66, 66, 13),
    "0.21.0": (248, 269, 66, 66, 13),
    "0.22.0": (262, 284, 69, 69, 14),
    "0.22.1": (262, 284, 69, 69, 14),
    "0.23.0": (262, 284, 69, 69, 14),
    "0.24.0": (267, 290, 70, 70, 14),
    "0.25.0": (271, 294, 71, 71, 14),
    "0.25.1": (271, 294, 71, 71, 14),
    "0.26.0": (275, 298, 73, 73, 14),
    "0.27.0": (283, 306, 76, 76, 15),
    "0.27.1": (283, 306, 76, 76, 15),
    "0.28.0": (285, 308, 77, 77, 16),
    "0.29.0": (293, 316, 80, 80, 16),
    "0.30.0": (301, 324, 82, 82, 17),
    "0.31.0": (312, 336, 85, 85, 19),
    "0.32.0": (317, 341, 88, 88, 19),
    "0.33.0": (321, 345, 139, 89, 20),
    "0.34.0": (328, 352, 143, 92, 20),
}


@pytest.mark.parametrize("release", RELEASES)
def test_counts_match_the_spec(release):
    table = load_table(release)
    flags = list(table)
    counts = (
        len(flags),
        sum(len(f.options) for f in flags),
        sum(len(f.negatives) for f in flags),
        sum(f.action == "boolean_optional" for f in flags),
        sum(f.type == "config" for f in flags),
    )
    assert counts == SPEC_COUNTS[release]


def test_aliases_and_json_config_flags():
    table = load_table("0.34.0")
    for alias, dest in {
        "-tp": "tensor_parallel_size",
        "-pp": "pipeline_parallel_size",
        "-dp": "data_parallel_size",
        "-ep": "enable_expert_parallel",
        "-q": "quantization",
        "-cc": "compilation_config",
        "-ac": "attention_config",
        "-sc": "speculative_config",
        "-asc": "api_server_count",
        "--device-memory-utilization": "gpu_memory_utilization",
    }.items():
        assert table.by_option[alias].dest == dest
    assert table.by_option["--compilation-config"].config_class == "CompilationConfig"
    assert table.by_option["--speculative-config"].type == "json"  # validated later (§1.1 item 6)
    assert table.by_dest["model_tag"].positional
    assert table.by_dest["dtype"].choices == ("auto", "bfloat16", "float", "float16", "float32", "half")
    assert table.by_dest["max_model_len"].type == "human_readable_int_or_auto"


def test_negatives_and_the_enable_disable_inverses_of_0_33():
    """§1.4: --no-X for every BooleanOptionalAction; from 0.33 the --enable-/--disable- inverse too."""
    assert "--disable-prefix-caching" not in load_table("0.32.0").by_option
    assert load_table("0.32.0").by_option["--no-enable-prefix-caching"].dest == "enable_prefix_caching"
    table = load_table("0.33.0")
    assert table.by_option["--disable-prefix-caching"].dest == "enable_prefix_caching"
    assert table.by_option["--enable-hybrid-kv-cache-manager"].dest == "disable_hybrid_kv_cache_manager"
    assert parse(["m", "--disable-prefix-caching"], "0.33.0").values["enable_prefix_caching"] is False
    assert parse(["m", "--no-enable-prefix-caching"], "0.33.0").values["enable_prefix_caching"] is False
    assert (
        parse(["m", "--enable-hybrid-kv-cache-manager"], "0.34.0").values["disable_hybrid_kv_cache_manager"]
        is False
    )


def test_deprecated_spellings_are_marked_and_accepted():
    table = load_table("0.34.0")
    assert table.by_dest["disable_cascade_attn"].deprecated
    assert table.by_dest["mamba_cache_mode"].deprecated
    assert not load_table("0.31.0").by_dest["disable_cascade_attn"].deprecated  # a real option then
    parsed = parse(["m", "--disable-cascade-attn"], "0.34.0")
    assert any("--disable-cascade-attn is deprecated" in n for n in parsed.notes)


def test_release_differences_name_the_release():
    assert option_history("--disable-chunked-prefill", "0.32.0") == "it was added in vLLM 0.33.0"
    assert (
        option_history("--enable-mamba-fine-grained-prefix-cache", "0.31.0")
        == "it was removed in vLLM 0.31.0 (last in 0.30.0), and vLLM names no replacement: drop the flag"
    )
    assert option_history("--monokernel", "0.34.0") is None
    with pytest.raises(
        VllmArgumentError,
        match=r"--shuffle-safetensors-files is not a flag of vLLM 0\.33\.0; it was added in vLLM 0\.34\.0",
    ):
        parse(["m", "--shuffle-safetensors-files"], "0.33.0")


def test_typo_gets_a_suggestion():
    with pytest.raises(
        VllmArgumentError,
        match=r"unrecognized arguments: --max-modle-len 4096; --max-modle-len: did you mean --max-model-len\?",
    ):
        parse(["m", "--max-modle-len", "4096"], "0.34.0")


def test_task_gets_vllms_hint():
    with pytest.raises(VllmArgumentError, match=r"--runner pooling"):
        parse(["m", "--task", "embed"], "0.34.0")


def test_bad_choice_is_refused_with_argparse_words():
    with pytest.raises(VllmArgumentError, match=r"argument --dtype: invalid choice: 'fp16'"):
        parse(["m", "--dtype", "fp16"], "0.34.0")


def test_modelled_comes_from_the_schema():
    modelled = modelled_dests()
    assert {"tensor_parallel_size", "attention_backend", "block_size", "kv_cache_dtype", "dtype"} <= modelled
    assert "port" not in modelled
    parsed = parse(["m", "-tp", "8", "--port", "8001", "--trust-remote-code"], "0.34.0")
    assert parsed.modelled == {"tensor_parallel_size": 8}
    assert parsed.not_modelled == {"port": 8001, "trust_remote_code": True}
    assert parsed.shown == ["--port 8001", "--trust-remote-code"]


# -- §1.3 pre-processing, one test per step -----------------------------------------------------


def test_model_option_moves_to_the_positional_slot_on_serve():
    parsed = parse(["-tp", "2", "--model", "Qwen/Qwen3-8B", "--port", "8001"], "0.34.0")
    assert parsed.model == "Qwen/Qwen3-8B"
    assert any("positional argument" in n for n in parsed.notes)
    assert parse(["--model=Qwen/Qwen3-8B"], "0.34.0").model == "Qwen/Qwen3-8B"


def test_served_model_name_without_a_model_is_vllms_error():
    with pytest.raises(
        VllmArgumentError, match=r"`model` should be provided as the first positional argument"
    ):
        parse(["--served-model-name", "x"], "0.34.0")


def test_underscores_in_names():
    parsed = parse(
        ["m", "--tensor_parallel_size", "4", "--speculative_config", '{"method": "ngram"}'], "0.34.0"
    )
    assert parsed.values["tensor_parallel_size"] == 4
    assert parsed.values["speculative_config"] == {"method": "ngram"}


def test_flag_equals_value():
    parsed = parse(["m", "--tensor-parallel-size=4", "--gpu_memory_utilization=0.85"], "0.34.0")
    assert parsed.values["tensor_parallel_size"] == 4
    assert parsed.values["gpu_memory_utilization"] == 0.85


@pytest.mark.parametrize("argv", [["-O3"], ["-O=3"], ["-O", "3"], ["--optimization-level", "3"]])
def test_optimization_level_spellings(argv):
    assert parse(["m", *argv], "0.34.0").values["optimization_level"] == "3"


def test_dotted_keys_fold_into_one_json_value():
    parsed = parse(
        [
            "m",
            "--compilation-config.cudagraph_mode",
            "FULL_DECODE_ONLY",
            "--compilation-config.mode=3",
            "--compilation-config.cudagraph_capture_sizes+",
            "1,2",
            "--attention-config.backend",
            "FLASHINFER",
        ],
        "0.34.0",
    )
    assert parsed.values["compilation_config"] == {
        "cudagraph_mode": "FULL_DECODE_ONLY",
        "mode": 3,
        "cudagraph_capture_sizes": ["1", "2"],
    }
    assert parsed.values["attention_config"] == {"backend": "FLASHINFER"}


def test_dotted_values_read_human_readable_ints():
    args, _ = preprocess(["m", "--kv-transfer-config.cpu_bytes", "80m"], load_table("0.34.0"))
    assert json.loads(args[-1]) == {"cpu_bytes": 80_000_000}


def test_a_dot_only_in_the_value_is_not_a_dotted_key():
    assert parse(["m", "--served-model-name=a.b"], "0.34.0").values["served_model_name"] == ["a.b"]


def test_duplicate_dotted_keys_warn_like_vllm():
    parsed = parse(["m", "-cc.mode", "1", "-cc.mode", "3"], "0.34.0")
    assert parsed.values["compilation_config"] == {"mode": 3}
    assert any("Found duplicate keys" in n for n in parsed.notes)


def test_config_json_expands_human_readable_numbers():
    parsed = parse(["m", "--kv-transfer-config", '{"kv_connector": "x", "kv_buffer_size": 1K}'], "0.34.0")
    assert parsed.values["kv_transfer_config"]["kv_buffer_size"] == 1024


def test_config_yaml_file(tmp_path):
    """--config: YAML flags after the model, before the command line (CLI > file > defaults)."""
    cfg = tmp_path / "serve.yaml"
    cfg.write_text(
        "tensor-parallel-size: 4\nport: 9000\nenable-prefix-caching: false\n"
        "compilation-config:\n  cudagraph_mode: PIECEWISE\nserved-model-name: [a, b]\n"
    )
    parsed = parse(["Qwen/Qwen3-8B", "--config", str(cfg), "--port", "9001"], "0.32.0")
    assert parsed.model == "Qwen/Qwen3-8B"
    assert parsed.values["tensor_parallel_size"] == 4
    assert parsed.values["port"] == 9001  # the command line wins
    assert parsed.values["enable_prefix_caching"] is False  # false → --no-enable-prefix-caching
    assert parsed.values["compilation_config"] == {"cudagraph_mode": "PIECEWISE"}
    assert parsed.values["served_model_name"] == ["a", "b"]


def test_config_file_model_and_errors(tmp_path):
    cfg = tmp_path / "serve.yml"
    cfg.write_text("model: Qwen/Qwen3-8B\n")
    assert parse(["--config", str(cfg)], "0.34.0").model == "Qwen/Qwen3-8B"
    with pytest.raises(VllmArgumentError, match=r"Config file must be of a yaml/yml type\. json supplied"):
        parse(["m", "--config", "x.json"], "0.34.0")
    empty = tmp_path / "e.yaml"
    empty.write_text("port: 1\n")
    with pytest.raises(VllmArgumentError, match="No model specified!"):
        parse(["--config", str(empty)], "0.34.0")
    with pytest.raises(ConfigError, match="cannot read it"):  # the tool's input error (exit 2)
        parse(["m", "--config", str(tmp_path / "missing.yaml")], "0.34.0")


def test_config_yaml_refuses_alias_bombs_and_huge_files(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\n')
    with pytest.raises(VllmArgumentError, match="anchors and aliases are not read"):
        parse(["m", "--config", str(bomb)], "0.34.0")
    big = tmp_path / "big.yaml"
    big.write_text("port: 1\n" + "#" * CONFIG_MAX_BYTES)
    with pytest.raises(ConfigError, match="limit"):
        parse(["m", "--config", str(big)], "0.34.0")
    bad = tmp_path / "bad.yaml"
    bad.write_text("port: [1\n")
    with pytest.raises(VllmArgumentError, match="not valid YAML"):
        parse(["m", "--config", str(bad)], "0.34.0")


# -- normalisations and converters, one test each ----------------------------------------------


@pytest.mark.parametrize(
    ("given", "read"), [("half", "float16"), ("float", "float32"), ("bfloat16", "bfloat16")]
)
def test_dtype_spellings(given, read):
    parsed = parse(["m", "--dtype", given], "0.34.0")
    assert parsed.values["dtype"] == read
    assert (given != read) == any("--dtype" in n for n in parsed.notes)


def test_attention_backend_any_case_and_auto():
    assert (
        parse(["m", "--attention-backend", "flashinfer"], "0.34.0").values["attention_backend"]
        == "FLASHINFER"
    )
    assert "attention_backend" not in parse(["m", "--attention-backend", "auto"], "0.34.0").values


def test_reasoning_parser_none_is_unset_from_0_33():
    assert "reasoning_parser" not in parse(["m", "--reasoning-parser", "None"], "0.33.0").values
    assert (
        parse(["m", "--reasoning-parser", "deepseek_r1"], "0.33.0").values["reasoning_parser"]
        == "deepseek_r1"
    )


def test_moe_backend_lower_snake():
    values = parse(["m", "--moe-backend", "FLASHINFER-CUTLASS"], "0.34.0").values
    assert values["moe_backend"] == "flashinfer_cutlass"


@pytest.mark.parametrize(
    ("text", "value"), [("32k", 32000), ("32K", 32768), ("25.6k", 25600), ("4096", 4096)]
)
def test_human_readable_int(text, value):
    assert human_readable_int(text) == value


def test_human_readable_int_refuses_binary_decimals_and_reads_auto():
    with pytest.raises(argparse.ArgumentTypeError, match="Decimals are not allowed"):
        human_readable_int("1.5K")
    assert human_readable_int_or_auto("auto") == -1 == human_readable_int_or_auto("-1")
    assert parse(["m", "--max-model-len", "auto"], "0.34.0").values["max_model_len"] == -1


def test_optional_values_read_none():
    assert parse(["m", "--quantization", "None"], "0.34.0").values["quantization"] is None


def test_optional_bool_str_flag():
    """§1.2 row 2: --hf-token alone is True, with a value a string."""
    assert parse(["m", "--hf-token"], "0.34.0").values["hf_token"] is True
    assert parse(["m", "--hf-token", "abc"], "0.34.0").values["hf_token"] == "abc"


def test_none_choice_is_the_string_in_0_30():
    assert "None" in load_table("0.30.0").by_dest["collect_detailed_traces"].choices
    assert None in load_table("0.31.0").by_dest["collect_detailed_traces"].choices


def test_retired_flags_name_the_release_and_the_replacement():
    """Issue 26 item 2: a flag the release does not accept names the release that removed it and
    what replaces it, from the tables (0.11.0+) or ``RETIRED_BEFORE_TABLES`` (read from the 0.10.x
    wheels), never a spelling guess."""
    from resolvable.vllm.flags import RETIRED_BEFORE_TABLES, all_releases

    assert option_history("--calculate-kv-scales", "0.34.0") == (
        "it was removed in vLLM 0.28.0 (last in 0.27.1), and vLLM names no replacement: drop the flag"
    )
    assert option_history("--cuda-graph-sizes", "0.34.0") == (
        "it was removed in vLLM 0.13.0 (last in 0.12.0), use --cudagraph-capture-sizes"
    )
    assert option_history("--num-scheduler-steps", "0.34.0") == (
        "it was removed in vLLM 0.10.1 (last in 0.10.0), and vLLM names no replacement: drop the flag"
    )
    assert option_history("--preemption-mode", "0.11.0").startswith(
        "it was removed in vLLM 0.11.0 (last in 0.10.2)"
    )
    for option, (removed, last, _) in RETIRED_BEFORE_TABLES.items():
        # retired before every table, and named with a release older than the first table
        assert all(option not in load_table(r).by_option for r in all_releases()), option
        assert release_key(last) < release_key(removed) <= release_key(all_releases()[0])
