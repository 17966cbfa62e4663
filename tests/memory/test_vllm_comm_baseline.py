"""Issue 27 (h27g): from vLLM 0.11 the V1 worker initializes NCCL and the custom all-reduce
before its start-up memory snapshot (``v1/worker/gpu_worker.py : Worker.init_device``, read in the
0.11.0 to 0.34.0 wheels; 0.9.2 and 0.10.1.1 take the snapshot first), so at tensor parallelism the
communication buffers are part of the baseline and do not come out of ``utilization × total``.

Golden figures: the Kaggle 2×T4 launch of Qwen3-8B (vLLM 0.22.1, TP 2, utilization 0.85,
``--max-num-seqs 1``, eager; corpus entry vllm-s4-exactijcnn-qwen3-8b-2xt4-triton, source
https://github.com/trietnguyeminh/Submission---EXACT--IJCNN/blob/12af0c4ba476b15c1fb004a9aba0bf1ad60a6dfc/vllm_server%20(3).log)
logs "Available KV cache memory: 4.22 GiB" and "GPU KV cache size: 61,424 tokens"."""

from __future__ import annotations

import pytest

from resolvable.sglang import load_model
from resolvable.vllm.memory import COMM_BEFORE_SNAPSHOT_FROM, capacity

GIB = 1 << 30
KAGGLE = {
    "tensor_parallel_size": 2,
    "gpu_memory_utilization": 0.85,
    "max_model_len": 4096,
    "max_num_seqs": 1,
    "max_num_batched_tokens": 4096,
    "enforce_eager": True,
    "dtype": "float16",
}


def _cap(version: str, **over):
    return capacity(
        {**KAGGLE, **over}, load_model("qwen3-8b"), device_name="Tesla T4", memory_gib=14.56, version=version
    )


def test_the_kaggle_t4_launch_at_022_is_within_5pct_of_its_log():
    rep = _cap("0.22")
    assert rep.inputs["available_kv_bytes"] / GIB == pytest.approx(4.22, rel=0.05)
    assert rep.kv_tokens == pytest.approx(61424, rel=0.05)
    # before this fix the 0.45 GiB of communication buffers came out of the budget: -15.1 %
    assert rep.kv_tokens > 0.9 * 61424


def test_communication_buffers_count_against_the_budget_only_before_011():
    assert COMM_BEFORE_SNAPSHOT_FROM == (0, 11)
    old, new = _cap("0.10"), _cap("0.11")
    diff = (new.inputs["available_kv_bytes"] - old.inputs["available_kv_bytes"]) / GIB
    assert diff == pytest.approx(0.45, abs=0.01)
    assert new.estimates["non_torch"].value < old.estimates["non_torch"].value


def test_one_gpu_is_unchanged_by_the_release():
    one = {"tensor_parallel_size": 1, "dtype": "float16"}
    a = capacity(
        one, load_model("qwen3-8b"), device_name="NVIDIA H100 80GB HBM3", memory_gib=79.2, version="0.10"
    )
    b = capacity(
        one, load_model("qwen3-8b"), device_name="NVIDIA H100 80GB HBM3", memory_gib=79.2, version="0.11"
    )
    assert a.estimates["non_torch"].value == b.estimates["non_torch"].value


# --- a shared GPU: vLLM's start-up free-memory check (issue 27, vllm-s4-hyouin) ----------------
#: the corpus entry vllm-s4-hyouin-qwen3-14b-h100nvl-lora-used-refused, source
#: https://github.com/HyouinSchoolAcc/1/blob/a0cce72c79c920c2e8ba7b6465e5cc29c70c1cf9/vllm.log
HYOUIN = "vllm-s4-hyouin-qwen3-14b-h100nvl-lora-used-refused"
FREE_MSG = "on startup is less than desired GPU memory utilization"


def _hyouin():
    import json
    from pathlib import Path

    from resolvable._hfconfig import HFConfig

    entry = json.loads((Path(__file__).parent / "corpus" / f"{HYOUIN}.json").read_text(encoding="utf-8"))
    return "\n".join(entry["log"]), HFConfig(entry["model"]["config"], source="test")


def test_check_log_reads_the_logged_free_memory_and_says_refused():
    from resolvable.startup_log import check_log

    text, hf = _hyouin()
    chk = check_log(text, hf=hf)
    assert chk.facts.pre_load_free_gib == 16.01 and chk.facts.device_total_gib == 93.0
    rep = chk.report
    assert rep.status == "refused" and not rep.fits
    # the model's free memory at start-up is the logged one, on the H100 NVL's own total
    assert rep.refusal.startswith("Free memory on device (16.01/93.10 GiB)") and FREE_MSG in rep.refusal
    assert rep.failing == "free memory at start-up"


def test_a_log_that_started_adds_no_used_memory_to_the_kv_budget():
    """From 0.10 the KV budget is utilization × total whatever others hold: the free-memory line of
    a log that started (llm-d Llama-3.1-8B on an H100, 78.57/79.18 GiB free) changes no KV figure."""
    from resolvable.vllm.startup_log import read, used_bytes

    facts = read(
        "Free memory on device (78.57/79.18 GiB) on startup. Desired GPU memory utilization is (0.9, 71.26 GiB)."
    )
    used = used_bytes(facts, {}, "NVIDIA H100 80GB HBM3", 79.18)
    assert 0 <= used < 0.1 * GIB
    hf = load_model("llama-3.1-8b")
    base = capacity({}, hf, device_name="NVIDIA H100 80GB HBM3", memory_gib=79.18, version="0.22")
    shared = capacity(
        {"used_bytes": used}, hf, device_name="NVIDIA H100 80GB HBM3", memory_gib=79.18, version="0.22"
    )
    assert shared.kv_tokens == base.kv_tokens and shared.fits


def test_used_gib_gives_the_free_memory_refusal_before_the_weights_load():
    """``--used-gib 77`` on the NVL: init_device's check (request_memory) comes before load_model,
    so vLLM's message, not torch's out of memory, even where the weights would not fit either."""
    _, hf = _hyouin()
    flags = {
        "max_model_len": 4096,
        "gpu_memory_utilization": 0.8,
        "dtype": "bfloat16",
        "used_bytes": 77 * GIB,
    }
    rep = capacity(flags, hf, device_name="NVIDIA H100 NVL", memory_gib=93.0, version="0.10")
    assert rep.status == "refused" and FREE_MSG in rep.refusal
    small = capacity(flags, hf, device_name="NVIDIA H100 80GB HBM3", memory_gib=79.19, version="0.25")
    assert rep.failing == small.failing == "free memory at start-up"
    assert FREE_MSG in small.refusal and "out of memory" not in small.refusal
    # without the memory another process holds the same launch starts
    alone = {k: v for k, v in flags.items() if k != "used_bytes"}
    assert capacity(alone, hf, device_name="NVIDIA H100 NVL", memory_gib=93.0, version="0.10").fits


def test_gemma4_hybrid_pages_and_the_logged_token_count():
    """vLLM 0.20.2, gemma-4-26B-A4B on an H200 (Michal1337/clinician-co-pilot vllm.log): 71.67 GiB
    of KV memory are logged as 984,297 tokens at 30.04x concurrency for 32,768-token requests.
    Gemma 4's 5 full layers (2 KV heads × 512) get a 32-token block so their page equals the 25
    sliding layers' (8 × 256, 16 tokens; kv_cache_utils.unify_kv_cache_spec_page_size), and from
    0.20.1 the log counts int(max_concurrency × max_model_len) (get_kv_cache_capacity); 0.20.0
    still printed num_blocks // groups × block_size."""
    import json
    from pathlib import Path

    from resolvable._hfconfig import HFConfig
    from resolvable.memory import GIB
    from resolvable.vllm.memory import capacity

    entry = json.loads(
        (Path(__file__).parent / "corpus" / "vllm-s5-clinician-gemma-4-26b-a4b-h200-v0202.json").read_text()
    )
    hf = HFConfig(entry["model"]["config"], source="test")
    flags = {**entry["flags"], "kv_cache_memory_bytes": 71.67 * GIB}
    new = capacity(flags, hf, device_name="NVIDIA H200", memory_gib=141, version="0.20.2")
    assert abs(new.kv_tokens - 984_297) / 984_297 < 0.001
    assert abs(new.concurrency_at_context - 30.04) < 0.01
    old = capacity(flags, hf, device_name="NVIDIA H200", memory_gib=141, version="0.20.0")
    assert old.kv_tokens < 0.5 * new.kv_tokens  # num_blocks // 6 groups × 16 tokens
    assert abs(old.concurrency_at_context - new.concurrency_at_context) < 1e-9  # the pool is the same
