"""Shared settings and helpers of the benchmarks (machine facts, statistics, child environment)."""

from __future__ import annotations

import atexit
import dataclasses
import datetime
import json
import os
import platform as host
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


#: Bundled models of the three architectures the baseline implements, for the timed ratio.
RATIO_MODELS = ("gpt-oss-120b", "gpt-oss-20b", "llama-3.1-8b", "deepseek-v3")


perf_ns = time.perf_counter_ns


@dataclasses.dataclass(frozen=True)
class Settings:
    mode: str
    case_rounds: int  # bench 1: passes over the grid, each case timed `case_calls` times per pass
    case_calls: int
    ratio_rounds: int  # bench 1: interleaved pack/baseline rounds over the comparison cases
    import_runs: int  # bench 2
    matrix_rounds: int  # bench 3
    docs_rounds: int
    scaling_rounds: int  # bench 4
    scaling_calls: int
    cli_runs: int  # bench 5
    release_cases: int  # bench 8: grid cases timed under every release (rounds and calls of bench 1)


FULL = Settings(
    "full",
    case_rounds=9,
    case_calls=3,
    ratio_rounds=21,
    import_runs=25,
    matrix_rounds=7,
    docs_rounds=7,
    scaling_rounds=11,
    scaling_calls=300,
    cli_runs=21,
    release_cases=400,
)


QUICK = Settings(
    "quick",
    case_rounds=3,
    case_calls=1,
    ratio_rounds=5,
    import_runs=15,
    matrix_rounds=2,
    docs_rounds=2,
    scaling_rounds=5,
    scaling_calls=100,
    cli_runs=10,
    release_cases=200,
)


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def percentile(xs: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(xs)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return host.processor() or host.machine() or "unknown"


def load_average() -> str:
    try:
        return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except (AttributeError, OSError):
        return "n/a"


def environment() -> dict[str, str]:
    load = load_average()
    return {
        "python": f"{host.python_implementation()} {host.python_version()}",
        "cpu": cpu_model(),
        "cores": str(os.cpu_count()),
        "os": host.platform(),
        "load average at start": load,
        "date (UTC)": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
    }


_PYCACHE: list[str] = []


def child_env() -> dict[str, str]:
    """Environment of the measured subprocesses.

    Imports are measured with up-to-date bytecode, as after ``pip install`` (which compiles it):
    a private ``PYTHONPYCACHEPREFIX`` (a temporary directory, removed at exit) is filled by the
    warm-up runs, so a ``PYTHONDONTWRITEBYTECODE`` environment or stale ``__pycache__`` files next
    to the sources do not turn every measured import into a compilation; nothing is written
    under ``src/``.
    """
    if not _PYCACHE:
        _PYCACHE.append(tempfile.mkdtemp(prefix="resolvable-bench-pyc-"))
        atexit.register(shutil.rmtree, _PYCACHE[0], True)
    env = dict(os.environ)
    env.pop("RESOLVABLE_PLATFORM", None)  # the benchmarks name their platforms
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE[0]
    return env


def raw_config(model: str) -> dict[str, Any]:
    """The bundled config.json as a plain dict (what the baseline reads)."""
    text = (
        resources.files("resolvable.sglang").joinpath("models", f"{model}.json").read_text(encoding="utf-8")
    )
    return json.loads(text)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
