"""The same resolution in separate interpreters gives the same bytes, whatever the hash seed.

Three child interpreters (``sys.executable``) with different ``PYTHONHASHSEED`` values resolve
the same configurations (every bundled model on B200 with tracing on, plus other presets, a
custom platform whose kernel set is a frozenset, and an unknown architecture). Their
fingerprints and ``json.dumps(res.to_dict(), sort_keys=True)`` must be byte-identical, to each
other and to this process; so must the stdout of ``resolvable resolve … --json`` and
``resolvable explain … --json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

SEEDS = ("0", "1", "4242")

CHILD = textwrap.dedent(
    """
    import json, sys
    from resolvable import HFConfig, Platform
    from resolvable.errors import ResolvableError
    from resolvable.sglang import resolve_server_args
    from resolvable.sglang.models import bundled, catalog

    custom = Platform(vendor="cuda", name="custom", capability=(10, 0), cuda_version=(12, 9),
                      kernels=frozenset({"triton_kernels", "flashinfer", "aiter", "deep_gemm"}))
    unknown = HFConfig({"architectures": ["SomethingNewForCausalLM", "Alt"], "num_attention_heads": 8})
    cases = [(bundled(m), Platform.preset("b200"), {"trace": True}) for m in sorted(catalog())]
    cases += [(bundled(m), Platform.preset(p), {"tp_size": 8})
              for m in ("deepseek-v3", "gpt-oss-120b", "qwen3.5-397b-a17b", "granite-4.0-h-small")
              for p in ("h100", "mi355x", "cpu-amx", "xpu", "npu")]
    cases += [(bundled("deepseek-v3.2"), custom, {"trace": True}), (unknown, custom, {"trace": True})]

    def collect():
        out = []
        for hf, platform, flags in cases:
            try:
                res = resolve_server_args(hf, platform, **flags)
            except ResolvableError as exc:
                out.append({"error": type(exc).__name__, "message": str(exc)})
                continue
            out.append({"fingerprint": res.fingerprint(), "dict": res.to_dict()})
        return "".join(json.dumps(o, sort_keys=True) + "\\n" for o in out)

    if __name__ == "__main__":
        sys.stdout.write(collect())
    """
)

#: What the ``resolvable`` console script runs (``resolvable.cli:main``).
ENTRY_POINT = "import sys; from resolvable.cli import main; sys.exit(main(sys.argv[1:]))"

CLI_COMMANDS = [
    ["resolve", "deepseek-v3", "--platform", "b200", "--tp-size", "8", "--json"],
    ["explain", "qwen3.5-397b-a17b", "--platform", "b200", "--page-size", "16", "--json"],
]


def _env(seed: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "RESOLVABLE_"))}
    env["PYTHONHASHSEED"] = seed
    return env


def _run(args: list[str], seed: str) -> bytes:
    done = subprocess.run([sys.executable, *args], capture_output=True, env=_env(seed), timeout=60)
    # 0 would start, 1 would not (the weights of a big model on one GPU): an answer either way
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    return done.stdout


def test_library_resolutions_are_byte_identical_across_interpreters() -> None:
    outputs = {seed: _run(["-c", CHILD], seed) for seed in SEEDS}
    first = outputs[SEEDS[0]]
    assert first.count(b"\n") >= 40
    for seed, out in outputs.items():
        assert out == first, f"PYTHONHASHSEED={seed} gave different bytes"
    # ... and equal to this process (whatever its own hash seed is).
    namespace: dict[str, Any] = {"__name__": "in_process"}
    exec(compile(CHILD, "<child>", "exec"), namespace)
    assert namespace["collect"]().encode() == first


@pytest.mark.parametrize("argv", CLI_COMMANDS, ids=[a[0] for a in CLI_COMMANDS])
def test_cli_json_stdout_is_byte_identical_across_interpreters(argv: list[str]) -> None:
    outputs = {seed: _run(["-c", ENTRY_POINT, *argv], seed) for seed in SEEDS}
    first = outputs[SEEDS[0]]
    json.loads(first)  # valid JSON
    for seed, out in outputs.items():
        assert out == first, f"PYTHONHASHSEED={seed}: `resolvable {' '.join(argv)}` printed different bytes"
