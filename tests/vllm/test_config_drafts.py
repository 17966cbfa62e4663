"""Golden facts of a speculative draft directory's ``config.json`` (``resolvable.vllm.config.draft``),
0.28-0.34 (the same in each: ``SpeculativeConfig.__post_init__`` in ``config/speculative.py`` up to
0.33, ``DraftModelSpeculatorConfig.configure`` / ``resolve_num_speculative_tokens`` in
``v1/worker/gpu/spec_decode/speculator_config.py`` in 0.34; ``_verify_and_get_draft_tp`` in all).
Real draft configs: tests/vllm/drafts (sources in tests/vllm/drafts/SOURCES)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.config.draft import draft_n_predict, load_draft_config
from resolvable.vllm.config.parallel import with_gpus
from resolvable.vllm.platforms import platform

DRAFTS = Path(__file__).parent / "drafts"
RELEASES = ("0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")


def _resolve(release: str, spec: dict, **flags):
    hf = load_model("llama-3.1-8b")
    p = with_gpus(platform("h100"), 8)
    r = resolve_vllm_args(hf, p, vllm_version=release, speculative_config=json.dumps(spec), **flags)
    return SimpleNamespace(**{k: r[k] for k in ("speculative_method", "num_speculative_tokens")})


@pytest.mark.parametrize("name", ["qwen3-4b-eagle3", "llama3.3-70b-eagle3"])
def test_real_eagle3_drafts_name_no_n_predict(name):
    cfg = load_draft_config(str(DRAFTS / name))
    assert cfg is not None and cfg["architectures"] == ["LlamaForCausalLMEagle3"]
    assert draft_n_predict(cfg, "eagle3") is None


@pytest.mark.parametrize("release", RELEASES)
def test_real_eagle3_draft_without_tokens_still_refused(release):
    # no n_predict in the draft config → num_speculative_tokens stays unset and vLLM refuses
    with pytest.raises(ConflictError, match="A speculative model was provided, but `num_speculative_tokens`"):
        _resolve(release, {"method": "eagle3", "model": str(DRAFTS / "qwen3-4b-eagle3")})


@pytest.mark.parametrize("release", RELEASES)
def test_real_eagle3_draft_with_tokens(release):
    args = _resolve(
        release, {"method": "eagle3", "model": str(DRAFTS / "qwen3-4b-eagle3"), "num_speculative_tokens": 3}
    )
    assert (args.speculative_method, args.num_speculative_tokens) == ("eagle3", 3)


def _draft_dir(tmp_path: Path, **cfg) -> str:
    """A synthetic draft directory (no real draft config carrying n_predict was found this round)."""
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], **cfg}))
    return str(tmp_path)


@pytest.mark.parametrize("release", RELEASES)
def test_n_predict_is_the_default(release, tmp_path):
    args = _resolve(release, {"model": _draft_dir(tmp_path, n_predict=4)})
    assert (args.speculative_method, args.num_speculative_tokens) == ("draft_model", 4)


@pytest.mark.parametrize("release", RELEASES)
def test_n_predict_divides_a_larger_value(release, tmp_path):
    with pytest.raises(ConflictError, match=r"num_speculative_tokens:6 must be divisible by n_predict=4"):
        _resolve(release, {"model": _draft_dir(tmp_path, n_predict=4), "num_speculative_tokens": 6})
    args = _resolve(release, {"model": _draft_dir(tmp_path, n_predict=4), "num_speculative_tokens": 8})
    assert args.num_speculative_tokens == 8
    args = _resolve(release, {"model": _draft_dir(tmp_path, n_predict=4), "num_speculative_tokens": 3})
    assert args.num_speculative_tokens == 3


def test_dflash_block_size_is_n_predict():
    assert draft_n_predict({"block_size": 16}, "dflash") == 16
    assert draft_n_predict({"block_size": 16}, "draft_model") is None
    assert draft_n_predict({"n_predict": 2, "block_size": 16}, "dspark") == 2


@pytest.mark.parametrize("release", RELEASES)
def test_draft_tp_is_one_or_the_targets(release):
    spec = {"method": "eagle3", "model": str(DRAFTS / "qwen3-4b-eagle3"), "num_speculative_tokens": 3}
    with pytest.raises(
        ConflictError, match="cannot be other value than 1 or target model tensor_parallel_size"
    ):
        _resolve(release, {**spec, "draft_tensor_parallel_size": 2}, tensor_parallel_size=4)
    for tp in (1, 4):
        _resolve(release, {**spec, "draft_tensor_parallel_size": tp}, tensor_parallel_size=4)


def test_hub_id_is_not_read(tmp_path):
    assert load_draft_config("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B") is None
    assert load_draft_config(str(tmp_path)) is None  # a directory without config.json


def test_bad_draft_config_is_an_input_error(tmp_path):
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(InvalidArgumentError, match="not a JSON object"):
        load_draft_config(str(tmp_path))
    (tmp_path / "config.json").write_text("{oops")
    with pytest.raises(InvalidArgumentError, match="cannot be read as JSON"):
        load_draft_config(str(tmp_path))
