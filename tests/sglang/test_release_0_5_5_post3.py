"""sglang 0.5.5.post2 → 0.5.5.post3: one golden case per modelled change
(docs/releases/0.5.5.post3.md).

The step brought flags, choices and fields; of its behaviour only the ``--sampling-backend``
choice ``ascend`` is ServerArgs-visible in what the pack models (the NPU HiCache settings, the
LoRA/speculative check and the request-metrics check are rules the pack models at no release;
GPT-OSS's piecewise-CUDA-graph MoE arm is folded as at every release). Each case resolves the
same input with 0.5.5.post2 and 0.5.5.post3 (both resolved as releases of their own) and asserts
both answers, measured against the real ``ServerArgs`` of each (tools/agreement/compare_step.py,
oracle venvs venv-0.5.5.post2 and venv-0.5.5.post3).
"""

from __future__ import annotations

import pytest
from release_helpers import resolve_at

from resolvable.errors import InvalidArgumentError
from resolvable.sglang.changes import CHANGES
from resolvable.sglang.flags import load_table

OLD, NEW = "0.5.5.post2", "0.5.5.post3"


def test_the_changes_of_0_5_5_post3_are_named():
    assert {c.name for c in CHANGES.introduced(NEW)} == {"CHOICES_SAMPLING_ASCEND"}


def test_each_post_release_reads_its_own_flags():
    for option in (
        "--export-metrics-to-file",
        "--enable-draft-weights-cpu-backup",
        "--enable-attn-tp-input-scattered",
    ):
        assert option in load_table(NEW).by_option
        assert option not in load_table(OLD).by_option
    assert "page_first_kv_split" in load_table(NEW).by_option["--hicache-mem-layout"].choices
    assert "page_first_kv_split" not in load_table(OLD).by_option["--hicache-mem-layout"].choices


def test_ascend_is_a_sampling_backend_choice_from_0_5_5_post3():
    with pytest.raises(InvalidArgumentError, match="invalid choice: 'ascend'"):
        resolve_at("qwen3-8b", "npu", OLD, sampling_backend="ascend")
    assert resolve_at("qwen3-8b", "npu", NEW, sampling_backend="ascend")["sampling_backend"] == "ascend"
    assert resolve_at("qwen3-8b", "npu", OLD, sampling_backend="pytorch")["sampling_backend"] == "pytorch"
