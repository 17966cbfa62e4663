"""The start-up log corpus: figures predicted vs logged (see corpus_eval and docs/memory.md)."""

from __future__ import annotations

import json

from corpus_eval import CORPUS, entries, evaluate, split_of, split_summary, summary

REQUIRED = {"id", "engine", "source", "gpu", "model", "command", "log", "observed"}


def test_every_entry_cites_its_source_and_quotes_the_log():
    found = entries()
    assert len(found) >= 80
    for e in found:
        assert set(e) >= REQUIRED, e["id"]
        assert e["source"].startswith("https://"), e["id"]
        assert e["log"] and all(isinstance(line, str) and line for line in e["log"]), e["id"]
        assert e["engine"] in ("sglang", "vllm")
    assert {e["engine"] for e in found} == {"sglang", "vllm"}
    assert all(json.loads(p.read_text()) for p in CORPUS.glob("*.json"))


#: Logged refusals the model does not predict, with the reason (docs/memory.md). The test fails
#: when another refusal is missed, and when one of these starts being predicted (update the list).
#: sglang#4895 is answered unknown since h27e; since h27h the checkpoint's AWQ group (32) is read
#: from its converter and only the 24 GB card's capacity stays open (test_unknown_verdicts_...).
#: vllm-s4-hyouin ('Free memory on device (16.01/93.0 GiB)') is predicted since h27g: the corpus
#: reads the logged free memory at start-up as check-log does (vllm.startup_log.used_bytes).
KNOWN_MISSED_REFUSALS: dict[str, str] = {}

#: Launches whose log shows they started but which the model refuses (docs/memory.md). Empty from
#: h27e (llm-d's gpt-oss-120b row adds up only at utilization 0.95) to h27h, when the corpus began
#: building each GPU as check-log does (startup_log.platform_for_device): the B200's SM 10 makes
#: sglang's DeepSeek NSA default fp8, and the pool the model then predicts (+36 %: the PR branch's
#: FlashMLA cell and its 10 GiB smaller pool are read in no wheel) leaves less than sglang's margin
#: after FlashInfer's autotuner workspaces, so the answer is ``unknown``, never a fit.
KNOWN_FALSE_REFUSALS: dict[str, str] = {
    "sglang-11309-dsv32-exp-8xb200-dp-attention": "unknown: after-pool FlashInfer autotuner workspaces",
}


def test_every_logged_refusal_is_predicted_but_the_known_misses():
    results = [evaluate(e) for e in entries()]
    refusals = [r for r in results if r.get("refusal") and r["refusal"][1]]
    assert len(refusals) >= 13
    missed = {r["id"] for r in refusals if not r["refusal"][0]}
    assert missed == set(KNOWN_MISSED_REFUSALS), missed
    # and no launch whose log shows it started is predicted as refused, but the known one
    started = [r for r in results if r.get("refusal") and not r["refusal"][1]]
    false = {r["id"] for r in started if r["refusal"][0]}
    assert false == set(KNOWN_FALSE_REFUSALS), false


def test_kv_formula_within_10pct_for_80pct():
    s = summary([evaluate(e) for e in entries()], "kv_formula")
    assert s is not None and s["within_10pct"] >= 0.8, s


def test_end_to_end_kv_tokens_regression_floor():
    """End to end (GPU, flags, estimated weights and overheads) the corpus measures 7 of 11 within
    10 % (docs/memory.md): the 80 % target holds for the KV formula, not yet end to end. This floor
    catches a regression; the known misses are vLLM profilers whose overheads are not modelled
    (0.2 TP 4, 0.3 with Gemma's 256k vocabulary, 0.8 V1 on L40S, an LMCache connector)."""
    s = summary([evaluate(e) for e in entries()], "kv_tokens")
    assert s is not None and s["n"] >= 11 and s["within_10pct"] >= 0.6 and s["median"] <= 0.08, s


def test_held_out_entries_are_marked():
    held = [e for e in entries() if e.get("held_out")]
    assert len(held) >= 8  # collected after the constants were set, measured without retuning


def test_weights_median_error_small():
    s = summary([evaluate(e) for e in entries()], "weights")
    assert s is not None and s["median"] <= 0.05, s


def test_the_held_out_split_is_marked_sourced_and_reported_apart():
    """h27d's logs are the held-out split (``"split": "held_out"``: no constant is tuned on them),
    less those whose source logs h27e (s4) opened (``"split": "tuned_s4"``, with a note saying so);
    each cites the file or issue it quotes, and the benchmark reports the splits apart."""
    found = entries()
    held = [e for e in found if split_of(e) == "held_out"]
    s4 = [e for e in found if split_of(e) == "tuned_s4"]
    assert len(held) + len(s4) >= 40 and len(held) >= 20
    assert all(e.get("added") == "h27d" and e["held_out"] for e in held + s4)
    assert all("no longer held out" in e["s4_note"] for e in s4)
    assert all(any(k in e["source"] for k in ("/blob/", "/issues/", "/pull/")) for e in held)
    assert {e["engine"] for e in held} == {"sglang", "vllm"}
    metas = {e["id"]: e for e in found}
    table = split_summary([evaluate(e) for e in found], metas)
    tuned = [e for e in found if split_of(e) == "tuned"]
    assert table["held_out"]["entries"] == len(held) and table["tuned_s4"]["entries"] == len(s4)
    assert table["tuned"]["entries"] == len(tuned)
    predicted, logged = table["held_out"]["failures_predicted"]
    assert logged >= 3 and predicted == logged  # every held-out log that ends in OOM or a refusal


def test_unknown_verdicts_name_their_reason():
    """An entry the model answers ``unknown`` (the tool's own status, or inputs its source leaves
    open) is never counted as a start. sglang#4895 (h27h): the checkpoint is fixed by its converter
    (gau-nernst/gemma3-int4 convert_awq: INT4 groups of 32), so the only open input is which 24 GB
    card it ran on: on an L4/A10 (22.0 GiB) 0.4.4's pool may be empty (its refusal), on an RTX
    3090/4090 (23.6 GiB) it starts; the verdict names the card as the missing fact."""
    by_id = {e["id"]: e for e in entries()}
    entry = by_id["sglang-4895-gemma-3-27b-awq-24gb-refused"]
    assert entry["model"]["config_overrides"]["quantization_config"]["group_size"] == 32
    r = evaluate(entry)
    assert r["refusal"] == (True, True) and r["verdict"].startswith("unknown:")
    assert "which 24 GB card" in r["verdict"] and "capacity" in r["verdict"]
    from corpus_eval import _evaluate, _with_inputs

    on_l4 = _evaluate(_with_inputs(entry, {"gpu": {"memory_gib": 22.0}}))
    assert on_l4["refusal"] == (True, True) and "Not enough memory" in on_l4["verdict"]
    assert _evaluate(_with_inputs(entry, {"gpu": {"memory_gib": 23.6}}))["refusal"] == (False, True)


def test_the_fresh_held_out_split_is_sourced_read_and_reported_on_its_own_row():
    """h27f's batch (``"split": "held_out_s4"``): real start-up logs never in the corpus before,
    each a committed file at a commit (``/blob/<commit>/``), collected while h27e tuned the model
    on the 88 entries before them; the benchmark gives the split its own row."""
    found = entries()
    fresh = [e for e in found if split_of(e) == "held_out_s4"]
    opened = [e for e in found if split_of(e) == "tuned_s4b"]  # h27g read these logs (s4b_note)
    assert all(e.get("added") == "h27f" and "no longer held out" in e["s4b_note"] for e in opened)
    assert len(fresh) + len(opened) >= 37 and len(fresh) >= 30
    assert all(e.get("added") == "h27f" and e["held_out"] for e in fresh)
    assert all("/blob/" in e["source"] for e in fresh)
    assert {e["engine"] for e in fresh} == {"sglang", "vllm"}
    older = {e["source"] for e in found if split_of(e) != "held_out_s4"}
    assert not older & {e["source"] for e in fresh}  # no log of the corpus quoted twice
    table = split_summary([evaluate(e) for e in found], {e["id"]: e for e in found})
    row = table["held_out_s4"]
    assert row["entries"] == len(fresh) and row["weights"][0] >= 10 and row["kv_tokens"][0] >= 4
    assert row["failures_predicted"][1] >= 1  # logs that end in a refusal or an out-of-memory error
    assert table["tuned_s4b"]["entries"] == len(opened) and table["tuned_s4b"]["failures_predicted"] == (1, 1)


def test_the_h27h_batch_is_sourced_frozen_and_reported_on_its_own_row():
    """h27h's batch (``"split": "held_out_s5"``): 12 real start-up logs never in the corpus,
    each a committed file at a commit, frozen before any prediction for them was looked at and
    measured once (docs/memory.md); the benchmark gives the split its own row, and its one logged
    failure (vLLM's free-memory refusal on a shared 80 GB card) is predicted, never a fit."""
    import re

    found = entries()
    opened = [e for e in found if split_of(e) == "tuned_s5"]  # read after the one measurement
    assert all(e.get("added") == "h27h" and "No longer held out" in e["s5_note"] for e in opened)
    batch = [e for e in found if split_of(e) == "held_out_s5"]
    assert len(batch) + len(opened) >= 12 and len(batch) >= 11
    assert all(e.get("added") == "h27h" and e["held_out"] for e in batch)
    assert all(re.search(r"/blob/[0-9a-f]{40}/", e["source"]) for e in batch)
    assert {e["engine"] for e in batch} == {"sglang", "vllm"}
    others = {e["source"] for e in found if split_of(e) not in ("held_out_s5", "tuned_s5")}
    assert not others & {e["source"] for e in batch + opened}  # no log quoted twice
    table = split_summary([evaluate(e) for e in found], {e["id"]: e for e in found})
    row = table["held_out_s5"]
    assert row["entries"] == len(batch) and row["weights"][0] >= 9
    assert table["tuned_s5"]["entries"] == len(opened)
    assert row["failures_predicted"] == (1, 1) and row["false_failures"][0] == 0
