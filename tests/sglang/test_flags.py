"""The sglang flag table (issue 9 item 1): every 0.5.15 flag parses with sglang's types, choices,
aliases and actions; modelled vs not modelled comes from the ServerArgs schema."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pytest

from golden import GOLDEN, GOLDEN_FLAGS
from resolvable._schema import schema_of
from resolvable.sglang import ServerArgs
from resolvable.sglang.cli_args import add_cli_args, from_cli_args, parse_namespace
from resolvable.sglang.flags import load_table, modelled_dests, releases

# golden cases of sglang 0.5.15 (spec): pinned

ROOT = Path(__file__).resolve().parents[2]
NAMES = Path(__file__).parent / "data" / "sglang-0.5.15-flag-names.txt"
WHEEL = Path("/work/wheels/sglang-0.5.15-cp311-cp311-manylinux_2_34_x86_64.whl")


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # keep argparse's message for the assertion
        raise _Refused(message)


def parse(*argv: str) -> argparse.Namespace:
    parser = _Parser(prog="sglang serve")
    add_cli_args(parser, release=GOLDEN)
    return parser.parse_args(list(argv))


def refused(*argv: str) -> str:
    with pytest.raises(_Refused) as info:
        parse(*argv)
    return str(info.value)


# -- the table is sglang's ---------------------------------------------------------------------


def test_table_option_strings_equal_the_wheel_names():
    """The committed name list was extracted from the 0.5.15 wheel (tools/extract_sglang_flags.py
    --names); the table must offer exactly those option strings."""
    expected = NAMES.read_text().split()
    assert load_table("0.5.15").options() == sorted(expected)
    assert len(expected) == 451 and len(load_table("0.5.15")) == 437


@pytest.mark.skipif(not WHEEL.is_file(), reason="the sglang 0.5.15 wheel is not on this machine")
def test_table_regenerates_from_the_wheel_byte_for_byte():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extract_sglang_flags as extractor
    finally:
        sys.path.pop(0)
    table = extractor.extract(str(WHEEL))
    committed = ROOT / "src/resolvable/sglang/flags/sglang-0.5.15.json"
    assert extractor.dump(table) == committed.read_text()
    names = sorted(o for f in table["flags"] for o in f["options"])
    assert names == NAMES.read_text().split()


def test_releases_and_unknown_release():
    assert "0.5.15" in releases()
    with pytest.raises(ValueError, match=r"no flag table for sglang 9\.9\.9"):
        load_table("9.9.9")


def test_modelled_flags_are_the_serverargs_cli_fields():
    fields = {n for n, s in schema_of(ServerArgs).fields.items() if s.arg.cli}
    assert modelled_dests() == fields
    # every modelled field is an sglang flag, so "modelled" is a subset of the table
    assert fields <= load_table(GOLDEN).dests
    not_modelled = load_table(GOLDEN).dests - fields
    # 422 distinct dests in 0.5.15; 74 of them are ServerArgs fields the rules read
    assert len(fields) == 74 and len(not_modelled) == 348


# -- the issue's examples -----------------------------------------------------------------------

EXAMPLES = [
    (["--speculative-num-steps", "3"], "speculative_num_steps", 3),
    (["--enable-torch-compile"], "enable_torch_compile", True),
    (["--context-length", "32k"], "context_length", 32000),  # human_readable_int
    (["--cuda-graph-max-bs", "256"], "cuda_graph_max_bs_decode", 256),  # deprecated alias
    (["--disable-cuda-graph-padding"], "disable_cuda_graph_padding", True),
    (["--disable-decode-cuda-graph"], "disable_decode_cuda_graph", True),
    (["--disable-prefill-cuda-graph"], "disable_prefill_cuda_graph", True),
    (["--mm-attention-backend", "fa3"], "mm_attention_backend", "fa3"),
    (["--enable-flashinfer-allreduce-fusion"], "enable_flashinfer_allreduce_fusion", True),
    (["--fp8-gemm-backend", "auto"], "fp8_gemm_runner_backend", "auto"),  # cli_name differs from dest
    (["--fp4-gemm-backend", "auto"], "fp4_gemm_runner_backend", "auto"),
    (["--hicache-io-backend", "direct"], "hicache_io_backend", "direct"),
    (["--hicache-mem-layout", "page_first"], "hicache_mem_layout", "page_first"),
    (["--mamba-backend", "flashinfer"], "mamba_backend", "flashinfer"),
    (["--mamba-ssm-dtype", "bfloat16"], "mamba_ssm_dtype", "bfloat16"),
    (["--max-total-tokens", "1Mi"], "max_total_tokens", 1 << 20),
    (["--disable-shared-experts-fusion"], "disable_shared_experts_fusion", True),
    (["--disable-chunked-prefix-cache"], "disable_chunked_prefix_cache", True),
    (["--enable-single-batch-overlap"], "enable_single_batch_overlap", True),
    (["--disaggregation-mode", "prefill"], "disaggregation_mode", "prefill"),
    (["--disaggregation-transfer-backend", "nixl"], "disaggregation_transfer_backend", "nixl"),
    (["--disaggregation-bootstrap-port", "8999"], "disaggregation_bootstrap_port", 8999),
    (["--disaggregation-ib-device", "mlx5_0"], "disaggregation_ib_device", "mlx5_0"),
    (["--disaggregation-decode-enable-radix-cache"], "disaggregation_decode_enable_radix_cache", True),
]


@pytest.mark.parametrize(("argv", "dest", "value"), EXAMPLES, ids=[e[0][0] for e in EXAMPLES])
def test_issue_example_flags_parse(argv, dest, value):
    ns = parse(*argv)
    assert getattr(ns, dest) == value
    parsed = parse_namespace(ns)
    if dest in modelled_dests():
        assert parsed.user[dest] == value
    elif dest == "enable_flashinfer_allreduce_fusion":  # carried over to a modelled field
        assert parsed.user == {"flashinfer_allreduce_fusion_backend": "auto"}
    else:
        assert parsed.not_modelled == {dest: value} and parsed.user == {}
        assert parsed.shown[0].startswith(argv[0])


def test_every_table_flag_parses_with_a_value_of_its_kind():
    """Each action of the table, given a value sglang accepts, lands in its dest."""
    samples = {"int": "2", "float": "0.5", "human_readable_int": "4k", "json": "{}", "json_list": "[]"}
    samples["cuda_graph_config"] = '{"decode": {"max_bs": 8}}'
    for flag in load_table(GOLDEN):
        argv = [flag.options[-1]]
        if flag.takes_value:
            one = str(flag.choices[0]) if flag.choices else samples.get(flag.type or "", "x")
            argv += [one] * (2 if flag.nargs in ("+", "*") else 1)
        ns = parse(*argv)
        if flag.action != "ignore":
            assert hasattr(ns, flag.dest), flag


def test_flags_not_passed_are_absent():
    ns = parse("--model-path", "llama-3.1-8b")
    assert {k for k in vars(ns) if not k.startswith("_")} == {"model_path"}


# -- types, choices, aliases like sglang ------------------------------------------------------------


def test_types_and_choices_are_enforced():
    assert "invalid int value: 'eight'" in refused("--tp-size", "eight")
    assert "invalid choice: 'trion'" in refused("--mamba-backend", "trion")
    assert "invalid integer value: '32K'" in refused("--context-length", "32K")  # suffixes are case-sensitive
    assert "invalid choice" in refused("--log-requests-level", "7")  # int choices [0..3]
    assert "unknown phase 'encode'" in refused("--cuda-graph-config", '{"encode": {}}')
    assert "invalid JSON" in refused("--preferred-sampling-params", "{oops")


def test_invalid_choice_suggests_the_closest_through_the_cli(capsys):
    from resolvable.cli import main

    argv = ["explain", "llama-3.1-8b", "--platform", "h100", *GOLDEN_FLAGS, "--mamba-backend", "flashinfr"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'flashinfr'" in err and "did you mean 'flashinfer'?" in err


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [
        (["--tp", "4"], "tp_size", 4),  # a unique abbreviation (argparse allow_abbrev, as in sglang)
        (["--tensor-parallel-size", "4"], "tp_size", 4),
        (["--dp", "2"], "dp_size", 2),
        (["--data-parallel-size", "2"], "dp_size", 2),
        (["--ep", "8"], "ep_size", 8),
        (["--expert-parallel-size", "8"], "ep_size", 8),
        (["--pipeline-parallel-size", "2"], "pp_size", 2),
        (["--model", "m"], "model_path", "m"),
        (["--nsa-prefill-backend", "fa3"], "dsa_prefill_backend", "fa3"),
        (["--mamba-scheduler-strategy", "no_buffer"], "mamba_radix_cache_strategy", "no_buffer"),
        (["--enable-breakable-cuda-graph"], "cuda_graph_backend_prefill", "breakable"),
        (["--disable-piecewise-cuda-graph"], "cuda_graph_backend_prefill", "disabled"),
        (["--speculative-draft-model", "d"], "speculative_draft_model_path", "d"),
        (["--no-lora-strict-loading"], "lora_strict_loading", False),
        (["--quantization-param-path", "None"], "quantization_param_path", None),  # nullable_str
    ],
)
def test_aliases_and_deprecated_spellings_share_the_dest(argv, dest, value):
    assert getattr(parse(*argv), dest) == value


def test_ambiguous_abbreviation_is_refused_like_sglang():
    # 0.5.15 has --pp-size, --pp-max-micro-batch-size and --pp-async-batch-depth
    assert "ambiguous option: --pp could match --pp-size" in refused("--pp", "2")


def test_from_cli_args_keeps_not_modelled_out_of_serverargs():
    from resolvable import Platform

    ns = parse("--model-path", "llama-3.1-8b", "--tp", "2", "--enable-torch-compile")
    sa = from_cli_args(ns, platform=Platform.preset("h100"), env={})
    assert sa.tp_size == 2 and set(sa.resolution.user) == {"model_path", "tp_size"}
    assert ns.enable_torch_compile is True  # kept in the namespace


# -- sglang's input normalisations -------------------------------------------------------------------


def test_speculative_algorithm_is_upper_cased():
    parsed = parse_namespace(parse("--speculative-algorithm", "eagle"))
    assert parsed.user["speculative_algorithm"] == "EAGLE"
    assert any("upper-cases" in n for n in parsed.notes)


def test_device_index_is_dropped():
    assert parse_namespace(parse("--device", "cuda:1")).user["device"] == "cuda"


def test_deprecated_allreduce_fusion_switch_means_backend_auto():
    parsed = parse_namespace(parse("--enable-flashinfer-allreduce-fusion"))
    assert parsed.user == {"flashinfer_allreduce_fusion_backend": "auto"} and parsed.shown == []
    explicit = parse_namespace(
        parse("--enable-flashinfer-allreduce-fusion", "--flashinfer-allreduce-fusion-backend", "trtllm")
    )
    assert explicit.user == {"flashinfer_allreduce_fusion_backend": "trtllm"}


def test_legacy_context_parallel_switches():
    parsed = parse_namespace(parse("--enable-nsa-prefill-context-parallel"))
    # default dsa_prefill_cp_mode 'round-robin-split' maps to 'interleave'
    assert parsed.user == {
        "enable_dsa_prefill_context_parallel": True,
        "enable_prefill_cp": True,
        "cp_strategy": "interleave",
    }
    parsed = parse_namespace(parse("--enable-prefill-context-parallel"))
    assert parsed.user == {"enable_prefill_cp": True, "cp_strategy": "zigzag"}


def test_deprecated_tool_call_parser_name():
    assert parse_namespace(parse("--tool-call-parser", "qwen25")).not_modelled == {"tool_call_parser": "qwen"}


def test_import_stays_light_with_the_table(tmp_path):
    """The table is loaded lazily: importing the pack does not read it."""
    import subprocess

    code = "import sys, resolvable.sglang; print('resolvable.sglang.flags' in sys.modules, 'json' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.split() == ["False", "False"]


def test_table_file_is_data(tmp_path):
    data = json.loads((ROOT / "src/resolvable/sglang/flags/sglang-0.5.15.json").read_text())
    assert data["schema"] == "resolvable.sglang-flags/1" and data["sglang"] == "0.5.15"
    assert all("help" not in f for f in data["flags"])  # facts only: no help prose copied
