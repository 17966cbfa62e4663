"""Files the tool writes, and its standard output, when writing fails.

Guarantee (``resolvable._files.write_atomic``): every file the tool writes (``matrix -o``,
``backends -o``, ``docs``) goes to a temporary file in the target's directory, is fsynced and
renamed over the target. A write that fails (a file-size limit hit midway, a directory as the
target, a missing parent, ``docs/`` being a file) leaves the previous file byte for byte and no
temporary file behind, and ends in one ``error:`` line naming the path, exit 2.

Standard output on a full device (``/dev/full``) ends in one ``error:`` line, exit 2; on a pipe
whose reader has gone, exit 141 (128 + SIGPIPE, the shell's convention) with nothing on stderr.
Never "internal error", never a traceback.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ROOT, assert_one_line_error, child_env, run_child

from resolvable._files import write_atomic
from resolvable.errors import OutputError

MATRIX = ["matrix", "--models", "llama-3.1-8b", "--platforms", "h100"]
OLD = b"the previous contents\n\x00\xff kept byte for byte\n"


def _limit_file_size(limit: int = 100):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def _leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


# -- the library helper ----------------------------------------------------------------------


def test_write_atomic_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(OLD)
    target.chmod(0o640)
    write_atomic(target, "new ✓\n")
    assert target.read_bytes() == "new ✓\n".encode()
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert _leftovers(tmp_path, {"out.txt"}) == []


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda d: (d / "out").mkdir() or d / "out", "is a directory"),
        (lambda d: d / "missing" / "out.txt", "does not exist"),
        (lambda d: (d / "file").write_bytes(b"x") and d / "file" / "out.txt", "not a directory"),
        (lambda d: d / "nul\x00byte", "not a valid path"),
    ],
    ids=["directory", "missing-parent", "parent-is-a-file", "nul-byte"],
)
def test_write_atomic_refuses_with_the_path_named(tmp_path: Path, make, match: str) -> None:
    target = make(tmp_path)
    before = {p.name: p.read_bytes() if p.is_file() else None for p in tmp_path.iterdir()}
    with pytest.raises(OutputError, match=match) as info:
        write_atomic(target, "x")
    assert "\n" not in str(info.value)
    after = {p.name: p.read_bytes() if p.is_file() else None for p in tmp_path.iterdir()}
    assert after == before


def test_write_atomic_failing_midway_keeps_the_old_file(tmp_path: Path) -> None:
    """A file-size limit hit while writing: the old bytes stay, the temporary file is removed."""
    target = tmp_path / "out.txt"
    target.write_bytes(OLD)
    code = (
        "import sys\nfrom resolvable._files import write_atomic\nfrom resolvable.errors import OutputError\n"
        "try:\n    write_atomic(sys.argv[1], 'y' * 100_000)\nexcept OutputError as exc:\n"
        "    print(exc); sys.exit(2)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        preexec_fn=_limit_file_size(1000),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert b"File too large" in proc.stdout and str(target).encode() in proc.stdout
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path, {"out.txt"}) == []


# -- through the CLI -------------------------------------------------------------------------


def test_matrix_output_hitting_a_file_size_limit_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "matrix.txt"
    target.write_bytes(OLD)
    proc = run_child([*MATRIX, "-o", str(target)], preexec=_limit_file_size(100))
    assert_one_line_error(proc, str(target), "File too large")
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path, {"matrix.txt"}) == []


@pytest.mark.parametrize("command", [MATRIX, ["backends", "--platforms", "h100"]], ids=["matrix", "backends"])
@pytest.mark.parametrize("kind", ["directory", "missing-parent"])
def test_output_to_a_directory_or_a_missing_parent_is_one_line(tmp_path: Path, command, kind: str) -> None:
    if kind == "directory":
        target = tmp_path / "out"
        target.mkdir()
        (target / "inside.txt").write_bytes(OLD)
    else:
        target = tmp_path / "no" / "such" / "dir" / "out.txt"
    proc = run_child([*command, "-o", str(target)])
    assert_one_line_error(proc, str(target))
    if kind == "directory":
        assert (target / "inside.txt").read_bytes() == OLD
        assert _leftovers(target, {"inside.txt"}) == []
    assert _leftovers(tmp_path, {"out", "no"}) == []


def _docs_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    shutil.copy(ROOT / "README.md", root / "README.md")
    return root


def test_docs_when_docs_is_a_file_leaves_it_alone(tmp_path: Path) -> None:
    root = _docs_checkout(tmp_path)
    (root / "docs").write_bytes(OLD)
    proc = run_child(["docs", "--root", str(root)], timeout=300)
    assert_one_line_error(proc, "docs")
    assert (root / "docs").read_bytes() == OLD
    assert sorted(p.name for p in root.iterdir()) == ["README.md", "docs", "pyproject.toml"]


def test_docs_failing_midway_keeps_every_old_file(tmp_path: Path) -> None:
    root = _docs_checkout(tmp_path)
    docs = root / "docs"
    docs.mkdir()
    (docs / "support-matrix.md").write_bytes(OLD)
    proc = run_child(["docs", "--root", str(root)], preexec=_limit_file_size(100), timeout=300)
    assert_one_line_error(proc, "File too large")
    assert (docs / "support-matrix.md").read_bytes() == OLD
    assert [p.name for p in docs.iterdir() if p.name.endswith(".tmp")] == []


# -- standard output -------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this OS")
@pytest.mark.parametrize("argv", [["platforms"], MATRIX, ["explain", "llama-3.1-8b", "--json"]])
def test_stdout_on_a_full_device_is_one_line(argv: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        proc = run_child(argv, stdout=full.fileno())
    assert_one_line_error(proc, "standard output", "No space left on device")


def test_stdout_closed_by_its_reader_ends_quietly() -> None:
    """``resolvable matrix | true``: the reader is gone before the first write (the child takes
    a moment to start); exit 141, nothing on stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "resolvable.cli", "matrix", "--platforms", "h100,b200,mi300x"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141, err
    assert err == b"", err


def test_stdout_closed_from_the_start_is_one_line() -> None:
    """``resolvable platforms >&-``: Python starts with ``sys.stdout = None``."""
    proc = subprocess.run(
        [sys.executable, "-m", "resolvable.cli", "platforms"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_env(),
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert_one_line_error(proc, "standard output is closed")


def test_write_atomic_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(OLD)
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert _leftovers(tmp_path, {"real.txt", "link.txt"}) == []
