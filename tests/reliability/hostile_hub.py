"""A hostile stand-in for the Hugging Face Hub on 127.0.0.1: each test says how it answers.

``HostileHub(answer)`` serves every request with ``answer(handler)``, a function that writes
the whole response on ``handler`` (a ``BaseHTTPRequestHandler``); ``good(handler, ...)`` is the
honest answer (a config.json of a tiny Llama), which ``answer`` may bend: a traversal ETag or
commit, a stall mid-body, a trickle, ``Retry-After``, an endless body.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable
from typing import Any

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "vocab_size": 1000,
    "max_position_embeddings": 2048,
    "torch_dtype": "bfloat16",
}
BODY = json.dumps(CONFIG).encode()
COMMIT = "a" * 40
ETAG = "b" * 40


def good(
    handler: http.server.BaseHTTPRequestHandler,
    *,
    etag: str = ETAG,
    commit: str = COMMIT,
    body: bytes = BODY,
    headers: dict[str, str] | None = None,
) -> None:
    if not handler.path.split("?")[0].endswith("/config.json"):
        return error(handler, 404, "EntryNotFound")
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("ETag", f'"{etag}"')
    handler.send_header("X-Repo-Commit", commit)
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(body)


def error(
    handler: http.server.BaseHTTPRequestHandler, status: int, code: str | None = None, **extra: str
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", "0")
    if code:
        handler.send_header("X-Error-Code", code)
    for key, value in extra.items():
        handler.send_header(key.replace("_", "-"), value)
    handler.end_headers()


def stall_mid_body(handler: http.server.BaseHTTPRequestHandler, seconds: float = 30.0) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.send_header("ETag", f'"{ETAG}"')
    handler.send_header("X-Repo-Commit", COMMIT)
    handler.end_headers()
    handler.wfile.write(BODY[:10])
    handler.wfile.flush()
    time.sleep(seconds)


def trickle(handler: http.server.BaseHTTPRequestHandler, every: float = 0.5) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.send_header("ETag", f'"{ETAG}"')
    handler.send_header("X-Repo-Commit", COMMIT)
    handler.end_headers()
    for i in range(len(BODY)):
        try:
            handler.wfile.write(BODY[i : i + 1])
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(every)


def endless(handler: http.server.BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("ETag", f'"{ETAG}"')
    handler.send_header("X-Repo-Commit", COMMIT)
    handler.send_header("Connection", "close")
    handler.end_headers()
    chunk = b" " * (1 << 20)
    handler.wfile.write(b"{")
    try:
        for _ in range(4096):  # 4 GiB at most, far past any cap
            handler.wfile.write(chunk)
    except OSError:
        return


class HostileHub:
    def __init__(self, answer: Callable[[http.server.BaseHTTPRequestHandler], None]) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hub.requests.append((self.command, self.path, dict(self.headers)))
                answer(self)

            do_HEAD = do_GET

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HostileHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
