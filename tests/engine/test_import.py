"""`import resolvable` (and the SGLang pack) stays light: standard library only, no heavy modules."""

from __future__ import annotations

import ast
import subprocess
import sys

_PROBE = """
import sys
before = set(sys.modules)
import {module}
print(repr(sorted(set(sys.modules) - before)))
"""


def _loaded_by(module: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return ast.literal_eval(out)


def test_import_resolvable_loads_only_the_standard_library():
    for module in ("resolvable", "resolvable.sglang"):
        loaded = _loaded_by(module)
        third_party = [
            m
            for m in loaded
            if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "resolvable"
        ]
        assert third_party == [], f"import {module} loads {third_party}"


def test_import_resolvable_skips_heavy_standard_modules():
    loaded = set(_loaded_by("resolvable.sglang"))
    for heavy in ("torch", "transformers", "argparse", "typing", "json", "pathlib", "subprocess", "hashlib"):
        assert heavy not in loaded, f"`import resolvable.sglang` imports {heavy}"


def test_import_skips_dataclasses_and_what_it_pulls_in():
    # dataclasses imports inspect (ast, dis, tokenize) and re: half the import time; the engine's
    # records (_record) do without it until a caller asks for the dataclasses view.
    for module in ("resolvable", "resolvable.sglang"):
        loaded = set(_loaded_by(module))
        for heavy in ("dataclasses", "inspect", "ast", "dis", "tokenize", "re", "copy", "threading"):
            assert heavy not in loaded, f"`import {module}` imports {heavy}"


def test_import_vllm_skips_dataclasses():
    # ``VllmArgs`` (and its ``ConfigArgs`` mixin) are records like sglang's ``ServerArgs``: the vLLM
    # pack's import no longer loads dataclasses, inspect, enum or re (docs/benchmarks.md §9).
    loaded = set(_loaded_by("resolvable.vllm"))
    for heavy in ("dataclasses", "inspect", "enum", "re"):
        assert heavy not in loaded, f"`import resolvable.vllm` imports {heavy}"


def test_vllm_args_is_a_dataclass_in_behaviour():
    import dataclasses

    from resolvable.vllm.args import VllmArgs
    from resolvable.vllm.config.fields import ConfigArgs

    names = [f.name for f in dataclasses.fields(VllmArgs)]
    assert names[: len(dataclasses.fields(ConfigArgs))] == [f.name for f in dataclasses.fields(ConfigArgs)]
    args = VllmArgs(tensor_parallel_size=2)
    assert args.tensor_parallel_size == 2 and args == VllmArgs(tensor_parallel_size=2)
    assert dataclasses.replace(args, tensor_parallel_size=4).tensor_parallel_size == 4
    assert args.backend_per_kind is not VllmArgs().backend_per_kind  # a fresh default per instance
