"""Guarded file reads and atomic file writes: the one place the tool touches files.

Invariants:

* ``read_bounded`` reads a *regular* file only, checked with ``os.stat`` before any ``open``
  (a FIFO, a socket or a device such as ``/dev/zero`` is refused without blocking on it), and
  reads at most ``limit + 1`` bytes (a file that grows meanwhile, or lies about its size, is
  still bounded). The open itself is non-blocking (``O_NONBLOCK``), so a path swapped for a FIFO
  between the stat and the open cannot hang either. Every failure is a ``ConfigError`` (a
  ``ValueError``) whose one-line message names the path;
* ``write_atomic`` writes to a temporary file in the target's own directory, flushes and
  ``fsync``s it, then ``os.replace``s it over the target: a reader sees the old bytes or the new
  ones, never a mix, and a failed write (a full disk, a file-size limit, a directory as target, a
  missing parent) leaves the old file byte for byte and no temporary file behind. Failures are
  ``OutputError`` naming the path;
* ``shown(text)`` is how a name, path or value is put into a one-line message: unchanged when it
  is printable, else ``repr``-escaped (control characters, line breaks, lone surrogates from
  undecodable paths), so an error never spans two lines and can always be encoded.
"""

from __future__ import annotations

import os
import stat

from .errors import ConfigError, OutputError, one_line

__all__ = ["read_bounded", "shown", "write_atomic"]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def shown(value: object) -> str:
    """``value`` as text for a one-line message: as is when printable, else ``repr``-escaped."""
    text = os.fsdecode(value) if isinstance(value, (bytes, os.PathLike)) else str(value)
    return text if text.isprintable() else one_line(repr(text))


def _stat_error(path: str, exc: OSError, what: str) -> ConfigError:
    return ConfigError(f"{shown(path)}: cannot be read ({exc.strerror or exc}); check the {what} path")


def read_bounded(path: str | os.PathLike[str], limit: int, *, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (see the module
    docstring); ``what`` names the file in messages ("config.json", "refs/main", ...)."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise ConfigError(f"{shown(name)}: no such file; check the {what} path") from None
    except OSError as exc:
        raise _stat_error(name, exc, what) from None
    except ValueError:  # an embedded NUL byte
        raise ConfigError(f"{shown(name)}: not a valid path (it contains a NUL byte)") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or similar"
        raise ConfigError(f"{shown(name)}: not a regular file ({kind}); the {what} must be a file")
    if st.st_size > limit:
        raise ConfigError(
            f"{shown(name)}: {_size(st.st_size)} is too large for a {what} (limit {_size(limit)}); "
            "is this the right file?"
        )
    try:
        fd = os.open(name, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY)
    except OSError as exc:
        raise _stat_error(name, exc, what) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped after the stat
            raise ConfigError(f"{shown(name)}: not a regular file; the {what} must be a file")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise _stat_error(name, exc, what) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise ConfigError(f"{shown(name)}: larger than {_size(limit)}; is this the right {what}?")
    return data


def _size(n: int) -> str:
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB".replace(".0 MiB", " MiB")
    if n >= 2**10:
        return f"{n / 2**10:.1f} KiB".replace(".0 KiB", " KiB")
    return f"{n} bytes"


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, what: str = "output file") -> None:
    """Replace the contents of ``path`` with ``data`` atomically (see the module docstring);
    text is written as UTF-8. The new file keeps the old one's permission bits (0644 when new,
    less the umask)."""
    name = os.fspath(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if not name or "\x00" in name:
        raise OutputError(f"{shown(name)}: not a valid path for the {what}")
    # Through a symbolic link to the file it names: the link stays a link (as editors do).
    target = os.path.realpath(name)
    directory = os.path.dirname(target)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise OutputError(
            f"{shown(name)}: cannot write the {what}: a parent of it is a file, not a directory"
        ) from None
    except OSError as exc:
        raise OutputError(f"{shown(name)}: cannot write the {what} ({exc.strerror or exc})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{shown(name)}: is a directory; name a file for the {what}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{shown(name)}: not a regular file; name a file for the {what}")
    if not os.path.isdir(directory):
        raise OutputError(
            f"{shown(name)}: cannot write the {what}: the directory {shown(directory)} does not exist"
        )
    import tempfile  # deferred: only writing commands need it

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{shown(name)}: cannot write the {what} ({exc.strerror or exc})") from None
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
            os.fchmod(fd, mode) if hasattr(os, "fchmod") else None
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        import contextlib  # here: only a failed write needs it (import cost)

        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(
                f"{shown(name)}: cannot write the {what} ({exc.strerror or exc}); the previous file, "
                "if any, is unchanged"
            ) from None
        raise
    _fsync_directory(directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_directory(directory: str) -> None:
    """Make the rename durable (best effort: not every system can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
