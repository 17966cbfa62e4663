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
    from typing import Any

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


# -- the tool's Launch (resolvable.launch) -------------------------------------------------------


def build_launch(
    pack: Any,
    *,
    command: Sequence[str] | None = None,
    argv: Sequence[str] = (),
    model: str | None = None,
    release: str | None = None,
    release_from: str | None = None,
    image: str | None = None,
    platform: str = "detect",
    gpus: int | None = None,
    nodes: int = 1,
    env: Any = None,
    command_env: Any = None,
    model_config: str | None = None,
    options: Any = None,
) -> Any:
    """``Pack.build_launch`` for vLLM: the command's argv and the flags beside it go through
    vLLM's own pre-processing and the flag table of ``release``; a flag the release does not
    accept (or a value its parser refuses) is the launch's ``rejected``, naming the release that
    added or removed the flag."""
    from ..launch import Launch, Node, config_source_of
    from .api import env_from_os, vllm_release
    from .cli_args import VllmArgumentError, parse

    node = Node(platform, gpus, nodes)
    chosen = vllm_release(release)
    source = release_from or ("default" if release is None else "flag")
    if source == "flag" and release == "auto":
        source = "command"
    launcher, rejected, parsed = None, None, None
    try:
        head = parse(list(argv), chosen, serve=False)
        if command is not None:
            launched = parse_launch(command)
            launcher = launched.launcher
            parsed = parse(launched.argv, chosen, serve=launched.serve).merged(head)
        else:
            parsed = head
    except VllmArgumentError as exc:
        rejected = str(exc)
        if command is not None and launcher is None:
            launcher = parse_launch(command).launcher
    given = (parsed.model if parsed is not None else None) or _model_in(command)
    if model is not None and given is not None and model != given and command is not None:
        raise LaunchError(f"two models: {model!r} before `--` and {given!r} in the pasted command; give one")
    name = model or given
    if name is None:
        from .flags import load_table

        where = " (the pasted command names none)" if command is not None else ""
        default = load_table(chosen).default("model")
        if isinstance(default, str):
            where += f"; vLLM {chosen} would serve its default, {default}"
        raise LaunchError(
            f"no model{where}: pass MODEL, or paste the launch command after `--` "
            "(resolvable explain -- vllm serve MODEL ...)"
        )
    if parsed is None:
        parsed = parse([], chosen, serve=False)
    from .cli_args import resolution_kwargs

    return Launch(
        engine=pack.name,
        release=chosen,
        release_from=source,
        model=name,
        config_source=config_source_of(name, model_config, pack.catalog()),
        model_config=model_config,
        node=node,
        user=resolution_kwargs(parsed),
        argv=(*(parse_launch(command).argv if command is not None else ()), *argv),
        not_modelled=tuple(parsed.shown),
        not_modelled_values=parsed.not_modelled,
        env={**env_from_os(), **dict(command_env or {}), **dict(env or {})},
        launcher=launcher,
        image=image,
        notes=tuple(parsed.notes),
        rejected=rejected,
        options=dict(options or {}),
        parsed=parsed,
    )


def _model_in(command: Sequence[str] | None) -> str | None:
    """The model of a command whose flags were refused (the positional after ``serve``)."""
    if command is None:
        return None
    words = list(command)
    if "serve" in words:
        rest = words[words.index("serve") + 1 :]
        if rest and not rest[0].startswith("-"):
            return rest[0]
    for i, word in enumerate(words):
        if word == "--model" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--model="):
            return word.partition("=")[2]
    return None


def launch_config(pack: Any, launch: Any) -> Any:
    from . import load_model

    return load_model(launch.config_path)


def launch_platform(pack: Any, launch: Any) -> Any:
    from .config.parallel import with_gpus
    from .platforms import platform

    return with_gpus(platform(launch.node.platform), launch.node.gpus_per_node)


def resolve_kwargs(pack: Any, launch: Any) -> dict[str, Any]:
    kwargs = dict(launch.user)
    if launch.options.get("kernels") is not None:
        kwargs["kernels"] = launch.options["kernels"]
    return kwargs


def memory_report(pack: Any, res: Any, hf: Any, launch: Any) -> Any:
    from ..memory import checkpoint_total_size
    from .memory import capacity

    values = {k: res[k] for k in res}
    values["used_bytes"] = launch.node.used_bytes  # --used-gib: vLLM's start-up free-memory check
    # the switch determine_available_memory reads (v1/worker/gpu_worker.py)
    values["memory_profiler_estimate_cudagraphs"] = launch.env.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS")
    # the sampler the profile run takes (v1/sample/ops/topk_topp_sampler.py)
    values["flashinfer_sampler"] = launch.env.get("VLLM_USE_FLASHINFER_SAMPLER")
    return capacity(
        values,
        hf,
        device_name=res.platform.device_name,
        memory_gib=res.platform.memory_gib,
        version=launch.release,
        index_total_size=checkpoint_total_size(launch.model),
    )
