"""A pasted sglang launch command: ``[ENV=VAL ...] python -m sglang.launch_server --model-path X ...``.

``parse_launch(tokens)`` takes the words after ``resolvable explain --`` (or one string holding
the whole command, backslash-newline continuations included) and returns the environment
assignments, the launcher it recognised, and the sglang argv. Invariants:

* recognised launchers: ``python[3[.N]] [-u ...] -m sglang.launch_server``, ``sglang serve``,
  ``sglang.launch_server``, or bare flags; anything else is a ``UsageError`` naming the word;
* leading ``KEY=VALUE`` words (optionally after ``env``) become the environment sglang sees;
* ``sglang serve``'s own ``--model-type`` is removed (sglang/cli/serve.py strips it before
  ``prepare_server_args``); the rest is sglang's argv, parsed by the flag table.
"""

from __future__ import annotations

import re
import shlex

from ..errors import ResolvableError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_PYTHON = re.compile(r"(.*/)?python(\d+(\.\d+)?)?")
_LAUNCH_MODULES = ("sglang.launch_server",)


class LaunchError(ResolvableError):
    """A pasted command that is not an sglang launch."""


class Launch:
    """``env`` (assignments, in order), ``launcher`` (how it was started) and ``argv``."""

    def __init__(self, env: dict[str, str], launcher: str, argv: list[str]) -> None:
        self.env, self.launcher, self.argv = env, launcher, argv

    def __repr__(self) -> str:
        return f"Launch(env={self.env!r}, launcher={self.launcher!r}, argv={self.argv!r})"


def is_sglang_command(words: Sequence[str]) -> bool:
    """Whether the words (environment assignments removed) start an SGLang server: ``sglang
    serve``, a path to the ``sglang`` script, the launch module, or ``python -m
    sglang.launch_server``."""
    if not words:
        return False
    head = words[0]
    return (
        head == "sglang"
        or head.endswith("/sglang")
        or head in _LAUNCH_MODULES
        or "sglang.launch_server" in words
    )


#: The most words (and characters) a pasted command may have: real launches have a few hundred
#: words at most, and argparse's work grows with the square of the count (issue 29).
MAX_COMMAND_WORDS = 4096
MAX_COMMAND_CHARS = 1 << 20


def check_size(words: Sequence[str], what: str = "the pasted command") -> None:
    """A ``LaunchError`` when ``words`` are more than ``MAX_COMMAND_WORDS`` (or characters)."""
    if len(words) > MAX_COMMAND_WORDS or sum(len(w) for w in words) > MAX_COMMAND_CHARS:
        raise LaunchError(
            f"{what} has {len(words):,} words, more than the {MAX_COMMAND_WORDS:,} (and {MAX_COMMAND_CHARS:,} "
            "characters) a launch command holds: paste the launch command alone"
        )


def _words(tokens: Sequence[str]) -> list[str]:
    """Shell words: a single pasted string is split as a shell would (continuations joined)."""
    check_size(tokens)
    if len(tokens) == 1 and any(c.isspace() for c in tokens[0]):
        text = re.sub(r"\\\r?\n", " ", tokens[0])
        try:
            words = shlex.split(text)
            check_size(words)
            return words
        except ValueError as exc:
            raise LaunchError(f"cannot split the pasted command: {exc}") from None
    # Words already split by the shell; a stray "\" or newline from a careless paste is not a word.
    return [t for t in tokens if t.strip() not in ("\\", "")]


def parse_launch(tokens: Sequence[str]) -> Launch:
    words = _words(tokens)
    env: dict[str, str] = {}
    i = 0
    if words[:1] == ["env"]:
        i = 1
    while i < len(words) and _ASSIGNMENT.fullmatch(words[i]) and not words[i].startswith("-"):
        key, _, value = words[i].partition("=")
        env[key] = value
        i += 1
    rest = words[i:]
    if not rest:
        raise LaunchError(
            "the pasted command is empty: paste `python -m sglang.launch_server --model-path MODEL ...` "
            "after `--`"
        )
    head = rest[0]
    if _PYTHON.fullmatch(head):
        j = 1
        while j < len(rest) and rest[j].startswith("-") and rest[j] != "-m":
            j += 1  # interpreter options such as -u
        if j + 1 < len(rest) and rest[j] == "-m" and rest[j + 1] in _LAUNCH_MODULES:
            return Launch(env, f"python -m {rest[j + 1]}", rest[j + 2 :])
        module = rest[j + 1] if j + 1 < len(rest) and rest[j] == "-m" else None
        raise LaunchError(
            f"the pasted command runs {head} {'-m ' + module if module else ''}".rstrip()
            + ", not an sglang server: use `python -m sglang.launch_server ...` or `sglang serve ...`"
        )
    if head in _LAUNCH_MODULES:
        return Launch(env, head, rest[1:])
    if head == "sglang" or head.endswith("/sglang"):
        if rest[1:2] != ["serve"]:
            sub = rest[1] if len(rest) > 1 else "(nothing)"
            raise LaunchError(
                f"the pasted command runs `sglang {sub}`; only `sglang serve` launches a server"
            )
        return Launch(env, "sglang serve", _drop_model_type(rest[2:]))
    if head.startswith("-"):
        return Launch(env, "flags", rest)
    raise LaunchError(
        f"the pasted command starts with {head!r}, not an sglang launch: expected `python -m "
        "sglang.launch_server ...`, `sglang serve ...`, or the flags alone"
    )


def _drop_model_type(argv: list[str]) -> list[str]:
    """sglang/cli/serve.py:_extract_model_type_override: ``--model-type`` is serve's, not ServerArgs'."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--model-type":
            if i + 1 >= len(argv):
                raise LaunchError("--model-type requires a value (auto, llm or diffusion)")
            value, i = argv[i + 1], i + 2
        elif argv[i].startswith("--model-type="):
            value, i = argv[i].split("=", 1)[1], i + 1
        else:
            out.append(argv[i])
            i += 1
            continue
        if value not in ("auto", "llm", "diffusion"):
            raise LaunchError(f"invalid --model-type {value!r}: use auto, llm or diffusion")
        if value == "diffusion":
            raise LaunchError(
                "--model-type diffusion launches sglang's diffusion server, which this pack does not model"
            )
    return out
