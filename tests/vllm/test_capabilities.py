"""The capability table is generated from the candidates' checks (not written by hand)."""

from __future__ import annotations

from resolvable.vllm import capability_markdown, capability_table
from resolvable.vllm.capabilities import COLUMNS


def _row(name):
    return next(r for r in capability_table() if r["backend"] == name)


def test_rows_carry_the_declared_capabilities():
    assert _row("FLASHINFER_MLA")["block sizes"] == "32, 64"
    assert _row("FLASHINFER_MLA")["MLA"] is True
    assert _row("CUTLASS_MLA")["block sizes"] == "128"
    assert _row("FLASHMLA_SPARSE")["sparse"] is True
    assert _row("TRITON_ATTN")["sinks"] == "True"
    assert _row("FLASHINFER")["needs"] == "flashinfer"
    assert "major 10" in _row("FLASHINFER_MLA")["compute capability"]
    assert _row("TRITON_ATTN")["platforms"] == "cuda, rocm, xpu"


def test_every_row_has_every_column_and_no_anonymous_function():
    md = capability_markdown()
    assert "<lambda>" not in md
    for row in capability_table():
        assert set(row) == set(COLUMNS)
    assert md.count("\n") == len(capability_table()) + 2
