"""Shell scripts and README snippets: ``vllm serve``, ``python -m sglang.launch_server``,
``docker run IMAGE …`` lines (``shell.commands`` reads the lines; nothing is run).

A ``docker run`` line: ``-e/--env K=V`` set the environment, ``--gpus all|N|device=…`` the GPUs,
the first word that is not an option (or an option's value) is the image; what follows is the
container's command (or the flags given to the image's entrypoint).
"""

from __future__ import annotations

from .expand import Scope
from .launch import FileLaunch, Node, build
from .shell import commands

_DOCKER_VALUED = frozenset((
    "-v", "--volume", "-p", "--publish", "-e", "--env", "--env-file", "--name", "--gpus", "--ipc",
    "--shm-size", "--runtime", "--network", "--net", "-w", "--workdir", "--entrypoint", "--device",
    "--mount", "--ulimit", "--user", "-u", "--cpus", "--memory", "-m", "--restart", "--label", "-l",
    "--hostname", "-h", "--cap-add", "--cap-drop", "--security-opt", "--platform", "--pid",
    "--log-driver", "--log-opt", "--add-host", "--group-add", "--cpuset-cpus", "--memory-swap",
    "--tmpfs", "--pull", "--uts", "--userns", "--stop-signal", "--health-cmd", "--dns",
))  # fmt: skip


def launches(text: str, file: str) -> list[FileLaunch]:
    scope = Scope()
    out: list[FileLaunch] = []
    for cmd in commands(text, scope, 1):
        words, lines = list(cmd.words), list(cmd.lines)
        if words[:2] in (["docker", "run"], ["podman", "run"], ["nvidia-docker", "run"]):
            out += _docker(words, lines, cmd.env, scope, file)
        else:
            out += build(image=None, command=words, lines=lines, env=dict(cmd.env), scope=scope, file=file,
                         line=lines[0] if lines else 1, node=Node(None, 1, None), source="shell command")  # fmt: skip
    return out


def _docker(
    words: list[str], lines: list[int], env: dict[str, str], scope: Scope, file: str
) -> list[FileLaunch]:
    env = dict(env)
    gpus: int | str | None = None
    entrypoint: list[str] = []
    i = 2
    while i < len(words) and words[i].startswith("-"):
        option, eq, value = words[i].partition("=")
        if option in _DOCKER_VALUED and not eq:
            i += 1
            value = words[i] if i < len(words) else ""
        if option in ("-e", "--env"):
            key, has, val = value.partition("=")
            if has:
                env[key] = val
        elif option == "--gpus":
            value = value.strip("'\"")
            gpus = "all" if value == "all" else (int(value) if value.isdigit() else
                                                 len(value.split("=", 1)[1].split(",")) if "device=" in value else None)  # fmt: skip
        elif option == "--entrypoint":
            entrypoint = [value]
        i += 1
    if i >= len(words):
        return []
    image = words[i]
    rest, rest_lines = entrypoint + words[i + 1 :], [lines[i]] * len(entrypoint) + lines[i + 1 :]
    return build(image=image, command=rest, lines=rest_lines, env=env, scope=scope, file=file, line=lines[0],
                 node=Node(gpus, 1, None), source=f"docker run {image}")  # fmt: skip
