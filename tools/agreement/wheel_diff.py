"""What changed between two sglang wheels in the files that decide a launch (issue 32 item 2).

    python tools/agreement/wheel_diff.py OLD NEW [--wheels /work/wheels] [--pack src/resolvable/sglang]

Runs in the repo venv, standard library only, reads the two released wheels (zip files in
``--wheels``) and prints a Markdown skeleton for ``docs/releases/<NEW>.md``: per watched file,
the functions added, removed or changed (compared as ASTs, so formatting and line moves do not
count), ``ServerArgs`` field defaults, module-level choice lists, the CLI flags of
``add_cli_args``, the attention backends registered in ``attention_registry.py`` and the model
registry (``EntryClass`` of ``models/*.py``). Each function row says whether the pack cites the
function (its name appears in ``--pack``), i.e. whether a rule for it exists at any release.

Invariants: the output is a reading aid, not a verdict: a changed function may change no
decision (a log line), and a cited function may be cited for another branch; every row is
marked "to model" until a person has read it. Nothing is imported from sglang.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import glob
import os
import re
import sys
import zipfile

#: Files whose functions decide a ServerArgs answer or a memory figure (paths inside the wheel).
WATCHED = (
    "sglang/srt/server_args.py",
    "sglang/srt/configs/model_config.py",
    "sglang/srt/layers/attention/attention_registry.py",
    "sglang/srt/model_executor/model_runner.py",
    "sglang/srt/model_executor/model_runner_kv_cache_mixin.py",
    "sglang/srt/mem_cache/memory_pool.py",
    "sglang/srt/utils/hf_transformers_utils.py",
)

#: model_runner / memory functions worth a row (the rest of those files is runtime, not choice).
RUNNER_KEEP = re.compile(
    r"attention|attn|backend|memory|mem_|kv|pool|max_num|token|cuda_graph|page|dtype|adjust|init_",
    re.IGNORECASE,
)


def _wheel(wheels: str, release: str) -> str:
    hits = sorted(glob.glob(os.path.join(wheels, f"sglang-{release}-*.whl")))
    if not hits:
        raise SystemExit(
            f"error: no wheel sglang-{release}-*.whl in {wheels}; fix: pip download --no-deps sglang=={release} -d {wheels}"
        )
    return hits[0]


def _read(zf: zipfile.ZipFile, path: str) -> str | None:
    try:
        return zf.read(path).decode("utf-8")
    except KeyError:
        return None


def _functions(src: str) -> dict[str, tuple[str, str]]:
    """qualified name -> (AST dump without docstring, source segment)."""
    tree = ast.parse(src)
    out: dict[str, tuple[str, str]] = {}

    def visit(node, prefix=""):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(getattr(body[0], "value", None), ast.Constant)
                ):
                    body = body[1:]
                dump = ast.dump(ast.Module(body=body, type_ignores=[]))
                out[prefix + child.name] = (dump, ast.get_source_segment(src, child) or "")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree)
    return out


def _server_args_fields(src: str) -> dict[str, str]:
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
            return {
                s.target.id: ast.unparse(s.value) if s.value is not None else "(required)"
                for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            }
    return {}


def _constants(src: str) -> dict[str, str]:
    """Module-level UPPER_CASE lists/tuples/sets/dicts (choice lists and tables)."""
    out = {}
    for node in ast.parse(src).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                for t in targets:
                    if isinstance(t, ast.Name) and t.id.isupper():
                        out[t.id] = ast.unparse(value)
    return out


def _flags(src: str) -> set[str]:
    return set(re.findall(r"""add_argument\(\s*["'](--[A-Za-z0-9-]+)""", src))


def _registered_backends(src: str) -> set[str]:
    return set(re.findall(r"""register_attention_backend\(\s*["']([A-Za-z0-9_]+)""", src))


def _entry_classes(zf: zipfile.ZipFile) -> set[str]:
    names: set[str] = set()
    for path in zf.namelist():
        if path.startswith("sglang/srt/models/") and path.endswith(".py"):
            src = zf.read(path).decode("utf-8", "replace")
            for m in re.finditer(r"^EntryClass\s*=\s*(.+?)(?=^\S|\Z)", src, re.M | re.S):
                names.update(
                    re.findall(
                        r"\b([A-Z][A-Za-z0-9_]*For[A-Za-z0-9_]+|[A-Z][A-Za-z0-9_]*Model)\b", m.group(1)
                    )
                )
    return names


def _cited(pack: str) -> str:
    text = []
    for path in glob.glob(os.path.join(pack, "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as fh:
            text.append(fh.read())
    return "\n".join(text)


def _set_diff(old: set, new: set) -> tuple[list, list]:
    return sorted(new - old), sorted(old - new)


def _list_diff(a: str, b: str) -> str:
    try:
        va, vb = ast.literal_eval(a), ast.literal_eval(b)
    except (ValueError, SyntaxError):
        return f"`{a[:80]}` → `{b[:80]}`"
    if isinstance(va, dict) and isinstance(vb, dict):
        va, vb = set(va), set(vb)
    if isinstance(va, (list, tuple, set)) and isinstance(vb, (list, tuple, set)):
        add, rem = _set_diff(set(map(str, va)), set(map(str, vb)))
        parts = ([f"+{', '.join(add)}"] if add else []) + ([f"-{', '.join(rem)}"] if rem else [])
        return "; ".join(parts) or "order only"
    return f"`{a[:80]}` → `{b[:80]}`"


def report(old: str, new: str, wheels: str, pack: str) -> str:
    za, zb = zipfile.ZipFile(_wheel(wheels, old)), zipfile.ZipFile(_wheel(wheels, new))
    cited = _cited(pack)
    lines = [f"<!-- generated by tools/agreement/wheel_diff.py {old} {new} -->"]
    for path in WATCHED:
        a, b = _read(za, path), _read(zb, path)
        short = path.split("sglang/srt/", 1)[1]
        if a is None and b is None:
            continue
        if a is None or b is None:
            lines.append(f"\n### `{short}`: {'added' if a is None else 'removed'} in {new}\n")
            continue
        if a == b:
            lines.append(f"\n### `{short}`: identical\n")
            continue
        fa, fb = _functions(a), _functions(b)
        rows = []
        for name in sorted(set(fa) | set(fb)):
            if name in fa and name in fb and fa[name][0] == fb[name][0]:
                continue
            if ("model_runner" in path or "memory_pool" in path) and not RUNNER_KEEP.search(name):
                continue
            if name not in fa:
                what = "added"
            elif name not in fb:
                what = "removed"
            else:
                diff = list(
                    difflib.unified_diff(fa[name][1].splitlines(), fb[name][1].splitlines(), lineterm="", n=0)
                )
                plus = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
                minus = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
                what = f"changed (+{plus}/-{minus} lines)"
            leaf = name.rsplit(".", 1)[-1]
            if leaf.startswith("__") and "." in name:  # a dunder: the class is what a rule would cite
                leaf = name.rsplit(".", 2)[-2]
            rule = "cited by the pack" if re.search(rf"\b{re.escape(leaf)}\b", cited) else "no rule"
            rows.append(f"| `{short}:{name}` | {what} | {rule} | to model |")
        lines.append(f"\n### `{short}`\n")
        if rows:
            lines += ["| function | change | pack | status |", "|---|---|---|---|", *rows]
        else:
            lines.append("No function body changed (comments, docstrings or formatting only).")
        if path.endswith("server_args.py"):
            da, db = _server_args_fields(a), _server_args_fields(b)
            changed = [f"`{k}` {da[k]} → {db[k]}" for k in sorted(set(da) & set(db)) if da[k] != db[k]]
            add, rem = _set_diff(set(da), set(db))
            if changed or add or rem:
                lines.append(
                    "\nServerArgs fields: "
                    + "; ".join(
                        ([f"defaults changed: {', '.join(changed)}"] if changed else [])
                        + ([f"added: {', '.join(add)}"] if add else [])
                        + ([f"removed: {', '.join(rem)}"] if rem else [])
                    )
                )
            ca, cb = _constants(a), _constants(b)
            consts = [
                f"`{k}` {_list_diff(ca[k], cb[k])}" for k in sorted(set(ca) & set(cb)) if ca[k] != cb[k]
            ]
            add, rem = _set_diff(set(ca), set(cb))
            consts += [f"`{k}` added" for k in add] + [f"`{k}` removed" for k in rem]
            if consts:
                lines.append("\nModule lists: " + "; ".join(consts))
            add, rem = _set_diff(_flags(a), _flags(b))
            if add or rem:
                lines.append(
                    "\nFlags: "
                    + "; ".join(
                        ([f"added {' '.join(add)}"] if add else [])
                        + ([f"removed {' '.join(rem)}"] if rem else [])
                    )
                )
        if path.endswith("attention_registry.py"):
            add, rem = _set_diff(_registered_backends(a), _registered_backends(b))
            if add or rem:
                lines.append(f"\nRegistered backends: added {add or 'none'}, removed {rem or 'none'}")
    add, rem = _set_diff(_entry_classes(za), _entry_classes(zb))
    lines.append("\n### Model registry (`models/*.py` `EntryClass`)\n")
    lines.append(f"added: {', '.join(add) or 'none'}; removed: {', '.join(rem) or 'none'}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--wheels", default="/work/wheels")
    ap.add_argument(
        "--pack", default=os.path.join(os.path.dirname(__file__), "..", "..", "src", "resolvable", "sglang")
    )
    opts = ap.parse_args(argv)
    sys.stdout.write(report(opts.old, opts.new, opts.wheels, opts.pack))
    return 0


if __name__ == "__main__":
    sys.exit(main())
