"""Extract the architectures each sglang release implements, from its wheel (facts only).

sglang's ``ModelRegistry`` (``srt/models/registry.py``) is ``import_model_classes("sglang.srt.models")``:
every top-level module of ``sglang/srt/models/`` that defines ``EntryClass`` (a class, or a list
of classes) registers each class under its ``__name__``. This reads those assignments with
``ast`` (nothing is imported) and writes ``src/resolvable/sglang/architectures.json``:
``{"schema": 1, "releases": {"0.5.15": [...names...], ...}}``.

Usage: ``python tools/extract_sglang_archs.py /work/wheels/sglang-0.5.*.whl``
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "resolvable", "sglang", "architectures.json")
MODULE = re.compile(r"^sglang/srt/models/([A-Za-z0-9_]+)\.py$")


def _names(node: ast.AST) -> list[str]:
    """Class names of an ``EntryClass`` value: a name, a list/tuple of names, or a sum of lists."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [n for elt in node.elts for n in _names(elt)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _names(node.left) + _names(node.right)
    return []


def _aliases(tree: ast.Module) -> dict[str, str]:
    """``X = Y`` (and ``class X(Y): pass`` is its own name) at module level: the registered name
    is the class's ``__name__``, so ``EntryClass = Alias`` registers the aliased class's name."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id != "EntryClass":
                    out[target.id] = node.value.id
    return out


def _order(version: str) -> tuple[int, ...]:
    """Release order with ``.postN`` after its base (``0.5.6 < 0.5.6.post1 < 0.5.7``)."""
    numbers = [int(p) for p in version.split(".") if p.isdigit()]
    post = [int(p[4:]) for p in version.split(".") if p.startswith("post")]
    return (*numbers, *post) if post else (*numbers, -1)


def archs_of(wheel: str) -> tuple[str, list[str]]:
    version = os.path.basename(wheel).split("-")[1]
    names: set[str] = set()
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if not MODULE.match(info.filename):
                continue
            tree = ast.parse(zf.read(info).decode("utf-8-sig"))
            aliases = _aliases(tree)
            for node in tree.body:
                targets = []
                if isinstance(node, ast.Assign):
                    targets = [t for t in node.targets if isinstance(t, ast.Name) and t.id == "EntryClass"]
                    value = node.value
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    targets = [node.target] if node.target.id == "EntryClass" else []
                    value = node.value
                if targets and value is not None:
                    for name in _names(value):
                        while name in aliases and aliases[name] != name:
                            name = aliases[name]
                        names.add(name)
    return version, sorted(names)


def main(argv: list[str]) -> int:
    releases = dict(archs_of(w) for w in argv)
    data = {
        "schema": 1,
        "source": "sglang/srt/models/*.py EntryClass (models/registry.py import_model_classes), per wheel",
        "generated_by": "tools/extract_sglang_archs.py",
        "releases": dict(sorted(releases.items(), key=lambda kv: _order(kv[0]))),
    }
    with open(OUT + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=False)
        fh.write("\n")
    os.replace(OUT + ".tmp", OUT)
    for v, names in data["releases"].items():
        print(v, len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
