"""The SGLang pack's refusals carry their fix as a value (``resolvable.rules.Fix``, issue 16 item 5).

* Statically, over the pack's source: every ``ConflictError(..., fix=Fix(...))`` names only
  ``ServerArgs`` fields, and its value says what its text says (the fix checker reads the value
  exactly as it read the prose before, so every checked fix and its output are unchanged).
* Dynamically, over the grid and a command per other refusing rule: each structured fix, applied
  to the refused command, makes that refusal go away (the command is accepted, or refused by
  another rule), or the fix checker says that no fix holds on this platform.
"""

from __future__ import annotations

import ast
import os

import pytest

from resolvable._fixes import apply, fix_alternatives, parse_fix
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.rules import Fix, schema_of
from resolvable.sglang import ServerArgs, grid, resolve_server_args
from resolvable.sglang.fixes import check_refusal, flag_aliases

PACK = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "src", "resolvable", "sglang"
)


def _structured_sites() -> list[tuple[str, Fix]]:
    """(file:line, the Fix) of every literal Fix value in the pack: given to ``ConflictError``
    directly or through a rule module's refusal helper (``_refuse(message, Fix(...))``)."""
    sites = []
    for dirpath, _, files in os.walk(PACK):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            inner = set()
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or id(node) in inner:
                    continue
                func = node.func
                if getattr(func, "id", None) == "Fix" or (
                    getattr(func, "attr", None) == "any_of" and getattr(func.value, "id", None) == "Fix"
                ):
                    inner.update(id(n) for n in ast.walk(node) if n is not node)  # alternatives
                    try:  # a literal Fix; one built from the rule's values is checked below
                        value = eval(compile(ast.Expression(node), path, "eval"), {"Fix": Fix})
                    except NameError:
                        continue
                    sites.append((f"{os.path.relpath(path, PACK)}:{node.lineno}", value))
    return sites


SITES = _structured_sites()


def test_most_refusals_of_the_pack_give_their_fix_as_a_value():
    assert len(SITES) >= 130, len(SITES)


@pytest.mark.parametrize(("site", "fix"), SITES, ids=[s for s, _ in SITES])
def test_a_structured_fix_names_fields_and_says_what_its_text_says(site, fix):
    schema = schema_of(ServerArgs)
    alternatives, unknown = fix_alternatives(fix, schema)
    assert unknown == [] and alternatives, site
    assert parse_fix(fix.render(), schema, flag_aliases())[0] == alternatives, site


#: Commands refused by a structured fix outside the grid's variants (found by sweeping each
#: choice of the backend, KV-dtype, MoE-runner and speculative flags over the bundled models
#: and presets; one command per refusing rule).
TRIGGERS = (
    ("deepseek-v3.2", "a100", {"kv_cache_dtype": "fp8_e5m2"}),
    ("deepseek-v3.2", "a100", {"dsa_prefill_backend": "triton"}),
    ("exaone-4.0-32b", "a100", {"attention_backend": "torch_native"}),
    ("gemma-4-31b", "a100", {"attention_backend": "torch_native"}),
    ("lfm2-1.2b", "a100", {"attention_backend": "triton"}),
    ("moss-vl", "a100", {"attention_backend": "triton"}),
    ("olmo-2-7b", "a100", {"attention_backend": "flashinfer"}),
    ("deepseek-r1", "a100", {"attention_backend": "trtllm_mha"}),
    ("deepseek-r1", "a100", {"attention_backend": "trtllm_mla"}),
    ("deepseek-r1", "a100", {"attention_backend": "cutedsl_mla"}),
    ("deepseek-r1", "a100", {"kv_cache_dtype": "fp4_mx_block16"}),
    ("deepseek-r1", "a100", {"kv_cache_dtype": "mxfp8"}),
    ("deepseek-r1", "a100", {"moe_runner_backend": "lora_cutedsl"}),
    ("step-3.5-flash", "a100", {"attention_backend": "triton"}),
    ("deepseek-r1", "b200", {"speculative_algorithm": "NGRAM"}),
    ("llama-3.1-8b", "npu", {"speculative_algorithm": "EAGLE"}),
    # fixes built from the rule's values (not literals): the text/value agreement is checked here
    ("llama-4-scout", "h100", {"attention_backend": "flashinfer"}),
    ("gpt-oss-120b", "h100", {"attention_backend": "flashinfer"}),
    ("deepseek-r1", "b200", {"enable_deterministic_inference": True, "attention_backend": "trtllm_mla"}),
    ("qwen3-8b", "h100", {"context_length": 10**7}),
    ("qwen3-8b", "h100", {"page_size": 64, "chunked_prefill_size": 100}),
    # fixes once f-strings or computed variables, now values built from the same values
    (
        "llama-3.1-8b",
        "h100",
        {
            "speculative_algorithm": "DFLASH",
            "speculative_draft_model_path": "x",
            "enable_dp_attention": True,
            "tp_size": 2,
            "dp_size": 2,
        },
    ),
    ("deepseek-r1", "b200", {"attention_backend": "trtllm_mla", "kv_cache_dtype": "fp8_e5m2"}),
    ("llama-3.1-8b", "h100", {"disable_cuda_graph": True, "cuda_graph_backend_decode": "full"}),
    ("deepseek-r1", "h100", {"quantization": "awq"}),
    ("llama-3.1-8b", "mi300x", {"quantization": "gguf"}),
    ("qwen3-30b-a3b", "h100", {"tp_size": 8, "ep_size": 2, "moe_runner_backend": "flashinfer_cutlass"}),
    ("qwen3-30b-a3b", "mi300x", {"tp_size": 8, "moe_a2a_backend": "mori"}),
    (
        "qwen3-next-80b-a3b",
        "h100",
        {"speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 8, "mamba_track_interval": 2},
    ),
)


def _refusals():
    """Every refusal with a structured fix in the grid and TRIGGERS (each rule location once)."""
    from resolvable.rules import Platform
    from resolvable.sglang import load_model

    seen = {}
    extra = [(m, p, "trigger", load_model(m), Platform.preset(p), flags) for m, p, flags in TRIGGERS]
    for model, preset, variant, hf, platform, flags in [*grid.cases(), *extra]:
        try:
            resolve_server_args(hf, platform, **flags)
        except ConflictError as exc:
            if exc.fix_value is not None and exc.location not in seen:
                seen[exc.location] = (f"{model}@{preset}:{variant}", exc, hf, platform, flags)
    return list(seen.values())


def test_each_structured_fix_applied_to_the_command_makes_the_refusal_go_away():
    cases = _refusals()
    assert len(cases) >= 26, len(cases)  # one command per refusing rule
    schema = schema_of(ServerArgs)
    failures, removed = [], 0
    for case, exc, hf, platform, flags in cases:
        alternatives, _ = fix_alternatives(exc.fix_value, schema)
        if parse_fix(exc.fix, schema, flag_aliases())[0] != alternatives:
            failures.append(
                f"{case}: {exc.location}: the value {exc.fix_value!r} is not what {exc.fix!r} says"
            )
        gone = []
        for changes, _expanded in alternatives:
            user, env = apply(flags, {}, changes)
            if user == flags and not env:
                continue  # "another" value: the one refused is not an alternative
            try:
                resolve_server_args(hf, platform, env, **user)
                gone.append(changes)
            except ConflictError as again:
                if again.location != exc.location:
                    gone.append(changes)  # this refusal is gone; another rule has its say
            except InvalidArgumentError:
                continue  # a choice of another release ("another" tries every choice)
        if gone:
            removed += 1
        elif check_refusal(exc, hf, platform, {}, flags).status != "none":
            # (a fix that cannot hold on this platform, e.g. NPU forces ascend over any
            # --attention-backend, is reported by the checker as "none on this platform")
            failures.append(f"{case}: {exc.rule} at {exc.location}: {exc.fix!r} does not remove the refusal")
    assert failures == []
    assert removed >= len(cases) - 2, (removed, len(cases))


def test_a_dp_size_that_does_not_divide_tp_is_fixed_by_each_divisor():
    """``pass a --dp-size that divides --tp-size 4``: read back as prose it would set
    ``--tp-size 4`` (a no-op); the value is every divisor of tp, and the checker verifies them."""
    from resolvable.rules import Platform
    from resolvable.sglang import load_model

    hf, platform = load_model("qwen3-30b-a3b"), Platform.preset("h100")
    flags = {"tp_size": 4, "dp_size": 3, "enable_dp_attention": True}
    with pytest.raises(ConflictError) as info:
        resolve_server_args(hf, platform, **flags)
    exc = info.value
    assert exc.fix == "pass a --dp-size that divides --tp-size 4"
    assert [dict(alt.set) for alt in exc.fix_value.options()] == [
        {"dp_size": 4},
        {"dp_size": 2},
        {"dp_size": 1},
    ]
    check = check_refusal(exc, hf, platform, {}, flags)
    assert check.status == "verified"
