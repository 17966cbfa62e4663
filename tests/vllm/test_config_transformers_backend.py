"""Issue 28, fourth round: vLLM's Transformers backend decides the runner checks and ``attn_type``
for a pooling architecture vLLM does not register (``model_executor/models/registry.py :
inspect_model_cls``, the fallback tried before ``_normalize_arch``; ``config/model.py :
_get_transformers_backend_cls``; ``transformers/pooling.py``: the backend's pooling classes pool
CLS). Found on dev seeds 7009/7010 (``operators``): ``--hf-overrides
'{"architectures":["Olmo2ForSequenceClassification"]}' --convert none`` is accepted by vLLM as an
encoder-only pooling model; the pack refused "does not support `--runner pooling`"."""

from __future__ import annotations

import pytest
from config_cases import cfg_refusal, cfg_res, llama

from resolvable.vllm.config import model_info

RELEASES = ("0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0")


def test_table_holds_transformers_pooling_classes_only():
    """``transformers_pooling.json`` (transformers 5.20.2): Llama's and Olmo-2's sequence
    classifiers are exported, Mistral Large 3 has no transformers class."""
    assert model_info.transformers_backend_pools("LlamaForSequenceClassification", "auto")
    assert model_info.transformers_backend_pools("Olmo2ForSequenceClassification", "pooling")
    assert not model_info.transformers_backend_pools("MistralLarge3ForSequenceClassification", "auto")
    # --runner generate: the backend's class is TransformersForCausalLM, no pooler
    assert not model_info.transformers_backend_pools("LlamaForSequenceClassification", "generate")
    # a class vLLM registers is never the backend's
    assert not model_info.transformers_backend_pools("BertForSequenceClassification", "auto")


@pytest.mark.parametrize("release", RELEASES)
def test_convert_none_serves_the_transformers_pooling_class(release):
    """``--convert none`` on ``LlamaForSequenceClassification``: ``is_pooling_model`` is the
    backend's ``TransformersForSequenceClassification`` (pooling), so the runner check passes and
    the class's CLS pooling makes the attention ``encoder_only`` (chunked prefill and prefix
    caching off); with the default convert (classify) the registered Llama class is adapted."""
    cfg = llama(architectures=["LlamaForSequenceClassification"])
    r = cfg_res(cfg, "h100", release, convert="none")
    assert (r["runner_type"], r["attn_type"]) == ("pooling", "encoder_only")
    assert (r["enable_chunked_prefill"], r["enable_prefix_caching"]) == (False, False)
    r = cfg_res(cfg, "h100", release)
    assert (r["runner_type"], r["attn_type"]) == ("pooling", "decoder")


@pytest.mark.parametrize("release", RELEASES)
def test_without_a_transformers_class_convert_none_is_refused(release):
    """No transformers class of the name: ``_normalize_arch`` gives the registered CausalLM,
    which has no pooler, and ``--convert none`` cannot adapt it."""
    cfg = llama(architectures=["MistralLarge3ForSequenceClassification"])
    exc = cfg_refusal(cfg, "h100", release, convert="none")
    assert str(exc).startswith("This model does not support `--runner pooling`.")


@pytest.mark.parametrize("release", RELEASES)
def test_runner_generate_makes_the_backend_class_generative(release):
    """``--runner pooling`` is what makes the backend class a pooler; under ``--runner draft`` or
    ``generate`` the backend would be ``TransformersForCausalLM`` and the model generates."""
    cfg = llama(architectures=["LlamaForSequenceClassification"])
    assert cfg_res(cfg, "h100", release, runner="generate")["runner_type"] == "generate"


@pytest.mark.parametrize("release", RELEASES)
def test_a_convert_the_suffix_does_not_name_leaves_the_backend_class(release):
    """Dev seed 7003 (case 74): ``--convert embed`` on ``…ForSequenceClassification``:
    ``try_match_architecture_defaults(arch, runner_type="pooling", convert_type="embed")`` matches
    no suffix, so ``_normalize_arch`` finds no Llama class to adapt and the backend's CLS-pooled
    class serves it — encoder-only, chunked prefill off, so a 2048-token budget under a
    4096-token context is refused ("max_num_batched_tokens (2048) is smaller than max_model_len")."""
    cfg = llama(architectures=["LlamaForSequenceClassification"])
    r = cfg_res(cfg, "h100", release, convert="embed")
    assert (r["attn_type"], r["enable_chunked_prefill"]) == ("encoder_only", False)
    exc = cfg_refusal(cfg, "h100", release, convert="embed", max_num_batched_tokens=2048)
    assert str(exc).startswith("max_num_batched_tokens (2048) is smaller than max_model_len (4096)")
    # --convert classify matches the suffix: the registered Llama class, adapted (causal)
    assert cfg_res(cfg, "h100", release, convert="classify")["attn_type"] == "decoder"
