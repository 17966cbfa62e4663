"""The vLLM ↔ SGLang translation table (resolvable/vllm/peer_sglang.py): every rule, both
directions, for every modelled release pair (each flag checked against both releases' tables)."""

from __future__ import annotations

import json

import pytest

from resolvable import packs
from resolvable.translate import TranslationError, parse_flags, translate

VLLM = packs.get("vllm")
SGLANG = packs.get("sglang")
TABLE = packs.translation("vllm", "sglang")
PAIRS = [(v, s) for v in VLLM.releases for s in SGLANG.releases]

#: rule name → (vLLM flags, the SGLang flags they translate to, what those translate back to)
SAMPLES = {
    "tensor parallel size": (["-tp", "4"], ["--tp-size", "4"], ["--tensor-parallel-size", "4"]),
    "pipeline parallel size": (["--pipeline-parallel-size", "2"], ["--pp-size", "2"], None),
    "data parallel size": (["--data-parallel-size", "2"], ["--dp-size", "2"], None),
    "expert parallelism": (
        ["--enable-expert-parallel"],
        ["--ep-size", "1"],
        [],  # ep_size 1 is expert parallelism off
    ),
    "context length": (
        ["--max-model-len", "32k"],
        ["--context-length", "32000"],
        ["--max-model-len", "32000"],
    ),
    "KV-cache dtype": (
        ["--kv-cache-dtype", "fp8"],
        ["--kv-cache-dtype", "fp8_e4m3"],
        ["--kv-cache-dtype", "fp8_e4m3"],
    ),
    "concurrent requests": (["--max-num-seqs", "64"], ["--max-running-requests", "64"], None),
    "chunked prefill": (
        ["--max-num-batched-tokens", "4096"],
        ["--chunked-prefill-size", "4096"],
        None,
    ),
    "speculative decoding": (
        ["--speculative-config", '{"method": "eagle3", "model": "org/draft", "num_speculative_tokens": 3}'],
        [
            "--speculative-algorithm",
            "EAGLE3",
            "--speculative-draft-model-path",
            "org/draft",
            "--speculative-num-steps",
            "3",
            "--speculative-eagle-topk",
            "1",
            "--speculative-num-draft-tokens",
            "4",
        ],
        [
            "--speculative-config",
            json.dumps(
                {"method": "eagle3", "model": "org/draft", "num_speculative_tokens": 3}, separators=(",", ":")
            ),
        ],
    ),
    "quantization": (["--quantization", "fp8"], ["--quantization", "fp8"], None),
    "trust remote code": (["--trust-remote-code"], ["--trust-remote-code"], None),
    "served model name": (["--served-model-name", "m"], ["--served-model-name", "m"], None),
    "CUDA graphs off": (["--enforce-eager"], ["--disable-cuda-graph"], None),
    "prefix caching": (["--no-enable-prefix-caching"], ["--disable-radix-cache"], None),
    "dtype": (["--dtype", "bfloat16"], ["--dtype", "bfloat16"], None),
    "KV page size": (["--block-size", "32"], ["--page-size", "32"], None),
    "attention backend": (["--attention-backend", "FLASHINFER"], ["--attention-backend", "flashinfer"], None),
    "random seed": (["--seed", "7"], ["--random-seed", "7"], None),
    "host": (["--host", "0.0.0.0"], ["--host", "0.0.0.0"], None),
    "port": (["--port", "8000"], ["--port", "8000"], None),
    "tokenizer": (["--tokenizer", "org/tok"], ["--tokenizer-path", "org/tok"], None),
    "revision": (["--revision", "main"], ["--revision", "main"], None),
    "download directory": (["--download-dir", "/d"], ["--download-dir", "/d"], None),
    "reasoning parser": (["--reasoning-parser", "deepseek_r1"], ["--reasoning-parser", "deepseek-r1"], None),
    "tool calls": (
        ["--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"],
        ["--tool-call-parser", "qwen3_coder"],
        None,
    ),
    "tokenizer mode": (["--tokenizer-mode", "slow"], ["--tokenizer-mode", "slow"], None),
    "nodes": (["--nnodes", "2"], ["--nnodes", "2"], None),
    "node rank": (["--node-rank", "1"], ["--node-rank", "1"], None),
}


def _run(source: str, words: list[str], src_release: str, tgt_release: str):
    src, tgt = (VLLM, SGLANG) if source == "vllm" else (SGLANG, VLLM)
    flags, unknown = parse_flags(words, src.flag_table(src_release).by_option, src_release)
    assert not unknown, unknown
    return translate(TABLE, source, flags, tgt.flag_table(tgt_release), unknown=unknown)


def test_every_rule_has_a_sample():
    assert {r.name for r in TABLE.rules} == set(SAMPLES)
    assert all(r.cite for r in TABLE.rules)


@pytest.mark.parametrize(("vllm", "sglang"), PAIRS)
@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_rule_both_directions(rule, vllm, sglang):
    v_words, s_words, back = SAMPLES[rule]
    forward = _run("vllm", v_words, vllm, sglang)
    assert forward.untranslated == ()
    assert [s.rule for s in forward.steps] == [rule]
    assert list(forward.target_words) == s_words
    backward = _run("sglang", s_words, sglang, vllm)
    assert backward.untranslated == ()
    assert list(backward.target_words) == (v_words if back is None else back)


def test_memory_knobs_are_named_not_equated():
    out = _run("vllm", ["--gpu-memory-utilization", "0.8", "-tp", "2"], "0.34.0", "0.5.23")
    assert list(out.target_words) == ["--tp-size", "2"]
    assert [f for f, _ in out.untranslated] == ["--gpu-memory-utilization 0.8"]
    assert "not equated" in out.untranslated[0][1]
    back = _run("sglang", ["--mem-fraction-static", "0.9"], "0.5.23", "0.34.0")
    assert back.target_words == () and "not equated" in back.untranslated[0][1]


def test_a_flag_without_equivalent_is_named():
    out = _run(
        "sglang",
        ["--enable-dp-attention", "--tp-size", "8", "--speculative-algorithm", "STANDALONE"],
        "0.5.23",
        "0.34.0",
    )
    named = dict(out.untranslated)
    assert "--enable-dp-attention" in named and "no vllm equivalent" in named["--enable-dp-attention"]
    assert "--speculative-algorithm STANDALONE" in named
    assert list(out.target_words) == ["--tensor-parallel-size", "8"]


def test_value_without_equivalent_and_chunked_prefill_off():
    out = _run("vllm", ["--kv-cache-dtype", "fp8_inc", "--no-enable-chunked-prefill"], "0.34.0", "0.5.23")
    assert list(out.target_words) == ["--chunked-prefill-size", "-1"]
    assert "fp8_inc" in out.untranslated[0][0]
    back = _run("sglang", ["--chunked-prefill-size", "-1"], "0.5.23", "0.34.0")
    assert list(back.target_words) == ["--no-enable-chunked-prefill"]


def test_missing_value_is_a_one_line_error():
    with pytest.raises(TranslationError, match="expects a value"):
        parse_flags(["--tp-size"], SGLANG.flag_table("0.5.23").by_option, "0.5.23")


def test_parser_names_follow_each_engine():
    out = _run(
        "vllm",
        ["--reasoning-parser", "minimax_m2_append_think", "--tool-call-parser", "minimax_m2"],
        "0.34.0",
        "0.5.23",
    )
    assert list(out.target_words) == [
        "--reasoning-parser",
        "minimax-append-think",
        "--tool-call-parser",
        "minimax-m2",
    ]
    back = _run(
        "sglang", ["--reasoning-parser", "gpt-oss", "--tool-call-parser", "gpt-oss"], "0.5.23", "0.34.0"
    )
    assert list(back.target_words) == [
        "--reasoning-parser",
        "openai_gptoss",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "openai",
    ]
    odd = _run("vllm", ["--enable-auto-tool-choice"], "0.34.0", "0.5.23")
    assert odd.target_words == () and odd.untranslated == ()
    assert "alone" in odd.steps[0].note


def test_dotted_and_underscore_options_are_read():
    """vLLM reads ``--limit-mm-per-prompt.video 0`` (one key of a JSON flag) and
    ``--enable_expert_parallel`` (underscores for dashes)."""
    out = _run(
        "vllm",
        ["--limit-mm-per-prompt.video", "0", "--enable_expert_parallel", "-tp", "4"],
        "0.34.0",
        "0.5.23",
    )
    assert list(out.target_words) == ["--tp-size", "4", "--ep-size", "4"]
    assert [f for f, _ in out.untranslated] == ["--limit-mm-per-prompt.video 0"]
