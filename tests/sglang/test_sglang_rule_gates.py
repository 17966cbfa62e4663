"""The sglang pack's rule gates (``only_if_set=``) change no answer: a sample of bundled models ×
platforms × releases × argument sets resolved on the pruned plan and on the whole plan
(``tools/release_parity/gates.py``, which runs every model, platform and release)."""

from __future__ import annotations

import pytest

import resolvable.sglang as pack
from harness_tools import load_tool

gates = load_tool("release_parity_gates", "tools/release_parity/gates.py")

MODELS = ["llama-3.1-8b", "deepseek-v3", "qwen3-30b-a3b", "nemotron-h-8b", "gpt-oss-20b", "falcon-h1-7b"]


@pytest.mark.parametrize("release", [pack.SGLANG_RELEASES[0], "0.5.17", pack.SGLANG_RELEASES[-1]])
def test_pruned_plan_answers_as_the_whole_plan(release):
    n, diffs = gates.compare(MODELS, ("h100", "mi300x"), (release,))
    assert n == len(MODELS) * 2 * (len(gates.ARG_SETS) + 1)
    assert diffs == []


def test_the_comparison_sees_a_wrong_gate():
    """A gate on a rule that fires by default (``sampling_backend_default``) makes the pruned plan
    answer differently, and the comparison reports it."""
    from resolvable._record import record_replace

    registry = pack.registry
    (rule,) = [r for r in registry.rules if r.name == "sampling_backend_default"]
    wrong = record_replace(rule, only_if_set=frozenset({"pp_size"}))
    with registry._lock:
        registry._replace(rule, wrong)
    try:
        _, diffs = gates.compare(["llama-3.1-8b"], ("h100",), (pack.SGLANG_RELEASES[-1],))
    finally:
        with registry._lock:
            registry._replace(wrong, rule)
    assert diffs and diffs[0].startswith("llama-3.1-8b h100")


def test_llama_plan_leaves_out_the_gated_rules():
    """What the gates buy: the newest release's Llama plan calls fewer rule bodies than it holds."""
    from resolvable.sglang.models import bundled

    plan = pack.registry.compiled(bundled("llama-3.1-8b").architecture, pack.SGLANG_RELEASES[-1])
    groups, watched = plan.pruned(frozenset())
    whole = sum(len(rules) for *_, rules in plan.groups)
    kept = sum(len(rules) for *_, rules in groups)
    assert watched and {"dcp_size", "pp_size", "moe_a2a_backend"} <= watched
    assert kept < whole - 10
