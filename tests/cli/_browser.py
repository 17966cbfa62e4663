"""A tiny WebDriver client (standard library only) for the HTML checks in a real headless browser.

It drives Debian's chromium through chromedriver's HTTP protocol, so the tests need no Python
package beyond pytest. ``find_browser()`` returns None when either program is missing; the
tests then fail in CI and skip elsewhere with that reason (see tests/required_inputs.py).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C WebDriver element key
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
)


def find_browser() -> tuple[str, str] | None:
    browser = (
        os.environ.get("RESOLVABLE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, browser: str, driver: str) -> None:
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="resolvable-chromium-")
        self.proc = subprocess.Popen(
            [driver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                if self._call("GET", "/status")["value"].get("ready"):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromedriver did not start within 20 s")
            time.sleep(0.1)
        options = {"binary": browser, "args": [*FLAGS, f"--user-data-dir={self.profile}"]}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", caps)["value"]["sessionId"]

    def _call(self, method: str, path: str, body: object = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read())

    def _s(self, method: str, path: str, body: object = None) -> object:
        return self._call(method, f"/session/{self.session}{path}", body)["value"]

    def open(self, url: str) -> None:
        self._s("POST", "/url", {"url": url})

    def type_into(self, css: str, text: str) -> None:
        element = self._s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]
        self._s("POST", f"/element/{element}/value", {"text": text})

    def js(self, script: str) -> object:
        return self._s("POST", "/execute/sync", {"script": script, "args": []})

    def screenshot(self) -> bytes:
        return base64.b64decode(self._s("GET", "/screenshot"))

    def close(self) -> None:
        try:
            if getattr(self, "session", None):
                self._call("DELETE", f"/session/{self.session}")
        except OSError:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def png_facts(png: bytes) -> tuple[int, int, int]:
    """(width, height, distinct byte values of the pixel data): enough to tell a blank page."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", png[16:24])
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))
