"""A short temporary directory for programs we start that put AF_UNIX sockets in their temp dir.

An AF_UNIX socket path is limited to 107 bytes (103 on macOS). Ray puts its sockets under its temp dir
(``<temp>/session_<date>_<pid>/sockets/plasma_store``, failing ``validate_socket_filename`` past the limit),
Chromium its ``org.chromium.Chromium.*/SingletonSocket`` under ``TMPDIR``; both default to ``TMPDIR``, which on
macOS, under pytest and in many CI runners is long enough to break them. ``socket_temp_dir()`` makes a fresh
``mzr-*`` directory under the system temp dir when the longest of those socket paths fits there, else under
``/tmp``, and removes it with whatever was left in it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

SOCKET_PATH_LIMIT = 103  # bytes of an AF_UNIX path on macOS (107 on Linux)
LONGEST_SOCKET = "/session_2026-01-01_00-00-00_000000_4194304/sockets/plasma_store"  # Ray's, the longest
PREFIX = "mzr-"


def short_temp_root(base: str | None = None) -> str:
    """Return ``base`` (default: the system temp dir) when a ``socket_temp_dir`` made there keeps every socket path
    within ``SOCKET_PATH_LIMIT`` bytes, else ``/tmp`` (where ``/tmp`` exists)."""
    base = base or tempfile.gettempdir()
    fits = len(os.path.join(base, PREFIX + "x" * 8).encode()) + len(LONGEST_SOCKET) <= SOCKET_PATH_LIMIT
    return base if fits or sys.platform == "win32" or not os.path.isdir("/tmp") else "/tmp"


@contextmanager
def socket_temp_dir() -> Iterator[str]:
    """Yield a new directory for ``ray.init(_temp_dir=...)`` or a browser's ``TMPDIR`` whose socket paths fit
    (``short_temp_root``); on exit remove it and everything in it."""
    path = tempfile.mkdtemp(prefix=PREFIX, dir=short_temp_root())
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
