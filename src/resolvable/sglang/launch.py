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
    from typing import Any

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
) -> Any:
    """``Pack.build_launch`` for SGLang: the flags are read with the flag table of ``release``
    (passed explicitly: no module global), after sglang's input normalisation; a flag the release
    does not accept is the launch's ``rejected`` (sglang's parser exits), naming the release that
    added or removed it."""
    import argparse

    from ..launch import Launch, Node, config_source_of
    from .api import env_from_os, sglang_release
    from .cli_args import add_cli_args, parse_namespace
    from .flags import option_history

    node = Node(platform, gpus, nodes)
    chosen = sglang_release(release)
    source = release_from or ("default" if release is None else "flag")
    if source == "flag" and release == "auto":
        source = "command"
    launcher, words, cmd_env = None, [], dict(command_env or {})
    if command is not None:
        parsed_command = parse_launch(command)
        launcher, words = parsed_command.launcher, parsed_command.argv
        cmd_env = {**parsed_command.env, **cmd_env}

    class _Refusing(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            raise _ParseRefusal(f"sglang {chosen}: {message}")

    parser = _Refusing(prog="sglang serve", add_help=False)
    add_cli_args(parser, release=chosen)
    rejected = None
    try:
        namespace, unknown = parser.parse_known_args([*words, *argv])
    except _ParseRefusal as exc:
        namespace, unknown, rejected = argparse.Namespace(), [], str(exc)
        # a flag of another release that is now a prefix of this one's: the release that removed it
        ambiguous = re.search(r"ambiguous option: (\S+?)(?:=\S*)? could match", rejected)
        said = option_history(ambiguous.group(1), chosen) if ambiguous else None
        if said:
            rejected = f"{ambiguous.group(1)} is not a flag of sglang {chosen}; {said}"
    if unknown and rejected is None:
        rejected = unknown_flag_message(unknown, chosen, option_history)
    name = model or vars(namespace).pop("model_path", None) or _model_in([*words, *argv])
    vars(namespace).pop("model_path", None)
    if name is None:
        raise LaunchError(
            "no model: pass MODEL, or paste the launch command after `--` "
            "(python -m sglang.launch_server --model-path MODEL ...)"
        )
    parsed = parse_namespace(namespace, release=chosen)
    return Launch(
        engine=pack.name,
        release=chosen,
        release_from=source,
        model=name,
        config_source=config_source_of(name, model_config, pack.catalog()),
        model_config=model_config,
        node=node,
        user=parsed.user,
        argv=(*words, *argv),
        not_modelled=tuple(parsed.shown),
        not_modelled_values=parsed.not_modelled,
        env={**env_from_os(), **cmd_env, **dict(env or {})},
        launcher=launcher,
        image=image,
        notes=tuple(parsed.notes),
        rejected=rejected,
        parsed=parsed,
    )


class _ParseRefusal(ResolvableError):
    """sglang's argument parser refuses a value (argparse exits with status 2)."""


def _model_in(words: Sequence[str]) -> str | None:
    """The ``--model-path`` of a command whose flags the parser refused (the last one given)."""
    found = None
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in ("--model-path", "--model"):
            found = value if eq else (words[i + 1] if i + 1 < len(words) else None)
    return found


def unknown_flag_message(unknown: Sequence[str], release: str, history: Any) -> str:
    """sglang's "unrecognized arguments", with the release that added or removed each flag that
    another release has (``flags.option_history``); no spelling guesses."""
    hints = []
    for token in unknown:
        if not token.startswith("-"):
            continue
        option = token.split("=", 1)[0]
        said = history(option, release)
        if said:
            hints.append(f"{option} is not a flag of sglang {release}; {said}")
    text = f"sglang {release}: unrecognized arguments: {' '.join(unknown)}"
    return text + ("; " + "; ".join(hints) if hints else "")


def launch_config(pack: Any, launch: Any) -> Any:
    """The config a launch reads: the stand-in, else the model (at sglang's ``--revision``, with
    its ``--model-config-parser``)."""
    from .models import load_model

    extra = dict(launch.not_modelled_values)
    parser = extra.get("model_config_parser") or launch.user.get("model_config_parser") or "auto"
    release = getattr(launch, "release", None)
    if launch.model_config is not None:
        return load_model(launch.model_config, model_config_parser=parser, release=release)
    return load_model(
        launch.model, model_config_parser=parser, revision=extra.get("revision"), release=release
    )


def resolve_kwargs(pack: Any, launch: Any) -> dict[str, Any]:
    return {**launch.user, "model_path": launch.model}


def memory_report(pack: Any, res: Any, hf: Any, launch: Any) -> Any:
    from ..memory import checkpoint_total_size
    from .memory import capacity

    return capacity(
        {k: res[k] for k in res},
        hf,
        device_name=res.platform.device_name,
        memory_gib=res.platform.memory_gib,
        extra={
            **launch.not_modelled_values,
            "used_bytes": launch.node.used_bytes,
            "env": dict(launch.env),
            # the flag as typed: before 0.5.22 the default fraction reads it before dp_size == 1
            # turns DP attention off (memory.capacity)
            "enable_dp_attention_asked": bool(res.user.get("enable_dp_attention")),
        },
        index_total_size=checkpoint_total_size(launch.model),
        version=launch.release,
    )
