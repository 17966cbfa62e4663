"""A pasted vLLM launch: ``vllm serve MODEL …`` or ``python -m vllm.entrypoints.openai.api_server --model …``.

``parse_launch(words)`` takes the shell words of the command after its ``KEY=VALUE`` prefixes
(the CLI's ``resolvable.cli.paste`` splits the line, takes the environment and a ``docker run``
prefix off) and returns the launcher it recognised and vLLM's argv. Invariants:

* recognised launchers: ``vllm serve``, ``python[3[.N]] [-u …] -m vllm.entrypoints.openai.api_server``
  (no positional model; ``--model``), ``python -m vllm.entrypoints.cli.main serve``, or the flags
  alone (a container whose entrypoint is ``vllm serve``); anything else is a ``LaunchError`` naming
  the word;
* the argv is not interpreted here: ``vllm.cli_args.parse`` does that with the release's table.
"""

from __future__ import annotations

import re

from ..errors import ResolvableError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_PYTHON = re.compile(r"(.*/)?python(\d+(\.\d+)?)?")
#: Modules that start vLLM's OpenAI-compatible server with make_arg_parser's flags.
API_SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)
CLI_MODULES = ("vllm.entrypoints.cli.main",)


#: The most words (and characters) a pasted command may have (as ``sglang/launch.py``): argparse's
#: work grows with the square of the count (issue 29).
MAX_COMMAND_WORDS = 4096
MAX_COMMAND_CHARS = 1 << 20


class LaunchError(ResolvableError):
    """A pasted command that is not a vLLM server launch."""


class VllmLaunch:
    """``launcher`` (how it was started), ``argv`` (vLLM's arguments) and ``serve`` (True: the
    ``vllm serve`` parser, which takes the model as its positional argument)."""

    def __init__(self, launcher: str, argv: list[str], serve: bool) -> None:
        self.launcher, self.argv, self.serve = launcher, argv, serve

    def __repr__(self) -> str:
        return f"VllmLaunch(launcher={self.launcher!r}, argv={self.argv!r}, serve={self.serve!r})"


def is_vllm_command(words: Sequence[str]) -> bool:
    """Whether the words start a vLLM server (the engine is recognised from the command itself)."""
    if not words:
        return False
    head = words[0]
    if head == "vllm" or head.endswith("/vllm"):
        return True
    if _PYTHON.fullmatch(head):
        module = _module(words)
        return module is not None and module.startswith("vllm.")
    return head in API_SERVER_MODULES


def _module(words: Sequence[str]) -> str | None:
    j = 1
    while j < len(words) and words[j].startswith("-") and words[j] != "-m":
        j += 1  # interpreter options such as -u
    return words[j + 1] if j + 1 < len(words) and words[j] == "-m" else None


def parse_launch(words: Sequence[str]) -> VllmLaunch:
    words = list(words)
    if len(words) > MAX_COMMAND_WORDS or sum(len(w) for w in words) > MAX_COMMAND_CHARS:
        raise LaunchError(
            f"the pasted command has {len(words):,} words, more than the {MAX_COMMAND_WORDS:,} (and "
            f"{MAX_COMMAND_CHARS:,} characters) a launch command holds: paste the launch command alone"
        )
    if not words:
        raise LaunchError("the pasted command is empty: paste `vllm serve MODEL ...` after `--`")
    head = words[0]
    if head == "vllm" or head.endswith("/vllm"):
        return _subcommand(words[1:], "vllm")
    if _PYTHON.fullmatch(head):
        module = _module(words)
        rest = words[words.index("-m") + 2 :] if module else []
        if module in API_SERVER_MODULES:
            return VllmLaunch(f"python -m {module}", rest, serve=False)
        if module in CLI_MODULES:
            return _subcommand(rest, f"python -m {module}")
        raise LaunchError(
            f"the pasted command runs {head} {'-m ' + module if module else ''}".rstrip()
            + ", not a vLLM server: use `vllm serve MODEL ...` or `python -m vllm.entrypoints.openai.api_server ...`"
        )
    if head in API_SERVER_MODULES:
        return VllmLaunch(head, words[1:], serve=False)
    if head.startswith("-"):
        return VllmLaunch("flags", words, serve=True)
    raise LaunchError(
        f"the pasted command starts with {head!r}, not a vLLM launch: expected `vllm serve MODEL ...`, "
        "`python -m vllm.entrypoints.openai.api_server ...`, or the flags alone"
    )


def _subcommand(rest: list[str], prog: str) -> VllmLaunch:
    if rest[:1] != ["serve"]:
        sub = rest[0] if rest else "(nothing)"
        raise LaunchError(f"the pasted command runs `{prog} {sub}`; only `vllm serve` launches a server")
    return VllmLaunch(f"{prog} serve", rest[1:], serve=True)
