"""ServerArgs (resolution in __post_init__), argparse integration, the HRM-Text refresh path."""

from __future__ import annotations

import argparse

import pytest

from resolvable import Platform, publish_args, refresh_declared_fields
from resolvable.errors import InvalidArgumentError, ParityError
from resolvable.sglang import ServerArgs, add_cli_args, from_cli_args, load_model
from resolvable.sglang.families.hrm_text import hrm_text_adjustments

H100 = Platform.preset("h100")


def test_post_init_resolves_and_materializes():
    sa = ServerArgs(
        model_path="deepseek-v3", tp_size=8, platform=Platform.preset("b200"), env={}, sglang_version="0.5.15"
    )
    assert sa.attention_backend == "trtllm_mla" and sa.page_size == 64
    assert sa.resolution["attention_backend"] == "trtllm_mla"
    assert publish_args(sa).attn.backend == "trtllm_mla"


def test_dummy_model_resolves_nothing():
    sa = ServerArgs(model_path="dummy")
    assert sa.resolution is None and sa.attention_backend is None


def test_hrm_text_model_runner_adjustment_needs_refresh():
    """Spec §3.19/§6.10, worked example 106: the runner forces triton; publish needs the refresh."""
    # 0.5.15: the ModelRunner makes the adjustment (0.5.16 moved it into __post_init__)
    sa = ServerArgs(model_path="hrm-text", platform=H100, env={}, sglang_version="0.5.15")
    assert sa.attention_backend == "fa3"  # after __post_init__
    for field, value in hrm_text_adjustments(load_model("hrm-text")).items():
        setattr(sa, field, value)  # the procedural ModelRunner adjustment
    with pytest.raises(ParityError, match="attention_backend: resolved='fa3' live='triton'"):
        publish_args(sa)
    res = refresh_declared_fields(
        sa,
        (
            "attention_backend",
            "chunked_prefill_size",
            "disable_radix_cache",
            "disable_cuda_graph",
            "cuda_graph_backend_prefill",
            "cuda_graph_backend_decode",
        ),
    )
    assert res.declarations[-1].rule.startswith("runtime_adjustment[")
    assert "runtime_adjustment[attention_backend]" in {d.rule for d in res.declarations}
    ctx = publish_args(sa)
    assert ctx.attn.backend == "triton" and ctx.sched.chunked_prefill_size == -1


def test_argparse_records_only_passed_flags():
    parser = argparse.ArgumentParser()
    add_cli_args(parser)
    ns = parser.parse_args(["--model-path", "llama-3.1-8b", "--attention-backend", "triton", "--tp", "2"])
    sa = from_cli_args(ns, platform=H100, env={})
    res = sa.resolution
    assert set(res.user) == {"model_path", "attention_backend", "tp_size"}
    assert sa.attention_backend == "triton" and sa.tp_size == 2


def test_argparse_invalid_choice_lists_valid_ones(capsys):
    parser = argparse.ArgumentParser()
    add_cli_args(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--attention-backend", "fa5"])
    assert "invalid choice: 'fa5'" in capsys.readouterr().err


def test_unknown_keyword_is_a_clear_error():
    with pytest.raises(InvalidArgumentError, match="did you mean 'attention_backend'"):
        from resolvable.sglang import resolve_server_args

        resolve_server_args(load_model("llama-3.1-8b"), H100, attention_backnd="fa3")


def test_server_args_models_the_named_release():
    """``ServerArgs(..., sglang_version=)`` resolves for that release, and ends as sglang's
    ``__post_init__`` does (HRM-Text's adjustment moved into it in 0.5.16)."""
    from resolvable import Platform
    from resolvable.sglang import ServerArgs
    from resolvable.sglang.models import load_model

    hrm, h100 = load_model("hrm-text"), Platform.preset("h100")
    old = ServerArgs(model_path="hrm", hf_config=hrm, platform=h100, sglang_version="0.5.15")
    new = ServerArgs(model_path="hrm", hf_config=hrm, platform=h100, sglang_version="0.5.23")
    assert old.resolution.release == "0.5.15" and new.resolution.release == "0.5.23"
    assert old.attention_backend != "triton"  # 0.5.15: the ModelRunner switches it at load time
    assert new.attention_backend == "triton"
