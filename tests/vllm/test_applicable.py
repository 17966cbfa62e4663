"""Only what applies (issue 26 item 7) for the vLLM pack: every field ``explain`` prints for a
bundled model belongs to a kind of layer (or feature) the model has; the rest is listed by ``--all``
only (``Pack.not_applicable``, ``resolvable.vllm.applicable``)."""

from __future__ import annotations

import pytest

from resolvable import packs
from resolvable.cli import main
from resolvable.vllm.config.facts import is_hybrid
from resolvable.vllm.layers import kinds_of

PACK = packs.get("vllm")


def _needs(field: str) -> str | None:
    """The layer kind (or feature) a printed field belongs to; None: every model."""
    if field in ("attn_backend_mla", "mla_prefill_backend"):
        return "mla"
    if field in ("sparse_mla_prefill_workspace_factor", "attn_backend_indexer"):
        return "indexer"
    if field.startswith("mamba_"):
        return "mamba"
    for kind in ("full", "sliding_window", "encoder", "cross"):
        if field == f"attn_backend_{kind}":
            return kind
    return None


@pytest.mark.parametrize("platform", ["h100", "b200", "mi300x"])
def test_every_printed_field_applies_to_the_bundled_model(platform):
    checked = 0
    for model in sorted(PACK.catalog()):
        hf = PACK.load_model(model)
        try:
            res = PACK.resolve(hf, PACK.platform(platform), {})
        except ValueError:  # refused (e.g. DeepSeek-V4's compressed attention): nothing printed
            continue
        kinds = set(kinds_of(hf, bool(res["use_mla"])))
        if is_hybrid(hf) or "mamba" in (hf.architecture or "").lower():
            kinds.add("mamba")
        shown = set(res.changed()) - PACK.not_applicable(res)
        for field in shown:
            need = _needs(field)
            assert need is None or need in kinds, f"{model}@{platform}: {field} printed without {need}"
            checked += need is not None
    assert checked > 50


def test_a_dense_mla_model_lists_the_sparse_factor_under_all_only(capsys):
    """DeepSeek-R1 has MLA but no sparse indexer: vLLM 0.32+ resolves the sparse-MLA prefill
    workspace factor for every model, but only FLASHMLA_SPARSE layers read it."""
    argv = ["explain", "--engine", "vllm", "--platform", "b200", "deepseek-r1", "--tensor-parallel-size", "8"]
    main(argv)
    out = capsys.readouterr().out
    assert "sparse_mla_prefill_workspace_factor = " not in out
    assert "not shown, irrelevant for this model: sparse_mla_prefill_workspace_factor" in out
    main([*argv, "--all"])
    assert "sparse_mla_prefill_workspace_factor = " in capsys.readouterr().out
    main(
        ["explain", "--engine", "vllm", "--platform", "b200", "deepseek-v3.2", "--tensor-parallel-size", "8"]
    )
    assert "sparse_mla_prefill_workspace_factor = " in capsys.readouterr().out  # the sparse indexer reads it
