#!/usr/bin/env python3
"""Build the flag table of one sglang release from its wheel's source (stdlib only, no import).

    python tools/extract_sglang_flags.py WHEEL_OR_DIR [-o src/resolvable/sglang/flags/sglang-X.json]
    python tools/extract_sglang_flags.py WHEEL_OR_DIR --names     # just the option strings

``WHEEL_OR_DIR`` is an sglang ``.whl`` (read with ``zipfile``) or a directory holding the
``sglang/`` package. The source is parsed with ``ast`` and never imported, so this runs on any
machine. Two places declare flags:

* the ``ServerArgs`` fields annotated ``A[T, "help"]`` / ``A[T, Arg(...)]``, turned into flags
  by ``arg_groups/arg_utils.py:add_cli_args_from_dataclass`` (that function's mapping from
  annotation to argparse keywords is re-stated in ``_field_flag``). Up to 0.5.19 they are the
  body of the ``ServerArgs`` dataclass in ``srt/server_args.py``; from 0.5.20 ``ServerArgs`` is a
  ``msgspec`` record assembled from the namespace classes ``server_args._INPUT_NAMESPACES`` names
  (``arg_groups/fields/*.py``), in ``field_order.POSITIONAL_FIELD_ORDER`` (``_declared_in_namespaces``);
* the explicit ``parser.add_argument(...)`` calls of ``ServerArgs.add_cli_args`` (dynamic
  choices, ``--config``, deprecated spellings).

Names the expressions refer to (``ATTENTION_BACKEND_CHOICES``, ``Backend.ALL``,
``ReasoningParser.DetectorMap``, ``RealKvHashMode``) are evaluated by a small evaluator that
follows ``from sglang... import`` statements into the other modules of the same source (and
reads a parameterless helper such as 0.5.21's ``_reasoning_parser_choices()`` at its last
``return``, ``Module.call_function``). An expression it cannot evaluate is an error: the table
holds facts, not guesses.

The output records facts only (option strings, dest, type, choices, default, 0.5.20+ fallback,
nargs, action, deprecation); sglang's help prose is not copied. Run it on each release's wheel;
``tests/sglang/test_flags.py`` checks every committed table against the wheels it finds.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import zipfile
from typing import Any

SCHEMA = "resolvable.sglang-flags/1"


class Unresolved(Exception):
    pass


class _Opaque:
    """A value the evaluator knows exists but does not need (a class in a dict value)."""

    def __repr__(self) -> str:
        return "<opaque>"


OPAQUE = _Opaque()


class _Dynamic:
    """A field default computed on the running machine (its source text)."""

    def __init__(self, text: str) -> None:
        self.text = text


class _EnumMember:
    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


class _ClassNS:
    def __init__(self, name: str, attrs: dict[str, Any], enum: bool) -> None:
        self.name, self.attrs, self.enum = name, attrs, enum


class Source:
    """Read ``<package>/...`` files from a wheel or a directory (``package``: the top-level
    package whose imports the evaluator follows; ``tools/extract_vllm_flags.py`` reads vLLM's)."""

    package = "sglang"

    def __init__(self, path: str) -> None:
        self.path = path
        self._zip = zipfile.ZipFile(path) if path.endswith(".whl") else None
        self._modules: dict[str, Module] = {}

    def text(self, rel: str) -> str | None:
        if self._zip is not None:
            try:
                return self._zip.read(rel).decode("utf-8")
            except KeyError:
                return None
        full = os.path.join(self.path, rel)
        if not os.path.isfile(full):
            return None
        with open(full, encoding="utf-8") as fh:
            return fh.read()

    def version(self) -> str:
        text = self.text(f"{self.package}/version.py")
        if text:
            for node in ast.parse(text).body:
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__":
                    return node.value.value  # type: ignore[attr-defined]
        base = os.path.basename(self.path.rstrip("/"))
        return base.split("-")[1] if "-" in base else base

    def module(self, dotted: str) -> Module:
        if dotted not in self._modules:
            rel = dotted.replace(".", "/")
            text = self.text(rel + ".py") or self.text(rel + "/__init__.py")
            if text is None:
                raise Unresolved(f"module {dotted} not in {self.path}")
            tree = ast.parse(text)
            package = dotted if self.text(rel + ".py") is None else dotted.rpartition(".")[0]
            for node in tree.body:  # 0.5.3+ utils/__init__.py: ``from .common import *``
                if isinstance(node, ast.ImportFrom) and node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    node.module = ".".join(base + ([node.module] if node.module else []))
                    node.level = 0
            self._modules[dotted] = Module(self, dotted, tree)
        return self._modules[dotted]


class Module:
    """Top-level names of one module: assignments, classes, imports (evaluated on demand)."""

    def __init__(self, source: Source, name: str, tree: ast.Module) -> None:
        self.source, self.name, self.tree = source, name, tree
        self.nodes: dict[str, ast.AST] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}  # kept when the name is re-bound later
        self.imports: dict[str, tuple[str, str]] = {}
        self.star: list[str] = []  # ``from sglang.x import *``: searched last
        self._values: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.nodes[t.id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self.nodes[node.target.id] = node.value
            elif isinstance(node, ast.ClassDef):
                self.nodes[node.name] = self.classes[node.name] = node
            elif isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(source.package):
                for alias in node.names:
                    if alias.name == "*":
                        self.star.append(node.module)
                    else:
                        self.imports[alias.asname or alias.name] = (node.module, alias.name)

    def class_node(self, name: str) -> tuple[Module, ast.ClassDef]:
        """The module that defines class ``name`` (following ``from sglang... import``) and its node."""
        if isinstance(self.nodes.get(name), ast.ClassDef):
            return self, self.nodes[name]  # type: ignore[return-value]
        if name in self.imports:
            mod, attr = self.imports[name]
            return self.source.module(mod).class_node(attr)
        raise Unresolved(f"class {self.name}.{name}")

    def call_function(self, name: str) -> Any:
        """The value a module-level function without parameters returns on its *last* line.

        0.5.21+ compute some choices in helpers such as ``server_args._reasoning_parser_choices``:
        an early ``return`` reads a registry only when some plugin has already imported it
        (``sys.modules.get``); otherwise the function imports a plain name list and returns it.
        The last line is that second path, the one a fresh ``sglang serve`` takes (sglang keeps
        the name lists equal to the registries with a unit test, see their module docstrings).
        Only the function's ``from sglang... import`` lines and that final ``return`` are read."""
        fn = self.functions[name]
        if fn.args.args or fn.args.posonlyargs or fn.args.kwonlyargs or fn.args.vararg or fn.args.kwarg:
            raise Unresolved(f"{self.name}.{name}() takes parameters")
        last = fn.body[-1]
        if not isinstance(last, ast.Return) or last.value is None:
            raise Unresolved(f"{self.name}.{name}() does not end with a return")
        scope: dict[str, Any] = {}
        for stmt in fn.body:
            if (
                isinstance(stmt, ast.ImportFrom)
                and stmt.module
                and stmt.module.startswith(self.source.package)
            ):
                for alias in stmt.names:
                    scope[alias.asname or alias.name] = self.source.module(stmt.module).lookup(alias.name)
        return Evaluator(self, scope=scope).eval(last.value)

    def lookup(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        if name in self.nodes:
            node = self.nodes[name]
            value = self._class(node) if isinstance(node, ast.ClassDef) else Evaluator(self).eval(node)
        elif name in self.imports:
            mod, attr = self.imports[name]
            value = self.source.module(mod).lookup(attr)
        else:
            for mod in self.star:
                star = self.source.module(mod)
                if name in star.nodes or name in star.imports:
                    value = star.lookup(name)
                    break
            else:
                raise Unresolved(f"{self.name}.{name}")
        self._values[name] = value
        return value

    def _class(self, node: ast.ClassDef) -> _ClassNS:
        bases = {ast.unparse(b) for b in node.bases}
        enum = any(b.endswith(("Enum", "IntEnum", "IntFlag", "StrEnum")) for b in bases)
        attrs: dict[str, Any] = {}
        ev = Evaluator(self, scope=attrs)
        for stmt in node.body:
            target, value = None, None
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                target, value = stmt.targets[0].id, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
                target, value = stmt.target.id, stmt.value
            if target is None or value is None:
                continue
            try:
                attrs[target] = ev.eval(value)
            except Unresolved:
                attrs[target] = OPAQUE
        if enum:
            attrs = {k: _EnumMember(k, v) for k, v in attrs.items() if not k.startswith("_")}
        return _ClassNS(node.name, attrs, enum)


class Evaluator:
    """Evaluate the small expressions used for choices and defaults."""

    def __init__(self, module: Module, scope: dict[str, Any] | None = None) -> None:
        self.module, self.scope = module, scope if scope is not None else {}

    def eval(self, node: ast.AST) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unresolved(ast.unparse(node))
        return method(node)

    def _Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _List(self, node: ast.List) -> Any:
        out: list[Any] = []
        for e in node.elts:  # 0.5.7+: ``[*QUANTIZATION_CHOICES, ...]``
            if isinstance(e, ast.Starred):
                out.extend(self._iterable(self.eval(e.value)))
            else:
                out.append(self.eval(e))
        return out

    def _Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.eval(e) for e in node.elts)

    def _Set(self, node: ast.Set) -> Any:
        return {self.eval(e) for e in node.elts}

    def _Dict(self, node: ast.Dict) -> Any:
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise Unresolved(ast.unparse(node))
            try:
                out[self.eval(k)] = self.eval(v)
            except Unresolved:
                out[self.eval(k)] = OPAQUE
        return out

    def _Name(self, node: ast.Name) -> Any:
        if node.id in self.scope:
            return self.scope[node.id]
        if node.id in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[node.id]
        return self.module.lookup(node.id)

    def _Attribute(self, node: ast.Attribute) -> Any:
        if ast.unparse(node) == "sys.maxsize" and "sys" not in self.scope:
            return 2**63 - 1  # 0.5.1-0.5.x: max_queued_requests = sys.maxsize (64-bit CPython)
        base = self.eval(node.value)
        if isinstance(base, _ClassNS):
            if node.attr not in base.attrs:
                raise Unresolved(ast.unparse(node))
            member = base.attrs[node.attr]
            return member.value if isinstance(member, _EnumMember) and not base.enum else member
        if isinstance(base, _EnumMember) and node.attr in ("name", "value"):
            return getattr(base, node.attr)
        if isinstance(base, (str, dict, list)):
            return getattr(base, node.attr)
        raise Unresolved(ast.unparse(node))

    def _Call(self, node: ast.Call) -> Any:
        builtins = {"list": list, "tuple": tuple, "sorted": sorted, "set": set, "frozenset": frozenset}
        if isinstance(node.func, ast.Name) and node.func.id in builtins and node.func.id not in self.scope:
            fn = builtins[node.func.id]
            return fn(*[self._iterable(self.eval(a)) for a in node.args])
        if isinstance(node.func, ast.Attribute):
            fn = self.eval(node.func)
            if callable(fn):  # a str / dict / list method
                return fn(*[self.eval(a) for a in node.args])
        if (
            isinstance(node.func, ast.Name)
            and node.func.id not in self.scope
            and node.func.id in self.module.functions
            and not node.args
            and not node.keywords
        ):
            return self.module.call_function(node.func.id)
        raise Unresolved(ast.unparse(node))

    def _iterable(self, value: Any) -> Any:
        if isinstance(value, _ClassNS) and value.enum:
            return list(value.attrs.values())
        return value

    def _BinOp(self, node: ast.BinOp) -> Any:
        ops = {ast.Add: lambda a, b: a + b, ast.Mult: lambda a, b: a * b, ast.Pow: lambda a, b: a**b}
        op = ops.get(type(node.op))
        if op is None:
            raise Unresolved(ast.unparse(node))
        return op(self.eval(node.left), self.eval(node.right))

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        if isinstance(node.op, ast.USub):
            return -self.eval(node.operand)
        raise Unresolved(ast.unparse(node))

    def _Subscript(self, node: ast.Subscript) -> Any:
        return self.eval(node.value)[self.eval(node.slice)]

    def _ListComp(self, node: ast.ListComp) -> Any:
        if len(node.generators) != 1 or node.generators[0].ifs:
            raise Unresolved(ast.unparse(node))
        gen = node.generators[0]
        if not isinstance(gen.target, ast.Name):
            raise Unresolved(ast.unparse(node))
        out = []
        for item in self._iterable(self.eval(gen.iter)):
            inner = Evaluator(self.module, {**self.scope, gen.target.id: item})
            out.append(inner.eval(node.elt))
        return out


# -- annotation → argparse keywords (the rules of add_cli_args_from_dataclass) ----------------------

_TYPE_PARSERS = {
    "json.loads": "json",
    "json_list_type": "json_list",
    "human_readable_int": "human_readable_int",
    "nullable_str": "nullable_str",
    "parse_cuda_graph_config_arg": "cuda_graph_config",
    "parse_cuda_graph_backend_arg": "cuda_graph_backend",  # 0.5.22+
}
_PLAIN_TYPES = {"str": "str", "int": "int", "float": "float"}


def _subscript(node: ast.AST) -> tuple[str, list[ast.AST]] | None:
    if isinstance(node, ast.Subscript):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return ast.unparse(node.value), list(items)
    return None


def _unwrap_optional(node: ast.AST) -> ast.AST:
    sub = _subscript(node)
    if sub and sub[0] in ("Optional",):
        return sub[1][0]
    if sub and sub[0] == "Union":
        rest = [a for a in sub[1] if ast.unparse(a) != "None"]
        if len(rest) == 1:
            return rest[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = [node.left, node.right]
        rest = [p for p in parts if ast.unparse(p) != "None"]
        if len(rest) == 1:
            return rest[0]
    return node


def _type_name(node: ast.AST) -> str:
    return _PLAIN_TYPES.get(ast.unparse(node), "str")  # sglang's _infer_type_func: anything else is str


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):  # argparse shows a set in hash order: sort it
        return sorted(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    raise Unresolved(f"not a JSON value: {value!r}")


def _field_default(ev: Evaluator, value: ast.AST | None) -> tuple[bool, Any]:
    if value is None:
        return False, None
    # ``dataclasses.field`` (0.5.15-0.5.19, a dataclass) or ``msgspec.field`` (0.5.20+, a Struct)
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("dataclasses.field", "msgspec.field"):
        for kw in value.keywords:
            if kw.arg == "default":
                return True, ev.eval(kw.value)
            if kw.arg == "default_factory":
                if isinstance(kw.value, ast.Name) and kw.value.id in ("list", "dict"):
                    return True, [] if kw.value.id == "list" else {}
                if isinstance(kw.value, ast.Lambda):
                    return True, ev.eval(kw.value.body)
        raise Unresolved(ast.unparse(value))
    return True, ev.eval(value)


def _is_arg_meta(node: ast.AST) -> bool:
    """An ``Arg(...)`` call or a bare help string (the two forms ``_unwrap_annotated`` reads)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "Arg"


def _field_flag(ev: Evaluator, stmt: ast.AnnAssign) -> dict[str, Any] | None:
    sub = _subscript(stmt.annotation)
    if not sub or sub[0] != "A":
        return None  # not annotated with Arg metadata: no CLI flag (add_cli_args_from_dataclass skips it)
    raw_type = sub[1][0]
    # The CLI metadata is the first ``Arg(...)`` or help string after the type, as in
    # ``arg_utils._unwrap_annotated``; other markers (0.5.18+: ``NS("serving")``, the field's
    # namespace) are skipped, and a field with none is declared by hand in ``add_cli_args``.
    meta_node = next((m for m in sub[1][1:] if _is_arg_meta(m)), None)
    if meta_node is None:
        return None
    meta: dict[str, ast.AST] = {}
    if isinstance(meta_node, ast.Call):
        meta = {kw.arg: kw.value for kw in meta_node.keywords if kw.arg}
    if "no_cli" in meta and ev.eval(meta["no_cli"]) is True:
        return None
    name = stmt.target.id  # type: ignore[union-attr]
    cli_name = ev.eval(meta["cli_name"]) if "cli_name" in meta else "--" + name.replace("_", "-")
    options = [cli_name, *(ev.eval(meta["aliases"]) if "aliases" in meta else [])]
    has_default, default = _field_default(ev, stmt.value)
    flag: dict[str, Any] = {"dest": name, "options": options}
    type_parser = ast.unparse(meta["type_parser"]) if "type_parser" in meta else None
    if type_parser is not None and type_parser not in _TYPE_PARSERS:
        raise Unresolved(f"{name}: unknown type_parser {type_parser}")

    if "action" in meta:
        action = ast.unparse(meta["action"])
        kinds = {"argparse.BooleanOptionalAction": "boolean_optional", "LoRAPathAction": "lora_paths"}
        if action not in kinds:
            raise Unresolved(f"{name}: unknown action {action}")
        flag["action"] = kinds[action]
        if kinds[action] == "boolean_optional":
            flag["options"] = [*options, *("--no-" + o[2:] for o in options if o.startswith("--"))]
        extra = ev.eval(meta["action_kwargs"]) if "action_kwargs" in meta else {}
        if "nargs" in extra:
            flag["nargs"] = extra["nargs"]
    else:
        inner = _unwrap_optional(raw_type)
        inner_sub = _subscript(inner)
        if inner_sub and inner_sub[0] == "Literal":
            values = [ev.eval(v) for v in inner_sub[1]]
            flag["type"] = _TYPE_PARSERS.get(type_parser or "") or (
                _PLAIN_TYPES.get(type(values[0]).__name__, "str") if values else "str"
            )
            flag["choices"] = ev.eval(meta["choices"]) if "choices" in meta else values
        elif inner_sub and inner_sub[0] in ("List", "list") and type_parser is None:
            flag["type"] = _type_name(inner_sub[1][0]) if inner_sub[1] else "str"
            flag["nargs"] = ev.eval(meta["nargs"]) if "nargs" in meta else "+"
            if "choices" in meta:
                flag["choices"] = ev.eval(meta["choices"])
        elif ast.unparse(inner) == "bool":
            flag["action"] = "store_true"
        else:
            flag["type"] = _TYPE_PARSERS[type_parser] if type_parser else _type_name(inner)
            if "choices" in meta:
                flag["choices"] = ev.eval(meta["choices"])
            if "nargs" in meta:
                flag["nargs"] = ev.eval(meta["nargs"])
            if not has_default:
                flag["required"] = True
        if "const" in meta:
            flag["const"] = ev.eval(meta["const"])
    if has_default:
        flag["default"] = default
    if "fallback" in meta:
        # 0.5.20+ Arg(fallback=...): what the field means when nobody set it (the argparse
        # default stays None, "not typed"); None declares no fallback.
        fallback = ev.eval(meta["fallback"])
        if fallback is not None:
            flag["fallback"] = fallback
    return flag


# -- explicit parser.add_argument calls -----------------------------------------------------------

_ACTIONS = {
    "store_true": ("store_true", False),
    "DeprecatedStoreTrueAction": ("store_true", True),
    "DeprecatedStoreConstAction": ("store_const", True),
    "DeprecatedAliasStoreAction": ("store", True),
    "DeprecatedAction": ("ignore", True),
    "LoRAPathAction": ("lora_paths", False),  # up to 0.5.13: an explicit add_argument of --lora-paths
    "argparse.BooleanOptionalAction": ("boolean_optional", False),  # 0.5.10-0.5.13: explicit too
}


def _manual_flag(
    ev: Evaluator, call: ast.Call, field_defaults: dict[str, Any], plain_defaults: dict[str, Any]
) -> dict[str, Any]:
    options = [ev.eval(a) for a in call.args]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    dest = ev.eval(kw["dest"]) if "dest" in kw else options[0].lstrip("-").replace("-", "_")
    flag: dict[str, Any] = {"dest": dest, "options": options}
    action = ast.unparse(kw["action"]).strip("'\"") if "action" in kw else "store"
    if action != "store":
        if action not in _ACTIONS:
            raise Unresolved(f"{options[0]}: unknown action {action}")
        kind, deprecated = _ACTIONS[action]
        if kind != "store":
            flag["action"] = kind
        if deprecated:
            flag["deprecated"] = ev.eval(kw["new_flag"]) if "new_flag" in kw else True
    if flag.get("action") == "boolean_optional":  # argparse adds --no-X, as for a field's flag
        flag["options"] = options + ["--no-" + o[2:] for o in options if o.startswith("--")]
    if "type" in kw:
        flag["type"] = _PLAIN_TYPES.get(ast.unparse(kw["type"])) or _TYPE_PARSERS[ast.unparse(kw["type"])]
    elif flag.get("action") in (None, "store"):
        flag["type"] = "str"
    if "choices" in kw:
        flag["choices"] = ev.eval(kw["choices"])
    if "nargs" in kw:
        nargs = ev.eval(kw["nargs"])
        if flag.get("action") == "store_const" and nargs != 0:
            # 0.5.23 --monokernel-backend: DeprecatedStoreConstAction(nargs=None, choices=[...])
            # retires a valued flag; it takes one value (checked against the choices) and
            # stores const_value.
            if nargs is not None:
                raise Unresolved(f"{options[0]}: store_const with nargs={nargs!r}")
            flag["action"] = "store_const_value"
        else:
            flag["nargs"] = nargs
    if "const_value" in kw:
        flag["const"] = ev.eval(kw["const_value"])
    if "default" in kw:
        node = kw["default"]
        text = ast.unparse(node)
        if text == "argparse.SUPPRESS":
            pass  # nothing stored unless passed
        elif text.startswith("ServerArgs."):
            default = field_defaults[text.split(".", 1)[1]]
            if isinstance(default, _Dynamic):
                flag["dynamic_default"] = default.text
            else:
                flag["default"] = default
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "_declared_default"
            and len(node.args) == 1
            and not node.keywords
        ):
            # 0.5.20+ server_args._declared_default(name): the declared default of that field
            # (``ServerArgs.<field>`` is a slot descriptor once the record is a Struct).
            name = ev.eval(node.args[0])
            if name not in plain_defaults:
                raise Unresolved(f"{text}: no field {name!r} with a plain default")
            flag["default"] = plain_defaults[name]
        else:
            flag["default"] = ev.eval(node)
    elif flag.get("action") == "store_true":
        flag["default"] = False
    elif flag.get("action") in (None, "store", "store_const"):
        flag["default"] = None
    return flag


_SOURCE_CLASS = (
    "sglang/srt/server_args.py: ServerArgs fields (add_cli_args_from_dataclass) and ServerArgs.add_cli_args"
)
_SOURCE_NAMESPACES = (
    "sglang/srt/arg_groups/fields/*.py: the input namespaces ServerArgs collects "
    "(server_args._INPUT_NAMESPACES, collect_input_fields, add_cli_args_from_dataclass) "
    "and sglang/srt/server_args.py: ServerArgs.add_cli_args"
)

#: One declared field: its name, its ``AnnAssign`` and the module its expressions are read in.
Declared = tuple[str, ast.AnnAssign, "Module"]


def _class_fields(module: Module, cls: ast.ClassDef) -> dict[str, ast.AnnAssign]:
    """The annotated fields of a class body. A field declared twice (0.5.15: ``dcp_size``) is one
    field: the last declaration wins and keeps the position of the first, as in the class's
    ``__annotations__`` dict that both dataclasses and msgspec read."""
    fields: dict[str, ast.AnnAssign] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields[stmt.target.id] = stmt
    return fields


def _declared_in_class(module: Module, cls: ast.ClassDef) -> list[Declared]:
    """0.5.15-0.5.19: the fields are declared in the ``ServerArgs`` dataclass itself."""
    return [(name, stmt, module) for name, stmt in _class_fields(module, cls).items()]


def _declared_in_namespaces(module: Module, cls: ast.ClassDef) -> list[Declared]:
    """0.5.20+: ``ServerArgs`` is assembled from the namespace classes of
    ``server_args._INPUT_NAMESPACES`` (``arg_groups/fields/*.py``, one ``msgspec.Struct`` each).

    Re-states ``arg_groups/fields/__init__.py:collect_input_fields`` (the same in 0.5.20-0.5.23):
    every field of every listed class, a name declared by two classes is sglang's own error,
    and the order is ``field_order.POSITIONAL_FIELD_ORDER`` first, then the names it does not
    list in declaration order (namespace by namespace). ``add_cli_args_from_dataclass`` then walks
    the assembled record in that order."""
    if _class_fields(module, cls):
        raise Unresolved("ServerArgs declares fields of its own beside _INPUT_NAMESPACES")
    listed = module.nodes["_INPUT_NAMESPACES"]
    if not isinstance(listed, ast.List) or not all(isinstance(e, ast.Name) for e in listed.elts):
        raise Unresolved(f"_INPUT_NAMESPACES = {ast.unparse(listed)}")
    declared: dict[str, Declared] = {}
    owner: dict[str, str] = {}
    for element in listed.elts:
        ns_module, ns_cls = module.class_node(element.id)  # type: ignore[attr-defined]
        bases = [ast.unparse(b) for b in ns_cls.bases]
        if bases != ["msgspec.Struct"]:
            # an inherited field would come from the base class: not followed, so refuse
            raise Unresolved(f"{ns_module.name}.{ns_cls.name} has bases {bases}")
        for name, stmt in _class_fields(ns_module, ns_cls).items():
            if name in declared:
                raise Unresolved(f"{name!r} is declared by both {owner[name]} and {ns_cls.name}")
            declared[name], owner[name] = (name, stmt, ns_module), ns_cls.name
    collector, _ = module.imports["collect_input_fields"]  # it imports the order it applies
    order = module.source.module(collector).lookup("POSITIONAL_FIELD_ORDER")
    known = [n for n in order if n in declared]
    rest = [n for n in declared if n not in set(order)]
    return [declared[n] for n in known + rest]


def _is_factory(value: ast.AST | None) -> bool:
    return isinstance(value, ast.Call) and any(kw.arg == "default_factory" for kw in value.keywords)


def _from_cli_args_copies(cls: ast.ClassDef) -> dict[str, str]:
    """``args.FIELD = args.DEST`` statements of ``ServerArgs.from_cli_args``: DEST → FIELD."""
    method = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "from_cli_args"), None)
    copies: dict[str, str] = {}
    for stmt in method.body if method is not None else ():
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.value, ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name)
            and isinstance(stmt.value.value, ast.Name)
            and stmt.targets[0].value.id == stmt.value.value.id == "args"
        ):
            copies[stmt.value.attr] = stmt.targets[0].attr
    return copies


def extract(path: str) -> dict[str, Any]:
    source = Source(path)
    module = source.module("sglang.srt.server_args")
    cls = module.classes.get("ServerArgs")
    if cls is None:
        raise Unresolved("sglang.srt.server_args has no class ServerArgs")
    rebound = module.nodes["ServerArgs"]
    if "_INPUT_NAMESPACES" in module.nodes:
        # 0.5.20+: the class is re-bound to ``msgspec.defstruct("ServerArgs", ...)`` over the
        # collected annotations; anything else would be a layout this reading does not know.
        if not (isinstance(rebound, ast.Call) and ast.unparse(rebound.func) == "msgspec.defstruct"):
            raise Unresolved(f"ServerArgs = {ast.unparse(rebound)[:80]}")
        declared, origin_text = _declared_in_namespaces(module, cls), _SOURCE_NAMESPACES
    elif rebound is not cls:
        raise Unresolved("ServerArgs is re-bound without _INPUT_NAMESPACES")
    else:
        declared, origin_text = _declared_in_class(module, cls), _SOURCE_CLASS
    flags: list[dict[str, Any]] = []
    field_defaults: dict[str, Any] = {}
    plain_defaults: dict[str, Any] = {}  # what _declared_default answers: no factory defaults
    for name, stmt, field_module in declared:
        ev = Evaluator(field_module)
        try:
            has, default = _field_default(ev, stmt.value)
        except Unresolved:
            if not _is_factory(stmt.value):
                raise
            # 0.5.10-0.5.13 pre_warm_nccl: ``default_factory=lambda: is_hip()``, a default that
            # depends on the machine: recorded as source text, never guessed
            has, default = True, _Dynamic(ast.unparse(stmt.value))
        if has:
            field_defaults[name] = default
            if not _is_factory(stmt.value):
                plain_defaults[name] = default
        flag = _field_flag(ev, stmt)
        if flag is not None:
            flag["origin"] = "field"
            flags.append(flag)
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args")
    local: dict[str, Any] = {}
    ev_local = Evaluator(module, scope=local)
    for stmt in ast.walk(method):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            local[stmt.targets[0].id] = ev_local.eval(stmt.value)
        if (
            isinstance(stmt, ast.Call)
            and isinstance(stmt.func, ast.Attribute)
            and stmt.func.attr == "add_argument"
        ):
            flag = _manual_flag(ev_local, stmt, field_defaults, plain_defaults)
            flag["origin"] = "add_cli_args"
            flags.append(flag)
    # Up to 0.5.13 ``ServerArgs.from_cli_args`` starts with ``args.tp_size = args.tensor_parallel_size``
    # and the like: such a flag's argparse dest (from its first, long spelling) is only a name on
    # the way to the field, so the table records the field it sets.
    copied = _from_cli_args_copies(cls)
    for flag in flags:
        if flag["dest"] in copied:
            flag["dest"] = copied[flag["dest"]]
    for flag in flags:
        for key in ("choices", "default", "fallback", "const"):
            if key in flag:
                flag[key] = _jsonable(flag[key])
    options = [o for f in flags for o in f["options"]]
    dupes = sorted({o for o in options if options.count(o) > 1})
    if dupes:
        raise Unresolved(f"option strings declared twice: {dupes}")
    return {
        "schema": SCHEMA,
        "sglang": source.version(),
        "source": origin_text,
        "generated_by": "tools/extract_sglang_flags.py",
        "flags": flags,
    }


def dump(table: dict[str, Any]) -> str:
    """One flag per line: the file diffs well between releases."""
    head = {k: v for k, v in table.items() if k != "flags"}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "flags": [')
    body = [f"    {json.dumps(f, sort_keys=False)}" for f in table["flags"]]
    lines.append(",\n".join(body))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="sglang wheel (.whl) or a directory holding sglang/")
    parser.add_argument("-o", "--output", help="write the table here (default: stdout)")
    parser.add_argument("--names", action="store_true", help="print the sorted option strings only")
    args = parser.parse_args(argv)
    try:
        table = extract(args.source)
    except Unresolved as exc:
        print(f"error: cannot evaluate {exc}", file=sys.stderr)
        return 2
    if args.names:
        text = "\n".join(sorted(o for f in table["flags"] for o in f["options"])) + "\n"
    else:
        text = dump(table)
    if args.output:
        from resolvable._files import write_atomic  # a failed write keeps the committed table

        write_atomic(args.output, text, what="flag table")
        print(f"wrote {args.output} ({len(table['flags'])} flags)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
