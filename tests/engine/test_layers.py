"""The layers (DESIGN.md): cli → packs → engine, imports pointing down only.

* the engine (``resolvable/*.py``) imports no pack and not the CLI, not even lazily;
* a pack (``resolvable.sglang``, ``resolvable.vllm``) imports the engine only through its public
  modules (``resolvable``, ``resolvable.rules``, ``resolvable.errors``), never a private engine
  module (``resolvable._x``), never the CLI and never another pack;
* nothing in a pack imports another module's private names (``from m import _name``);
* the deployment-file reader (``resolvable.deploy``, a source layer) imports no pack module and
  not the CLI: it reaches packs through ``resolvable.packs`` as the CLI does;
* the CLI imports no pack module at all: it reaches a pack through ``resolvable.packs``
  (``packs.get(name)``), so a third engine is a new pack, not CLI surgery.

Checked on the source (every import statement, top level or inside a function), so a lazy import
cannot slip through.
"""

from __future__ import annotations

import ast
import os

import pytest

import resolvable

ROOT = os.path.dirname(resolvable.__file__)
PACKS = ("sglang", "vllm")


def _modules() -> list[tuple[str, str]]:
    """(dotted module name, path) of every module of the package."""
    out = []
    for dirpath, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, os.path.dirname(ROOT))[: -len(".py")].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out.append((".".join(rel), path))
    return sorted(out)


def _imports(module: str, path: str) -> list[tuple[str, tuple[str, ...], int]]:
    """(absolute module imported, names imported from it, line) for every import statement."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    is_package = path.endswith("__init__.py")
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = tuple(alias.name for alias in node.names)
            if not node.module:  # from . import x: x is a module of the package
                out += [(f"{target}.{n}", (), node.lineno) for n in names]
            else:
                out.append((target, names, node.lineno))
    return out


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[1:2] == ["hub"]:  # the hub support package (and its modules) sits beside the engine
        return "hub"
    if len(parts) == 1 or (len(parts) == 2 and parts[1] not in (*PACKS, "cli", "deploy")):
        return "engine"
    return parts[1]


ALL = _modules()


def test_the_walk_sees_every_layer():
    layers = {_layer(m) for m, _ in ALL}
    assert {"engine", "cli", "deploy", *PACKS} <= layers
    assert ("resolvable.rules", os.path.join(ROOT, "rules.py")) in ALL


@pytest.mark.parametrize(("module", "path"), ALL, ids=[m for m, _ in ALL])
def test_imports_point_down(module, path):
    layer = _layer(module)
    problems = []
    for target, names, line in _imports(module, path):
        if not target.startswith("resolvable"):
            continue
        where = f"{os.path.relpath(path, ROOT)}:{line}"
        target_layer = _layer(target)
        if layer == "engine" and target_layer != "engine":
            problems.append(f"{where}: the engine imports {target}")
        if layer == "cli" and target_layer in PACKS:
            problems.append(f"{where}: the CLI imports {target}; reach the pack through resolvable.packs.get")
        if layer == "deploy" and (target_layer in PACKS or target_layer == "cli"):
            problems.append(
                f"{where}: the deploy source layer imports {target}; reach packs through resolvable.packs"
            )
        if layer in PACKS:
            if target_layer == "cli" or (target_layer in PACKS and target_layer != layer):
                problems.append(f"{where}: pack {layer} imports {target}")
            if target_layer == "engine" and target.rpartition(".")[2].startswith("_"):
                problems.append(f"{where}: imports the private engine module {target}; use resolvable.rules")
        if layer in PACKS and target != module:
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                problems.append(f"{where}: imports private names {private} of {target}")
    assert not problems, "\n".join(problems)


def test_the_pack_registry_imports_no_pack():
    """``resolvable.packs`` names packs as strings: importing it (and ``resolvable``) loads none."""
    import subprocess
    import sys

    code = (
        "import sys, resolvable, resolvable.packs as p; "
        "print(sorted(m for m in sys.modules if m.startswith(('resolvable.sglang', 'resolvable.vllm'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_layer_check_sees_a_cli_import_of_a_pack(tmp_path):
    """The CLI rule fails on a CLI module that imports a pack module (lazily, inside a function)."""
    path = tmp_path / "bad.py"
    path.write_text("def f():\n    from ..sglang import registry\n    return registry\n")
    imports = _imports("resolvable.cli.bad", str(path))
    assert [(_layer(t), line) for t, _, line in imports] == [("sglang", 2)]
