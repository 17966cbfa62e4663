"""Benchmark: instructions executed by ``import resolvable.sglang``, this tree against others (callgrind).

Usage (repository root, package installed, ``valgrind`` on PATH)::

    python benchmarks/bench_import_instructions.py [--other /path/to/other/src ...] [--module resolvable.sglang]

A CPU-time ratio on a loaded, shared machine moves by a few per cent from run to run; the number
of instructions does not (it varies by < 0.1 % between runs, with the string hash seed fixed:
``PYTHONHASHSEED=0``, else dictionary probe lengths move a small difference by ± 0.2 M). For each
tree (this checkout's ``src`` first, then every ``--other``), with up-to-date bytecode
(``_common.child_env``), it runs ``valgrind --tool=callgrind`` on ``python -c "import MODULE"``
and on ``python -c pass`` and reports the difference (the import alone), and each tree's ratio to
the last ``--other``.

``--first RELEASE`` (repeatable; ``resolvable.sglang`` only) also counts the first resolution of
the Llama case on h100 under each release (the interpreter with the pack imported and the
model and platform loaded, with and without the call): the oldest against the newest release.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import ROOT, child_env


def instructions(src: str, code: str, cwd: str) -> int:
    """Instructions callgrind counts for ``python -c code`` with ``src`` first on the path."""
    env = child_env()
    env["PYTHONPATH"] = src
    env["PYTHONHASHSEED"] = "0"  # the same dictionary layouts in every run (see the docstring)
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"error: no instruction count in valgrind's output for {src}")
    return int(found.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", action="append", default=[], help="another checkout's src (repeatable)")
    parser.add_argument("--module", default="resolvable.sglang")
    parser.add_argument(
        "--first", action="append", default=[], help="also count the first resolution under RELEASE"
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("error: valgrind is not installed; install it (apt-get install valgrind)")
    trees = [str(ROOT / "src"), *args.other]
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="resolvable-ir-") as cwd:  # nothing shadows the stdlib
        for src in trees:
            instructions(src, f"import {args.module}", cwd)  # fills the bytecode cache
            counts[src] = instructions(src, f"import {args.module}", cwd) - instructions(src, "pass", cwd)
    last = counts[trees[-1]]
    print(f"instructions of `import {args.module}` (callgrind, minus a bare interpreter):")
    for src, n in counts.items():
        print(f"  {n / 1e6:9.2f} M  ×{n / last:.3f}  {src}")
    if args.first:
        setup = (
            "import resolvable.sglang as pack; from resolvable import Platform; "
            "from resolvable.sglang.models import bundled; hf = bundled('llama-3.1-8b'); "
            "plat = Platform.preset('h100')"
        )
        print("instructions of the first resolution (llama-3.1-8b, h100; callgrind, minus the setup):")
        with tempfile.TemporaryDirectory(prefix="resolvable-ir-") as cwd:
            for src in trees:
                codes = {
                    release: f"{setup}; pack.resolve_server_args(hf, plat, sglang_version={release!r})"
                    for release in args.first
                }
                for code in (setup, *codes.values()):  # fills the bytecode cache (no valgrind)
                    env = child_env()
                    env["PYTHONPATH"] = src
                    subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True)
                base = instructions(src, setup, cwd)
                firsts = {release: instructions(src, code, cwd) - base for release, code in codes.items()}
                oldest = firsts[args.first[0]]
                shown = "  ".join(f"{r} {n / 1e6:.3f} M (×{n / oldest:.3f})" for r, n in firsts.items())
                print(f"  {shown}  {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
