"""Fetching a few small files from the hub under one overall deadline, with size caps enforced
while streaming, into the Hugging Face cache layout, and nothing anywhere else.

Invariants (issue 29):

* one deadline for the whole fetch (``Deadline``): every request's socket timeout is what is
  left of it, and the fetch runs in a worker thread that the caller waits for no longer than
  the deadline, so a hub that trickles a byte at a time, stalls mid-body or mid-header, or asks
  to be retried later (``Retry-After``) gets an answer in bounded time. Nothing is retried;
* every body is read in chunks and refused as soon as it passes its cap (``MAX_BYTES``),
  whatever ``Content-Length`` says (a never-ending or 2 GiB config.json stops at 16 MiB);
* the server's ``X-Repo-Commit`` must be 40 hex digits and its ETag a plain hash
  (``_names``); each file after config.json is asked for at that commit, so all of them come
  from one snapshot;
* bodies are written to ``blobs/.<random>.incomplete`` and become visible (``blobs/<etag>``,
  ``snapshots/<commit>/<file>`` as a relative link, ``refs/<revision>``) only after every file
  arrived, in the caller's thread, every path resolved and checked to lie inside the repo's
  cache directory (``_names.inside``). On any failure what this fetch added is removed again;
* credentials follow a redirect only to the same host (as ``huggingface_hub`` does), and no
  redirect chain is longer than 5.

The layout is ``huggingface_hub``'s (``file_download.py: hf_hub_download``, ``_cache_manager``):
``models--{org}--{name}/{blobs,snapshots,refs}``; the HTTP answers it reads are the hub's
(``X-Repo-Commit``, ``X-Linked-Etag``/``ETag``, ``X-Error-Code``). Standard library only.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .._files import shown, write_atomic
from ._names import HubInputError, check_commit, check_etag, inside

__all__ = ["DEFAULT_DEADLINE_S", "DEADLINE_ENV", "MAX_BYTES", "Deadline", "HttpFailure", "fetch_files"]

#: The overall deadline for one fetch, in seconds, unless ``RESOLVABLE_HUB_TIMEOUT`` or
#: ``--hub-timeout`` says otherwise.
DEFAULT_DEADLINE_S = 30.0
DEADLINE_ENV = "RESOLVABLE_HUB_TIMEOUT"
_MAX_DEADLINE_S = 3600.0

#: Caps per file, enforced while streaming: config.json as the local reader caps it (16 MiB);
#: the weight index of the largest checkpoints is ~10 MiB, the other side files are tiny.
MAX_BYTES = {
    "config.json": 16 * 2**20,
    "model.safetensors.index.json": 64 * 2**20,
    "hf_quant_config.json": 4 * 2**20,
    "params.json": 4 * 2**20,
    "generation_config.json": 4 * 2**20,
}
_DEFAULT_MAX_BYTES = 4 * 2**20
_CHUNK = 1 << 16
_MAX_REDIRECTS = 5


class Deadline:
    """A point in time (monotonic clock) ``seconds`` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0


def deadline_seconds(value: object = None) -> float:
    """The deadline: ``value`` (the flag) if given, else ``$RESOLVABLE_HUB_TIMEOUT``, else the
    default; a ``HubInputError`` naming the setting unless it is a number of seconds in (0, 3600]."""
    source = "--hub-timeout"
    if value is None:
        value = os.environ.get(DEADLINE_ENV)
        source = DEADLINE_ENV
        if value is None or not str(value).strip():
            return DEFAULT_DEADLINE_S
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        seconds = math.nan
    if not (0 < seconds <= _MAX_DEADLINE_S):  # also NaN
        raise HubInputError(
            f"{source} {shown(str(value))[:40]}: not a number of seconds in (0, {_MAX_DEADLINE_S:g}]; "
            f"set it to e.g. {DEFAULT_DEADLINE_S:g}"
        )
    return seconds


class HttpFailure(Exception):
    """A request that failed: ``kind`` is gated, repo, revision, entry, http, network, timeout,
    toolarge or bad (a malformed answer); ``status`` the HTTP status if any."""

    def __init__(self, kind: str, detail: str = "", status: int | None = None) -> None:
        super().__init__(detail)
        self.kind, self.detail, self.status = kind, detail, status


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # answered as an HTTPError; followed by ``_get`` itself


_opener: urllib.request.OpenerDirector | None = None


def _open(request: urllib.request.Request, timeout: float):
    global _opener
    if _opener is None:
        _opener = urllib.request.build_opener(_NoRedirect())
    return _opener.open(request, timeout=timeout)


_ERROR_CODES = {
    "GatedRepo": "gated",
    "RepoNotFound": "repo",
    "RevisionNotFound": "revision",
    "EntryNotFound": "entry",
}


def _failure_of(status: int, headers: object) -> HttpFailure:
    code = (getattr(headers, "get", lambda *_: None)("X-Error-Code") or "").strip()
    kind = _ERROR_CODES.get(code)
    if kind is None:
        kind = {401: "repo", 403: "gated", 404: "entry"}.get(status, "http")
    return HttpFailure(kind, f"answered {status}", status)


def _get(url: str, token: str | None, cap: int, deadline: Deadline, sink: str, cancelled: threading.Event):
    """GET ``url`` into the new file ``sink``: (commit, etag) from the first answer that is not
    a relative redirect. Raises ``HttpFailure``."""
    origin = urllib.parse.urlsplit(url).netloc
    meta: tuple[str | None, str | None] | None = None
    for _ in range(_MAX_REDIRECTS + 1):
        if deadline.passed() or cancelled.is_set():
            raise HttpFailure("timeout")
        headers = {"Accept-Encoding": "identity", "User-Agent": "resolvable"}
        if token and urllib.parse.urlsplit(url).netloc == origin:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(url, headers=headers, method="GET")
        try:
            response = _open(request, timeout=max(0.01, deadline.left()))
        except urllib.error.HTTPError as exc:
            with contextlib.closing(exc):
                if exc.code in (301, 302, 303, 307, 308) and exc.headers.get("Location"):
                    target = urllib.parse.urljoin(url, exc.headers["Location"])
                    parts = urllib.parse.urlsplit(target)
                    if parts.scheme not in ("http", "https"):
                        raise HttpFailure(
                            "bad", f"a redirect to a {parts.scheme or 'schemeless'} URL"
                        ) from None
                    relative = parts.netloc == urllib.parse.urlsplit(url).netloc
                    if meta is None and not relative:
                        meta = (exc.headers.get("X-Repo-Commit"), _etag_of(exc.headers))
                    url = target
                    continue
                raise _failure_of(exc.code, exc.headers) from None
        except HttpFailure:
            raise
        except Exception as exc:  # URLError, socket timeout, reset, TLS, malformed status line ...
            raise HttpFailure(_network_kind(exc, deadline), _detail(exc)) from None
        with contextlib.closing(response):
            if meta is None:
                meta = (response.headers.get("X-Repo-Commit"), _etag_of(response.headers))
            length = response.headers.get("Content-Length")
            if length and length.strip().isdigit() and int(length) > cap:
                raise HttpFailure("toolarge", f"{int(length)} bytes")
            _stream(response, cap, deadline, sink, cancelled)
        return meta
    raise HttpFailure("bad", f"more than {_MAX_REDIRECTS} redirects")


def _etag_of(headers: object) -> str | None:
    get = getattr(headers, "get", lambda *_: None)
    return get("X-Linked-Etag") or get("ETag")


def _stream(response: object, cap: int, deadline: Deadline, sink: str, cancelled: threading.Event) -> None:
    read = getattr(response, "read1", None) or response.read  # type: ignore[attr-defined]
    total = 0
    fd = os.open(sink, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
    try:
        while True:
            if deadline.passed() or cancelled.is_set():
                raise HttpFailure("timeout")
            try:
                chunk = read(_CHUNK)
            except Exception as exc:
                raise HttpFailure(_network_kind(exc, deadline), _detail(exc)) from None
            if not chunk:
                break
            total += len(chunk)
            if total > cap:
                raise HttpFailure("toolarge", f"more than {cap} bytes")
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    length = getattr(response, "length", None)
    if length:  # http.client counts down what Content-Length promised and did not arrive
        raise HttpFailure("network", "the connection closed before the whole file arrived")


def _network_kind(exc: BaseException, deadline: Deadline) -> str:
    """ "timeout" when the socket gave up because the deadline (its timeout) ran out."""
    reason = getattr(exc, "reason", exc)
    timed_out = isinstance(exc, TimeoutError) or isinstance(reason, TimeoutError)
    return "timeout" if timed_out and deadline.left() < 0.25 else "network"


def _detail(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    text = str(reason if reason is not None else exc).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line[:160]}" if line else type(exc).__name__


def fetch_files(
    endpoint: str,
    repo_id: str,
    revision: str | None,
    files: tuple[str, ...],
    repo_dir: str,
    token: str | None,
    deadline: Deadline,
) -> tuple[str, dict[str, str]]:
    """Fetch ``files`` (``files[0]`` required, the rest optional) and publish them in
    ``repo_dir``; (snapshot directory, {file: path}). Raises ``HttpFailure`` (with ``.file``) or
    ``HubInputError``."""
    blobs = inside(repo_dir, "blobs")
    os.makedirs(blobs, exist_ok=True)
    cancelled = threading.Event()
    result: dict[str, object] = {}

    def work() -> None:
        try:
            result["ok"] = _download_all(
                endpoint, repo_id, revision, files, blobs, token, deadline, cancelled
            )
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    worker = threading.Thread(target=work, name="resolvable-hub-fetch", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline.left()) + 0.5)
    if worker.is_alive():
        cancelled.set()  # the worker removes its partial file when it wakes
        failure = HttpFailure("timeout")
        failure.file = files[0]  # type: ignore[attr-defined]
        raise failure
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    commit, fetched = result["ok"]  # type: ignore[misc]
    return _publish(repo_dir, revision, commit, fetched, endpoint)


def _download_all(endpoint, repo_id, revision, files, blobs, token, deadline, cancelled):
    fetched: list[tuple[str, str, str]] = []  # (file, etag, temporary path)
    commit = None
    try:
        for name in files:
            at = commit or revision or "main"
            url = "/".join(
                [endpoint, urllib.parse.quote(repo_id), "resolve", urllib.parse.quote(at, safe=""), name]
            )
            sink = os.path.join(blobs, f".{uuid.uuid4().hex}.incomplete")
            try:
                got_commit, etag = _get(
                    url, token, MAX_BYTES.get(name, _DEFAULT_MAX_BYTES), deadline, sink, cancelled
                )
            except HttpFailure as exc:
                with contextlib.suppress(OSError):
                    os.unlink(sink)
                if exc.kind == "entry" and name != files[0]:
                    continue  # an optional side file the repo does not have
                exc.file = name  # type: ignore[attr-defined]
                raise
            try:
                commit_now = check_commit(got_commit, endpoint, name)
                etag_now = check_etag(etag, endpoint, name)
                if commit is not None and commit_now != commit:
                    raise HubInputError(
                        f"the hub at {endpoint} answered for {name} from commit {commit_now}, not {commit}: "
                        "check HF_ENDPOINT"
                    )
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(sink)
                raise
            commit = commit_now
            fetched.append((name, etag_now, sink))
        if cancelled.is_set():
            raise HttpFailure("timeout")
    except BaseException:
        for _, _, sink in fetched:
            with contextlib.suppress(OSError):
                os.unlink(sink)
        raise
    return commit, fetched


def _publish(repo_dir: str, revision: str | None, commit: str, fetched, endpoint: str):
    """Move the downloaded blobs into place, link them from the snapshot and write the ref; all
    or nothing."""
    added: list[str] = []
    paths: dict[str, str] = {}
    try:
        snapshot = inside(repo_dir, "snapshots", commit)
        os.makedirs(snapshot, exist_ok=True)
        for name, etag, sink in fetched:
            blob = inside(repo_dir, "blobs", etag)
            if os.path.lexists(blob):
                os.unlink(sink)
            else:
                os.replace(sink, blob)
                added.append(blob)
            link = os.path.join(snapshot, name)
            if os.path.realpath(link) != blob:
                if os.path.lexists(link):
                    os.unlink(link)
                try:
                    os.symlink(os.path.relpath(blob, snapshot), link)
                except OSError:  # no symbolic links here (Windows without the privilege)
                    with open(blob, "rb") as src:
                        write_atomic(link, src.read(), what=f"cached {name}")
                added.append(link)
            paths[name] = link
        ref = revision or "main"
        if ref != commit:
            ref_path = inside(repo_dir, "refs", *ref.split("/"))
            os.makedirs(os.path.dirname(ref_path), exist_ok=True)
            write_atomic(ref_path, commit, what="Hugging Face cache ref")
    except BaseException:
        for _, _, sink in fetched:
            with contextlib.suppress(OSError):
                os.unlink(sink)
        for path in reversed(added):
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise
    return snapshot, paths
