"""Variables of a deployment file, expanded as the orchestrator and the container's shell would.

* Kubernetes ``$(VAR)`` in ``command``/``args`` (``$$(VAR)`` is a literal ``$(VAR)``), from the
  container's ``env`` entries defined earlier and the variables the controller injects
  (``Scope.values``); a reference to an unknown name stays as written (Kubernetes does the same);
* Compose ``${VAR:-default}``/``${VAR-default}``/``${VAR}``/``$VAR`` (``$$`` is a literal ``$``):
  Compose takes them from the operator's shell or ``.env``, not the file, so only a default is
  known; the rest is known at run time only;
* a shell's ``$VAR``, ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:+word}`` and ``$((arithmetic))``
  on integers, outside single quotes, from assignments earlier in the same script and the
  container's environment. ``$(command)`` is never run.

Invariants: nothing is executed (arithmetic is evaluated by a small parser over integers and
``+ - * / % ( )``, nothing else); a value that only exists at run time (a controller's
``LWS_LEADER_ADDRESS``, a ``fieldRef``, a secret, an undefined variable) keeps its ``$`` text and
is recorded in ``Scope.runtime`` with the reason, so the answer can say which values it does not know.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Scope:
    """Variables known to a launch: ``values`` (name → text) and ``runtime_only`` (name → why
    its value is known at run time only). ``runtime`` collects, in order, what a launch used
    without knowing it."""

    def __init__(
        self, values: dict[str, str] | None = None, runtime_only: dict[str, str] | None = None
    ) -> None:
        self.values: dict[str, str] = dict(values or {})
        self.runtime_only: dict[str, str] = dict(runtime_only or {})
        self.runtime: dict[str, str] = {}

    def copy(self) -> Scope:
        out = Scope(self.values, self.runtime_only)
        out.runtime = self.runtime
        return out

    def unknown(self, name: str, why: str | None = None) -> None:
        self.runtime.setdefault(name, why or self.runtime_only.get(name) or "not defined in the file")

    def get(self, name: str) -> str | None:
        if name in self.runtime_only:
            return None
        return self.values.get(name)


def expand_k8s(text: str, scope: Scope) -> str:
    """Kubernetes' dependent-variable expansion of one ``command``/``args`` item or env value."""
    if "$" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$(", i):
            out.append("$(")
            i += 3
            continue
        if text.startswith("$(", i):
            end = text.find(")", i + 2)
            name = text[i + 2 : end] if end > 0 else ""
            if end > 0 and _NAME.fullmatch(name):
                value = scope.get(name)
                if value is None:
                    scope.unknown(name)
                    out.append(text[i : end + 1])
                else:
                    out.append(value)
                i = end + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def expand_compose(text: str, scope: Scope) -> str:
    """Compose interpolation: only defaults are known from the file itself."""
    if "$" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1) or match.group(4)
        op, default = match.group(2), match.group(3)
        value = scope.get(name)
        if value is not None and not (op == ":-" and value == ""):
            return value
        if op in (":-", "-"):
            return default or ""
        scope.unknown(name, "set in the operator's shell or .env file at run time")
        return match.group(0)

    return re.sub(
        r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)", one, text
    )


def expand_shell(text: str, scope: Scope) -> str:
    """A shell's parameter and arithmetic expansion of ``text`` (outside single quotes); the
    quotes themselves stay, for ``shlex.split`` to remove."""
    out: list[str] = []
    i, n = 0, len(text)
    quote = ""
    while i < n:
        c = text[i]
        if quote == "'":
            out.append(c)
            if c == "'":
                quote = ""
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
            continue
        if c in "'\"":
            if not quote and c == "'":
                quote = "'"
            elif c == '"':
                quote = "" if quote == '"' else '"'
            out.append(c)
            i += 1
            continue
        if c == "$" and i + 1 < n:
            value, end = _dollar(text, i, scope)
            if value is not None:
                out.append(_escape(value) if quote == '"' else value)
                i = end
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _dollar(text: str, i: int, scope: Scope) -> tuple[str | None, int]:
    """The expansion of the ``$`` at ``text[i]`` and the index after it (None: left as written)."""
    if text.startswith("$((", i):
        depth, j = 0, i + 1
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        expr = text[i + 3 : j - 1]
        value = arithmetic(expr, scope)
        return (str(value) if value is not None else text[i : j + 1]), j + 1
    if text.startswith("${", i):
        end = text.find("}", i)
        if end < 0:
            return None, i
        body = text[i + 2 : end]
        match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])(.*))?", body, re.DOTALL)
        if not match:
            return None, i
        name, op, default = match.groups()
        return _lookup(name, op, default, text[i : end + 1], scope), end + 1
    match = _NAME.match(text, i + 1)
    if match:
        return _lookup(match.group(0), None, None, text[i : match.end()], scope), match.end()
    if text[i + 1 : i + 2] in ("@", "*"):  # the script's own arguments: none unless given after --
        return scope.values.get("@", ""), i + 2
    return None, i


def _lookup(name: str, op: str | None, default: str | None, written: str, scope: Scope) -> str:
    if name in scope.runtime_only:
        scope.unknown(name)
        return written
    value = scope.values.get(name)
    if op in (":+", "+"):  # the alternate value: the word when the variable is set (non-empty for :+)
        if value is None and name not in scope.values:
            return ""
        return expand_shell(default or "", scope) if (value or op == "+") else ""
    if value is not None and not (op == ":-" and value == ""):
        return value
    if op is not None:
        return expand_shell(default or "", scope)
    scope.unknown(name)
    return written


def arithmetic(expr: str, scope: Scope) -> int | None:
    """The value of a shell arithmetic expression over integers, or None when a name in it is
    not known (recorded in ``scope.runtime``) or it is not plain arithmetic."""
    import ast

    names: list[str] = []

    def name_value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name in scope.runtime_only:
            scope.unknown(name)
            names.append(name)
            return "0"
        value = scope.values.get(name)
        if value is None and match.group(0).startswith("${") and ":-" in match.group(0):
            value = match.group(0).split(":-", 1)[1].rstrip("}")
        if value is None or not value.strip().lstrip("-").isdigit():
            scope.unknown(name)
            names.append(name)
            return "0"
        return value.strip()

    text = re.sub(
        r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\b([A-Za-z_][A-Za-z0-9_]*)\b",
        name_value,
        expr,
    )
    if names:
        return None
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    try:
        return _eval(tree.body)
    except (ValueError, ZeroDivisionError):
        return None


def _eval(node: Any) -> int:
    import ast

    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        if abs(left) > 1 << 62 or abs(right) > 1 << 62:
            raise ValueError("too large")
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            return int(left / right)  # the shell truncates toward zero
        if isinstance(node.op, ast.Mod):
            return left % right
    raise ValueError("not shell arithmetic")
