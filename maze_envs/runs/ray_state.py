"""The local Ray runtime a run starts, recorded in the run's directory so that nothing of it outlives the run.

Ray's helper processes (GCS, raylet, DashboardAgent, RuntimeEnvAgent, log monitor, workers) all name the
runtime's temp dir on their command line, and that dir is a fresh ``socket_temp_dir`` (``mzr-*``), so the
processes of one runtime are exactly those whose command line holds its path. ``record_ray`` writes that path to
``<run dir>/.maze-envs-ray.json`` when the runtime starts; ``release_ray`` stops what is left of it after
``ray.shutdown()``, removes the temp dir and the record; ``clean_stale_ray`` does the same at the next start in
that directory for a runtime whose driver was killed. Finding processes reads ``/proc`` (Linux); elsewhere only
the temp dir is removed.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.jsonfiles import read_json, write_json_atomic

from .socket_dir import PREFIX

RAY_RECORD = ".maze-envs-ray.json"
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
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
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
            pids = [pid for pid in pids if _alive(pid)]
            time.sleep(0.05)
        if not pids:
            return


def record_ray(directory: str | os.PathLike, temp_dir: str) -> Path:
    """Write the record of the local runtime whose temp dir is ``temp_dir`` into ``directory``; return its path."""
    return write_json_atomic(Path(directory) / RAY_RECORD, {"temp_dir": temp_dir, "driver_pid": os.getpid()})


def release_ray(temp_dir: str, directory: str | os.PathLike | None = None) -> None:
    """Stop every process left of the runtime of ``temp_dir``, remove that dir and the record in ``directory``
    (when given); returns nothing."""
    stop_processes(processes_naming(temp_dir))
    shutil.rmtree(temp_dir, ignore_errors=True)
    if directory is not None:
        (Path(directory) / RAY_RECORD).unlink(missing_ok=True)


def clean_stale_ray(directory: str | os.PathLike) -> bool:
    """Release the runtime a killed run recorded in ``directory`` (call it under the run's lock); return whether
    there was a record. A record that does not name one of our temp dirs is only removed."""
    path = Path(directory) / RAY_RECORD
    if not path.is_file():
        return False
    try:
        temp_dir = read_json(path).get("temp_dir")
    except (MazeFormatError, AttributeError):
        temp_dir = None
    if isinstance(temp_dir, str) and os.path.isabs(temp_dir) and Path(temp_dir).name.startswith(PREFIX):
        release_ray(temp_dir, directory)
    else:
        path.unlink(missing_ok=True)
    return True
