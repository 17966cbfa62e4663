"""The sglang flag table (issue 9 item 1): every 0.5.15 flag parses with sglang's types, choices,
aliases and actions; modelled vs not modelled comes from the ServerArgs schema."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import pytest

from golden import GOLDEN, GOLDEN_FLAGS
from required_inputs import sglang_wheel
from resolvable._schema import schema_of
from resolvable.rules import release_key
from resolvable.sglang import ServerArgs
from resolvable.sglang.cli_args import add_cli_args, from_cli_args
from resolvable.sglang.cli_args import parse_namespace as _parse_namespace
from resolvable.sglang.flags import load_table, modelled_dests, releases

# golden cases of sglang 0.5.15 (spec): pinned

ROOT = Path(__file__).resolve().parents[2]
NAMES = Path(__file__).parent / "data" / "sglang-0.5.15-flag-names.txt"


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # keep argparse's message for the assertion
        raise _Refused(message)


def parse_namespace(namespace: argparse.Namespace, release: str = GOLDEN):
    """``cli_args.parse_namespace`` with the golden release's table (as ``parse`` uses)."""
    return _parse_namespace(namespace, release=release)


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


def _extractor():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extract_sglang_flags as extractor
    finally:
        sys.path.pop(0)
    return extractor


@pytest.mark.parametrize("release", releases())
def test_table_regenerates_from_the_wheel_byte_for_byte(release):
    """Every committed table is what tools/extract_sglang_flags.py writes from that release's
    wheel: 0.5.15-0.5.19 from the ServerArgs dataclass, 0.5.20+ from the namespace classes."""
    wheel = sglang_wheel(release)  # missing: fails in CI, skips (saying why) elsewhere
    extractor = _extractor()
    table = extractor.extract(str(wheel))
    committed = ROOT / f"src/resolvable/sglang/flags/sglang-{release}.json"
    assert extractor.dump(table) == committed.read_text()
    if release == "0.5.15":
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
    # 422 distinct dests in 0.5.15; 79 of them are ServerArgs fields the rules read (the two
    # per-phase CUDA-graph off-switches since issue 20 item 6; prefill_round_robin_balance,
    # a no-op in 0.5.15, read by a rule that ends at 0.5.8)
    assert len(fields) == 79 and len(not_modelled) == 343


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
    assert main(argv) == 1  # sglang's parser refuses the value: it would not start (issue 26)
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


# -- one table per release (0.5.13 … 0.5.23, with 0.5.13.post1) ----------------------------------


def test_every_supported_release_has_its_own_table():
    """One generated table per release: ``table_release`` maps a release to itself, so a flag
    sglang added or removed in any release is seen by that release; a ``.postN`` on the index
    has its own table too (0.5.12.post1, 0.5.13.post1)."""
    from resolvable.sglang._base import SGLANG_RELEASES
    from resolvable.sglang.flags import table_release

    assert releases() == [
        "0.5.5",
        "0.5.5.post1",
        "0.5.5.post2",
        "0.5.5.post3",
        "0.5.6",
        "0.5.6.post1",
        "0.5.6.post2",
        "0.5.7",
        "0.5.8",
        "0.5.8.post1",
        "0.5.9",
        "0.5.10",
        "0.5.10.post1",
        "0.5.11",
        "0.5.12",
        "0.5.12.post1",
        "0.5.13",
        "0.5.13.post1",
        *SGLANG_RELEASES[SGLANG_RELEASES.index("0.5.14") :],
    ]
    assert all(table_release(r) == r and load_table(r).release == r for r in releases())
    # 0.5.14 has its own flags: fewer than 0.5.15 (no --dcp-size), and its choices
    assert (
        "--dcp-size" in load_table("0.5.15").by_option and "--dcp-size" not in load_table("0.5.14").by_option
    )
    # 0.5.13's parser names the parallel sizes by their long spelling; ServerArgs.from_cli_args
    # copies them onto the fields, which the table records
    assert load_table("0.5.13").by_option["--tensor-parallel-size"].dest == "tp_size"


def _parser_of(release: str) -> _Parser:
    parser = _Parser(prog="sglang serve")
    add_cli_args(parser, release=release)
    return parser


@pytest.mark.parametrize("release", releases())
def test_every_flag_of_every_release_parses(release):
    """Each action of each table, given a value that release accepts, lands in its dest."""
    samples = {"int": "2", "float": "0.5", "human_readable_int": "4k", "json": "{}", "json_list": "[]"}
    samples["cuda_graph_config"] = '{"decode": {"max_bs": 8}}'
    parser = _parser_of(release)
    for flag in load_table(release):
        argv = [flag.options[-1]]
        if flag.takes_value:
            one = str(flag.choices[0]) if flag.choices else samples.get(flag.type or "", "x")
            argv += [one] * (2 if flag.nargs in ("+", "*") else 1)
        ns = parser.parse_args(argv)
        if flag.action != "ignore":
            assert hasattr(ns, flag.dest), flag


def _options(release: str) -> set[str]:
    return set(load_table(release).by_option)


@pytest.mark.parametrize(
    ("release", "added", "removed"),
    [
        # docs/releases/0.5.20.md #13/#14: the legacy CP aliases went, the UNO and PLE flags came
        ("0.5.20", ["--uno-lora-path", "--dsv4-attn-backend"], ["--enable-nsa-prefill-context-parallel"]),
        ("0.5.21", ["--boundary-reduction", "--swa-prefix-tails"], ["--elastic-ep-rejoin"]),
        ("0.5.22", ["--attn-dp-size", "--enable-watermark"], ["--cuda-graph-tc-compiler"]),
        ("0.5.23", ["--monokernel-backend", "--enable-hicache"], ["--speculative-skip-dp-mlp-sync"]),
    ],
)
def test_new_tables_record_the_flags_a_release_added_and_removed(release, added, removed):
    previous = releases()[releases().index(release) - 1]
    for option in added:
        assert option in _options(release) and option not in _options(previous), option
    for option in removed:
        assert option in _options(previous) and option not in _options(release), option


def test_0_5_20_tables_come_from_the_namespace_classes():
    data = json.loads((ROOT / "src/resolvable/sglang/flags/sglang-0.5.20.json").read_text())
    assert data["sglang"] == "0.5.20" and data["source"].startswith("sglang/srt/arg_groups/fields/")
    # the field order is sglang's POSITIONAL_FIELD_ORDER: 0.5.19's fields keep their order
    old = [f.dest for f in load_table("0.5.19") if f.origin == "field"]
    new = [f.dest for f in load_table("0.5.20") if f.origin == "field"]
    assert [d for d in old if d in new] == [d for d in new if d in old]


def test_removed_choice_names_are_refused_by_the_release_that_removed_them():
    assert parse("--attention-backend", "cutlass_mla").attention_backend == "cutlass_mla"  # 0.5.15
    assert "invalid choice: 'cutlass_mla'" in _refused_by("0.5.20", "--attention-backend", "cutlass_mla")
    assert _parser_of("0.5.20").parse_args(["--attention-backend", "qsa"]).attention_backend == "qsa"
    assert "invalid choice: 'fp4_e2m1'" in _refused_by("0.5.21", "--kv-cache-dtype", "fp4_e2m1")


def _refused_by(release: str, *argv: str) -> str:
    with pytest.raises(_Refused) as info:
        _parser_of(release).parse_args(list(argv))
    return str(info.value)


def test_retired_valued_flag_takes_its_one_value_and_stores_the_constant():
    """0.5.23 ``--monokernel-backend amd`` (DeprecatedStoreConstAction, nargs=None): one value,
    from its choices, stored as --enable-amd-monokernel."""
    flag = load_table("0.5.23").by_option["--monokernel-backend"]
    assert (flag.action, flag.choices, flag.const, flag.dest) == (
        "store_const_value",
        ("amd",),
        True,
        "enable_amd_monokernel",
    )
    ns = _parser_of("0.5.23").parse_args(["--monokernel-backend", "amd"])
    assert ns.enable_amd_monokernel is True
    assert "invalid choice: 'nvidia'" in _refused_by("0.5.23", "--monokernel-backend", "nvidia")
    assert "expected one argument" in _refused_by("0.5.23", "--monokernel-backend")


def test_cuda_graph_backend_and_config_follow_the_release():
    """cuda_graph_config.py: 0.5.22 refuses ``tc_piecewise`` in its type converter and drops the
    ``tc_compiler`` key; 0.5.21 adds the prefill ``max_seq_len`` key."""
    assert "tc_piecewise was removed" in _refused_by("0.5.22", "--cuda-graph-backend-prefill", "tc_piecewise")
    ns = _parser_of("0.5.21").parse_args(["--cuda-graph-backend-prefill", "tc_piecewise"])
    assert ns.cuda_graph_backend_prefill == "tc_piecewise"
    tc = '{"decode": {"tc_compiler": "inductor"}}'
    assert _parser_of("0.5.21").parse_args(["--cuda-graph-config", tc]).cuda_graph_config
    assert "unknown key 'tc_compiler'" in _refused_by("0.5.22", "--cuda-graph-config", tc)
    seq = '{"prefill": {"max_seq_len": 4096}}'
    assert "unknown key 'max_seq_len'" in _refused_by("0.5.20", "--cuda-graph-config", seq)
    assert _parser_of("0.5.21").parse_args(["--cuda-graph-config", seq]).cuda_graph_config
    backend = '{"decode": {"backend": "tc_piecewise"}}'
    assert "tc_piecewise was removed" in _refused_by("0.5.23", "--cuda-graph-config", backend)


def test_fallbacks_are_recorded_beside_the_argparse_default():
    """0.5.20+ ``Arg(fallback=...)``: the argparse default is None (not typed) and the field
    reads as the fallback; --help shows both."""
    flag = load_table("0.5.20").by_option["--swa-full-tokens-ratio"]
    assert (flag.default, flag.fallback) == (None, 0.8)
    assert load_table("0.5.19").by_option["--swa-full-tokens-ratio"].default == 0.8
    tf32 = load_table("0.5.23").by_option["--no-enable-tf32-matmul"]
    assert (tf32.action, tf32.default, tf32.fallback) == ("boolean_optional", None, False)
    assert _parser_of("0.5.23").parse_args(["--no-enable-tf32-matmul"]).enable_tf32_matmul is False
    text = _parser_of("0.5.20").format_help()
    assert "(sglang default: None, read as 0.8)" in " ".join(text.split())


#: Modelled fields whose choices in a release's table differ from what the pack's
#: ``choices.choices_in`` (ADDED_IN / REMOVED_IN, less INTERNAL) gives: reported to the
#: integrator, kept here so that a fix on either side shows up. (release, field): (names only
#: the pack accepts, names only sglang's parser accepts).
KNOWN_CHOICE_MISMATCHES = {
    # megamoe is a 0.5.18 runner the pack refuses before 0.5.18 by its own rule
    # (passes/moe_kernels.py), not through ADDED_IN
    **{
        (r, f): (["megamoe"], [])
        for r in releases()
        if release_key(r) < release_key("0.5.18")
        for f in ("moe_runner_backend", "speculative_moe_runner_backend")
    },
    # fields/spec.py: the draft model's A2A list did not gain flashinfer_megamoe in 0.5.20-0.5.23
    **{
        (r, "speculative_moe_a2a_backend"): (["flashinfer_megamoe"], [])
        for r in ("0.5.20", "0.5.21", "0.5.22", "0.5.23")
    },
    # 0.5.22 fields/exec_.py: intel_xpu (INTERNAL in the pack) and triton_sparse_mla became user choices
    **{(r, "dsa_prefill_backend"): ([], ["intel_xpu", "triton_sparse_mla"]) for r in ("0.5.22", "0.5.23")},
    **{(r, "dsa_decode_backend"): ([], ["intel_xpu"]) for r in ("0.5.22", "0.5.23")},
}


def test_modelled_choices_agree_with_the_release_tables_except_the_reported_ones():
    from resolvable.sglang import choices as C

    specs = schema_of(ServerArgs).fields
    found = {}
    for release in releases():
        table = load_table(release)
        for dest in sorted(modelled_dests()):
            own = [f for f in table.for_dest(dest) if f.origin == "field"] or table.for_dest(dest)
            allowed = specs[dest].arg.choices
            if not own or allowed is None or own[0].choices is None:
                continue
            pack = set(C.choices_in(release, dest, tuple(allowed))) - set(C.INTERNAL.get(dest, ()))
            sglang = set(own[0].choices)
            if pack != sglang:
                found[(release, dest)] = (sorted(pack - sglang), sorted(sglang - pack))
    assert found == KNOWN_CHOICE_MISMATCHES


# -- a flag of another release is refused with the release that added or removed it -------------


def test_option_history_names_the_release():
    from resolvable.sglang.flags import option_history

    assert "--uno-lora-path" not in _options("0.5.19") and "--uno-lora-path" in _options("0.5.20")
    assert option_history("--uno-lora-path", "0.5.15") == "it was added in 0.5.20"
    assert option_history("--uno-lora-path", "0.5.20") is None
    # a flag removed without a deprecation note: the replacement sglang's message names (0.5.20)
    assert option_history("--elastic-ep-rejoin", "0.5.23") == (
        "it was removed in 0.5.21, use --elastic-ep-join-mode recover"
    )
    assert option_history("--elastic-ep-rejoin", "0.5.20") is None
    # a deprecated spelling that went names the replacement sglang gave it
    assert option_history("--nsa-prefill-backend", "0.5.20") == (
        f"it was removed in 0.5.20, use {load_table('0.5.19').by_option['--nsa-prefill-backend'].deprecated}"
    )
    # a flag sglang dropped says so
    assert option_history("--torchao-config", "0.5.20") == (
        "it was removed in 0.5.18, and sglang names no replacement: drop the flag"
    )


def test_every_removed_flag_names_its_replacement_or_none():
    """Issue 20 item 3: every message about a removed flag says what replaces it (or that
    nothing does); the replacement is a flag of the newest table."""
    from resolvable.sglang.flags import REMOVED_REPLACEMENTS, option_history, releases

    newest = load_table(releases()[-1])
    removed = {o for r in releases() for o in load_table(r).by_option if o not in newest.by_option}
    assert removed
    for option in removed:
        text = option_history(option, releases()[-1])
        assert ", use " in text or "names no replacement" in text, (option, text)
        use = text.partition(", use ")[2].split(";")[0].split()
        if use:
            assert use[0].split("=")[0] in newest.by_option or "{" in use[0], (option, text)
    for option in REMOVED_REPLACEMENTS:
        assert option in removed, option
    assert option_history("--no-such-flag", "0.5.15") is None


def _cli_error(capsys, *argv: str) -> str:
    from resolvable.cli import main

    assert main(["resolve", "llama-3.1-8b", "--platform", "h100", *argv]) == 1  # sglang's parser refuses
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_cli_says_a_later_flag_was_added_in_its_release(capsys):
    err = _cli_error(capsys, "--sglang-version", "0.5.15", "--swa-prefix-tails", "4")
    assert "--swa-prefix-tails is not a flag of sglang 0.5.15; it was added in 0.5.21" in err
    err = _cli_error(capsys, "--sglang-version", "0.5.15", "--monokernel-backend", "amd")
    assert "--monokernel-backend is not a flag of sglang 0.5.15; it was added in 0.5.23" in err
    err = _cli_error(capsys, "--sglang-version", "0.5.14", "--uno-lora-path", "x")
    assert "not a flag of sglang 0.5.14; it was added in 0.5.20" in err


def test_cli_says_a_removed_flag_was_removed_in_its_release(capsys):
    err = _cli_error(capsys, "--sglang-version", "0.5.23", "--speculative-skip-dp-mlp-sync")
    assert "--speculative-skip-dp-mlp-sync is not a flag of sglang 0.5.23; it was removed in 0.5.23" in err
    err = _cli_error(capsys, "--sglang-version", "0.5.22", "--enable-nsa-prefill-context-parallel")
    assert "it was removed in 0.5.20, use --enable-prefill-cp" in err


def test_cli_keeps_did_you_mean_for_typos(capsys):
    err = _cli_error(capsys, "--sglang-version", "0.5.21", "--swa-prefx-tails", "4")
    assert "unknown flag --swa-prefx-tails; did you mean --swa-prefix-tails?" in err
    err = _cli_error(capsys, "--sglang-version", "0.5.21", "--no-such-flag-at-all")
    assert "unknown flag --no-such-flag-at-all (sglang 0.5.21 has no such flag)" in err


def test_pasted_command_and_set_get_the_release_message(capsys):
    from resolvable.cli import main

    pasted = ["sglang", "serve", "--model-path", "llama-3.1-8b", "--enable-response-store"]
    assert main(["explain", "--platform", "h100", "--sglang-version", "0.5.15", "--", *pasted]) == 1
    assert (
        "--enable-response-store is not a flag of sglang 0.5.15; it was added in 0.5.20"
        in capsys.readouterr().err
    )
    assert main(["explain", "--platform", "h100", "--sglang-version", "0.5.20", "--", *pasted]) == 0
    capsys.readouterr()
    set_flag = ["resolve", "llama-3.1-8b", "--platform", "h100", "--set", "elastic_ep_rejoin"]
    assert main([*set_flag, "--sglang-version", "0.5.15"]) == 0
    capsys.readouterr()
    assert main(set_flag) == 1  # the default release, 0.5.23: its parser refuses the flag
    assert "it was removed in 0.5.21" in capsys.readouterr().err
    capsys.readouterr()
    argv = ["resolve", "llama-3.1-8b", "--platform", "h100", "--sglang-version", "0.5.21"]
    assert main([*argv, "--set", "elastic_ep_rejoin"]) == 1
    assert (
        "--elastic-ep-rejoin is not a flag of sglang 0.5.21; it was removed in 0.5.21"
        in capsys.readouterr().err
    )


# -- the extractor on the 0.5.20+ layout, without a wheel (a small source tree in sglang's shape) --

_LAYOUT = {
    "sglang/version.py": '__version__ = "9.9.1"\n',
    "sglang/srt/arg_groups/arg_utils.py": "A = object\nArg = object\n",
    "sglang/srt/arg_groups/field_order.py": 'POSITIONAL_FIELD_ORDER = ("model_path", "b_late", "a_first")\n',
    "sglang/srt/arg_groups/fields/__init__.py": (
        "from sglang.srt.arg_groups.field_order import POSITIONAL_FIELD_ORDER\n"
        "def collect_input_fields(sources): ...\n"
    ),
    "sglang/srt/arg_groups/fields/one.py": (
        "import msgspec\n"
        "from sglang.srt.arg_groups.arg_utils import A, Arg\n"
        "KINDS = ['x', 'y']\n"
        "class One(msgspec.Struct):\n"
        "    _NS_PATH = 'one'\n"
        "    model_path: A[str, Arg(help='m', aliases=['--model'])]\n"
        "    a_first: A[str, Arg(help='a', choices=KINDS)] = 'x'\n"
        "    unlisted: A[Optional[float], Arg(help='u', fallback=0.5)] = None\n"
        "    hidden: A[bool, Arg(no_cli=True)] = False\n"
    ),
    "sglang/srt/arg_groups/fields/two.py": (
        "import msgspec\n"
        "from sglang.srt.arg_groups.arg_utils import A, Arg\n"
        "class Two(msgspec.Struct):\n"
        "    b_late: A[int, 'b'] = 3\n"
        "    items: A[List[str], 'i'] = msgspec.field(default_factory=list)\n"
    ),
    "sglang/srt/names.py": "NAMES = ['p', 'q']\n",
    "sglang/srt/server_args.py": (
        "import msgspec\n"
        "from sglang.srt.arg_groups.fields import collect_input_fields\n"
        "from sglang.srt.arg_groups.fields.one import One\n"
        "from sglang.srt.arg_groups.fields.two import Two\n"
        "def _parsers():\n"
        "    module = sys.modules.get('sglang.srt.registry')\n"
        "    if module is not None:\n"
        "        return list(module.REGISTRY)\n"
        "    from sglang.srt.names import NAMES\n"
        "    return list(NAMES)\n"
        "class ServerArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        add_cli_args_from_dataclass(parser, ServerArgs)\n"
        "        parsers = _parsers()\n"
        "        parser.add_argument('--parser', type=str, choices=['auto'] + parsers,\n"
        "                            default=_declared_default('a_first'))\n"
        "_INPUT_NAMESPACES = [One, Two]\n"
        "_annotations, _defaults, _ns = collect_input_fields(_INPUT_NAMESPACES)\n"
        "ServerArgs = msgspec.defstruct('ServerArgs', [])\n"
    ),
}


def _layout(tmp_path: Path, **changes: str) -> str:
    for rel, text in {**_LAYOUT, **changes}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_extractor_reads_the_namespace_layout(tmp_path):
    table = _extractor().extract(_layout(tmp_path))
    assert table["sglang"] == "9.9.1" and table["source"].startswith("sglang/srt/arg_groups/fields/")
    flags = {f["dest"]: f for f in table["flags"]}
    # POSITIONAL_FIELD_ORDER first, then the fields it does not list in declaration order
    assert [f["dest"] for f in table["flags"]] == [
        "model_path",
        "b_late",
        "a_first",
        "unlisted",
        "items",
        "parser",
    ]
    assert flags["model_path"]["options"] == ["--model-path", "--model"] and flags["model_path"]["required"]
    assert flags["a_first"]["choices"] == ["x", "y"] and flags["items"]["default"] == []
    assert (flags["unlisted"]["default"], flags["unlisted"]["fallback"]) == (None, 0.5)
    # a module function is read at its last return; _declared_default is the field's default
    assert flags["parser"]["choices"] == ["auto", "p", "q"] and flags["parser"]["default"] == "x"


@pytest.mark.parametrize(
    ("rel", "old", "new", "message"),
    [
        ("sglang/srt/arg_groups/fields/two.py", "b_late", "a_first", "declared by both One and Two"),
        ("sglang/srt/arg_groups/fields/one.py", "choices=KINDS", "choices=kinds()", "kinds()"),
        ("sglang/srt/server_args.py", "'a_first'", "'items'", "no field 'items' with a plain default"),
        ("sglang/srt/arg_groups/fields/two.py", "msgspec.Struct", "Base", "has bases ['Base']"),
    ],
)
def test_extractor_refuses_what_it_cannot_read(tmp_path, rel, old, new, message):
    extractor = _extractor()
    path = _layout(tmp_path, **{rel: _LAYOUT[rel].replace(old, new)})
    with pytest.raises(extractor.Unresolved, match=re.escape(message)):
        extractor.extract(path)
