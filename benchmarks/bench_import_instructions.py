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


#: What one synthetic release declares (``synthetic_pack``); sglang 0.5.12-0.5.23 average 10
#: named changes a release.
CHANGES_PER_RELEASE = 10
ARCHS_PER_RELEASE = 2


_WARM = """
import gc, sys
import resolvable.sglang as pack
from resolvable import Platform
from resolvable.sglang.models import bundled
hf = bundled('llama-3.1-8b')
plat = Platform.preset('h100')
gc.disable()
for _ in range(3):
    pack.resolve_server_args(hf, plat, sglang_version={release!r})
for _ in range({calls}):
    pack.resolve_server_args(hf, plat, sglang_version={release!r})
"""

_RULES_RUN = """
import sys
import resolvable.sglang as pack
from resolvable import Platform
from resolvable.sglang.models import bundled
hf = bundled('llama-3.1-8b')
plat = Platform.preset('h100')
pack.resolve_server_args(hf, plat, sglang_version={release!r})
codes = {{getattr(r.fn, '__code__', None) for r in pack.registry.rules}}
ran = []
sys.setprofile(lambda frame, event, arg: ran.append(frame.f_code) if event == 'call' and frame.f_code in codes else None)
pack.resolve_server_args(hf, plat, sglang_version={release!r})
sys.setprofile(None)
print(len(ran), len(pack.registry.rules))
"""

WARM_CALLS = 200


def warm_counts(releases: Sequence[str]) -> None:
    """Print the instructions of one warm resolution of the Llama case per release, the rule
    bodies it runs, and the instructions per rule run (this checkout)."""
    src = str(ROOT / "src")
    print(f"instructions of a warm resolution (llama-3.1-8b, h100; {WARM_CALLS} calls, collector off):")
    first = None
    with tempfile.TemporaryDirectory(prefix="resolvable-ir-") as cwd:
        for release in releases:
            env = child_env()
            env["PYTHONPATH"] = src
            ran = subprocess.run(
                [sys.executable, "-c", _RULES_RUN.format(release=release)],
                env=env,
                cwd=cwd,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            rules = int(ran[0])
            base = instructions(src, _WARM.format(release=release, calls=0), cwd)
            per_call = (
                instructions(src, _WARM.format(release=release, calls=WARM_CALLS), cwd) - base
            ) / WARM_CALLS
            first = first or (per_call, rules)
            print(
                f"  {release}: {per_call / 1e3:.1f} K (×{per_call / first[0]:.3f}), {rules} rule bodies run "
                f"(×{rules / first[1]:.3f}), {per_call / rules / 1e3:.2f} K per rule run"
            )


def synthetic_pack(releases: int, machinery: bool = True) -> str:
    """Source of a pack module with ``releases`` releases, declared as the shipped packs declare
    theirs (``sglang/_base.py``, ``sglang/changes.py``, ``facts.py``'s ``ArchList``s, ``pick``
    lists), with two rules that ask the changes.

    ``machinery=False``: the same declarations (the same ``Change`` records) handed to plain
    containers instead of ``ChangeTable`` and ``ArchList``, and a registry of one release: what
    declaring the data costs by itself (its bytecode, the records, the collector), the floor of a
    release's import cost while its declarations run at import."""
    names = [f"1.{i}.0" for i in range(releases)]
    lines = [
        "from resolvable.rules import ArchList, Change, ChangeTable, Registry, Stage, record",
        "from resolvable.rules import record_arg as arg",
        "",
        *(
            ()
            if machinery
            else (
                "from types import SimpleNamespace",
                "ChangeTable = lambda engine, changes: SimpleNamespace(**{c.name: c for c in changes})",
                "ArchList = lambda *entries, what='': entries",
                "",
            )
        ),
        f"RELEASES = ({''.join(f'{r!r}, ' for r in names)})",
        "CHANGES = ChangeTable(",
        "    'synthetic',",
        "    [",
    ]
    for i, release in enumerate(names):
        for j in range(CHANGES_PER_RELEASE):
            until = f", {names[i + 1]!r}" if j == CHANGES_PER_RELEASE - 1 and i + 1 < releases else ""
            lines += [
                "        Change(",
                f"            'R{i}_BEHAVIOUR_{j}',",
                f"            {release!r}{until},",
                f"            upstream='arg_groups/overrides._function_{j} (release {release})',",
                f"            summary='behaviour {j} that release {release} changed, in one line of prose',",
                "        ),",
            ]
    lines += ["    ],", ")", "", "ARCHS = ArchList(", "    'BaseForCausalLM',"]
    for i, release in enumerate(names):
        lines += [f"    ('Arch{i}V{k}ForCausalLM', {release!r})," for k in range(ARCHS_PER_RELEASE)]
    lines += ["    what='a synthetic architecture list',", ")", "", "DELTA = (", "    ('base', None),"]
    for i in range(releases):
        lines += [f"    ('item_{i}_{k}', CHANGES.R{i}_BEHAVIOUR_{k})," for k in range(2)]
    lines += [
        ")",
        "",
        "",
        "@record",
        "class Args:",
        "    backend: str | None = arg(None, resolvable=True, choices=('a', 'b', 'c'))",
        "    page: int | None = arg(None, resolvable=True)",
        "",
        "",
        "registry = Registry(",
        "    Args, [Stage('model', isolated=True), 'fill'], name='synthetic',",
        "    releases=RELEASES, changes=CHANGES," if machinery else "    releases=RELEASES[:1],",
        ")",
        "",
        "",
        "@registry.rule('fill', archs=ARCHS)" if machinery else "@registry.rule('fill')",
        "def listed(ctx):",
        "    return {'backend': 'b'} if ctx.release.has(CHANGES.R0_BEHAVIOUR_0) else {}",
        "",
        "",
        "@registry.rule('fill')",
        "def page(ctx):",
        "    return {'page': 64} if 'item_0_0' in ctx.release.pick(DELTA) else {}",
        "",
        "",
        "registry.freeze(check=False)",
    ]
    return "\n".join(lines) + "\n"


def synthetic_counts(trees: Sequence[str], sizes: Sequence[int]) -> dict[str, dict[int, int]]:
    """Instructions of ``import`` of the synthetic pack of each size, minus ``import
    resolvable.rules``, per tree; then the same declarations without the release machinery
    (``synthetic_pack(machinery=False)``, with the first tree's engine)."""
    counts: dict[str, dict[int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="resolvable-ir-") as cwd:
        for n in sizes:
            with open(f"{cwd}/synthetic_{n}.py", "w", encoding="utf-8") as out:
                out.write(synthetic_pack(n))
            with open(f"{cwd}/declared_{n}.py", "w", encoding="utf-8") as out:
                out.write(synthetic_pack(n, machinery=False))
        for src in [*trees, "declared"]:
            module = "synthetic"
            if src == "declared":
                src, module = trees[0], "declared"
            path = f"{cwd}:{src}"
            env = child_env()
            env["PYTHONPATH"] = path
            warm = [  # fills the bytecode cache (no valgrind); an older engine may lack the API
                subprocess.run(
                    [sys.executable, "-c", f"import {module}_{n}"], env=env, cwd=cwd, capture_output=True
                )
                for n in sizes
            ]
            if any(proc.returncode for proc in warm):
                print(f"  (the synthetic pack does not import with this tree's engine)  {src}")
                continue
            base = instructions(path, "import resolvable.rules", cwd)
            label = src if module == "synthetic" else f"the declarations alone, no release machinery ({src})"
            counts[label] = {n: instructions(path, f"import {module}_{n}", cwd) - base for n in sizes}
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", action="append", default=[], help="another checkout's src (repeatable)")
    parser.add_argument("--module", default="resolvable.sglang")
    parser.add_argument(
        "--first", action="append", default=[], help="also count the first resolution under RELEASE"
    )
    parser.add_argument(
        "--warm", action="append", default=[], help="also count a warm resolution under RELEASE"
    )
    parser.add_argument(
        "--releases",
        default="",
        help="also count the import of a synthetic pack of N releases (comma-separated sizes, e.g. 12,24,48,96)",
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
                env = child_env()
                env["PYTHONPATH"] = src
                warm = [  # fills the bytecode cache (no valgrind); a tree may lack a release
                    subprocess.run(
                        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True
                    ).returncode
                    for code in (setup, *codes.values())
                ]
                if any(warm):
                    print(f"  (this tree does not resolve every release of {args.first})  {src}")
                    continue
                base = instructions(src, setup, cwd)
                firsts = {release: instructions(src, code, cwd) - base for release, code in codes.items()}
                oldest = firsts[args.first[0]]
                shown = "  ".join(f"{r} {n / 1e6:.3f} M (×{n / oldest:.3f})" for r, n in firsts.items())
                print(f"  {shown}  {src}")
    if args.warm:
        warm_counts(args.warm)
    if args.releases:
        sizes = sorted({int(n) for n in args.releases.split(",")})
        if len(sizes) < 2 or sizes[0] < 1:
            raise SystemExit("error: --releases takes two or more sizes of at least 1, e.g. 12,24,48,96")
        print(
            f"instructions of `import` of a synthetic pack of N releases ({CHANGES_PER_RELEASE} named "
            f"changes, {ARCHS_PER_RELEASE} architecture-list members a release), minus `import resolvable.rules`:"
        )
        for src, by_size in synthetic_counts(trees, sizes).items():
            lo, hi = sizes[0], sizes[-1]
            slope = (by_size[hi] - by_size[lo]) / (hi - lo)
            shown = "  ".join(f"N={n} {c / 1e6:.3f} M" for n, c in by_size.items())
            print(f"  {shown}  per release {slope / 1e3:.1f} K  {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
