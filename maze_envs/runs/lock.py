"""An exclusive lock on a run's output directory, so two writers can never mix their results.

The lock is an ``flock`` on ``<dir>/.maze-envs.lock``, which the kernel releases when the holder dies; the
file records the holder (pid, host, command, start time) so a refused writer can be told who has it, and a
writer that finds the record of a dead holder says it took the lock over. A forked child (a worker of the
process backend) closes its inherited copy of the lock's descriptor, so only the holder itself keeps the
lock: a holder killed with its workers frees the directory at once, not when the last worker is gone.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

from maze_envs.core.atomic import ensure_directory, naming_path
from maze_envs.core.errors import RunLockedError
from maze_envs.core.secrets import redact_text

LOCK_NAME = ".maze-envs.lock"
_HELD_FDS: set[int] = set()


def _close_held_locks_in_child() -> None:
    for fd in _HELD_FDS:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD_FDS.clear()


os.register_at_fork(after_in_child=_close_held_locks_in_child)


def _describe(holder: dict) -> str:
    command = " ".join(str(part) for part in holder.get("command", []))[:200]
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(holder["started"])) if "started" in holder else "?"
    return f"pid {holder.get('pid', '?')} on {holder.get('host', '?')} since {since} ({command or 'unknown command'})"


class RunLock:
    """A context manager holding the exclusive lock on ``directory`` (created if missing).

    Entering raises ``RunLockedError`` naming the holder when another live process holds it. ``took_over``
    describes the dead holder whose lock was taken over, or is None; the message is also written to stderr.
    """

    def __init__(self, directory: str | os.PathLike, *, what: str = "output_dir"):
        self.directory = Path(directory)
        self.what = what
        self.path = self.directory / LOCK_NAME
        self.took_over: str | None = None
        self._fd: int | None = None

    def refuse_if_held(self) -> None:
        """Raise ``RunLockedError`` naming the holder when another live process holds the lock; returns nothing.
        Creates nothing: a directory without a lock file is left as it is."""
        try:
            fd = os.open(self.path, os.O_RDWR)
        except OSError:  # no lock file (or no directory): nobody holds it
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._locked(self._read(fd)) from None
        finally:
            os.close(fd)

    def _locked(self, holder: dict) -> RunLockedError:
        return RunLockedError(f"{self.what} {self.directory} is in use by another run: {_describe(holder)}; "
                              "wait for it to finish or stop it")

    def __enter__(self) -> "RunLock":
        ensure_directory(self.directory, self.what)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = self._read(fd)
                os.close(fd)
                raise self._locked(holder) from None
            if self._same_file(fd):
                break
            os.close(fd)  # the holder removed the file between our open and our lock: lock the new one
        self._fd = fd
        _HELD_FDS.add(fd)
        try:
            previous = self._read(fd)
            if previous:
                self.took_over = _describe(previous)
                print(f"maze-envs: took over the stale lock on {self.directory} left by {self.took_over} "
                      "(no longer running)", file=sys.stderr)
            record = {"pid": os.getpid(), "host": socket.gethostname(),
                      "command": [redact_text(str(part)) for part in sys.argv], "started": time.time()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(record).encode(), 0)
        except OSError as exc:  # a full disk: free the directory again, leaving no lock file behind
            self.__exit__(None, None, None)
            raise naming_path(exc, self.path) from exc
        return self

    @property
    def held(self) -> bool:
        """Return whether this lock is held now."""
        return self._fd is not None

    def __exit__(self, *exc_info) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            self.path.unlink(missing_ok=True)
        finally:
            _HELD_FDS.discard(fd)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _same_file(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    @staticmethod
    def _read(fd: int) -> dict:
        try:
            holder = json.loads(os.pread(fd, 4096, 0) or b"null")
        except ValueError:
            return {}
        return holder if isinstance(holder, dict) else {}
