"""Issue 26 × 27: fit's verdict comes from the memory model's structured answer (status, failing
allocation, shortfall, fix), ``--used-gib`` reaches both engines' memory models through the
launch's node, and an ``unknown`` memory answer never reads as ``starts`` (exit code 3)."""

from __future__ import annotations

import json

import pytest

from resolvable.cli import main
from resolvable.memory import GIB
from resolvable.verdict import EXIT_UNKNOWN, Verdict


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_unknown_memory_answer_is_its_own_verdict_and_exits_3(capsys):
    """An MLA model with an fp8 KV cache on the aiter backend: the persistent decode kernel's
    metadata is sized inside aiter (get_mla_metadata_info_v1) after the pool: unknown, exit 3. (sglang
    issue 18263's Qwen3-30B launch now gets a verdict: its workspaces are counted, test_after_pool.)"""
    argv = (
        *("fit", "deepseek-v3", "--platform", "mi355x", "--attention-backend", "aiter", "--tp-size", "8"),
        *("--kv-cache-dtype", "fp8_e4m3"),  # fp8 KV: aiter's persistent MLA decode kernel
    )
    code, out, err = run(capsys, *argv, "--json")
    verdict = json.loads(out)["verdict"]
    assert code == EXIT_UNKNOWN == 3 and verdict["exit_code"] == 3
    assert verdict["status"] == "unknown" and verdict["allocation"] == "aiter MLA decode metadata"
    assert any(u.startswith("memory: aiter MLA decode metadata") for u in verdict["unknowns"])
    assert json.loads(out)["memory"]["status"] == "unknown"
    assert err.startswith("error: ") and "unknown" in err
    code, out, _ = run(capsys, *argv)
    assert code == 3 and "verdict   unknown: may not fit (aiter MLA decode metadata)" in out
    assert "verdict   would start" not in out and "unknown   aiter MLA" in out
    # the sized allocations hold one full-context request: the smallest TP is still named
    assert "smallest TP that fits one full-context request: " in out
    # sglang issue 18263's launch: the aiter workspaces are sized, a verdict, exit 0
    qwen = ("fit", "qwen3-30b-a3b", "--platform", "mi355x", "--attention-backend", "aiter")
    code, out, _ = run(capsys, *qwen, "--mem-fraction-static", "0.911")
    assert code == 0 and "aiter decode workspace: 10.16 GiB" in out and "verdict   would start" in out


def test_unknown_status_is_not_starts():
    v = Verdict("unknown", allocation="x", message="unknown: x")
    assert not v.starts and v.exit_code == 3 and v.to_dict()["status"] == "unknown"


def test_weights_allocation_and_shortfall_come_from_the_report(capsys):
    code, out, _ = run(capsys, "fit", "llama-3.3-70b", "--platform", "h100", "--json")
    data = json.loads(out)
    verdict, memory = data["verdict"], data["memory"]
    assert code == 1 and verdict["status"] == "does-not-fit"
    assert verdict["allocation"] == memory["failing_allocation"] == "weights"
    assert verdict["shortfall_bytes"] / GIB == pytest.approx(memory["short_by_gib"], abs=0.001)
    assert verdict["shortfall_bytes"] > 0


def test_used_gib_reaches_the_sglang_memory_model(capsys):
    base = ("fit", "llama-3.1-8b", "--platform", "h100", "--json")
    _, alone, _ = run(capsys, *base)
    code, shared, _ = run(capsys, *base, "--used-gib", "20")
    alone, shared = json.loads(alone), json.loads(shared)
    assert code == 0 and shared["launch"]["node"]["used_gib"] == 20
    assert shared["memory"]["inputs"]["used_gib"] == 20
    assert shared["memory"]["kv_tokens"] < alone["memory"]["kv_tokens"]


def test_used_gib_reaches_vllms_free_memory_check(capsys):
    """v1/worker/utils.py : request_memory (the free memory at start-up must cover the utilization),
    0.10-0.33; 0.34's extensible KV cache skips the check and sizes the cache from what is free."""
    argv = ("fit", "--engine", "vllm", "qwen3-8b", "--platform", "a100", "--gpu-memory-utilization", "0.9")
    old = (*argv, "--vllm-version", "0.33.0")
    code, out, _ = run(capsys, *old, "--json")
    assert code == 0 and json.loads(out)["verdict"]["status"] == "starts"
    code, out, _ = run(capsys, *old, "--used-gib", "20", "--json")
    verdict = json.loads(out)["verdict"]
    assert code == 1 and verdict["status"] == "does-not-fit"
    assert verdict["allocation"] == "free memory at start-up"
    assert verdict["message"].startswith("Free memory on device (")
    assert verdict["fix"].startswith("--gpu-memory-utilization 0.")
    # 0.34 (extensible KV cache): no check; the cache is what the 20 GiB held elsewhere leave
    _, alone, _ = run(capsys, *argv, "--vllm-version", "0.34.0", "--json")
    code, shared, _ = run(capsys, *argv, "--vllm-version", "0.34.0", "--used-gib", "20", "--json")
    alone, shared = json.loads(alone), json.loads(shared)
    assert code == 0 and shared["verdict"]["status"] == "starts"
    assert shared["memory"]["inputs"]["extensible_kv_cache"] is True
    assert 0 < shared["memory"]["kv_tokens"] < alone["memory"]["kv_tokens"]


def test_used_gib_must_be_a_non_negative_number(capsys):
    code, _, err = run(capsys, "fit", "llama-3.1-8b", "--used-gib", "-1")
    assert code == 2 and "--used-gib" in err and "Traceback" not in err


def test_fit_text_names_the_estimates_and_the_after_pool_allocations(capsys):
    code, out, _ = run(capsys, "fit", "llama-3.1-8b", "--platform", "h100")
    assert code == 0 and "estimate  " in out and "  alloc   " in out and "after KV  " in out


def test_the_free_memory_fix_is_checked_at_the_utilization_it_suggests():
    """The fix for request_memory's refusal is predicted again (vllm.memory.checked_free_memory_fix):
    the highest utilization the free memory covers that then starts (a lower one than all that is
    free when the sampler warm-up after the pool needs the room), with --max-model-len when only
    the context does not fit; when nothing the free memory covers starts, the fix says that the
    memory (or the GPU count) must change, not the flag alone."""
    from resolvable._hfconfig import HFConfig
    from resolvable.memory import GIB
    from resolvable.sglang import load_model
    from resolvable.vllm.memory import capacity

    hf = HFConfig(load_model("qwen3-8b").to_dict(), source="test")

    def predict(used_gib: float, **flags: object):
        return capacity(
            {"gpu_memory_utilization": 0.9, **flags, "used_bytes": used_gib * GIB},
            hf,
            device_name="NVIDIA H100 80GB HBM3",
            memory_gib=80,
            version="0.22",
        )

    rep = predict(20)
    assert rep.failing == "free memory at start-up" and not rep.fits
    assert rep.fix.startswith("--gpu-memory-utilization 0.") and "checked: the launch then starts" in rep.fix
    assert predict(20, gpu_memory_utilization=float(rep.fix.split()[1])).fits  # applied, it starts
    assert "all that is free, fails at 'sampler warm-up" in rep.fix  # 0.74 itself would not

    rep = predict(50, max_model_len=131072)
    assert rep.fix.startswith("--gpu-memory-utilization 0.") and "--max-model-len " in rep.fix
    words = rep.fix.split()
    assert predict(50, gpu_memory_utilization=float(words[1]), max_model_len=int(words[3])).fits

    rep = predict(70)  # ~8.6 GiB free: not even the weights (~15 GiB)
    assert rep.fix.startswith("free memory on the device") and "does not start either" in rep.fix
