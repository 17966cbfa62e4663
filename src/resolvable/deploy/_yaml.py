"""Guarded YAML reading for deployment files: ``yaml.safe_load`` semantics, with line numbers.

``load_documents(text, name)`` returns every document of a (multi-document) YAML file as plain
Python values, where each mapping is a ``LMap`` (a ``dict`` that also knows the line of each key)
and each sequence an ``LSeq`` (a ``list`` that knows the line of each item), so that a launch
argument can be reported at its own ``file:line`` (SARIF). Invariants:

* only PyYAML's ``SafeLoader`` composes the text (no Python object is ever built); a tag of the
  ``!!python/…`` family is refused by name, other unknown tags by ``SafeConstructor``;
* the text is capped (``MAX_BYTES``), the nesting depth is capped while composing (``MAX_DEPTH``,
  checked before PyYAML recurses), and the number of nodes built, counted again each time an
  alias is expanded, is capped (``MAX_NODES``: a "billion laughs" file stops early);
* every failure is one ``DeployError`` line naming the file and what to do.

PyYAML is imported lazily (the ``deploy`` package is a source layer above the engine).
"""

from __future__ import annotations

from ..errors import ResolvableError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 200_000
_PYTHON_TAG = "tag:yaml.org,2002:python/"
_MERGE_TAG = "tag:yaml.org,2002:merge"


class DeployError(ResolvableError):
    """A deployment file that cannot be read (one line: the file, what is wrong, the fix)."""


class LMap(dict):
    """A mapping read from YAML; ``lines[key]`` is the 1-based line of the key."""

    lines: dict[Any, int]
    #: the line where each key's value starts (a block scalar's first line of text)
    vlines: dict[Any, int]
    line: int = 0


class LSeq(list):
    """A sequence read from YAML; ``lines[i]`` is the 1-based line of item ``i``."""

    lines: list[int]
    line: int = 0


def _loader_class() -> Any:
    import yaml

    class GuardedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise DeployError(f"nested more than {MAX_DEPTH} levels deep at line {mark.line + 1}")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return GuardedLoader


def load_documents(text: str, name: str) -> list[Any]:
    """The documents of ``text`` (YAML, several ``---`` documents allowed); see the module docstring."""
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise DeployError(
            f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MiB; a deployment file is far smaller "
            "(split it, or pass the file that holds the launch)"
        )
    import yaml

    loader = _loader_class()(text)
    builder = _Builder(loader, name)
    out = []
    try:
        while loader.check_node():
            node = loader.get_node()
            out.append(builder.build(node))
    except DeployError as exc:
        raise DeployError(f"{name}: {exc}" if not str(exc).startswith(name) else str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DeployError(f"{name}: not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise DeployError(f"{name}: nested too deeply to be a deployment file") from None
    finally:
        loader.dispose()
    return out


class _Builder:
    def __init__(self, loader: Any, name: str) -> None:
        self.loader, self.name, self.count = loader, name, 0

    def build(self, node: Any, depth: int = 0) -> Any:
        import yaml

        self.count += 1
        if self.count > MAX_NODES:
            raise DeployError(
                f"more than {MAX_NODES} values once aliases are expanded (an alias bomb?); "
                "a deployment file is far smaller"
            )
        if depth > MAX_DEPTH:
            raise DeployError(f"aliases nest more than {MAX_DEPTH} levels deep")
        tag = node.tag or ""
        if tag.startswith(_PYTHON_TAG):
            raise DeployError(
                f"the tag !!{tag[len('tag:yaml.org,2002:') :]} at line {node.start_mark.line + 1} "
                "builds a Python object; a deployment file holds plain values only (remove the tag)"
            )
        if isinstance(node, yaml.MappingNode):
            out = LMap()
            out.lines, out.vlines, out.line = {}, {}, node.start_mark.line + 1
            merged: list[tuple[Any, Any, int]] = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    for source in _merge_sources(value_node):
                        value = self.build(source, depth + 1)
                        if isinstance(value, dict):
                            merged += [
                                (k, v, getattr(value, "lines", {}).get(k, 0)) for k, v in value.items()
                            ]
                    continue
                key = self.build(key_node, depth + 1)
                if isinstance(key, (dict, list)):
                    key = repr(key)
                out[key] = self.build(value_node, depth + 1)
                out.lines[key] = key_node.start_mark.line + 1
                out.vlines[key] = _first_line(value_node)
            for key, value, line in merged:  # explicit keys win over merged ones (YAML merge)
                if key not in out:
                    out[key], out.lines[key], out.vlines[key] = value, line, line
            return out
        if isinstance(node, yaml.SequenceNode):
            seq = LSeq()
            seq.lines, seq.line = [], node.start_mark.line + 1
            for item in node.value:
                seq.append(self.build(item, depth + 1))
                seq.lines.append(_first_line(item))
            return seq
        return self.loader.construct_object(node, deep=True)


def _first_line(node: Any) -> int:
    """The 1-based line where a node's text starts (the line after a ``|``/``>`` indicator)."""
    block = getattr(node, "style", None) in ("|", ">")
    return node.start_mark.line + 1 + (1 if block else 0)


def _merge_sources(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return [node]


def line_of(container: Any, key: Any, default: int = 0, *, value: bool = False) -> int:
    """The line of ``key`` (a mapping key or a sequence index) in a loaded container; with
    ``value``, the line where a mapping value's text starts."""
    lines = getattr(container, "vlines" if value else "lines", None)
    if isinstance(lines, dict):
        return lines.get(key, default)
    if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
        return lines[key]
    return getattr(container, "line", default) or default
