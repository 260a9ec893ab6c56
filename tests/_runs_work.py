"""Work functions for the run-engine tests (importable by worker processes and Ray workers)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from maze_envs.core.errors import FatalRunError, MazeFormatError


def square(payload: dict) -> dict:
    """Return the square of ``payload['n']``; ``fail`` items raise a per-item error, ``fatal`` ones a fatal one."""
    if payload.get("fail"):
        raise MazeFormatError("bad item", source=f"item{payload['n']}.json", field="n")
    if payload.get("fatal"):
        raise FatalRunError("endpoint unreachable")
    if payload.get("sleep"):
        time.sleep(payload["sleep"])
    return {"n": payload["n"], "square": payload["n"] ** 2}


def die_once(payload: dict) -> dict:
    """Kill the calling worker process the first time item ``payload['victim']`` runs (a marker file remembers)."""
    marker = Path(payload["marker"])
    if payload["n"] == payload["victim"] and not marker.exists():
        marker.write_text("died")
        os.kill(os.getpid(), signal.SIGKILL)
    return {"n": payload["n"], "square": payload["n"] ** 2, "pid": os.getpid()}
