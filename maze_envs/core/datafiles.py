"""The one opener for files named by data or by a user: mazes, configs, scenes, images, videos.

A FIFO, a device, a socket or a directory is refused before it is opened (a FIFO would block the reader for
good, ``/dev/zero`` would never end), so is a link leading outside the folder the file was listed from, and a
file over the reader's size cap. The check comes first; the open is non-blocking, and the opened file is
checked again, so a file swapped for a FIFO in between is refused too, never waited on."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from .errors import MazeFormatError
from .paths import resolves_inside

MIB = 1 << 20
DEFAULT_MAX_BYTES = 256 * MIB  # larger than any maze, scene block or test video we write; /dev/zero is not

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class UnsafeFileError(MazeFormatError, OSError):
    """A path names no regular file (a FIFO, a device, a socket, a directory), leads outside its folder through
    a link, or holds more bytes than its reader takes. Also an ``OSError``, so readers that skip unreadable
    files skip it too; ``source`` names the file."""


def read_failure(exc: OSError) -> str:
    """Return the one-line reason a data file could not be read, for a reader's own error naming the file: "file
    not found", what ``UnsafeFileError`` says the file is, or "cannot read: " and the system's words."""
    if isinstance(exc, FileNotFoundError):
        return "file not found"
    if isinstance(exc, UnsafeFileError):
        return exc.detail
    return f"cannot read: {exc.strerror or type(exc).__name__}"


def _kind(mode: int) -> str:
    """Return what a non-regular file of ``mode`` is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_data_file(path: str | os.PathLike, *, root: str | os.PathLike | None = None,
                    max_bytes: int | None = DEFAULT_MAX_BYTES) -> os.stat_result:
    """Return the ``os.stat`` of ``path`` (links followed) when a reader may open it: a regular file, inside
    ``root`` once links are followed (when ``root`` is given), of at most ``max_bytes`` (None: any size).

    Raises ``UnsafeFileError`` naming the file otherwise; ``FileNotFoundError`` (and other ``OSError``) as
    ``os.stat`` does. Opens nothing, so it never blocks."""
    if root is not None and not resolves_inside(path, root):
        raise UnsafeFileError(f"leads outside {os.fsdecode(root)} through a link", source=os.fsdecode(path))
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFileError(f"{_kind(info.st_mode)}, not a regular file", source=os.fsdecode(path))
    if max_bytes is not None and info.st_size > max_bytes:
        raise UnsafeFileError(f"{info.st_size} bytes, over the {max_bytes}-byte limit of this reader",
                              source=os.fsdecode(path))
    return info


def open_data_file(path: str | os.PathLike, *, root: str | os.PathLike | None = None,
                   max_bytes: int | None = DEFAULT_MAX_BYTES) -> BinaryIO:
    """Return ``path`` opened for binary reading after ``check_data_file`` passed, opened non-blocking and
    checked again on the open descriptor. Raises as ``check_data_file`` does."""
    check_data_file(path, root=root, max_bytes=max_bytes)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFileError(f"{_kind(mode)}, not a regular file", source=os.fsdecode(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_data_bytes(path: str | os.PathLike, *, root: str | os.PathLike | None = None,
                    max_bytes: int | None = DEFAULT_MAX_BYTES) -> bytes:
    """Return the bytes of ``path`` opened by ``open_data_file``; never more than ``max_bytes`` (a file that
    grows past it while read, or a kernel file that reports size 0, raises ``UnsafeFileError``)."""
    with open_data_file(path, root=root, max_bytes=max_bytes) as fh:
        data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise UnsafeFileError(f"more than the {max_bytes}-byte limit of this reader", source=os.fsdecode(path))
    return data


def read_data_text(path: str | os.PathLike, *, root: str | os.PathLike | None = None,
                   max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """Return the UTF-8 text of ``path`` read by ``read_data_bytes`` (``UnicodeDecodeError`` when it is not
    UTF-8)."""
    return read_data_bytes(path, root=root, max_bytes=max_bytes).decode("utf-8")
