"""Models from the Hugging Face Hub: fetch a repo's ``config.json`` and the side files the engines
read, never weights, with ``huggingface_hub`` (imported lazily, here only).

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
  writes each file to ``*.incomplete`` and renames it only when complete).
"""

from __future__ import annotations

import contextlib
import os

from ..errors import ConfigError

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "CONFIG_FILES",
    "SIDE_FILES",
    "HubAccessError",
    "HubError",
    "HubNotFoundError",
    "HubOfflineError",
    "HubUnreachableError",
    "fetch_config",
    "hub_cache_dir",
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

#: Seconds to wait for the hub's answer to one request (the file metadata).
TIMEOUT_S = 10.0


class HubError(ConfigError):
    """A model could not be fetched from the hub (one line: the repo, what happened, the fix)."""


class HubAccessError(HubError):
    """Gated (401/403 with ``GatedRepo``) or private/missing-for-this-token (401 ``RepoNotFound``)."""


class HubNotFoundError(HubError):
    """No such repo, revision, or no ``config.json`` in it."""


class HubOfflineError(HubError):
    """``HF_HUB_OFFLINE`` is set and the files are not in the local cache."""


class HubUnreachableError(HubError):
    """The hub (``HF_ENDPOINT``) could not be reached."""


def endpoint() -> str:
    """The hub's address: ``HF_ENDPOINT``, else https://huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def offline() -> bool:
    """``HF_HUB_OFFLINE`` as huggingface_hub reads it (1, ON, YES, TRUE)."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in ("1", "ON", "YES", "TRUE")


def hub_cache_dir() -> str:
    """The hub cache: ``HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ~/.cache/huggingface/hub."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    return os.path.join(home, "hub")


def _token() -> str | None:
    return os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN") or None


def _at(revision: str | None) -> str:
    return f" at revision {revision!r}" if revision else ""


def fetch_config(
    repo_id: str,
    *,
    revision: str | None = None,
    files: Sequence[str] = CONFIG_FILES,
    cache_dir: str | None = None,
) -> str:
    """Fetch ``config.json`` and the side files of ``repo_id`` (those it has) into the hub cache,
    and return the snapshot directory that holds them (``.../snapshots/<commit>``).

    With ``HF_HUB_OFFLINE`` set, only the cache is read. Raises a ``HubError`` subclass naming
    the fix; on failure, nothing this call added stays in the cache."""
    try:
        import huggingface_hub  # noqa: F401  (a dependency of the package; imported only here)
    except ImportError:  # pragma: no cover - the package depends on it
        raise HubError(
            f"{repo_id}: fetching from the hub needs huggingface_hub: `pip install huggingface_hub`"
        ) from None
    cache = cache_dir or hub_cache_dir()
    if offline():
        return _from_cache(repo_id, revision, files, cache)
    with _quiet():
        _probe(repo_id, revision)
        added: list[str] = []
        try:
            snapshot = _download(repo_id, "config.json", revision, cache, added, required=True)
            for name in files:
                if name != "config.json":
                    _download(repo_id, name, revision, cache, added, required=False)
        except BaseException:
            _roll_back(added)
            raise
    return snapshot


class _quiet:
    """No progress bars and no retry chatter from huggingface_hub while fetching: the outcome is
    reported once, as a result or one ``HubError`` line."""

    def __enter__(self) -> None:
        import logging

        from huggingface_hub import constants
        from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars

        # huggingface_hub reads HF_HUB_OFFLINE once, when it is imported; this call has read the
        # environment now (``offline()``) and is online, so its requests must not be refused.
        self.constants, self.was_offline = constants, constants.HF_HUB_OFFLINE
        constants.HF_HUB_OFFLINE = False

        self.logger = logging.getLogger("huggingface_hub")
        self.level = self.logger.level
        self.logger.setLevel(logging.CRITICAL)
        self.bars_were_off = are_progress_bars_disabled()
        disable_progress_bars()

    def __exit__(self, *exc: object) -> None:
        from huggingface_hub.utils import enable_progress_bars

        self.logger.setLevel(self.level)
        self.constants.HF_HUB_OFFLINE = self.was_offline
        if not self.bars_were_off:
            enable_progress_bars()


def _probe(repo_id: str, revision: str | None) -> None:
    """Ask for config.json's metadata once, without retries, so that a gated, missing or
    unreachable repo fails at once (``hf_hub_download`` retries network errors with back-off)."""
    import inspect

    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(repo_id, "config.json", revision=revision, endpoint=endpoint())
    kwargs: dict[str, object] = {"token": _token(), "timeout": TIMEOUT_S}
    if "retry_on_errors" in inspect.signature(get_hf_file_metadata).parameters:
        kwargs["retry_on_errors"] = False
    try:
        get_hf_file_metadata(url, **kwargs)  # type: ignore[arg-type]
    except Exception as exc:
        raise _translate(exc, repo_id, revision, "config.json") from None


def _from_cache(repo_id: str, revision: str | None, files: Sequence[str], cache: str) -> str:
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, "config.json", cache_dir=cache, revision=revision)
    except Exception:  # an odd repo id or cache layout: not cached
        found = None
    if not isinstance(found, str):
        raise HubOfflineError(
            f"{repo_id}{_at(revision)} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set: unset "
            f"HF_HUB_OFFLINE to fetch its config.json (no weights), or fetch it where the hub is reachable "
            f"(`hf download {repo_id} config.json`) into the cache at $HF_HUB_CACHE, else $HF_HOME/hub "
            f"(now {cache}), or pass --model-config PATH"
        )
    return os.path.dirname(found)


def _download(
    repo_id: str, name: str, revision: str | None, cache: str, added: list[str], *, required: bool
) -> str:
    """One file: the snapshot directory holding it; a missing optional file is skipped."""
    from huggingface_hub import hf_hub_download

    before = _cached_path(repo_id, name, revision, cache)
    try:
        path = hf_hub_download(
            repo_id,
            name,
            revision=revision,
            cache_dir=cache,
            endpoint=endpoint(),
            token=_token(),
            etag_timeout=TIMEOUT_S,
        )
    except Exception as exc:
        missing_file = _kind(exc) == "entry"
        if missing_file and not required:
            return ""
        raise _translate(exc, repo_id, revision, name) from None
    path = str(path)
    if before is None or os.path.realpath(before) != os.path.realpath(path):
        added.append(path)
    return os.path.dirname(path)


def _cached_path(repo_id: str, name: str, revision: str | None, cache: str) -> str | None:
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, name, cache_dir=cache, revision=revision)
    except Exception:
        return None
    return found if isinstance(found, str) else None


def _roll_back(paths: list[str]) -> None:
    """Remove the snapshot links (and the blobs they point to) that this call added."""
    for path in paths:
        target = os.path.realpath(path)
        for p in (path, target):
            with contextlib.suppress(OSError):
                os.remove(p)


def _kind(exc: BaseException) -> str:
    """What a huggingface_hub error means: gated, repo, revision, entry, offline, http, network."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "GatedRepoError" in names:
        return "gated"
    if "RepositoryNotFoundError" in names:
        return "repo"
    if "RevisionNotFoundError" in names:
        return "revision"
    if "RemoteEntryNotFoundError" in names or ("EntryNotFoundError" in names and "HfHubHTTPError" in names):
        return "entry"
    if "OfflineModeIsEnabled" in names:
        return "offline"
    if "LocalEntryNotFoundError" in names:
        return "network"  # huggingface_hub's "cannot reach the hub and not cached"
    if "HfHubHTTPError" in names:
        return "http"
    return "network"


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def _translate(exc: BaseException, repo_id: str, revision: str | None, name: str) -> HubError:
    kind = _kind(exc)
    where = f"{repo_id}{_at(revision)}"
    token = "HF_TOKEN is set" if _token() else "no HF_TOKEN is set"
    if kind == "gated":
        return HubAccessError(
            f"{where} is a gated repo ({_status(exc) or 403}; {token}): accept its terms on "
            f"{endpoint()}/{repo_id} and set HF_TOKEN to a token of that account"
        )
    if kind == "repo":
        status = _status(exc)
        if status == 401 and not _token():
            return HubAccessError(
                f"{where}: the hub answers 401 (a private repo, or none by that name; no HF_TOKEN is set): "
                "check the name, or set HF_TOKEN to a token that can read it"
            )
        return HubNotFoundError(
            f"{where}: no such repo on {endpoint()} (or it is private and {token}; answered {status}): "
            "check the name, or set HF_TOKEN to a token that can read it"
        )
    if kind == "revision":
        return HubNotFoundError(
            f"{repo_id} has no revision {revision!r} on {endpoint()}: pass an existing branch, tag or commit "
            "with --revision"
        )
    if kind == "entry":
        return HubNotFoundError(
            f"{where} has no {name}: it is not a transformers model repo sglang can load; "
            "pass --model-config PATH with the config.json that stands for it"
        )
    if kind == "offline":
        return HubOfflineError(
            f"{where} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set: unset HF_HUB_OFFLINE "
            "to fetch its config.json (no weights), or pass --model-config PATH"
        )
    if kind == "http":
        return HubUnreachableError(
            f"{where}: the hub at {endpoint()} answered {_status(exc)} for {name}: try again later, "
            "or check HF_ENDPOINT"
        )
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return HubUnreachableError(
        f"{where}: cannot reach the hub at {endpoint()} to fetch {name} ({type(exc).__name__}: {detail[:160]}); "
        "check the network or HF_ENDPOINT, or fetch it elsewhere (`hf download "
        f"{repo_id} config.json`) and pass --model-config PATH"
    )
