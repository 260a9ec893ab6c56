"""Whether a path stays inside a directory once links are followed: files served from a folder must not reach
outside it through a symlink."""

from __future__ import annotations

import os
from pathlib import Path


def resolves_inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Return whether ``path``, every symlink followed, is ``root`` or lies under it (False when it cannot be
    resolved, e.g. a link loop)."""
    try:
        real, top = Path(path).resolve(), Path(root).resolve()
    except (OSError, RuntimeError):
        return False
    return real == top or top in real.parents
