"""Lock files of the oracle venvs: one per release family whose pins are the same (issue 32 item 3).

    python tools/oracle_locks.py sglang [VENV ...]   # default: /work/oracle/venv-*
    python tools/oracle_locks.py vllm [VENV ...]     # default: /work/oracle-vllm/v*

Each venv is frozen with its own ``pip freeze --all`` (the shared heavy dependencies a venv reaches
through a ``.pth`` file are on its path, so they are listed too). The engine's own line (a local
wheel path) is taken out and recorded in the header with the wheel's sha256; releases whose
remaining lines are identical form one family, written to
``tools/agreement/locks/`` (sglang) or ``tools/agreement_vllm/locks/`` (vLLM) as
``<engine>-<oldest>[_to_<newest>].txt``. A family file names every release it serves on a
``# release:`` line, so that ``pip install -r <lock> <engine>==V`` rebuilds the oracle of V with the
pins it was measured with. Stale family files of that engine are removed; every file is written
whole (temporary file, then rename), so an interrupted run leaves the previous locks intact.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_VENVS = {"sglang": "/work/oracle/venv-*", "vllm": "/work/oracle-vllm/v[0-9]*"}
OUT_DIRS = {"sglang": "tools/agreement/locks", "vllm": "tools/agreement_vllm/locks"}
#: Installer plumbing, not a pin of the measurement.
_PLUMBING = re.compile(r"^(pip|setuptools|wheel)==", re.I)


def release_key(release: str) -> tuple:
    """``0.5.8.post1`` -> ``(0, 5, 8, 1)``; ``0.5.8`` sorts before it."""
    nums = [int(n) for n in re.findall(r"\d+", release)]
    return (*nums[:3], *(nums[3:] or [0]))


def freeze(venv: str, engine: str) -> tuple[str, str, list[str]]:
    """``(release, engine wheel sha256, other pins)`` of one oracle venv."""
    out = subprocess.run(
        [os.path.join(venv, "bin", "python"), "-m", "pip", "freeze", "--all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    release = sha = ""
    pins = []
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("-e ") or _PLUMBING.match(line):
            continue
        name = re.split(r"[=@ ]", line, maxsplit=1)[0].lower()
        if name == engine:
            m = re.search(rf"{engine}-([0-9][^-]*)-", line)
            release = m.group(1) if m else line.split("==", 1)[-1]
            h = re.search(r"sha256=([0-9a-f]+)", line)
            sha = h.group(1) if h else ""
            continue
        pins.append(line)
    if not release:
        raise SystemExit(f"{venv}: no {engine} installed; pass the oracle venvs of {engine}")
    return release, sha, sorted(pins, key=str.lower)


def write_whole(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".lock-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in DEFAULT_VENVS:
        raise SystemExit("usage: oracle_locks.py sglang|vllm [VENV ...]")
    engine, venvs = argv[0], argv[1:]
    venvs = venvs or sorted(p for p in glob.glob(DEFAULT_VENVS[engine]) if not os.path.islink(p))
    families: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for venv in venvs:
        release, sha, pins = freeze(venv, engine)
        families.setdefault(tuple(pins), []).append((release, sha))
    out_dir = os.path.join(ROOT, OUT_DIRS[engine])
    os.makedirs(out_dir, exist_ok=True)
    written = set()
    for pins, members in sorted(families.items(), key=lambda kv: min(release_key(r) for r, _ in kv[1])):
        members.sort(key=lambda m: release_key(m[0]))
        first, last = members[0][0], members[-1][0]
        name = f"{engine}-{first}.txt" if first == last else f"{engine}-{first}_to_{last}.txt"
        head = [
            f"# Pins of the {engine} oracle venvs of these releases (tools/oracle_locks.py; issue 32 item 3).",
            f"# Rebuild one: pip install -r {OUT_DIRS[engine]}/{name} {engine}==RELEASE",
        ]
        head += [f"# release: {r}  sha256={s}" for r, s in members]
        write_whole(os.path.join(out_dir, name), "\n".join([*head, *pins]) + "\n")
        written.add(name)
        print(f"{name}: {', '.join(r for r, _ in members)} ({len(pins)} pins)")
    for stale in set(os.listdir(out_dir)) - written:
        if stale.startswith(f"{engine}-") and stale.endswith(".txt"):
            os.remove(os.path.join(out_dir, stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
