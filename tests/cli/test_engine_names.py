"""The CLI names no engine outside the pack registry and its defaults (issue 26): an engine's
name, image or front-end is a ``Pack`` member (``name``, ``images``, ``distribution_images``,
``image_command``, ``frontend``), read through ``resolvable.packs``.

No module of ``resolvable/cli`` names an engine any more (issue 26, fourth round): the default
command set serves ``_common.default_pack()`` (the first registered pack, whose flags the default
parser holds) and a pack-specific front-end serves the pack whose ``Pack.frontend`` names it
(``cli/vllm.py``'s ``_pack()``). ``LEGACY`` stays as the place to record an exception, with why;
the test fails when a module names an engine more often than it says, and when a count drops.
"""

from __future__ import annotations

import ast
from pathlib import Path

from resolvable import packs

CLI = Path(__file__).resolve().parents[2] / "src" / "resolvable" / "cli"

#: string constants equal to a pack's name, per module of resolvable/cli (docstrings excluded)
LEGACY: dict[str, int] = {}


def _constants(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docstrings.add(id(first.value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


def test_the_cli_names_engines_only_through_the_pack_registry():
    names = set(packs.names())
    found = {}
    for path in sorted(CLI.glob("*.py")):
        count = sum(1 for value in _constants(path) if value in names)
        if count:
            found[path.name] = count
    grown = {f: n for f, n in found.items() if n > LEGACY.get(f, 0)}
    assert not grown, f"modules naming an engine outside resolvable.packs (now, allowed): {grown}"
    shrunk = {f: n for f, n in LEGACY.items() if found.get(f, 0) < n}
    assert not shrunk, f"fewer engine names than LEGACY says: lower LEGACY to {found}"


def test_no_image_list_outside_the_packs():
    images = [i for n in packs.names() for i in (*packs.get(n).images, *packs.get(n).distribution_images)]
    assert images  # the packs hold them
    for path in sorted(CLI.glob("*.py")):
        named = [v for v in _constants(path) if any(i in v for i in images)]
        assert not named, f"{path.name} names container images {named}: read Pack.images"


def test_a_pasted_docker_run_reads_the_packs_images():
    from resolvable.cli.paste import read

    for name in packs.names():
        pack = packs.get(name)
        for image in pack.images:
            pasted = read(["docker", "run", "--gpus", "all", f"{image}:latest", "--model", "m"])
            assert pasted.engine == name and pasted.tag == "latest"
            assert pasted.words[: len(pack.image_command)] == list(pack.image_command)
        for prefix in pack.distribution_images:
            if prefix.endswith("/"):
                continue
            pasted = read(["docker", "run", f"{prefix}:v9.9", *pack.image_command, "--model", "m"])
            assert pasted.engine == name and pasted.tag is None  # its tag is not the engine's


def test_the_front_ends_find_their_pack_through_the_registry():
    from resolvable.cli import _common, vllm

    assert _common.default_pack() is packs.get(packs.names()[0])
    assert vllm._pack().frontend == "vllm" and vllm._pack() in [packs.get(n) for n in packs.names()]
