"""sglang 0.5.5.post1 → 0.5.5.post2: one golden case per modelled change
(docs/releases/0.5.5.post2.md).

Each case resolves the same input with 0.5.5.post1 and 0.5.5.post2 (both resolved as releases
of their own) and asserts both answers, which follow the wheels' ``server_args.py``
(``_handle_model_specific_adjustments``, its new Qwen3-Next branch) and
``layers/attention/attention_registry.py`` (``attn_backend_wrapper``), measured against the real
``ServerArgs`` of each (tools/agreement/compare_step.py, oracle venvs venv-0.5.5.post1 and
venv-0.5.5.post2).
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES

OLD, NEW = "0.5.5.post1", "0.5.5.post2"


def test_the_changes_of_0_5_5_post2_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {
        "QWEN3_NEXT_RADIX_OVERLAP_OFF",
        "HYBRID_GDN_BLACKWELL_TRTLLM_MHA",
    }


def test_qwen3_next_turns_the_overlap_schedule_off_from_0_5_5_post2():
    """MambaRadixCache and the overlap schedule did not mix: 0.5.5.post2's new Qwen3-Next branch
    turns the overlap schedule off while the radix cache is on."""
    assert resolve_at("qwen3-next-80b-a3b", "h100", OLD, tp_size=4)["disable_overlap_schedule"] is False
    assert resolve_at("qwen3-next-80b-a3b", "h100", NEW, tp_size=4)["disable_overlap_schedule"] is True
    off = {"tp_size": 4, "disable_radix_cache": True}
    assert resolve_at("qwen3-next-80b-a3b", "h100", NEW, **off)["disable_overlap_schedule"] is False


def test_hybrid_gdn_on_blackwell_accepts_trtllm_mha_from_0_5_5_post2():
    flags = {"tp_size": 4, "attention_backend": "trtllm_mha", "startup": True}
    text = refusal_at("qwen3-next-80b-a3b", "b200", OLD, **flags)
    assert "triton backend is the only supported backend on Blackwell GPUs for hybrid GDN models" in text
    assert resolve_at("qwen3-next-80b-a3b", "b200", NEW, **flags)["attention_backend"] == "trtllm_mha"
    text = refusal_at(
        "qwen3-next-80b-a3b", "b200", NEW, tp_size=4, attention_backend="flashinfer", startup=True
    )
    assert "triton or trtllm_mha backend are the only supported backends on Blackwell" in text
    triton = {"tp_size": 4, "attention_backend": "triton", "startup": True}
    assert resolve_at("qwen3-next-80b-a3b", "b200", OLD, **triton)["attention_backend"] == "triton"
