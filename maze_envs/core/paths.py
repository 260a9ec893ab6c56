"""Paths given as arguments: one check that the operating system can use a path at all, so that a path with a NUL
byte or an over-long name is refused naming the argument instead of surfacing as a raw ``OSError``/``ValueError``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import MazeConfigError, brief_repr


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
