"""Benchmark 5b: one launch, one verdict — `explain` and `fit` end to end for both engines and
every input form (tool flags, a pasted command, `docker run`), process start to exit.

Each command reads its launch through the pack (``Pack.build_launch`` or the engine's front-end),
judges it (argument resolution, start-up checks, the node check, memory) and prints the verdict.
The target is the CLI's: under 200 ms per `explain` (docs/benchmarks.md). Wall time is reported
with the CPU time of the child (user + system), which other load on the machine disturbs less.

    python benchmarks/bench_launch.py [--runs N]
"""

from __future__ import annotations

import argparse

import _common  # noqa: F401  (first: puts benchmarks/ on sys.path)
from _common import median
from bench_startup import cli_command, spawn_times

COMMANDS = {
    "explain sglang, tool flags": ["explain", "llama-3.1-8b", "--platform", "h100", "--tp-size", "2"],
    "explain sglang, pasted": [
        "explain", "--platform", "h100", "--",
        "python", "-m", "sglang.launch_server", "--model-path", "llama-3.1-8b", "--tp", "2",
    ],
    "explain vllm, tool flags": ["explain", "llama-3.1-8b", "--engine", "vllm", "--platform", "h100"],
    "explain vllm, docker run": [
        "explain", "--platform", "h100", "--",
        "docker", "run", "--gpus", "all", "vllm/vllm-openai:v0.33.0", "llama-3.1-8b",
    ],
    "fit vllm, pasted": ["fit", "--platform", "h100", "--", "vllm", "serve", "llama-3.1-8b"],
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    cli = cli_command()
    cpu: dict[str, list[float]] = {}
    times = spawn_times({k: [*cli, *v] for k, v in COMMANDS.items()}, args.runs, cpu=cpu)
    print(f"| command ({args.runs} runs) | wall median ms | CPU median ms | target |")
    print("|---|---|---|---|")
    for name in COMMANDS:
        target = "< 200 ms" if name.startswith("explain") else ""
        print(f"| {name} | {median(times[name]):.0f} | {median(cpu[name]):.0f} | {target} |")


if __name__ == "__main__":
    main()
