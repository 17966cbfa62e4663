"""Benchmarks 2, 5, 6: cold import, CLI latency, peak memory (fresh processes)."""

from __future__ import annotations

import json
import os
import resource
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import ROOT, Settings, child_env, median, percentile, perf_ns


def spawn_times(
    commands: dict[str, list[str]],
    runs: int,
    warmup: int = 2,
    cpu: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Wall time (ms) of each command, ``runs`` times, interleaved round by round. With ``cpu``,
    also each run's CPU time (user + system, ms: less sensitive to other load than wall time)."""
    env = child_env()
    times: dict[str, list[float]] = {k: [] for k in commands}
    if cpu is not None:
        cpu.update({k: [] for k in commands})
    for i in range(warmup + runs):
        for name, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = perf_ns()
            proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
            elapsed = (perf_ns() - t0) / 1e6
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}"
                )
            if i >= warmup:
                times[name].append(elapsed)
                if cpu is not None:
                    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                    cpu[name].append(used * 1000)
    return times


def stdlib_imports() -> list[str]:
    """The non-package modules that ``import resolvable.sglang`` loads (beyond interpreter start)."""
    probe = (
        "import sys; before = set(sys.modules); import resolvable.sglang; "
        "print(' '.join(sorted(m for m in sys.modules if m not in before and m.split('.')[0] != 'resolvable')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], env=child_env(), capture_output=True, text=True, cwd=ROOT, check=True
    )
    return out.stdout.split()


def bench_import(s: Settings) -> dict[str, Any]:
    py = sys.executable
    stdlib = stdlib_imports()
    cpu: dict[str, list[float]] = {}
    times = spawn_times(
        {
            "bare": [py, "-c", "pass"],
            "stdlib": [py, "-c", "import " + ", ".join(stdlib) if stdlib else "pass"],
            "resolvable": [py, "-c", "import resolvable"],
            "resolvable.sglang": [py, "-c", "import resolvable.sglang"],
            "resolvable.vllm": [py, "-c", "import resolvable.vllm"],
        },
        s.import_runs,
        cpu=cpu,
    )
    wall = {k: median(v) for k, v in times.items()}
    used = {k: median(v) for k, v in cpu.items()}
    bare = wall["bare"]
    return {
        "runs": s.import_runs,
        "bare_ms": bare,
        "stdlib_ms": wall["stdlib"] - bare,
        "stdlib_count": len(stdlib),
        "stdlib_modules": stdlib,
        "resolvable_ms": wall["resolvable"] - bare,
        "sglang_ms": wall["resolvable.sglang"] - bare,
        "vllm_ms": wall["resolvable.vllm"] - bare,
        # Whole-process ratios (interpreter start included), from the same interleaved runs.
        "sglang_vs_bare": wall["resolvable.sglang"] / bare,
        "sglang_vs_resolvable": wall["resolvable.sglang"] / wall["resolvable"],
        "cpu_bare_ms": used["bare"],
        "cpu_resolvable_ms": used["resolvable"] - used["bare"],
        "cpu_sglang_ms": used["resolvable.sglang"] - used["bare"],
        "top_modules": import_breakdown(),
    }


def import_breakdown(runs: int = 5, top: int = 8) -> list[tuple[str, float]]:
    """Modules with the largest self import time (median µs over ``runs``) under -X importtime."""
    per_module: dict[str, list[float]] = {}
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import resolvable.sglang"],
            env=child_env(),
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cum, name = (part.strip() for part in line[len("import time:") :].split("|"))
            per_module.setdefault(name, []).append(float(self_us))
    ranked = sorted(((n, median(v)) for n, v in per_module.items()), key=lambda x: -x[1])
    return ranked[:top]


def cli_command() -> list[str]:
    script = Path(sys.executable).parent / "resolvable"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "resolvable.cli"]


def bench_cli(s: Settings) -> dict[str, Any]:
    cmd = [*cli_command(), "explain", "llama-3.1-8b", "--platform", "h100"]
    check = subprocess.run(cmd, env=child_env(), capture_output=True, text=True, cwd=ROOT)
    if check.returncode != 0 or "attention_backend" not in check.stdout:
        raise RuntimeError(f"{' '.join(cmd)} failed ({check.returncode}): {check.stderr[-500:]}")
    times = spawn_times({"cli": cmd, "bare": [sys.executable, "-c", "pass"]}, s.cli_runs)
    return {
        "command": " ".join(["resolvable", *cmd[len(cli_command()) :]]),
        "runs": s.cli_runs,
        "ms": median(times["cli"]),
        "p90_ms": percentile(times["cli"], 90),
        "bare_ms": median(times["bare"]),
    }


_MEMORY_SCRIPT = r"""
import json, resource, sys
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
def hwm():  # the kernel's own peak-RSS counter of this process image (Linux), as a cross-check
    try:
        with open("/proc/self/status") as fh:
            return next((int(l.split()[1]) for l in fh if l.startswith("VmHWM:")), None)
    except OSError:
        return None
mode = sys.argv[1]
out = {}
if mode != "bare":
    from resolvable.errors import ConflictError
    from resolvable.sglang import grid, resolve_server_args
    out["after_import_kib"] = rss()
    kept, n = [], 0
    for _m, _p, _v, hf, plat, flags in grid.cases():
        try:
            res = resolve_server_args(hf, plat, **flags)
        except ConflictError as exc:
            res = exc
        if mode == "keep":
            kept.append(res)
        n += 1
    out["n"] = n
out.update(peak_kib=rss(), hwm_kib=hwm())
print(json.dumps(out))
"""


def bench_memory() -> dict[str, Any]:
    """Peak RSS of fresh interpreters. On Linux a process inherits ``ru_maxrss`` from the image it
    was exec'd from (here: this benchmark process), so each child is started from a small shell
    that forks it (``sh -c 'python …; true'``): its ``ru_maxrss`` is then its own."""
    env = child_env()

    def run(mode: str) -> dict[str, Any]:
        cmd = [sys.executable, "-c", _MEMORY_SCRIPT, mode]
        if os.path.exists("/bin/sh"):
            cmd = ["/bin/sh", "-c", shlex.join(cmd) + "; true"]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    bare, streamed, kept = run("bare"), run("drop"), run("keep")
    mib = 1024.0  # ru_maxrss and VmHWM are in KiB on Linux
    return {
        "bare_mib": bare["peak_kib"] / mib,
        "import_mib": streamed["after_import_kib"] / mib,
        "peak_mib": streamed["peak_kib"] / mib,
        "peak_hwm_mib": streamed["hwm_kib"] / mib if streamed.get("hwm_kib") else None,
        "peak_kept_mib": kept["peak_kib"] / mib,
        "resolutions": streamed["n"],
    }
