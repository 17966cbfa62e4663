"""A pasted ``vllm serve`` command read with the flags of one release, parse-only releases included.

The releases before the first modelled one (0.11.0–0.19.1) have flag tables
(``flags.parse_only_releases``) but no rules: ``read_flags`` gives what such a release's parser
accepts (``cli_args.parse`` with that release's table), so the CLI can answer "parsed, not
resolved" and ``upgrade --from`` can name the flags that later releases removed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def read_flags(words: Sequence[str], release: str) -> tuple[str | None, list[tuple[str, str, Any]]]:
    """(model, [(option as typed, dest, value), ...]) of the launch ``words`` on vLLM ``release``.

    Raises ``LaunchError`` for a command that is not a vLLM launch and ``VllmArgumentError`` for
    a flag or value that release's parser refuses (with the release that added or removed it)."""
    from .cli_args import parse
    from .launch import parse_launch

    launch = parse_launch(list(words))
    parsed = parse(launch.argv, release, serve=launch.serve)
    return parsed.model, list(parsed.passed)
