"""sglang 0.5.6.post1 → 0.5.6.post2: one golden case per modelled change
(docs/releases/0.5.6.post2.md).

Each case resolves the same input with 0.5.6.post1 and with 0.5.6.post2 (both ``.postN``
releases resolved as releases of their own) and asserts both answers, which follow the wheels'
``server_args.py`` / ``utils/common.py`` and were measured against the real ``ServerArgs`` of each
(tools/agreement/compare_step.py, oracle venvs venv-0.5.6.post1 with its transformers 5.0.0rc0
pin, venv-0.5.6.post2).
"""

from __future__ import annotations

from release_helpers import refusal_at, resolve_at

from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table

OLD, NEW = "0.5.6.post1", "0.5.6.post2"


def test_the_changes_of_0_5_6_post2_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {"SM90_PROBE_CUDA_ONLY"}


def test_each_post_release_reads_its_own_flags():
    assert "--fp8-gemm-backend" in load_table(NEW).by_option
    assert "--fp8-gemm-backend" not in load_table(OLD).by_option
    assert "flash_rl" in load_table(NEW).by_option["--load-format"].choices
    assert "flash_rl" not in load_table(OLD).by_option["--load-format"].choices


def test_llama4_sm90_probe_fails_on_rocm_before_0_5_6_post2():
    """0.5.6.post1's ``is_sm90_supported`` asks ``is_cuda_alike()``: on an MI300X (capability 9)
    it compares the missing ``torch.version.cuda`` with "12.3" and raises a TypeError; 0.5.6.post2
    asks ``is_cuda()`` and Llama 4 gets aiter."""
    text = refusal_at("llama-4-scout", "mi300x", OLD, tp_size=8)
    assert "'>=' not supported between instances of 'NoneType' and 'str'" in text
    assert resolve_at("llama-4-scout", "mi300x", NEW, tp_size=8)["attention_backend"] == "aiter"
    # a named backend never reaches the probe, and CUDA is unchanged
    assert (
        resolve_at("llama-4-scout", "mi300x", OLD, tp_size=8, attention_backend="triton")["attention_backend"]
        == "triton"
    )
    assert resolve_at("llama-4-scout", "h100", OLD, tp_size=8)["attention_backend"] == "fa3"
