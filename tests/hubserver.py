"""A local stand-in for the Hugging Face Hub's file-download endpoints, on 127.0.0.1 (no network).

It answers ``HEAD``/``GET /{org}/{name}/resolve/{revision}/{filename}`` as huggingface_hub expects
(``huggingface_hub/file_download.py``: ``get_hf_file_metadata`` reads ``X-Repo-Commit``, ``ETag``
and ``Content-Length``; ``utils/_http.py: hf_raise_for_status`` maps ``X-Error-Code`` to
``RepositoryNotFoundError``, ``GatedRepoError``, ``RevisionNotFoundError`` and
``RemoteEntryNotFoundError``). Point ``HF_ENDPOINT`` at ``server.url``.

``HubServer.add(repo, files, ...)`` serves a repo; ``gated``/``token`` make it gated or private;
``truncate`` names files whose body breaks off midway (a download that fails). ``requests``
records every (method, path) asked for.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Mapping
from typing import Any


class _Repo:
    def __init__(
        self, files: Mapping[str, bytes], revisions: Mapping[str, str], gated: bool, token: str | None
    ):
        self.files, self.revisions, self.gated, self.token = dict(files), dict(revisions), gated, token


class HubServer:
    def __init__(self) -> None:
        self.repos: dict[str, _Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self.truncate: set[str] = set()
        self.down = False
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                server._answer(self, body=False)

            def do_GET(self) -> None:
                server._answer(self, body=True)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def add(
        self,
        repo: str,
        files: Mapping[str, Any],
        *,
        revisions: Mapping[str, str] | None = None,
        gated: bool = False,
        token: str | None = None,
    ) -> None:
        """Serve ``repo``; ``files`` maps a name to bytes, text or a JSON-able object."""
        encoded = {
            k: v if isinstance(v, bytes) else (v if isinstance(v, str) else json.dumps(v)).encode()
            for k, v in files.items()
        }
        commit = hashlib.sha1(repo.encode() + b"".join(sorted(encoded.values()))).hexdigest()
        self.repos[repo] = _Repo(encoded, {"main": commit, **(revisions or {})}, gated, token)

    def _answer(self, handler: http.server.BaseHTTPRequestHandler, *, body: bool) -> None:
        self.requests.append((handler.command, handler.path))
        path = handler.path.split("?", 1)[0]
        parts = path.strip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            return self._error(handler, 404, None, "not a resolve url")
        repo_id, revision, filename = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
        repo = self.repos.get(repo_id)
        auth = handler.headers.get("authorization", "")
        if repo is None or (repo.token is not None and auth != f"Bearer {repo.token}"):
            return self._error(handler, 401, "RepoNotFound", "Repository not found")
        if repo.gated and auth != "Bearer gated-ok":
            return self._error(handler, 403, "GatedRepo", "Access to this repo is restricted")
        commit = repo.revisions.get(revision) or (revision if revision in repo.revisions.values() else None)
        if commit is None:
            return self._error(handler, 404, "RevisionNotFound", "Invalid rev id")
        data = repo.files.get(filename)
        if data is None:
            return self._error(handler, 404, "EntryNotFound", "Entry not found", commit)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("ETag", f'"{hashlib.sha1(data).hexdigest()}"')
        handler.send_header("X-Repo-Commit", commit)
        handler.end_headers()
        if body:
            if filename in self.truncate:  # break off midway: the client must not keep a partial file
                handler.wfile.write(data[: len(data) // 2])
                handler.wfile.flush()
                handler.close_connection = True
                return
            handler.wfile.write(data)

    def _error(
        self,
        handler: http.server.BaseHTTPRequestHandler,
        status: int,
        code: str | None,
        message: str,
        commit: str | None = None,
    ) -> None:
        data = json.dumps({"error": message}).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        if code:
            handler.send_header("X-Error-Code", code)
            handler.send_header("X-Error-Message", message)
        if commit:
            handler.send_header("X-Repo-Commit", commit)
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(data)
