"""A pasted launch command, for either engine: shell words, ``KEY=VALUE`` prefixes, a ``docker run``
prefix, and which engine the command starts.

``read(tokens)`` takes the words after ``resolvable COMMAND --`` (or one string holding the whole
command, backslash-newline continuations included) and returns a ``Pasted`` record: the engine
(recognised from the command: ``vllm serve``/the vLLM api_server module, ``sglang serve``/
``python -m sglang.launch_server``, or the image of a ``docker run``), the environment the server
sees (the leading assignments and docker's ``-e``/``--env``), the release a docker image tag names,
and the server's own words. Each pack parses those words (``resolvable.vllm.launch``,
``resolvable.sglang.launch``). Invariants:

* the line is split as a POSIX shell splits it; a trailing ``&``, output redirections and a
  leading ``nohup``/``exec``/``time`` are shell, not server, and are dropped;
* a docker image tag names the release (``v0.34.0`` → 0.34.0); ``latest`` (or another tag that
  names none) means the newest supported release, and ``note`` says so;
* nothing here reads a flag's meaning: that is the pack's table.
"""

from __future__ import annotations

import re
import shlex

from .. import packs
from ..errors import ResolvableError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
#: ``docker run``/``podman run`` options that take a value (the rest are switches).
_DOCKER_VALUED = {
    "-v", "--volume", "-p", "--publish", "-e", "--env", "--env-file", "--name", "--gpus", "--ipc",
    "--shm-size", "--runtime", "--network", "--net", "-w", "--workdir", "--entrypoint", "--device",
    "--mount", "--ulimit", "--user", "-u", "--cpus", "--memory", "-m", "--restart", "--label", "-l",
    "--hostname", "-h", "--cap-add", "--cap-drop", "--security-opt", "--platform", "--pid",
    "--log-driver", "--log-opt", "--add-host", "--group-add", "--cpuset-cpus", "--memory-swap",
    "--tmpfs", "--pull", "--uts", "--userns", "--stop-signal", "--health-cmd", "--dns",
}  # fmt: skip
_SHELL_PREFIXES = ("nohup", "exec", "time", "sudo")


class PasteError(ResolvableError):
    """A pasted command that cannot be read."""


class Pasted:
    """``engine`` ("vllm", "sglang" or None: not recognisable from the command), ``env``, ``words``
    (the server command), ``image``/``tag`` of a docker run, ``release`` (the tag's, or None),
    ``note`` (how the tag was read, or None)."""

    def __init__(
        self,
        engine: str | None,
        env: dict[str, str],
        words: list[str],
        image: str | None = None,
        tag: str | None = None,
    ) -> None:
        self.engine, self.env, self.words, self.image, self.tag = engine, env, words, image, tag
        self.release: str | None = None
        self.note: str | None = None

    def __repr__(self) -> str:
        return f"Pasted(engine={self.engine!r}, env={self.env!r}, words={self.words!r}, image={self.image!r})"


def words_of(tokens: Sequence[str]) -> list[str]:
    """Shell words: a single pasted string is split as a shell would (continuations joined).

    A pasted block of several lines is read as a shell reads it: ``export K=V`` and ``K=V`` lines
    before the command set variables (passed on as ``K=V`` prefixes when exported, and expanded
    where the command says ``$K``/``${K}``); the command is the first other line; what follows it
    is another command."""
    if len(tokens) == 1 and any(c.isspace() for c in tokens[0]):
        text = re.sub(r"\\\r?\n", " ", tokens[0])
        exported: list[str] = []
        variables: dict[str, str] = {}
        command = ""
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            match = re.fullmatch(r"(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)", stripped)
            if match and not command:
                value = _unquote(match.group(3))
                variables[match.group(2)] = value
                if match.group(1):
                    exported.append(f"{match.group(2)}={value}")
                continue
            command = stripped
            break
        command = re.sub(
            r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: variables.get(m.group(1), m.group(0)), command
        )
        try:
            words = [*exported, *shlex.split(command, comments=True)]
        except ValueError as exc:
            raise PasteError(f"cannot split the pasted command: {exc}") from None
    else:  # already split by the shell; a stray "\" or newline from a careless paste is not a word
        words = [t for t in tokens if t.strip() not in ("\\", "")]
    return _drop_shell(words)


def _unquote(value: str) -> str:
    try:
        parts = shlex.split(value)
    except ValueError:
        return value
    return parts[0] if len(parts) == 1 else value


def _drop_shell(words: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("&", "&&", ";", "|"):
            break  # what follows is another command (tee, a second server …)
        if re.fullmatch(r"\d?>>?(&\d)?|&>", word):
            skip = not word.endswith(("&1", "&2"))
            continue
        if re.fullmatch(r"\d?>>?\S+|&>\S+|\d>&\d", word):
            continue
        out.append(word)
    while out and (out[0] in _SHELL_PREFIXES or out[0] in ("$", "%")):  # a copied prompt sign
        out.pop(0)
    return out


def _take_env(words: list[str], env: dict[str, str]) -> list[str]:
    i = 0
    if words[:1] == ["env"]:
        i = 1
    while i < len(words) and _ASSIGNMENT.fullmatch(words[i]) and not words[i].startswith("-"):
        key, _, value = words[i].partition("=")
        env[key] = value
        i += 1
    return words[i:]


def read(tokens: Sequence[str]) -> Pasted:
    """The pasted command, its engine and environment (see the module docstring)."""
    env: dict[str, str] = {}
    words = _take_env(words_of(tokens), env)
    while words[:1] and words[0] in _SHELL_PREFIXES:
        words = _take_env(words[1:], env)
    if not words:
        raise PasteError("the pasted command is empty: paste the launch command after `--`")
    if words[0] in ("docker", "podman", "nvidia-docker"):
        return _docker(words, env)
    return Pasted(_engine(words), env, words)


def _engine(words: list[str]) -> str | None:
    from .. import packs

    return packs.recognise(words)


def _docker(words: list[str], env: dict[str, str]) -> Pasted:
    if words[1:2] != ["run"]:
        raise PasteError(f"the pasted command runs `{' '.join(words[:2])}`; paste a `docker run ...` line")
    i = 2
    while i < len(words) and words[i].startswith("-"):
        option, eq, value = words[i].partition("=")
        if option in ("-e", "--env") or (option in _DOCKER_VALUED and not eq):
            if not eq:
                i += 1
                value = words[i] if i < len(words) else ""
            if option in ("-e", "--env"):
                key, has, val = value.partition("=")
                if has:
                    env[key] = val
                # `-e NAME` passes the caller's value through: not known here
        i += 1
    if i >= len(words):
        raise PasteError("the docker run line names no image")
    image, _, tag = words[i].partition(":")
    repo = image.split("/", 1)[1] if image.count("/") >= 2 else image  # drop a registry host
    rest = words[i + 1 :]
    if rest[:1] in (["bash"], ["sh"], ["/bin/bash"], ["/bin/sh"]) and rest[1:2] == ["-c"] and len(rest) > 2:
        rest = _take_env(words_of([rest[2]]), env)  # `bash -c "python3 -m ..."`: the command is one word
    engine, official = _image_engine(repo, image)
    if engine is not None:
        entry = list(packs.get(engine).image_command)
        if entry and (not rest or rest[0].startswith("-") or not _engine(rest)):
            rest = [*entry, *rest]  # the image's entrypoint (``Pack.image_command``)
        if not official:  # a distribution image: its tag is its own version, not the engine's
            return Pasted(engine, env, rest, image=image, tag=None)
    else:
        engine = _engine(rest) if rest else None
        if engine is None:
            known = " or ".join(f"{packs.get(n).images[0]}:TAG" for n in packs.names() if packs.get(n).images)
            raise PasteError(
                f"the docker image {words[i]!r} is not an image of {' or '.join(_titles())}: expected "
                f"{known}, or a launch command after the image"
            )
    return Pasted(engine, env, rest, image=image, tag=tag or "latest")


def _titles() -> list[str]:
    return [packs.get(n).title or n for n in packs.names()]


def _image_engine(repo: str, image: str) -> tuple[str | None, bool]:
    """(the pack whose engine the image runs, whether it is the engine's own image: its tag names
    the release) from the packs' image data (``Pack.images``, ``Pack.distribution_images``)."""
    for name in packs.names():
        if repo in packs.get(name).images or image in packs.get(name).images:
            return name, True
    for name in packs.names():
        prefixes = packs.get(name).distribution_images
        if any(repo.startswith(p) or image.startswith(p) for p in prefixes):
            return name, False
    return None, False


def tag_pins(tag: str | None) -> bool:
    """Whether a docker tag names a release (``v0.5.23-cu129``), not ``latest`` or ``nightly``:
    ``upgrade`` reads such a tag as the release the launch runs now (``--from``)."""
    from .._release import base_release

    if not tag:
        return False
    try:
        base_release(tag)
    except ResolvableError:
        return False
    return True


def tag_release(
    tag: str, supported: Sequence[str], engine: str, *, parse_only: Sequence[str] = ()
) -> tuple[str, str | None]:
    """The release a docker tag names, and a note when it names none (``latest``, ``nightly``):
    then the newest of ``supported``. A tag of one of ``parse_only`` (the pack's releases that are
    parsed, not resolved; ``.postN`` kept: ``v0.5.5.post3-cu126``) names that release."""
    from .._release import base_release, release_name
    from ..flag_history import release_of_tag

    exact = release_of_tag(tag)
    if exact is not None and exact in supported:  # a post release resolved as itself
        return exact, None
    if exact is not None and exact in parse_only:
        return (
            exact,
            f"the image tag {tag!r} is {engine} {exact}, which resolvable parses but does not resolve",
        )

    try:
        release = release_name(tag)  # a .postN resolved as a release of its own (0.5.6.post1)
        if release not in supported:
            release = base_release(tag)
    except ResolvableError:
        newest = supported[-1]
        return (
            newest,
            f"the image tag {tag!r} names no release: read as the newest supported {engine} {newest}",
        )
    if release not in supported:
        known = f"; parsed only: {parse_only[0]} … {parse_only[-1]}" if parse_only else ""
        raise PasteError(
            f"the image tag {tag!r} is {engine} {release}, which resolvable does not model; "
            f"supported: {', '.join(supported)}{known}"
        )
    return release, None
