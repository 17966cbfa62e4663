"""Launch commands inside shell text: a script file, a container's ``bash -c`` script, a
``VLLM_ADDITIONAL_ARGS`` value, or a README's ``docker run`` line. The shell is never run.

``commands(text, scope, first_line)`` reads the text as a POSIX shell reads it, line by line:

* a logical line ends at a newline outside quotes and not after a backslash (a JSON value spread
  over several lines inside single quotes is one word, as llm-d's wide-EP decode pods write it);
* ``NAME=value`` and ``export NAME=value`` lines set variables for what follows; ``$VAR``,
  ``${VAR:-d}`` and ``$((…))`` are expanded (``expand.expand_shell``); ``eval "…"`` is expanded
  twice, as ``eval`` does (KServe's template ``eval``s ``${VLLM_ADDITIONAL_ARGS}``);
* ``exec``, ``nohup``, ``time``, ``env`` and leading ``NAME=value`` words are not the command;
  the command ends at ``&``, ``&&``, ``;``, ``|`` or a redirection;
* control lines (``if``/``then``/``fi``/``for``/``done``/``case``) are read through: the commands
  inside them are still found (which branch runs is not decided here).

Each command is returned as ``Command(words, lines, env)``; the caller decides whether it starts
an engine (``resolvable.packs.recognise``) or runs ``docker run``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ._yaml import DeployError
from .expand import Scope, expand_shell

_ASSIGN = re.compile(
    r"(?:export\s+|declare\s+(?:-x\s+)?|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL
)
_PREFIXES = ("exec", "nohup", "time", "sudo", "command", "stdbuf")
_CONTROL = ("if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "{", "}")
_STOP = ("&", "&&", ";", "|", "||", ";;")


@dataclass(frozen=True)
class Command:
    words: tuple[str, ...]
    lines: tuple[int, ...]
    env: dict[str, str] = field(default_factory=dict)


def logical_lines(text: str, first_line: int = 1) -> list[tuple[str, int, list[int]]]:
    """(text, line of its start, line of each character's physical line start offsets) per
    logical line; backslash-newline continuations and quoted newlines are joined."""
    out: list[tuple[str, int, list[int]]] = []
    buf: list[str] = []
    starts: list[int] = []  # for each char of buf: its physical line
    quote = ""
    line = first_line
    start = line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = ""
        elif c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":  # continuation
                buf.append(" ")
                starts.append(line)
                line += 1
                i += 2
                continue
            buf.append(text[i : i + 2])
            starts += [line, line]
            i += 2
            continue
        elif c in "'\"":
            quote = "" if quote == c else (quote or c)
        elif c == "#" and not quote and (not buf or buf[-1][-1:].isspace()):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "\n":
            line += 1
            if not quote:
                if "".join(buf).strip():
                    out.append(("".join(buf), start, starts))
                buf, starts, start = [], [], line
                i += 1
                continue
        buf.append(c)
        starts.append(line - (1 if c == "\n" else 0))
        i += 1
    if "".join(buf).strip():
        out.append(("".join(buf), start, starts))
    return out


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError as exc:
        raise DeployError(f"cannot split the shell line {text.strip()[:60]!r}: {exc}") from None


def _word_lines(raw: str, words: list[str], start: int, starts: list[int]) -> list[int]:
    """The physical line of each word: found by searching the raw text in order."""
    out, pos = [], 0
    for word in words:
        probe = word.split("=", 1)[0] if word.startswith("--") else word[:20]
        at = raw.find(probe, pos) if probe else -1
        if at < 0:
            out.append(out[-1] if out else start)
            continue
        out.append(starts[at] if at < len(starts) else start)
        pos = at + len(probe)
    return out


def commands(text: str, scope: Scope, first_line: int = 1) -> list[Command]:
    """The simple commands of ``text`` with the variables set before each (see the module docstring)."""
    found: list[Command] = []
    for raw, start, starts in logical_lines(text, first_line):
        stripped = raw.strip()
        match = _ASSIGN.fullmatch(stripped)
        if match and not re.search(r"\s", _unquoted_value(match.group(2))):
            before = len(scope.runtime)
            value = " ".join(_split(expand_shell(match.group(2), scope))) if match.group(2).strip() else ""
            if len(scope.runtime) > before:  # computed from a value known at run time only
                names = ", ".join(list(scope.runtime)[before:])
                scope.runtime_only[match.group(1)] = f"computed at run time from {names}"
                scope.values.pop(match.group(1), None)
            else:
                scope.values[match.group(1)] = value
                scope.runtime_only.pop(match.group(1), None)
            continue
        words = _split(expand_shell(raw, scope))
        if words[:1] == ["eval"]:
            words = _split(expand_shell(" ".join(words[1:]), scope))
        while words and words[0] in _CONTROL:
            words = words[1:]
        cut = next(
            (i for i, w in enumerate(words) if w in _STOP or re.fullmatch(r"\d?>>?.*|&>.*|<.*", w)), None
        )
        words = words[:cut] if cut is not None else words
        env: dict[str, str] = {}
        while words and (words[0] in _PREFIXES or words[0] == "env" or _is_assignment(words[0])):
            if _is_assignment(words[0]):
                key, _, value = words[0].partition("=")
                env[key] = value
            words = words[1:]
        if words:
            found.append(Command(tuple(words), tuple(_word_lines(raw, words, start, starts)), env))
    return found


def _is_assignment(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word, re.DOTALL))


def _unquoted_value(value: str) -> str:
    """The value of an assignment with its quoted parts blanked (to tell ``A=1 cmd`` from ``A='x y'``)."""
    return re.sub(r"'[^']*'|\"(?:\\.|[^\"])*\"|\$\(\([^)]*\)\)|\$\{[^}]*\}", "x", value)
