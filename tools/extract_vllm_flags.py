#!/usr/bin/env python3
"""Build the ``vllm serve`` flag table of one vLLM release from its wheel's source (stdlib only).

    python tools/extract_vllm_flags.py WHEEL_OR_DIR [-o src/resolvable/vllm/flags/vllm-X.json]
    python tools/extract_vllm_flags.py WHEEL_OR_DIR --names      # just the option strings

``WHEEL_OR_DIR`` is a vLLM ``.whl`` (read with ``zipfile``) or a directory holding ``vllm/``. The
source is parsed with ``ast`` and never imported. The module reader and the small expression
evaluator are the SGLang extractor's (``tools/extract_sglang_flags.py``: ``Source``, ``Module``,
``Evaluator``), pointed at the ``vllm`` package; what is vLLM's own is re-stated here
(vllm-config-spec.md §1.1–§1.7):

* the parser is ``entrypoints/{common|launchers}/cli_args.py : make_arg_parser``: literal
  ``add_argument`` calls, then ``FrontendArgs.add_cli_args`` (one flag per dataclass field of
  ``BaseFrontendArgs``/``FrontendArgs`` after the ``_customize_cli_kwargs`` edits), then
  ``engine/arg_utils.py : AsyncEngineArgs.add_cli_args`` → ``EngineArgs.add_cli_args``;
* ``get_kwargs(ConfigClass)[field]`` is ``_compute_kwargs``'s mapping from a field's annotation
  to argparse keywords (§1.2), re-stated in ``_field_kwargs`` with the module's *runtime*
  bindings (``if TYPE_CHECKING:`` bodies are skipped, their ``else:`` read);
* ``BooleanOptionalAction`` adds ``--no-X``; from the release whose ``argparse_utils`` defines
  ``EnableDisableAction`` (0.33) ``--enable-X`` also gets ``--disable-X`` and vice versa.

Values that depend on the running machine or on plugins (``--mm-processor-device`` choices,
``--tool-call-parser`` names, a default read from the environment) are recorded as ``dynamic``
with their source text, never guessed. Any other expression it cannot read is an error.
``tests/vllm/test_flags.py`` regenerates every committed table from the wheels it finds.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from extract_sglang_flags import (
    Evaluator,
    Module,
    Source,
    Unresolved,
    _ClassNS,
    _EnumMember,
)

SCHEMA = "resolvable.vllm-flags/1"
_SUPPRESS = "==SUPPRESS=="
_BUILTINS = {"bool", "str", "int", "float", "dict", "list", "tuple", "set", "bytes", "object", "type"}
_TYPING = {"Optional", "Union", "Annotated", "Literal", "ClassVar", "InitVar", "Final"}
_ALIASES = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "set"}
#: _compute_kwargs: int fields read with a human-readable converter (§1.2 row 8).
_HUMAN_INT = {
    "max_num_batched_tokens",
    "max_num_scheduled_tokens",
    "kv_cache_memory_bytes",
    "safetensors_prefetch_block_size",
    "max_num_queued_tokens",
}


class VllmSource(Source):
    package = "vllm"

    def module(self, dotted: str) -> Module:
        if dotted not in self._modules:
            rel = dotted.replace(".", "/")
            text = self.text(rel + ".py") or self.text(rel + "/__init__.py")
            if text is None:
                raise Unresolved(f"module {dotted} not in {self.path}")
            is_pkg = self.text(rel + ".py") is None
            self._modules[dotted] = VllmModule(self, dotted, _runtime(ast.parse(text)), is_pkg)
        return self._modules[dotted]

    def has(self, dotted: str) -> bool:
        rel = dotted.replace(".", "/")
        return self.text(rel + ".py") is not None or self.text(rel + "/__init__.py") is not None

    def version(self) -> str:
        text = self.text("vllm/_version.py") or ""
        for node in ast.parse(text).body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if getattr(target, "id", "") == "__version__":
                        value = node.value
                        while isinstance(value, ast.Assign):  # __version__ = version = '0.34.0'
                            value = value.value
                        return value.value  # type: ignore[attr-defined]
        base = os.path.basename(self.path.rstrip("/"))
        return base.split("-")[1] if "-" in base else base


def _runtime(tree: ast.Module) -> ast.Module:
    """The statements that run at import: ``if TYPE_CHECKING:`` bodies give way to their
    ``else:``; other top-level ``if``/``try`` blocks are read whole (first binding wins later)."""
    out: list[ast.stmt] = []

    def add(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                    add(node.orelse)
                else:
                    add(node.body)
                    add(node.orelse)
            elif isinstance(node, ast.Try):
                add(node.body)
            else:
                out.append(node)

    add(tree.body)
    return ast.Module(body=out, type_ignores=[])


class VllmModule(Module):
    """A vLLM module: relative imports resolved, and each name's binding node findable."""

    def __init__(self, source: VllmSource, name: str, tree: ast.Module, is_pkg: bool) -> None:
        package = name if is_pkg else name.rpartition(".")[0]
        for node in tree.body:  # relative imports become absolute (the base reads absolute ones)
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                node.module = ".".join(base + ([node.module] if node.module else []))
                node.level = 0
        super().__init__(source, name, tree)
        self.external: dict[str, str] = {}
        self.star: list[str] = []  # ``from vllm.x import *``: searched last
        for node in tree.body:
            star = isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
            if star and node.module and node.module.startswith("vllm"):  # type: ignore[union-attr]
                self.star.append(node.module)  # type: ignore[union-attr]
            if isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith("vllm"):
                for alias in node.names:
                    self.external[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.external[alias.asname or alias.name.split(".")[0]] = alias.name

    def binding(self, name: str) -> tuple[VllmModule, ast.AST] | str:
        """Where ``name`` is bound: (module, class or value node), or an external dotted name."""
        if name in self.nodes:
            return self, self.nodes[name]
        if name in self.imports:
            mod, attr = self.imports[name]
            if self.source.has(f"{mod}.{attr}"):
                return f"{mod}.{attr}"  # a submodule, not a type
            return self.source.module(mod).binding(attr)  # type: ignore[attr-defined]
        if name in self.external:
            return self.external[name]
        for mod in self.star:
            try:
                return self.source.module(mod).binding(name)  # type: ignore[attr-defined]
            except Unresolved:
                continue
        raise Unresolved(f"{self.name}.{name}")


# -- annotations → the hint set of vLLM's get_type_hints -----------------------------------------
# A hint is a tuple: ("builtin", name) | ("none",) | ("literal", values) | ("generic", origin, args)
# | ("dataclass", class) | ("other", name)  (a non-builtin type: an enum, torch.dtype, Any …).


def _hints(module: VllmModule, node: ast.AST, depth: int = 0) -> list[tuple]:
    if depth > 30:
        raise Unresolved(f"type alias cycle at {ast.unparse(node)}")
    if isinstance(node, ast.Constant):
        if node.value is None:
            return [("none",)]
        if isinstance(node.value, str):  # a forward reference
            return _hints(module, ast.parse(node.value, mode="eval").body, depth + 1)
        raise Unresolved(ast.unparse(node))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _merge(_hints(module, node.left, depth + 1), _hints(module, node.right, depth + 1))
    if isinstance(node, ast.Subscript):
        origin = ast.unparse(node.value).split(".")[-1]
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if origin == "Optional":
            return _merge(_hints(module, items[0], depth + 1), [("none",)])
        if origin == "Union":
            out: list[tuple] = []
            for item in items:
                out = _merge(out, _hints(module, item, depth + 1))
            return out
        if origin in ("Annotated", "SkipValidation"):  # pydantic's SkipValidation[X] is Annotated[X, ...]
            return _hints(module, items[0], depth + 1)
        if origin == "Literal":
            return [("literal", tuple(_literal_values(module, items, depth)))]
        origin = _ALIASES.get(origin, origin)
        if origin in ("list", "tuple", "set", "dict"):
            args = tuple(
                ("ellipsis",)
                if isinstance(i, ast.Constant) and i.value is Ellipsis
                else tuple(_hints(module, i, depth + 1))
                for i in items
            )
            return [("generic", origin, args)]
        return _name_hints(module, node.value, depth)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _name_hints(module, node, depth)
    raise Unresolved(f"annotation {ast.unparse(node)}")


def _merge(a: list[tuple], b: list[tuple]) -> list[tuple]:
    return a + [h for h in b if h not in a]


def _literal_values(module: VllmModule, items: list[ast.AST], depth: int) -> list[Any]:
    """``Literal[...]`` members; a nested ``Literal`` alias is flattened (as typing does)."""
    values: list[Any] = []
    for item in items:
        if isinstance(item, ast.Constant):
            values.append(item.value)
            continue
        nested = _hints(module, item, depth + 1)
        if len(nested) == 1 and nested[0][0] == "literal":
            values.extend(nested[0][1])
        else:
            raise Unresolved(f"Literal member {ast.unparse(item)}")
    return list(dict.fromkeys(values))


def _name_hints(module: VllmModule, node: ast.AST, depth: int) -> list[tuple]:
    text = ast.unparse(node)
    if isinstance(node, ast.Attribute):
        return [("other", text)]  # torch.dtype, typing.Any …: non-builtin types
    name = node.id  # type: ignore[attr-defined]
    if name in _BUILTINS:
        return [("builtin", name)]
    if name in _ALIASES:
        return [("builtin", _ALIASES[name])]
    if name == "None":
        return [("none",)]
    where = module.binding(name)
    if isinstance(where, str):
        return [("other", where)]
    mod, bound = where
    if isinstance(bound, ast.ClassDef):
        return [_class_hint(mod, bound)]  # type: ignore[arg-type]
    # A type alias (``X = Literal[...]``, ``X: TypeAlias = ...``) or a runtime rebinding.
    if isinstance(bound, ast.Call) and ast.unparse(bound.func).split(".")[-1] in ("TypeVar", "NewType"):
        return [("other", name)]
    return _hints(mod, bound, depth + 1)  # type: ignore[arg-type]


def _class_hint(module: VllmModule, cls: ast.ClassDef, depth: int = 0) -> tuple:
    if _is_dataclass(module, cls, depth):
        return ("dataclass", cls.name)
    for base in cls.bases:
        text = ast.unparse(base)
        if text.split("[")[0] in ("dict", "Dict", "defaultdict", "OrderedDict"):
            return ("builtin", "dict")  # _compute_kwargs: dict subclasses count as dict
    return ("other", cls.name)


def _is_dataclass(module: VllmModule, cls: ast.ClassDef, depth: int = 0) -> bool:
    for deco in cls.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if ast.unparse(target).split(".")[-1] in ("config", "dataclass"):
            return True
    if depth > 10:
        return False
    for base in cls.bases:  # a subclass of a dataclass is one too (is_dataclass)
        if isinstance(base, ast.Name):
            try:
                where = module.binding(base.id)
            except Unresolved:
                continue
            is_class = not isinstance(where, str) and isinstance(where[1], ast.ClassDef)
            if is_class and _is_dataclass(where[0], where[1], depth + 1):  # type: ignore[arg-type]
                return True
    return False


def _class_of(module: VllmModule, name: str) -> tuple[VllmModule, ast.ClassDef]:
    where = module.binding(name)
    if isinstance(where, str) or not isinstance(where[1], ast.ClassDef):
        raise Unresolved(f"class {name} in {module.name}")
    return where  # type: ignore[return-value]


def _fields(
    module: VllmModule, cls: ast.ClassDef, depth: int = 0
) -> dict[str, tuple[VllmModule, ast.AnnAssign]]:
    """Dataclass fields in ``fields()`` order: bases first (a redefined field keeps its place)."""
    out: dict[str, tuple[VllmModule, ast.AnnAssign]] = {}
    for base in cls.bases:
        if isinstance(base, ast.Name) and depth < 10:
            try:
                bmod, bcls = _class_of(module, base.id)
            except Unresolved:
                continue
            if _is_dataclass(bmod, bcls):
                out.update(_fields(bmod, bcls, depth + 1))
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            ann = ast.unparse(stmt.annotation)
            if ann.split("[")[0].split(".")[-1] in ("ClassVar", "InitVar"):
                continue
            out[stmt.target.id] = (module, stmt)
    return out


def _has(hints: list[tuple], kind: str, name: str | None = None) -> bool:
    for h in hints:
        if kind == "builtin" and h[0] == "builtin" and h[1] == name:
            return True
        if kind == "generic" and h[0] == "generic" and h[1] == name:
            return True
        if kind in ("literal", "dataclass", "none") and h[0] == kind:
            return True
    return False


def _non_builtin(h: tuple) -> bool:
    return h[0] in ("other", "literal", "dataclass")


def _elem_type(h: tuple) -> str:
    if h[0] == "builtin" and h[1] in ("int", "float", "str"):
        return h[1]
    return "str"


def _literal_kwargs(hints: list[tuple], lit: tuple) -> dict[str, Any]:
    values = list(lit[1])
    kinds = {type(v) for v in values}
    if len(kinds) != 1:
        raise Unresolved(f"Literal of mixed types {values}")
    kind = {str: "str", int: "int", bool: "bool", float: "float"}[kinds.pop()]
    key = "metavar" if _has(hints, "builtin", "str") else "choices"
    return {"type": kind, key: sorted(values)}


class Default:
    """A field default: a JSON value, a factory's name, or source text (dynamic)."""

    def __init__(self, value: Any = None, factory: str | None = None, dynamic: str | None = None) -> None:
        self.value, self.factory, self.dynamic = value, factory, dynamic


def _default(module: VllmModule, stmt: ast.AnnAssign) -> Default | None:
    node = stmt.value
    if node is None:
        return None
    if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("field", "Field"):
        for kw in node.keywords:
            if kw.arg == "default":
                return _value_default(module, kw.value)
            if kw.arg == "default_factory":
                text = ast.unparse(kw.value)
                if text in ("list", "dict", "set"):
                    return Default([] if text != "dict" else {})
                if isinstance(kw.value, ast.Lambda):
                    return _value_default(module, kw.value.body)
                return Default(factory=text)
        if node.args:
            return _value_default(module, node.args[0])
        return None
    return _value_default(module, node)


def _value_default(module: VllmModule, node: ast.AST) -> Default:
    try:
        value = Evaluator(module).eval(node)
    except (Unresolved, KeyError, TypeError, AttributeError, IndexError):
        return Default(dynamic=ast.unparse(node))
    try:
        return Default(_json(value))
    except Unresolved:
        return Default(dynamic=ast.unparse(node))


def _json(value: Any) -> Any:
    if isinstance(value, _EnumMember):
        return _json(value.value)
    if isinstance(value, (tuple, list)):
        return [_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_json(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    raise Unresolved(f"not a JSON value: {value!r}")


def _field_kwargs(module: VllmModule, stmt: ast.AnnAssign, name: str, release: str) -> dict[str, Any]:
    """engine/arg_utils.py : _compute_kwargs for one field (the rows of spec §1.2, in order)."""
    hints = _hints(module, stmt.annotation)
    hints = [("builtin", "dict") if h == ("other", "dict") else h for h in hints]
    kw: dict[str, Any] = {}
    default = _default(module, stmt)
    if default is not None:
        if default.factory is not None:
            kw["default_factory"] = default.factory
        elif default.dynamic is not None:
            kw["default_dynamic"] = default.dynamic
        else:
            kw["default"] = default.value
    dataclass = next((h for h in hints if h[0] == "dataclass"), None)
    if dataclass is not None:
        kw["type"] = "config"
        kw["config_class"] = dataclass[1]
    elif sorted(map(repr, hints)) == sorted(map(repr, [("builtin", "bool"), ("builtin", "str"), ("none",)])):
        kw.update(type="str", nargs="?", const=True)
    elif _has(hints, "builtin", "bool"):
        kw["action"] = "boolean_optional"
    elif _has(hints, "literal"):
        kw.update(_literal_kwargs(hints, next(h for h in hints if h[0] == "literal")))
    elif any(_has(hints, "generic", c) for c in ("tuple", "list", "set")):
        origin = next(c for c in ("tuple", "list", "set") if _has(hints, "generic", c))
        generic = next(h for h in hints if h[0] == "generic" and h[1] == origin)
        args = [a for a in generic[2] if a != ("ellipsis",)]
        elem = list(args[0]) if args else [("builtin", "str")]
        if len(elem) > 1:  # list[int | str]: the element is read as str
            kw["type"] = "str"
        elif elem[0][0] == "literal":
            kw.update(_literal_kwargs(elem, elem[0]))
        else:
            kw["type"] = _elem_type(elem[0])
        ellipsis = ("ellipsis",) in generic[2]
        kw["nargs"] = "+" if origin != "tuple" or ellipsis or not generic[2] else len(generic[2])
    elif _has(hints, "builtin", "int"):
        kw["type"] = (
            "human_readable_int_or_auto"
            if name == "max_model_len"
            else "human_readable_int"
            if name in _HUMAN_INT
            else "int"
        )
    elif _has(hints, "builtin", "float"):
        kw["type"] = "float"
    elif (_has(hints, "builtin", "dict") or _has(hints, "generic", "dict")) and (
        _has(hints, "builtin", "str") or any(_non_builtin(h) for h in hints)
    ):
        kw["type"] = "dict_or_str"
    elif _has(hints, "builtin", "dict") or _has(hints, "generic", "dict"):
        kw["type"] = "json"
    elif _has(hints, "builtin", "str") or any(_non_builtin(h) for h in hints):
        kw["type"] = "str"
    else:
        raise Unresolved(f"{name}: unsupported type {hints}")
    if _has(hints, "none") and not _has(hints, "builtin", "bool"):
        kw["optional"] = True
        if kw.get("choices"):  # 0.30-0.31 append the string "None", later releases None itself
            kw["choices"] = [*kw["choices"], _NONE_CHOICE[0]]
    return kw


#: What ``_compute_kwargs`` appends to the choices of an optional field (read by ``extract``).
_NONE_CHOICE: list[Any] = [None]


def _none_choice(source: VllmSource) -> Any:
    module = source.module("vllm.engine.arg_utils")
    fn = module.functions.get("_compute_kwargs")
    if fn is None:
        raise Unresolved("vllm.engine.arg_utils has no _compute_kwargs")
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and "choices" in ast.unparse(node.func.value)
        ):
            return Evaluator(module).eval(node.args[0])
    raise Unresolved("_compute_kwargs appends nothing to choices")


def _class_kwargs(module: VllmModule, cls: ast.ClassDef, release: str) -> dict[str, dict[str, Any]]:
    return {
        name: _field_kwargs(fmod, stmt, name, release) for name, (fmod, stmt) in _fields(module, cls).items()
    }


# -- walking the add_cli_args bodies -------------------------------------------------------------

_TYPE_EXPRS = {
    "int": ("int", False),
    "str": ("str", False),
    "float": ("float", False),
    "bool": ("bool", False),  # 0.11: the deprecated --guided-decoding-disable-* flags
    "json.loads": ("json", False),
    "optional_type(json.loads)": ("json", True),
    "optional_type(str)": ("str", True),
    "parse_type(json.loads)": ("json", False),
    "parse_reasoning_parser": ("reasoning_parser", False),
    "lambda s: s.lower().replace('-', '_')": ("lower_snake", False),
    "human_readable_int": ("human_readable_int", False),
    # --device-ids: "2,3,5,7" → [2, 3, 5, 7] (digits become ints, UUIDs stay strings)
    "lambda s: [int(device_id) if device_id.isdigit() else device_id for device_id in "
    "(part.strip() for part in s.split(','))]": ("device_ids", False),
}
_ACTIONS = {
    "argparse.BooleanOptionalAction": "boolean_optional",
    "BooleanOptionalAction": "boolean_optional",
    "'store_true'": "store_true",
    "'store_false'": "store_false",
    "'append'": "append",
    "'store'": "store",
    "LoRAParserAction": "lora_modules",
    "DeprecatedLogConfigFileAction": "store",
}


class Walker:
    """Replays the statements of an ``add_cli_args`` body that build argparse keywords."""

    def __init__(self, source: VllmSource, module: VllmModule, release: str, flags: list[dict]) -> None:
        self.source, self.module, self.release, self.flags = source, module, release, flags
        self.env: dict[str, Any] = {}
        self.group = None

    # values: kwargs dicts are plain dicts; a group is ("group", title)
    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name) and node.id in self.env:
            return self.env[node.id]
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "get_kwargs":
            cls = ast.unparse(node.args[0])
            if cls == "cls":
                cls = self.env["__cls__"]
            return copy.deepcopy(self.kwargs_of(cls))
        if isinstance(node, ast.Subscript):
            base = self.value(node.value)
            key = Evaluator(self.module).eval(node.slice)
            if isinstance(base, dict):
                if key not in base:
                    raise Unresolved(f"{ast.unparse(node)}: no field {key!r}")
                return base[key]
        if isinstance(node, ast.Dict):  # {**kw["x"], "default": None}
            out: dict[str, Any] = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    out.update(copy.deepcopy(self.value(v)))
                else:
                    out[Evaluator(self.module).eval(k)] = self.kwarg(Evaluator(self.module).eval(k), v)
            return out
        raise Unresolved(f"{self.module.name}: {ast.unparse(node)}")

    _kwargs_cache: dict[tuple[str, str], dict] = {}

    def kwargs_of(self, cls_name: str) -> dict[str, dict[str, Any]]:
        key = (self.module.name, cls_name)
        if key not in self._kwargs_cache:
            mod, cls = _class_of(self.module, cls_name)
            self._kwargs_cache[key] = _class_kwargs(mod, cls, self.release)
        return self._kwargs_cache[key]

    def kwarg(self, key: str, node: ast.AST) -> Any:
        """One literal keyword of add_argument (or a kwargs-dict item assignment)."""
        text = ast.unparse(node)
        if key == "type":
            if text not in _TYPE_EXPRS:
                raise Unresolved(f"type expression {text}")
            return _TYPE_EXPRS[text]
        if key == "action":
            if text not in _ACTIONS:
                raise Unresolved(f"action {text}")
            return ("action", _ACTIONS[text])
        if key == "help":
            return None
        if key == "default" and text == "argparse.SUPPRESS":
            return _SUPPRESS
        try:
            value = Evaluator(self.module).eval(node)
            if isinstance(value, _ClassNS):
                raise Unresolved(text)
            if key == "choices" and isinstance(value, (list, tuple, dict)) and not value:
                # a registry filled by decorators at import (0.11.0's
                # `list(ReasoningParserManager.reasoning_parsers)`): empty as written, never a
                # real choice list (argparse would accept nothing)
                raise Unresolved(text)
            return _json(value)
        except (Unresolved, KeyError, TypeError, AttributeError):
            if key in ("choices", "default", "metavar"):
                return ("dynamic", text)
            raise

    def walk(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            if "sys.argv" in test:  # --model: registered unless `serve --help` (not help here)
                self.walk(stmt.body)
                return
            self.walk(stmt.body if self.condition(stmt.test) else stmt.orelse)
            return
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                if isinstance(stmt.value, ast.Call) and ast.unparse(stmt.value.func).endswith(
                    "add_argument_group"
                ):
                    title = next((k.value for k in stmt.value.keywords if k.arg == "title"), None)
                    if title is None and stmt.value.args:
                        title = stmt.value.args[0]
                    try:
                        self.env[target.id] = ("group", Evaluator(self.module).eval(title))
                    except Unresolved:
                        self.env[target.id] = ("group", self.env.get("__group__", "?"))
                    return
                if isinstance(stmt.value, ast.Call) and ast.unparse(stmt.value.func).endswith("add_cli_args"):
                    self.call_add_cli_args(stmt.value)
                    return
                try:
                    self.env[target.id] = self.value(stmt.value)
                except Unresolved:
                    self.env[target.id] = ("dynamic", ast.unparse(stmt.value))
                return
            if isinstance(target, ast.Subscript):
                container = self.value(target.value)
                key = Evaluator(self.module).eval(target.slice)
                container[key] = self.kwarg(key, stmt.value)
                return
        if isinstance(stmt, ast.AugAssign):
            return  # help text additions
        if isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                container = self.value(target.value)  # type: ignore[attr-defined]
                del container[Evaluator(self.module).eval(target.slice)]  # type: ignore[attr-defined]
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            func = ast.unparse(call.func)
            if func.endswith(".add_argument"):
                self.add_argument(call)
            elif func.endswith(".remove") and isinstance(call.func, ast.Attribute):
                container = self.value(call.func.value)
                container.remove(_json(Evaluator(self.module).eval(call.args[0])))
            elif func.endswith("add_cli_args"):
                self.call_add_cli_args(call)
            return  # plugin hooks, logging: no flags of their own in-tree
        if isinstance(stmt, ast.For):
            self.for_loop(stmt)
            return
        # return, docstrings, imports, comments: nothing to replay

    def condition(self, node: ast.AST) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.condition(node.operand)
        if isinstance(node, ast.Name) and isinstance(self.env.get(node.id), bool):
            return self.env[node.id]
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
        ):
            key = Evaluator(self.module).eval(node.left)
            container = self.value(node.comparators[0])
            inside = key in container
            return inside if isinstance(node.ops[0], ast.In) else not inside
        raise Unresolved(f"condition {ast.unparse(node)}")

    def for_loop(self, stmt: ast.For) -> None:
        """0.11: ``for arg, type in [("--guided-decoding-backend", str), ...]: add_argument(arg,
        type=type, ...)``: a loop over a literal list, unrolled by putting each element's
        expressions in place of the loop names. Any other loop is an error."""
        items = stmt.iter
        if not isinstance(items, (ast.List, ast.Tuple)) or stmt.orelse:
            raise Unresolved(f"loop {ast.unparse(stmt)[:60]}")
        target = stmt.target
        names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", None)
        if not names or not all(isinstance(n, ast.Name) for n in names):
            raise Unresolved(f"loop {ast.unparse(stmt)[:60]}")
        for item in items.elts:
            values = [item] if len(names) == 1 else getattr(item, "elts", None)
            if values is None or len(values) != len(names):
                raise Unresolved(f"loop element {ast.unparse(item)}")
            bound = {n.id: v for n, v in zip(names, values)}  # type: ignore[attr-defined]

            class _Bind(ast.NodeTransformer):
                def visit_Name(self, node: ast.Name) -> ast.AST:
                    return copy.deepcopy(bound[node.id]) if node.id in bound else node

            self.walk([_Bind().visit(copy.deepcopy(s)) for s in stmt.body])

    def call_add_cli_args(self, call: ast.Call) -> None:
        owner = ast.unparse(call.func).rsplit(".", 1)[0]
        if owner in ("FrontendArgs", "cls"):
            frontend(self.source, self.module, owner, self)
            return
        mod, cls = _class_of(self.module, owner)
        method = _method(cls, "add_cli_args")
        walker = Walker(self.source, mod, self.release, self.flags)
        params = method.args.args[len(method.args.args) - len(method.args.defaults) :]
        for param, default in zip(params, method.args.defaults):  # called with its defaults
            walker.env[param.arg] = Evaluator(mod).eval(default)
        walker.walk(method.body)

    def add_argument(self, call: ast.Call) -> None:
        options = [Evaluator(self.module).eval(a) for a in call.args if not isinstance(a, ast.Starred)]
        kw: dict[str, Any] = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                kw.update(copy.deepcopy(self.value(keyword.value)))
            else:
                kw[keyword.arg] = self.kwarg(keyword.arg, keyword.value)
        group = self.env.get(ast.unparse(call.func).rsplit(".", 1)[0])
        self.flags.append(_flag(options, kw, group[1] if isinstance(group, tuple) else None))


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    raise Unresolved(f"{cls.name}.{name}")


def frontend(source: VllmSource, module: VllmModule, owner: str, outer: Walker) -> None:
    """``FrontendArgs.add_cli_args``: a flag per field after each class's ``_customize_cli_kwargs``
    (base class first), as the classmethod in ``cli_args.py`` does."""
    mod, cls = _class_of(module, "FrontendArgs")
    chain = [cls]
    while True:
        base = next((b for b in chain[0].bases if isinstance(b, ast.Name)), None)
        if base is None:
            break
        try:
            bmod, bcls = _class_of(mod, base.id)
        except Unresolved:
            break
        if not _is_dataclass(bmod, bcls):
            break
        chain.insert(0, bcls)
    kwargs = copy.deepcopy(_class_kwargs(mod, cls, outer.release))
    walker = Walker(source, mod, outer.release, outer.flags)
    for klass in chain:
        try:
            method = _method(klass, "_customize_cli_kwargs")
        except Unresolved:
            continue
        param = method.args.args[1].arg
        walker.env = {param: kwargs, "frontend_kwargs": kwargs}
        walker.walk([s for s in method.body if not _is_super_call(s)])
    add = _method(cls, "add_cli_args") if _defines(cls, "add_cli_args") else None
    for klass in reversed(chain):
        if _defines(klass, "add_cli_args"):
            add = _method(klass, "add_cli_args")
            break
    title = "Frontend"
    if add is not None:  # old layouts (0.30) edit the kwargs inside add_cli_args itself
        inline = [s for s in add.body if _edits_kwargs(s)]
        walker.env = {"frontend_kwargs": kwargs, "__cls__": "FrontendArgs"}
        walker.walk(inline)
    for name, value in kwargs.items():
        extra = value.pop("flags", [])
        outer.flags.append(_flag([*extra, "--" + name.replace("_", "-")], value, title))


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, ast.FunctionDef) and s.name == name for s in cls.body)


def _is_super_call(stmt: ast.stmt) -> bool:
    return "super()" in ast.unparse(stmt)


def _edits_kwargs(stmt: ast.stmt) -> bool:
    """A statement of add_cli_args that edits the field kwargs (not the loop that registers)."""
    if isinstance(stmt, (ast.Assign, ast.Delete, ast.If)):
        text = ast.unparse(stmt)
        return "frontend_kwargs[" in text and "get_kwargs" not in text and "add_argument" not in text
    return False


def _flag(options: list[str], kw: dict[str, Any], group: str | None) -> dict[str, Any]:
    """One argparse action as a table row (facts only; help prose is not copied)."""
    positional = [o for o in options if not o.startswith("-")]
    dest = kw.get("dest") or (
        positional[0]
        if positional
        else next((o for o in options if o.startswith("--")), options[0]).lstrip("-").replace("-", "_")
    )
    row: dict[str, Any] = {"dest": dest, "options": list(options)}
    action = kw.get("action")
    action = action[1] if isinstance(action, tuple) else (action or "store")
    if action != "store":
        row["action"] = action
    if action == "boolean_optional":
        row["negatives"] = ["--no-" + o[2:] for o in options if o.startswith("--")]
    type_ = kw.get("type")
    if isinstance(type_, tuple):
        kind, optional = type_
        if optional:
            row["optional"] = True
    else:
        kind = type_
        if kw.get("optional"):
            row["optional"] = True
    if kind is not None and action not in ("boolean_optional", "store_true", "store_false"):
        row["type"] = kind
    for key in ("config_class", "nargs", "const"):
        if key in kw and kw[key] is not None:
            row[key] = kw[key]
    choices = kw.get("choices")
    if isinstance(choices, tuple) and choices[:1] == ("dynamic",):
        row["dynamic_choices"] = choices[1]
    elif choices is not None:
        row["choices"] = list(choices)
    metavar = kw.get("metavar")
    if isinstance(metavar, list):
        row["suggested"] = metavar  # a Literal beside str: shown, not checked (§1.2 row 4)
    if "default_factory" in kw:
        row["default_factory"] = kw["default_factory"]
    elif "default_dynamic" in kw:
        row["dynamic_default"] = kw["default_dynamic"]
    elif "default" in kw:
        default = kw["default"]
        if isinstance(default, tuple) and default[:1] == ("dynamic",):
            row["dynamic_default"] = default[1]
        elif default != _SUPPRESS:
            row["default"] = default
    elif action not in ("store_true", "store_false"):
        row["default"] = None
    elif action == "store_true":
        row["default"] = False
    if group:
        row["group"] = group
    if positional:
        row["positional"] = True
    return row


_DEPRECATED_HINTS = ("deprecated", "has no effect")


def _deprecated(source: VllmSource, flags: list[dict]) -> None:
    """Flags whose help is one of arg_utils' ``_*_DEPRECATION_MESSAGE`` constants (§1.5)."""
    module = source.module("vllm.engine.arg_utils")
    messages = {
        name: node.value
        for name, node in module.nodes.items()
        if name.endswith("_DEPRECATION_MESSAGE") and isinstance(node, ast.Constant)
    }
    deprecated: set[str] = set()
    for call in ast.walk(module.tree):
        if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("add_argument"):
            text = ast.unparse(call)
            if any(name in text for name in messages) and call.args:
                deprecated.add(Evaluator(module).eval(call.args[0]))
    for row in flags:
        if row["options"][0] in deprecated:
            row["deprecated"] = True


def _environment(source: VllmSource) -> tuple[list[str], dict[str, str]]:
    """``vllm/envs.py``: the names of ``environment_variables`` (what vLLM knows; any other
    ``VLLM_*`` is warned about by ``Platform.validate_environ``) and, where the release has it,
    ``removed_environment_variables`` (name → vLLM's migration hint; setting one is refused)."""
    module = source.module("vllm.envs")
    known = module.nodes.get("environment_variables")
    if not isinstance(known, ast.Dict):
        raise Unresolved("vllm.envs.environment_variables is not a dict literal")
    names = sorted(Evaluator(module).eval(k) for k in known.keys if k is not None)
    removed: dict[str, str] = {}
    node = module.nodes.get("removed_environment_variables")
    if isinstance(node, ast.Dict):
        removed = {
            Evaluator(module).eval(k): Evaluator(module).eval(v) for k, v in zip(node.keys, node.values)
        }
    return names, removed


def _parser_module(source: VllmSource) -> str:
    """The module whose ``make_arg_parser`` builds ``vllm serve``'s parser: the one
    ``entrypoints/cli/serve.py`` imports it from (``entrypoints/openai/cli_args.py`` up to 0.28,
    ``entrypoints/launchers/`` or ``entrypoints/common/`` later), else the newest layout's."""
    serve = "vllm.entrypoints.cli.serve"
    if source.has(serve):
        for node in source.module(serve).tree.body:
            if isinstance(node, ast.ImportFrom) and any(a.name == "make_arg_parser" for a in node.names):
                return node.module or ""
    cli = "vllm.entrypoints.common.cli_args"
    return cli if source.has(cli) else "vllm.entrypoints.launchers.cli_args"


def extract(path: str) -> dict[str, Any]:
    source = VllmSource(path)
    release = source.version()
    Walker._kwargs_cache = {}
    _NONE_CHOICE[0] = _none_choice(source)
    cli = _parser_module(source)
    module = source.module(cli)
    if "make_arg_parser" not in module.functions:
        raise Unresolved(f"{cli} has no make_arg_parser")
    flags: list[dict] = []
    walker = Walker(source, module, release, flags)  # type: ignore[arg-type]
    walker.walk(module.functions["make_arg_parser"].body)
    argparse_utils = "vllm.utils.argparse_utils"  # 0.11.0 has no such module (vllm/utils.py)
    enable_disable = source.has(argparse_utils) and "EnableDisableAction" in source.module(argparse_utils).nodes
    for row in flags:
        if enable_disable and row.get("action") == "boolean_optional":
            inverses = []
            for option in row["options"]:
                for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                    if option.startswith(prefix):
                        inverses.append(inverse + option[len(prefix) :])
            row["negatives"] = row["negatives"] + inverses
    _deprecated(source, flags)
    environment, removed_environment = _environment(source)
    seen: dict[str, str] = {}
    for row in flags:
        for option in row["options"] + row.get("negatives", []):
            if option in seen and not row.get("positional"):
                raise Unresolved(f"{option} registered twice ({seen[option]}, {row['dest']})")
            seen[option] = row["dest"]
    return {
        "schema": SCHEMA,
        "vllm": release,
        "source": f"{cli.replace('.', '/')}.py: make_arg_parser; vllm/engine/arg_utils.py: "
        "EngineArgs.add_cli_args, AsyncEngineArgs.add_cli_args, _compute_kwargs",
        "generated_by": "tools/extract_vllm_flags.py",
        "enable_disable_inverses": enable_disable,
        "environment": environment,
        "removed_environment": removed_environment,
        "flags": flags,
    }


def dump(table: dict[str, Any]) -> str:
    """The committed form: header keys one per line, one flag per line (diff-friendly)."""
    head = {k: v for k, v in table.items() if k != "flags"}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "flags": [')
    rows = [f"    {json.dumps(f, ensure_ascii=False)}" for f in table["flags"]]
    lines.append(",\n".join(rows))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="vllm wheel (.whl) or a directory holding vllm/")
    parser.add_argument("-o", "--output", help="write the table here (default: stdout)")
    parser.add_argument("--names", action="store_true", help="print the option strings only")
    args = parser.parse_args(argv)
    table = extract(args.source)
    if args.names:
        names = sorted({o for f in table["flags"] for o in f["options"] + f.get("negatives", [])})
        print("\n".join(names))
        return 0
    text = dump(table)
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
