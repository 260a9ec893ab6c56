"""Atomic file writes: write a uniquely named temporary file beside the target, then rename it over the target."""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

_UMASK = os.umask(0)
os.umask(_UMASK)
# atomic_write's temporary names: "." + the target's name + "." + mkstemp's 8 random characters + ".tmp"
_TEMPORARY_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Yield an open temporary file for ``path`` (``mode`` ``"w"``: UTF-8 text, ``"wb"``: bytes).

    The parent directory is created and the temporary file sits beside ``path`` under a unique name
    (``tempfile.mkstemp``), so concurrent writers never share one. When the block ends normally the file
    is renamed over ``path`` (``os.replace``) with the usual permissions; when it raises, the temporary
    file is removed and ``path`` keeps its old content.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding="utf-8" if mode == "w" else None) as fh:
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


def remove_stale_temporaries(directory: str | os.PathLike) -> int:
    """Remove the temporary files that ``atomic_write`` leaves under ``directory`` (at any depth) when its process
    is killed; return how many were removed. Call it only while no other process writes there (e.g. under a run's
    lock): a live writer's temporary file looks the same."""
    removed = 0
    for root, _, files in os.walk(directory):
        for name in files:
            if _TEMPORARY_NAME.fullmatch(name):
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
