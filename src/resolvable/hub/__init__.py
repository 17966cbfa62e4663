"""Models from the Hugging Face Hub: fetch a repo's ``config.json`` and the side files the engines
read, never weights, into the Hugging Face cache layout (``_fetch``, standard library only).

This support package sits beside the engine (``resolvable/*.py``, standard library only) and is
used by the packs and the CLI. Invariants:

* only the files of ``CONFIG_FILES`` are ever requested: ``config.json`` (required) and the side
  files (``hf_quant_config.json``, ``params.json``, ``generation_config.json``,
  ``model.safetensors.index.json``), each optional; no weight file is ever named;
* the environment is read at the call, not at import: ``HF_ENDPOINT`` (a mirror or a test
  server), ``HF_TOKEN``, ``HF_HUB_OFFLINE``, ``HF_HUB_CACHE``/``HF_HOME``; ``revision`` pins a
  branch, tag or commit;
* every failure is one ``HubError`` (a ``ConfigError``, so a ``ValueError``) whose one-line
  message names the repo and the fix: gated, private or missing repo, missing revision, no
  ``config.json``, offline and not cached, hub unreachable;
* all or nothing: when any file fails midway, the files this call added to the cache are removed
  again, so a half-fetched model never reads as a complete one (``huggingface_hub`` itself
  writes each file to ``*.incomplete`` and renames it only when complete);
* nothing a server or a user controls becomes a path unchecked (``_names``: repo id, revision,
  ``X-Repo-Commit``, ETag; every write resolved and checked inside the cache), the whole fetch
  has one deadline (``--hub-timeout``, ``RESOLVABLE_HUB_TIMEOUT``, default 30 s) and is never
  retried, each file is capped while it streams (config.json 16 MiB), and every message is
  ``_secrets.redact``-ed (tokens, URL credentials, authorisation headers) — issue 29.
"""

from __future__ import annotations

import contextlib
import os

from .._files import read_bounded, shown
from ..errors import ConfigError
from ._fetch import (
    DEADLINE_ENV,
    DEFAULT_DEADLINE_S,
    MAX_BYTES,
    Deadline,
    HttpFailure,
    deadline_seconds,
    fetch_files,
)
from ._names import HubError, HubInputError, check_commit, check_repo_id, check_revision, inside
from ._secrets import redact, remember_secret, strip_credentials

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "CONFIG_FILES",
    "DEADLINE_ENV",
    "DEFAULT_DEADLINE_S",
    "MAX_BYTES",
    "SIDE_FILES",
    "HubAccessError",
    "HubError",
    "HubInputError",
    "HubNotFoundError",
    "HubOfflineError",
    "HubUnreachableError",
    "fetch_config",
    "hub_cache_dir",
    "redact",
]

#: Files beside config.json that the packs read: ModelOpt's quantization file and Mistral's
#: native params.json (sglang/checkpoint.py), generation defaults, and the weight index (its
#: tensor names and sizes, for the memory fit) — small JSON files, never the weights.
SIDE_FILES = (
    "hf_quant_config.json",
    "params.json",
    "generation_config.json",
    "model.safetensors.index.json",
)
CONFIG_FILES = ("config.json", *SIDE_FILES)


class HubAccessError(HubError):
    """Gated (401/403 with ``GatedRepo``) or private/missing-for-this-token (401 ``RepoNotFound``)."""


class HubNotFoundError(HubError):
    """No such repo, revision, or no ``config.json`` in it."""


class HubOfflineError(HubError):
    """``HF_HUB_OFFLINE`` is set and the files are not in the local cache."""


class HubUnreachableError(HubError):
    """The hub (``HF_ENDPOINT``) could not be reached."""


def endpoint() -> str:
    """The hub's address: ``HF_ENDPOINT``, else https://huggingface.co (as configured, with any
    credentials in it; ``shown_endpoint`` is the form for messages)."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").strip().rstrip("/")


def shown_endpoint() -> str:
    """The hub's address for a message: no ``user:password@``, one line."""
    return shown(strip_credentials(endpoint()))


def _checked_endpoint() -> str:
    """``HF_ENDPOINT`` checked: an http(s) URL with a host and nothing that breaks a request."""
    import urllib.parse

    raw = endpoint()
    try:
        parts = urllib.parse.urlsplit(raw)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or not raw.isprintable()
        or any(c.isspace() for c in raw)
        or parts.query
        or parts.fragment
    ):
        raise HubInputError(
            f"HF_ENDPOINT {shown(strip_credentials(raw))[:120]} is not an http(s) URL of a hub: set it to "
            "e.g. https://huggingface.co, or unset it"
        )
    if parts.username is not None or parts.password is not None:
        raise HubInputError(
            f"HF_ENDPOINT {shown(strip_credentials(raw))[:120]} holds credentials: remove user:password@ from "
            "it and set HF_TOKEN instead"
        )
    return raw


def offline() -> bool:
    """``HF_HUB_OFFLINE`` as huggingface_hub reads it (1, ON, YES, TRUE)."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in ("1", "ON", "YES", "TRUE")


def hub_cache_dir() -> str:
    """The hub cache: ``HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ~/.cache/huggingface/hub."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    return os.path.join(_hf_home(), "hub")


def _hf_home() -> str:
    return os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")


def _token() -> str | None:
    """``HF_TOKEN`` (or ``HUGGING_FACE_HUB_TOKEN``), else the token ``hf auth login`` stored
    (``HF_TOKEN_PATH``, else ``$HF_HOME/token``); a ``HubInputError`` (not showing it) when it
    holds a line break, a control character or a space."""
    token, source = None, ""
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if os.environ.get(var):
            token, source = os.environ[var].strip(), var
            break
    if token is None:
        path = os.environ.get("HF_TOKEN_PATH") or os.path.join(_hf_home(), "token")
        try:
            token = read_bounded(path, 4096, what="Hugging Face token file").decode("utf-8").strip() or None
        except (ConfigError, UnicodeDecodeError):
            token = None
        if token:
            remember_secret(token)
            source = "the stored Hugging Face token"
    if token and (not token.isprintable() or any(c.isspace() for c in token)):
        raise HubInputError(
            f"{source} holds a line break, a control character or a space: set it to the token alone"
        )
    return token or None


def _at(revision: str | None) -> str:
    return f" at revision {revision!r}" if revision else ""


def _repo_dir(cache: str, repo_id: str) -> str:
    return inside(cache, "models--" + repo_id.replace("/", "--"))


def fetch_config(
    repo_id: str,
    *,
    revision: str | None = None,
    files: Sequence[str] = CONFIG_FILES,
    cache_dir: str | None = None,
    timeout: float | str | None = None,
) -> str:
    """Fetch ``config.json`` and the side files of ``repo_id`` (those it has) into the hub cache,
    and return the snapshot directory that holds them (``.../snapshots/<commit>``).

    With ``HF_HUB_OFFLINE`` set, only the cache is read. ``timeout`` is the overall deadline in
    seconds (``--hub-timeout``; default ``$RESOLVABLE_HUB_TIMEOUT``, else 30). Raises a
    ``HubError`` subclass naming the fix; on failure, nothing this call added stays in the cache."""
    check_repo_id(repo_id)
    if revision is not None:
        check_revision(revision)
    names = tuple(dict.fromkeys(("config.json", *(n for n in files if n in CONFIG_FILES))))
    cache = cache_dir or hub_cache_dir()
    if offline():
        return _from_cache(repo_id, revision, cache)
    ep = _checked_endpoint()
    seconds = deadline_seconds(timeout)
    token = _token()
    if revision is not None and len(revision) == 40:  # a commit already cached: nothing to ask
        with contextlib.suppress(HubError):
            return _from_cache(repo_id, revision, cache)
    try:
        snapshot, _ = fetch_files(
            ep, repo_id, revision, names, _repo_dir(cache, repo_id), token, Deadline(seconds)
        )
    except HttpFailure as exc:
        raise _translate(exc, repo_id, revision, getattr(exc, "file", "config.json"), seconds) from None
    except OSError as exc:
        raise HubError(
            f"{repo_id}{_at(revision)}: cannot write to the Hugging Face cache {shown(cache)} "
            f"({exc.strerror or exc}); check HF_HUB_CACHE or HF_HOME"
        ) from None
    return snapshot


def _from_cache(repo_id: str, revision: str | None, cache: str) -> str:
    """The cached snapshot directory holding config.json (a guarded read of ``refs/<revision>``)."""
    repo_dir = _repo_dir(cache, repo_id)
    commit: str | None = None
    if revision is not None and len(revision) == 40 and all(c in "0123456789abcdef" for c in revision):
        commit = revision
    else:
        try:
            ref = inside(repo_dir, "refs", *(revision or "main").split("/"))
            raw = read_bounded(ref, 256, what="Hugging Face cache ref")
            commit = check_commit(raw.decode("ascii", "replace").strip(), "the local cache", "its ref")
        except ConfigError:
            commit = None
    if commit is not None:
        snapshot = os.path.join(repo_dir, "snapshots", commit)
        try:
            found = os.path.isfile(os.path.join(snapshot, "config.json"))
        except (OSError, ValueError):
            found = False
        if found:
            return snapshot
    raise HubOfflineError(
        f"{repo_id}{_at(revision)} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set: unset "
        f"HF_HUB_OFFLINE to fetch its config.json (no weights), or fetch it where the hub is reachable "
        f"(`hf download {repo_id} config.json`) into the cache at $HF_HUB_CACHE, else $HF_HOME/hub "
        f"(now {shown(cache)}), or pass --model-config PATH"
    )


def _translate(exc: HttpFailure, repo_id: str, revision: str | None, name: str, seconds: float) -> HubError:
    kind, status = exc.kind, exc.status
    where = f"{repo_id}{_at(revision)}"
    ep = shown_endpoint()
    try:
        has_token = _token() is not None
    except HubError:
        has_token = True
    token = "HF_TOKEN is set" if has_token else "no HF_TOKEN is set"
    if kind == "gated":
        return HubAccessError(
            f"{where} is a gated repo ({status or 403}; {token}): accept its terms on "
            f"{ep}/{repo_id} and set HF_TOKEN to a token of that account"
        )
    if kind == "repo":
        if status == 401 and not has_token:
            return HubAccessError(
                f"{where}: the hub answers 401 (a private repo, or none by that name; no HF_TOKEN is set): "
                "check the name, or set HF_TOKEN to a token that can read it"
            )
        return HubNotFoundError(
            f"{where}: no such repo on {ep} (or it is private and {token}; answered {status}): "
            "check the name, or set HF_TOKEN to a token that can read it"
        )
    if kind == "revision":
        return HubNotFoundError(
            f"{repo_id} has no revision {revision!r} on {ep}: pass an existing branch, tag or commit "
            "with --revision"
        )
    if kind == "entry":
        return HubNotFoundError(
            f"{where} has no {name}: it is not a transformers model repo sglang can load; "
            "pass --model-config PATH with the config.json that stands for it"
        )
    if kind == "timeout":
        return HubUnreachableError(
            f"{where}: the hub at {ep} gave no complete answer for {name} within {seconds:g} s (the hub "
            f"deadline): try again later, allow more with --hub-timeout SECONDS or {DEADLINE_ENV}, "
            "or pass --model-config PATH"
        )
    if kind == "toolarge":
        return HubUnreachableError(
            f"{where}: the hub at {ep} sent a {name} larger than {MAX_BYTES.get(name, 0) // 2**20} MiB "
            "(the cap for that file): check HF_ENDPOINT, or pass --model-config PATH"
        )
    if kind == "http":
        return HubUnreachableError(
            f"{where}: the hub at {ep} answered {status} for {name}: try again later, or check HF_ENDPOINT"
        )
    return HubUnreachableError(
        f"{where}: cannot reach the hub at {ep} to fetch {name} ({shown(exc.detail)[:200]}); "
        "check the network or HF_ENDPOINT, or fetch it elsewhere (`hf download "
        f"{repo_id} config.json`) and pass --model-config PATH"
    )
