"""Atomic file writes: write a uniquely named temporary file beside the target, then rename it over the target.

Text written this way has the credentials of every URL in it redacted (``maze_envs.core.secrets``) and cannot
fail on a string that is not valid Unicode (a lone surrogate, an undecodable byte of a path is written as a
backslash escape); an ``OSError`` that names no file (a full disk) is raised again naming the target.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from .secrets import redact_text

_UMASK = os.umask(0)
os.umask(_UMASK)
# atomic_write's temporary names: "." + the target's name + "." + mkstemp's 8 random characters + ".tmp"
_TEMPORARY_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def naming_path(exc: OSError, path: str | os.PathLike) -> OSError:
    """Return ``exc`` when it names a file (or ``path`` is not a path), else an ``OSError`` of the same errno (and
    subclass) naming ``path``."""
    if exc.filename is not None or not isinstance(path, (str, bytes, os.PathLike)):
        return exc
    return OSError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, os.fspath(path))


@contextmanager
def oserrors_name(path: str | os.PathLike | object) -> Iterator[None]:
    """Run the block; an ``OSError`` raised in it without a file name (``ENOSPC`` from a write or a flush) is raised
    again naming ``path`` (``naming_path``)."""
    try:
        yield
    except OSError as exc:
        named = naming_path(exc, path)
        if named is exc:
            raise
        raise named from exc


class _RedactingText(io.TextIOWrapper):
    """A UTF-8 text file whose ``write`` redacts URL credentials and escapes what UTF-8 cannot encode."""

    def __init__(self, raw: IO[bytes]):
        super().__init__(raw, encoding="utf-8", errors="backslashreplace")

    def write(self, text: str) -> int:
        """Write ``text`` with its URLs redacted; return the number of characters given."""
        super().write(redact_text(text))
        return len(text)


def open_text(path: str | os.PathLike, mode: str = "a") -> IO[str]:
    """Return ``path`` opened for UTF-8 text in ``mode`` (``"a"`` or ``"w"``) with ``atomic_write``'s guarantees:
    URL credentials redacted, no string can fail to encode."""
    if mode not in ("a", "w"):
        raise ValueError(f"open_text mode must be 'a' or 'w', got {mode!r}")
    with oserrors_name(path):
        return _RedactingText(open(path, mode + "b"))


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Yield an open temporary file for ``path`` (``mode`` ``"w"``: UTF-8 text, ``"wb"``: bytes).

    The parent directory is created and the temporary file sits beside ``path`` under a unique name
    (``tempfile.mkstemp``), so concurrent writers never share one. When the block ends normally the file
    is renamed over ``path`` (``os.replace``) with the usual permissions; when it raises, the temporary
    file is removed and ``path`` keeps its old content. Text mode redacts URL credentials and writes what UTF-8
    cannot encode as backslash escapes; an ``OSError`` naming no file is raised again naming ``path``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    with oserrors_name(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            raw = os.fdopen(fd, "wb")
            with raw if mode == "wb" else _RedactingText(raw) as fh:
                yield fh
            os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; give the file what open() would
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def save_image_atomic(image, path: str | os.PathLike, image_format: str = "PNG") -> Path:
    """Save the PIL ``image`` to ``path`` in ``image_format`` through ``atomic_write``; return the path."""
    with atomic_write(path, "wb") as fh:
        image.save(fh, format=image_format)
    return Path(path)


def is_stale_temporary(name: str) -> bool:
    """Return whether a file called ``name`` looks like a temporary file of ``atomic_write``."""
    return _TEMPORARY_NAME.fullmatch(name) is not None


def remove_stale_temporaries(directory: str | os.PathLike) -> int:
    """Remove the temporary files that ``atomic_write`` leaves under ``directory`` (at any depth) when its process
    is killed; return how many were removed. Call it only while no other process writes there (e.g. under a run's
    lock): a live writer's temporary file looks the same."""
    removed = 0
    for root, _, files in os.walk(directory):
        for name in files:
            if is_stale_temporary(name):
                Path(root, name).unlink(missing_ok=True)
                removed += 1
    return removed


def ensure_directory(path: str | os.PathLike, parameter: str) -> Path:
    """Return ``path`` as a ``Path`` after creating it (and its parents) if needed.

    Raises ``MazeConfigError`` about ``parameter`` (the argument that gave the path) when it cannot be created.
    """
    from .errors import MazeConfigError

    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MazeConfigError(f"{path}: cannot create it: {exc.strerror or exc}", parameter=parameter) from exc
    return path
