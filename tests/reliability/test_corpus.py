"""Hostile ``config.json`` inputs: a clear error (or the documented graceful default), fast.

Committed files are listed in ``corpus/manifest.json`` with their expected outcome: ``"ok"``
(the config resolves; ``values`` are checked) or a substring of the error. Inputs that are too
large or are not plain files are generated at test time: 100k-level nesting, a file just over
``MAX_CONFIG_BYTES``, symlink loops, an unreadable file, a directory without ``config.json``,
a FIFO and ``/dev/zero``.

Each input goes through both entry points:

* the library: ``load_model(path)`` then ``resolve_server_args``: a ``ResolvableError`` (a
  ``ValueError``) whose message contains the expected text, names the file when the loader
  refused it, and is one line;
* the CLI: ``resolvable explain PATH --platform P`` returns 2 and prints exactly one line on
  stderr, starting with ``error:``; never a traceback, never "internal error".

"A clear error" means exactly that: one line, the input named, the reason stated, exit code 2.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from resolvable import Platform
from resolvable._hfconfig import MAX_CONFIG_BYTES
from resolvable.cli import main
from resolvable.errors import ConfigError, ResolvableError
from resolvable.sglang import load_model, resolve_server_args

CORPUS = Path(__file__).parent / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["files"]
TIME_LIMIT_S = 2.0


def _argv_flags(flags: dict[str, Any]) -> list[str]:
    argv: list[str] = []
    for name, value in flags.items():
        flag = "--" + name.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return argv


def library_outcome(
    path: str | os.PathLike[str], platform: str = "b200", flags: dict[str, Any] | None = None
) -> Any:
    try:
        hf = load_model(os.fspath(path))
        return resolve_server_args(hf, Platform.preset(platform), **(flags or {}))
    except ResolvableError as exc:
        return exc


def run_cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def assert_clear_cli_error(rc: int, out: str, err: str, match: str) -> None:
    assert "Traceback" not in out + err
    assert "internal error" not in out + err
    assert rc == 2, (rc, err)
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert match.lower() in lines[0].lower(), lines[0]


def assert_clear_library_error(
    result: Any, match: str, path: str | os.PathLike[str], names_input: bool = True
) -> None:
    assert isinstance(result, ResolvableError), f"expected an error containing {match!r}, got {result!r}"
    assert isinstance(result, ValueError)
    message = str(result)
    assert match.lower() in message.lower(), message
    assert "\n" not in message.strip(), message
    if names_input and isinstance(result, ConfigError):
        assert Path(path).name in message, f"the error should name the input: {message}"


def check_both(
    capsys: pytest.CaptureFixture[str],
    path: str | os.PathLike[str],
    match: str,
    platform: str = "b200",
    flags: dict[str, Any] | None = None,
    names_input: bool = True,
) -> None:
    start = time.perf_counter()
    result = library_outcome(path, platform, flags)
    assert time.perf_counter() - start < TIME_LIMIT_S
    assert_clear_library_error(result, match, path, names_input)
    start = time.perf_counter()
    rc, out, err = run_cli(
        capsys, ["explain", os.fspath(path), "--platform", platform, *_argv_flags(flags or {})]
    )
    assert time.perf_counter() - start < TIME_LIMIT_S
    assert_clear_cli_error(rc, out, err, match)


# -- the committed corpus -----------------------------------------------------------------------


def test_manifest_lists_every_corpus_file_exactly_once() -> None:
    listed = [e["file"] for e in MANIFEST]
    assert len(listed) == len(set(listed))
    on_disk = sorted(p.name for p in CORPUS.iterdir() if p.name != "manifest.json")
    assert sorted(listed) == on_disk
    for entry in MANIFEST:
        assert entry["expect"] and entry["note"]
        Platform.preset(entry["platform"])


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_corpus_file(entry: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / entry["file"]
    platform, flags = entry["platform"], entry.get("flags", {})
    if entry["expect"] != "ok":
        check_both(capsys, path, entry["expect"], platform, flags)
        return
    start = time.perf_counter()
    res = library_outcome(path, platform, flags)
    assert time.perf_counter() - start < TIME_LIMIT_S
    assert not isinstance(res, Exception), f"{entry['file']} should resolve: {res}"
    for field, value in entry.get("values", {}).items():
        assert res[field] == value, field
    rc, out, err = run_cli(capsys, ["explain", str(path), "--platform", platform, *_argv_flags(flags)])
    assert rc == 0 or (rc == 1 and "refused at start-up (memory)" in err), err  # read; 1: it does not fit
    assert "Traceback" not in out + err and "internal error" not in err
    assert out.startswith("model ")


# -- generated at test time ---------------------------------------------------------------------


@pytest.mark.parametrize("opener,closer", [("[", "]"), ('{"a":', "}")], ids=["arrays", "objects"])
def test_100k_levels_of_nesting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opener: str, closer: str
) -> None:
    depth = 100_000
    path = tmp_path / "config.json"
    path.write_text(
        '{"architectures": ["LlamaForCausalLM"], "x": ' + opener * depth + "1" + closer * depth + "}"
    )
    check_both(capsys, path, "nested")


def test_file_just_over_the_size_limit_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = b'{"architectures": ["LlamaForCausalLM"], "pad": "'
    tail = b'"}'
    path = tmp_path / "config.json"
    with path.open("wb") as fh:  # valid JSON: only the size is wrong
        fh.write(head)
        fh.write(b"x" * (MAX_CONFIG_BYTES + 1 - len(head) - len(tail)))
        fh.write(tail)
    assert path.stat().st_size == MAX_CONFIG_BYTES + 1
    check_both(capsys, path, "too large")
    check_both(capsys, tmp_path, "too large")  # the model directory holding it


def test_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    head = b'{"architectures": ["LlamaForCausalLM"], "pad": "'
    tail = b'"}'
    path = tmp_path / "config.json"
    path.write_bytes(head + b"x" * (MAX_CONFIG_BYTES - len(head) - len(tail)) + tail)
    assert load_model(str(path)).architecture == "LlamaForCausalLM"


def test_directory_without_config_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    check_both(capsys, tmp_path, "no config.json")


def test_directory_whose_config_json_is_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").mkdir()
    check_both(capsys, tmp_path, "config.json")


def test_symlink_loop_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``a -> b -> a``: the OS says "too many levels of symbolic links"; so should the error."""
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    check_both(capsys, tmp_path / "a", "symbolic link")


def test_model_directory_whose_config_json_is_a_symlink_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink(tmp_path / "config.json", tmp_path / "config.json")
    check_both(capsys, tmp_path, "symbolic link")


def test_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 000 does not stop root (CI runs as root), so opening the file is also made to fail."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    path.chmod(0)
    target = os.path.realpath(path)

    def denied(fn: Any) -> Any:
        def wrapper(file: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, (str, bytes, os.PathLike)) and os.path.realpath(os.fsdecode(file)) == target:
                raise PermissionError(13, "Permission denied", os.fsdecode(file))
            return fn(file, *args, **kwargs)

        return wrapper

    monkeypatch.setattr(io, "open", denied(io.open))
    monkeypatch.setattr(builtins, "open", denied(builtins.open))
    monkeypatch.setattr(os, "open", denied(os.open))
    try:
        check_both(capsys, path, "permission denied")
        check_both(capsys, tmp_path, "permission denied")
    finally:
        monkeypatch.undo()
        path.chmod(0o644)


@pytest.mark.parametrize(
    "spec,match",
    [
        ("~no-such-user-for-resolvable/config.json", "no-such-user-for-resolvable"),
        ("~0", "~0"),
        ("bad\x00name.json", "bad"),
        ("org/na\x00me", "org/na"),
    ],
    ids=["tilde-unknown-user", "tilde-digit", "nul-in-path", "nul-in-repo-id"],
)
def test_unusable_model_strings(spec: str, match: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A MODEL string the OS cannot even look up (``~user`` of no such user, a NUL byte)."""
    check_both(capsys, spec, match, names_input=False)


# Inputs that may block or grow without bound: run in a child with a timeout and a memory cap.
_CHILD = textwrap.dedent(
    """
    import sys
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    except (ImportError, ValueError, OSError):
        pass
    from resolvable.cli import main
    sys.exit(main(["explain", sys.argv[1], "--platform", "b200"]))
    """
)


def _run_child(path: str, timeout: float = 5.0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "RESOLVABLE_"))}
    try:
        return subprocess.run(
            [sys.executable, "-c", _CHILD, path], capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`resolvable explain {path}` did not finish within {timeout} s (it blocks reading it)")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A named pipe is not a config file: opening it for reading blocks until a writer comes."""
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    done = _run_child(str(fifo))
    assert_clear_cli_error(done.returncode, done.stdout, done.stderr, "config.json")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this OS")
def test_endless_device_file_is_refused_without_reading_it_all() -> None:
    """``/dev/zero`` reports size 0 but never ends: the size limit must bound the read itself."""
    done = _run_child("/dev/zero")
    assert_clear_cli_error(done.returncode, done.stdout, done.stderr, "/dev/zero")
