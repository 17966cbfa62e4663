"""Dump ``explain`` (text: values, steps, release ranges) and ``resolve --json`` for every bundled model × a set of
platforms × every modelled release of both packs, one file per case, from whichever ``resolvable``
is first on ``sys.path`` (run it with ``PYTHONPATH=<other checkout>/src`` to dump another tree).

Usage: ``python tools/release_parity/dump.py OUT_DIR [--quick] [--engine sglang|vllm]``; then ``diff -r`` two dumps.
Used to show that moving the release side mechanisms onto named changes (issue 32 item 0)
changes no answer, only the release ranges shown (``docs/adding-a-release.md``).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

PLATFORMS = ("h100", "b200", "mi300x")


def run(argv: list[str]) -> str:
    from resolvable.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return f"exit {code}\n{out.getvalue()}\n--- stderr\n{err.getvalue()}"


def main() -> int:
    out_dir = sys.argv[1]
    quick = "--quick" in sys.argv
    os.makedirs(out_dir, exist_ok=True)
    from resolvable import packs as registry
    from resolvable.sglang import models as sg_models

    names = sorted(sg_models.catalog())
    engines = [sys.argv[sys.argv.index("--engine") + 1]] if "--engine" in sys.argv else ["sglang", "vllm"]
    packs = [(e, f"--{e}-version", registry.get(e).releases) for e in engines]
    platforms = PLATFORMS[:2] if quick else PLATFORMS
    n = 0
    for engine, option, releases in packs:
        for model in names:
            for plat in platforms:
                for release in releases:
                    base = ["--engine", engine, "--platform", plat, option, release]
                    text = run(["explain", model, *base])
                    res = run(["resolve", model, *base, "--json"])
                    with open(os.path.join(out_dir, f"{engine}-{model}-{plat}-{release}.txt"), "w") as fh:
                        fh.write(text + "\n=== resolve --json\n" + res)
                    n += 1
    print(f"{n} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
