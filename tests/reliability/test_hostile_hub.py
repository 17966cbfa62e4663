"""Issue 29 items 1-3: a hostile hub and hostile hub settings. Nothing a server or a user string
controls becomes a path outside the cache; secrets never reach output; one overall deadline, no
retries, caps enforced while streaming. Each case answers with one ``error:`` line and exit 2."""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

import hostile_hub as hh
import pytest

from resolvable.cli import main


@pytest.fixture
def env(tmp_path, monkeypatch):
    cache = tmp_path / "home" / "cache"
    cache.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RESOLVABLE_HUB_TIMEOUT", "2")
    return tmp_path


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
    return captured.err


def explain(*args: str) -> int:
    return main(["explain", *args, "--platform", "h100"])


def test_an_etag_that_traverses_writes_nothing_outside_the_cache(env, monkeypatch, capsys):
    answer = functools.partial(hh.good, etag="../../../planted")
    with hh.HostileHub(answer) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        before = files_under(env)
        assert explain("org/NAME") == 2
    err = one_error_line(capsys)
    assert "ETag" in err and "HF_ENDPOINT" in err
    added = files_under(env) - before
    assert not any("planted" in p for p in added), added
    assert all(p.startswith("home/cache") for p in added), added


def test_a_commit_that_traverses_is_refused(env, monkeypatch, capsys):
    answer = functools.partial(hh.good, commit="../../../../planted-commit")
    with hh.HostileHub(answer) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME") == 2
    assert "commit id" in one_error_line(capsys)
    assert not any("planted" in p for p in files_under(env))


def test_a_revision_that_traverses_overwrites_nothing(env, monkeypatch, capsys):
    victim = env / "victim"
    victim.write_text("precious")
    with hh.HostileHub(hh.good) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code = main(
            ["explain", "--platform", "h100", "--", "python", "-m", "sglang.launch_server",
             "--model-path", "org/NAME", "--revision", "../../../victim"]
        )  # fmt: skip
        assert code == 2
        assert hub.requests == []  # refused before asking
    assert "--revision" in one_error_line(capsys)
    assert victim.read_text() == "precious"


def test_a_good_fetch_lands_in_the_cache_layout(env, monkeypatch, capsys):
    with hh.HostileHub(hh.good) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME", "--revision", "v1.0") == 0
    repo = env / "home" / "cache" / "models--org--NAME"
    assert (repo / "refs" / "v1.0").read_text() == hh.COMMIT
    assert (repo / "snapshots" / hh.COMMIT / "config.json").read_bytes() == hh.BODY
    assert os.path.islink(repo / "snapshots" / hh.COMMIT / "config.json")
    assert (repo / "blobs" / hh.ETAG).exists()
    assert not list((repo / "blobs").glob(".*incomplete"))


def test_a_token_with_a_line_break_is_not_shown(env, monkeypatch, capsys):
    token = "hf_" + "Q" * 30 + "\r\nX-Injected: 1"
    monkeypatch.setenv("HF_TOKEN", token)
    with hh.HostileHub(hh.good) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME") == 2
        assert hub.requests == []  # never sent
    err = one_error_line(capsys)
    assert "Q" * 30 not in err and "X-Injected" not in err and "HF_TOKEN" in err


def test_credentials_in_the_endpoint_are_not_shown(env, monkeypatch, capsys):
    monkeypatch.setenv("HF_ENDPOINT", "http://user:PASS@127.0.0.1:9")
    assert explain("org/NAME") == 2
    err = one_error_line(capsys)
    assert "PASS" not in err and "HF_ENDPOINT" in err


def test_a_token_sent_to_a_refusing_hub_is_not_echoed(env, monkeypatch, capsys):
    token = "hf_" + "Z" * 34
    monkeypatch.setenv("HF_TOKEN", token)
    answer = functools.partial(hh.error, status=500, code=None, X_Echo=f"Bearer {token}")
    with hh.HostileHub(lambda h: answer(h)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME", "--json") == 2
        assert hub.requests[0][2].get("Authorization") == f"Bearer {token}"  # sent, to this host only
    captured = capsys.readouterr()
    assert token not in captured.out + captured.err


@pytest.mark.parametrize(
    "endpoint",
    ["not a url", "ftp://host", "http://", "http://host:99999", "http://exa mple", "http://h\r\nX: 1"],
)
def test_a_malformed_endpoint_is_one_line(env, monkeypatch, capsys, endpoint):
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    assert explain("org/NAME") == 2
    assert "HF_ENDPOINT" in one_error_line(capsys)


@pytest.mark.parametrize("repo", ["org/..", "оrg/name", "org/na--me", "org/.hidden"])  # 'о' is Cyrillic
def test_a_repo_id_the_hub_refuses_is_one_line(env, monkeypatch, capsys, repo):
    with hh.HostileHub(hh.good) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert main(["explain", "--platform", "h100", "--revision", "main", repo]) == 2
        assert hub.requests == []
    one_error_line(capsys)


@pytest.mark.parametrize(
    "answer",
    [
        functools.partial(hh.stall_mid_body, seconds=20),
        functools.partial(hh.trickle, every=0.5),
        functools.partial(hh.error, status=503, code=None, Retry_After="3600"),
        functools.partial(hh.error, status=429, code=None, Retry_After="3600"),
    ],
    ids=["stall", "trickle", "retry-after-503", "retry-after-429"],
)
def test_one_deadline_and_no_retry(env, monkeypatch, capsys, answer):
    with hh.HostileHub(lambda h: answer(h)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        start = time.monotonic()
        assert explain("org/NAME") == 2
        took = time.monotonic() - start
        assert len(hub.requests) == 1  # no retry
    assert took < 5, took  # the 2 s deadline, and some slack for a loaded machine
    err = one_error_line(capsys)
    assert "Trying to resume" not in err
    assert not list((env / "home" / "cache").rglob("config.json"))


def test_the_deadline_flag_and_variable_are_checked(env, monkeypatch, capsys):
    monkeypatch.setenv("RESOLVABLE_HUB_TIMEOUT", "nan")
    with hh.HostileHub(hh.good) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME") == 2
    assert "RESOLVABLE_HUB_TIMEOUT" in one_error_line(capsys)


def test_an_endless_config_stops_at_its_cap(env, monkeypatch, capsys):
    monkeypatch.setenv("RESOLVABLE_HUB_TIMEOUT", "60")
    with hh.HostileHub(hh.endless) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME") == 2
    assert "16 MiB" in one_error_line(capsys)
    leftovers = [p for p in (env / "home" / "cache").rglob("*") if p.is_file()]
    assert leftovers == []


def test_a_declared_2_gib_config_is_refused_before_reading(env, monkeypatch, capsys):
    def answer(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(2 * 2**30))
        handler.send_header("ETag", f'"{hh.ETAG}"')
        handler.send_header("X-Repo-Commit", hh.COMMIT)
        handler.end_headers()
        handler.wfile.write(b"{" * 1024)

    with hh.HostileHub(answer) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert explain("org/NAME") == 2
    assert "16 MiB" in one_error_line(capsys)


def test_the_hub_timeout_flag_sets_the_deadline(env, monkeypatch, capsys):
    monkeypatch.setenv("RESOLVABLE_HUB_TIMEOUT", "60")  # the flag wins over the variable
    answer = functools.partial(hh.stall_mid_body, seconds=20)
    with hh.HostileHub(lambda h: answer(h)) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        start = time.monotonic()
        assert explain("org/NAME", "--hub-timeout", "1") == 2
        assert time.monotonic() - start < 4
    assert "within 1 s" in one_error_line(capsys)
    assert explain("org/NAME", "--hub-timeout", "-3") == 2
    assert "--hub-timeout" in one_error_line(capsys)


def test_no_error_line_of_any_command_shows_the_token(monkeypatch, capsys):
    """Redaction is not the hub's alone: a token pasted by mistake as a flag value (the engine's
    parser echoes the value it refuses) is redacted by the CLI's one error printer."""
    from resolvable.cli import main

    token = "hf_AbCdEfGhIjKlMnOpQrStUvWx0123"
    monkeypatch.setenv("HF_TOKEN", token)
    code = main(["explain", "llama-3.1-8b", "--platform", "h100", "--tp-size", token])
    err = capsys.readouterr().err
    assert code in (1, 2) and err.startswith("error: ")
    assert token not in err and "***" in err
