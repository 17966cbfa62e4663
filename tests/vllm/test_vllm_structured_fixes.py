"""The vLLM pack's config refusals carry their fix as a value (``resolvable.rules.Fix``, issue 16
item 5), as the SGLang pack's do (tests/sglang/test_structured_fixes.py).

* Statically, over ``resolvable/vllm/config``: every literal ``ConflictError(..., fix=Fix(...))``
  names only ``VllmArgs`` fields and its value says what its text says.
* Dynamically, over a command per refusing rule: the value says what the text says (fixes built
  from the rule's values, e.g. the largest dividing TP size), and applied to the refused command it
  makes that refusal go away (accepted, or refused by another rule), or the fix checker says that
  no fix holds on this platform.
"""

from __future__ import annotations

import ast
import os

import pytest

from resolvable._fixes import apply, fix_alternatives, parse_fix
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.rules import Fix, schema_of
from resolvable.vllm import load_model, resolve_vllm_args
from resolvable.vllm.args import VllmArgs
from resolvable.vllm.config.fixes import ALIASES, check_refusal
from resolvable.vllm.config.parallel import with_gpus
from resolvable.vllm.config.startup import check_startup
from resolvable.vllm.platforms import platform

CONFIG = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "src", "resolvable", "vllm", "config"
)
SCHEMA = schema_of(VllmArgs)


def _fix_sites() -> tuple[list[tuple[str, Fix]], int]:
    """(file:line, the Fix) of each literal Fix, and the count of every Fix site (literal or built
    from the rule's values) among the config refusals."""
    literal, built = [], 0
    for name in sorted(os.listdir(CONFIG)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(CONFIG, name)
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ConflictError":
                for kw in node.keywords:
                    if kw.arg == "fix" and isinstance(kw.value, ast.Call):
                        try:
                            value = eval(compile(ast.Expression(kw.value), path, "eval"), {"Fix": Fix})
                        except NameError:  # built from the rule's values: checked dynamically
                            built += 1
                            continue
                        literal.append((f"{name}:{kw.value.lineno}", value))
    return literal, len(literal) + built


SITES, ALL_SITES = _fix_sites()


def test_the_config_refusals_that_name_flags_give_their_fix_as_a_value():
    assert ALL_SITES >= 25, ALL_SITES
    assert len(SITES) >= 12, len(SITES)


@pytest.mark.parametrize(("site", "fix"), SITES, ids=[s for s, _ in SITES])
def test_a_structured_fix_names_fields_and_says_what_its_text_says(site, fix):
    alternatives, unknown = fix_alternatives(fix, SCHEMA)
    assert unknown == [] and alternatives, site
    assert parse_fix(fix.render(), SCHEMA, ALIASES)[0] == alternatives, site


BATCH_INVARIANT = {"VLLM_BATCH_INVARIANT": "1"}

#: (model, platform, GPUs on the node, env, flags): one command per refusing config rule with a
#: structured fix (tests/vllm/test_config_refusals.py and the golden fixes have the messages).
TRIGGERS = (
    ("llama-3.1-8b", "h100", None, {}, {"max_model_len": 200000}),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {},
        {"enable_chunked_prefill": False, "max_model_len": 32768, "max_num_batched_tokens": 8192},
    ),
    ("llama-3.1-8b", "h100", None, {}, {"max_num_batched_tokens": 512, "max_num_seqs": 1024}),
    ("gemma-2-9b", "t4", None, {}, {"dtype": "half"}),
    ("gemma-2-9b", "t4", None, {}, {"dtype": "bfloat16"}),
    (
        "qwen3-next-80b-a3b",
        "h100",
        None,
        {},
        {"tensor_parallel_size": 4, "enable_prefix_caching": False, "mamba_block_size": 256},
    ),
    ("nemotron-h-8b", "h100", None, {}, {"enable_chunked_prefill": False}),
    ("llama-3.1-8b", "h100", None, {}, {"tensor_parallel_size": 4, "decode_context_parallel_size": 2}),
    ("llama-3.1-8b", "h100", None, {}, {"tensor_parallel_size": 6, "decode_context_parallel_size": 4}),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {},
        {"tensor_parallel_size": 2, "prefill_context_parallel_size": 2, "decode_context_parallel_size": 8},
    ),
    ("deepseek-v3", "h100", None, {}, {"tensor_parallel_size": 8, "decode_context_parallel_size": 16}),
    ("llama-3.1-8b", "h100", 2, {}, {"tensor_parallel_size": 4}),
    ("llama-3.1-8b", "h100", None, {}, {"tensor_parallel_size": 3}),
    ("llama-3.1-8b", "h100", None, {}, {"kv_cache_dtype": "float16"}),
    ("deepseek-v3", "b200", None, {}, {"tensor_parallel_size": 8, "kv_cache_dtype": "nvfp4"}),
    ("llama-3.1-8b", "h100", None, {}, {"gpu_memory_utilization": 1.5}),
    (
        "llama-3.1-8b",
        "h100",
        None,
        {},
        {"optimization_level": 2, "cudagraph_capture_sizes": [1, 4], "max_cudagraph_capture_size": 8},
    ),
    ("qwen3-235b-a22b-fp8", "xpu", None, BATCH_INVARIANT, {}),
    ("llama-3.1-8b", "xpu", None, BATCH_INVARIANT, {"kv_cache_dtype": "fp8"}),
    ("qwen3-235b-a22b-fp8", "h100", None, {}, {"quantization": "awq"}),
    ("llama-3.1-8b", "h100", None, {}, {"quantization": "awq"}),
)


def _attempt(hf, p, env, flags):
    check_startup(resolve_vllm_args(hf, p, env, vllm_version="0.33.0", **flags), hf, env)


def _refusals():
    seen = {}
    for model, plat, gpus, env, flags in TRIGGERS:
        hf, p = load_model(model), with_gpus(platform(plat), gpus)
        try:
            _attempt(hf, p, env, flags)
        except ConflictError as exc:
            if exc.fix_value is not None and exc.location not in seen:
                seen[exc.location] = (f"{model}@{plat}:{flags}", exc, hf, p, env, flags)
    return list(seen.values())


def test_each_structured_fix_applied_to_the_command_makes_the_refusal_go_away():
    cases = _refusals()
    assert len(cases) >= 12, len(cases)  # one command per refusing rule
    failures, removed = [], 0
    for case, exc, hf, p, env, flags in cases:
        alternatives, _ = fix_alternatives(exc.fix_value, SCHEMA)
        if parse_fix(exc.fix, SCHEMA, ALIASES)[0] != alternatives:
            failures.append(
                f"{case}: {exc.location}: the value {exc.fix_value!r} is not what {exc.fix!r} says"
            )
        gone = []
        for changes, _expanded in alternatives:
            user, new_env = apply(flags, env, changes)
            try:
                _attempt(hf, p, new_env, user)
                gone.append(changes)
            except ConflictError as again:
                if again.location != exc.location:
                    gone.append(changes)  # this refusal is gone; another rule has its say
            except InvalidArgumentError:
                continue
        if gone:
            removed += 1
        elif check_refusal(exc, hf, p, env, flags, vllm_version="0.33.0").status != "none":
            failures.append(f"{case}: {exc.rule} at {exc.location}: {exc.fix!r} does not remove the refusal")
    assert failures == []
    assert removed >= len(cases) - 1, (removed, len(cases))
