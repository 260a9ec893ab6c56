"""Finding and stopping the processes of a runtime by a path on their command line, and a watcher process that
does it when the process that started the runtime dies, however it dies.

Standard library only: ``RayBackend`` starts this file as a script (``python reaper.py PID TEMP_DIR [RECORD]``)
without importing the package, so the watcher costs one small interpreter. It polls ``PID``; once that
process is gone it stops every process whose command line names ``TEMP_DIR``, removes that directory and the
``RECORD`` file (when the record still names ``TEMP_DIR``). Finding processes reads ``/proc`` (Linux); elsewhere
only the directory is removed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

POLL_S = 0.2
STOP_WAIT_S = 5.0


def processes_naming(text: str) -> list[int]:
    """Return the ids of the live processes (not this one) whose command line contains ``text``; [] where
    ``/proc`` is missing."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    needle = os.fsencode(text)
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes() and is_alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def is_alive(pid: int) -> bool:
    """Return whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not Path("/proc").is_dir()
    return state != "Z"


def stop_processes(pids: list[int], wait_s: float = STOP_WAIT_S) -> None:
    """Send ``SIGTERM`` to ``pids``, then ``SIGKILL`` to those still alive after ``wait_s`` seconds; returns
    nothing."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + wait_s
        while pids and time.monotonic() < deadline:
            pids = [pid for pid in pids if is_alive(pid)]
            if pids:
                time.sleep(0.05)
        if not pids:
            return


def release(temp_dir: str, record: str | os.PathLike | None = None) -> None:
    """Stop every process whose command line names ``temp_dir``, remove that directory, and remove ``record``
    when it is a JSON file whose ``temp_dir`` is this one; returns nothing."""
    stop_processes(processes_naming(temp_dir))
    shutil.rmtree(temp_dir, ignore_errors=True)
    if record is not None:
        try:
            named = json.loads(Path(record).read_text(encoding="utf-8")).get("temp_dir")
        except (OSError, ValueError, AttributeError):
            return
        if named == temp_dir:
            Path(record).unlink(missing_ok=True)


def watch(pid: int, temp_dir: str, record: str | None = None) -> None:
    """Wait until process ``pid`` is gone, then ``release`` the runtime of ``temp_dir``; returns nothing."""
    while is_alive(pid):
        time.sleep(POLL_S)
    release(temp_dir, record)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the terminal is for the run, not for its watcher
    watch(int(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
