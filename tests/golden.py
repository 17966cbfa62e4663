"""The sglang release the golden tests are written against, named explicitly: 0.5.15.

The spec's worked examples, the decision tables and the CLI tests with expected output state the
behaviour of sglang 0.5.15 (the first declarative release, the reference of the spec). The pack's
default release is a different thing: it is the newest supported one and moves whenever a
release is added. So these tests never rely on the default; they name 0.5.15 through this module:
``sglang_version=GOLDEN`` (or ``resolve_golden``) in API calls, ``*GOLDEN_FLAGS`` (or
``golden_argv``, which a module's ``run`` helper applies to every invocation) in CLI invocations. Each module that does says so in a one-line comment ("golden cases of sglang 0.5.15
(spec): pinned"). A test of the default itself states it as ``registry.default_release``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from resolvable.sglang import resolve_server_args

#: The release whose behaviour the golden tests state.
GOLDEN = "0.5.15"
#: The CLI arguments that name it.
GOLDEN_FLAGS = ("--sglang-version", GOLDEN)
#: The commands that resolve for the one release ``--sglang-version`` names (``upgrade`` takes
#: ``--from``/``--to`` instead; the other commands resolve nothing or every release).
RELEASE_COMMANDS = frozenset({"explain", "resolve", "diff", "matrix", "backends"})


def resolve_golden(hf_config: Any, platform: Any, env: Any = None, model_path: Any = None, **kw: Any) -> Any:
    """``resolve_server_args`` for the golden release (same arguments, no ``sglang_version``)."""
    return resolve_server_args(hf_config, platform, env, model_path, sglang_version=GOLDEN, **kw)


def _pastes_vllm(argv: Sequence[str]) -> bool:
    """Whether the command after ``--`` starts vLLM (the engine is read from the command)."""
    if "--" not in argv:
        return False
    from resolvable.cli.paste import read

    try:
        return read(list(argv)[list(argv).index("--") + 1 :]).engine == "vllm"
    except ValueError:
        return False


def golden_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--sglang-version 0.5.15`` after the command, for a command that resolves
    one release; unchanged when the command takes no release, when ``argv`` names a release
    itself, and for another engine (``--engine vllm``)."""
    argv = list(argv)
    if not argv or argv[0] not in RELEASE_COMMANDS:
        return argv
    names_release = any(a.split("=", 1)[0] == "--sglang-version" for a in argv)
    vllm = "--engine=vllm" in argv or ("--engine", "vllm") in pairwise(argv) or _pastes_vllm(argv)
    if names_release or vllm:
        return argv
    return [argv[0], *GOLDEN_FLAGS, *argv[1:]]
