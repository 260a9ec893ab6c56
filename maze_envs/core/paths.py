"""Paths: one check that the operating system can use a path given as an argument (a NUL byte or an over-long
name is refused naming the argument, not surfaced as a raw ``OSError``/``ValueError``); whether a path stays inside
a directory once links are followed (files served from a folder must not reach outside it through a symlink); and
paths handed to libraries that take a file name as UTF-8 text (OpenCV and the FFmpeg inside it, which crash the
process on a name that is not valid UTF-8, such as a folder named with Latin-1 bytes)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import MazeConfigError, brief_repr


def resolves_inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Return whether ``path``, every symlink followed, is ``root`` or lies under it (False when it cannot be
    resolved, e.g. a link loop)."""
    try:
        real, top = Path(path).resolve(), Path(root).resolve()
    except (OSError, RuntimeError):
        return False
    return real == top or top in real.parents


def is_utf8_path(path: str | os.PathLike) -> bool:
    """Return whether the bytes of ``path`` are valid UTF-8 (Python spells the other bytes as lone surrogates)."""
    try:
        os.fspath(path).encode("utf-8") if isinstance(os.fspath(path), str) else os.fspath(path).decode("utf-8")
    except UnicodeError:
        return False
    return True


@contextmanager
def utf8_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a name of ``path`` that is valid UTF-8: ``path`` itself when it is, else a symbolic link to it (with
    its suffix, which libraries read the format from) in a fresh temp dir, removed on exit. Reading and writing
    through the yielded name reach ``path``."""
    if is_utf8_path(path):
        yield os.fsdecode(path)
        return
    real = os.path.abspath(os.fsencode(path))
    folder = tempfile.mkdtemp(prefix="maze-envs-path-")
    try:
        link = os.path.join(folder, "file" + os.fsdecode(os.path.splitext(real)[1]).encode("ascii", "ignore").decode())
        os.symlink(real, link)
        yield link
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def read_image(path: str | os.PathLike, flags: int | None = None):
    """Return the pixels of the image file at ``path`` as OpenCV reads them (``flags``: an ``IMREAD_*`` value,
    default colour BGR), or None when it is not a readable image (a FIFO or device among them, never waited on:
    ``maze_envs.core.datafiles``); the name never reaches OpenCV."""
    import cv2
    import numpy as np

    from .datafiles import read_data_bytes

    try:
        data = np.frombuffer(read_data_bytes(path), dtype=np.uint8)
    except OSError:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR if flags is None else flags) if data.size else None


def write_image(path: str | os.PathLike, image) -> str:
    """Write ``image`` (OpenCV pixels) to ``path`` atomically, in the format its suffix names; return the path.
    Raises ``ValueError`` when OpenCV cannot encode that format."""
    import cv2

    from .atomic import atomic_write

    suffix = os.path.splitext(os.fsdecode(path))[1] or ".png"
    ok, data = cv2.imencode(suffix, image)
    if not ok:
        raise ValueError(f"OpenCV cannot encode {suffix!r} images")
    with atomic_write(path, "wb") as fh:
        fh.write(data.tobytes())
    return os.fspath(path)


def argument_path(parameter: str, value: Any) -> Path:
    """Return ``value`` (a str or path-like) as a ``Path``; raise ``MazeConfigError`` naming ``parameter`` when it is
    neither, or the OS refuses it (a NUL byte, a name or path over the system's limits, no permission to look). A path
    that does not exist is returned: the caller says what it expected there."""
    if not isinstance(value, (str, os.PathLike)):
        raise MazeConfigError(f"must be a path, got {brief_repr(value)}", parameter=parameter)
    path = Path(value)
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except (OSError, ValueError) as exc:
        raise MazeConfigError(f"cannot be used as a path ({getattr(exc, 'strerror', None) or exc}): "
                              f"{brief_repr(str(value))}", parameter=parameter) from None
    return path
