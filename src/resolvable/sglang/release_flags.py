"""A pasted sglang launch read with the flags of one release, parse-only releases included.

The releases before the first modelled one (0.5.1–0.5.6; 0.5.8–0.5.9 sit between resolved
releases for now) have flag tables
(``flags.parse_only_releases``) but no rules: ``read_flags`` parses the launch with an argparse
parser built from that release's table alone (``cli_args.add_cli_args(release=...)``), so the CLI
can answer "parsed, not resolved" and ``upgrade --from`` can name the flags that later releases
removed. Nothing here reads ``ServerArgs``: an old release's flags need not be fields of today's.
"""

from __future__ import annotations

import argparse

from ..errors import InvalidArgumentError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class ReleaseFlagError(InvalidArgumentError):
    """A flag or value that the named sglang release's parser refuses."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit: raise instead
        raise ReleaseFlagError(message)


def read_flags(words: Sequence[str], release: str) -> tuple[str | None, list[tuple[str, str, Any]]]:
    """(model, [(option as typed, dest, value), ...]) of the launch ``words`` on sglang ``release``.

    Raises ``LaunchError`` for a command that is not an sglang launch and ``ReleaseFlagError`` for
    a flag or value that release's parser refuses (naming the release that added it)."""
    from .cli_args import add_cli_args, passed_flags
    from .flags import load_table, option_history
    from .launch import parse_launch

    launch = parse_launch(list(words))
    # server_args.py : prepare_server_args builds a plain argparse.ArgumentParser(): a unique
    # prefix of a flag is that flag (`--tp 8` is --tp-size on releases without a --tp alias)
    parser = _Parser(prog=f"sglang {release}", add_help=False)
    add_cli_args(parser, release=release)
    try:
        namespace, extra = parser.parse_known_args(launch.argv)
    except ReleaseFlagError as exc:
        raise ReleaseFlagError(f"sglang {release}: {exc}") from None
    if extra:
        table = load_table(release)
        hints = []
        for token in extra:
            option = token.split("=", 1)[0]
            if not option.startswith("-"):
                continue
            history = option_history(option, release)  # the release, and the replacement
            if history:
                hints.append(f"{option} is not a flag of sglang {release}; {history}")
            elif closest(option, table.options()):
                hints.append(f"{option}: did you mean {closest(option, table.options())}?")
        text = f"sglang {release}: unrecognized arguments: {' '.join(extra)}"
        raise ReleaseFlagError(text + ("; " + "; ".join(hints) if hints else ""))
    passed = passed_flags(namespace)
    model = next((value for _, dest, value in passed if dest == "model_path"), None)
    return model, passed
