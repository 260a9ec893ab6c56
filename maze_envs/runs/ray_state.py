"""The local Ray runtime a run starts, recorded in the run's directory so that nothing of it outlives the run.

Ray's helper processes (GCS, raylet, DashboardAgent, RuntimeEnvAgent, log monitor, workers) all name the
runtime's temp dir on their command line, and that dir is a fresh ``socket_temp_dir`` (``mzr-*``), so the
processes of one runtime are exactly those whose command line holds its path (``maze_envs.runs.reaper``).
``record_ray`` writes that path to ``<run dir>/.maze-envs-ray.json`` and starts a watcher process that releases
the runtime if the run's process dies (``SIGKILL`` included); ``release_ray`` releases it after
``ray.shutdown()``; ``clean_stale_ray`` releases, at the next start in that directory, a runtime that a killed run
recorded and its watcher could not release.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.jsonfiles import read_json, write_json_atomic

from . import reaper
from .socket_dir import PREFIX

RAY_RECORD = ".maze-envs-ray.json"


def record_ray(directory: str | os.PathLike | None, temp_dir: str) -> subprocess.Popen:
    """Write the record of the local runtime whose temp dir is ``temp_dir`` into ``directory`` (when given) and
    start its watcher (``maze_envs.runs.reaper``, in a session of its own); return the watcher process."""
    record = None
    if directory is not None:
        record = str(write_json_atomic(Path(directory) / RAY_RECORD, {"temp_dir": temp_dir,
                                                                        "driver_pid": os.getpid()}))
    command = [sys.executable, "-S", reaper.__file__, str(os.getpid()), temp_dir, *([record] if record else [])]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True)


def release_ray(temp_dir: str, directory: str | os.PathLike | None = None,
                watcher: subprocess.Popen | None = None) -> None:
    """Stop every process left of the runtime of ``temp_dir``, remove that dir and its record in ``directory``
    (when given), and stop its ``watcher``; returns nothing."""
    reaper.release(temp_dir, Path(directory) / RAY_RECORD if directory is not None else None)
    if watcher is not None:
        watcher.kill()
        watcher.wait()


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
    path.unlink(missing_ok=True)
    return True
