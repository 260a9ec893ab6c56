"""What the tests of the three servers share: a small scenes root, a mazes directory, valid requests for each
server, the text of an error answer in either JSON shape, and a CLI server run as its own process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import requests

from maze_envs.datasets import generate_nav_scenes
from maze_envs.nav.camera import colmap_extrinsics, pose_matrix
from maze_envs.nav.procedural import SceneParams

REPO = Path(__file__).resolve().parents[1]
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Which way?"}]}
RENDER = {"cam_intrinsics": "1 PINHOLE 32 24 15 15 16 12", "cam_extrinsics": colmap_extrinsics(pose_matrix(1, 1, 0.65)),
          "scene_id": "maze_000"}
MAZE = {"width": 3, "height": 3, "grid": [[0, 0, 1], [1, 0, 1], [1, 0, 0]], "start": [0, 0], "goal": [2, 2],
        "shortest_path": [[0, 0], [0, 1], [1, 1], [2, 1], [2, 2]], "nonce": 0}
LOAD = {"maze_name": "maze_3x3_0"}


def make_scenes(root: Path) -> Path:
    """Write one small navigation scene (``maze_000``) under ``root``; return ``root``."""
    generate_nav_scenes(root, 1, 2, 2, seed=1, params=SceneParams(surfel_spacing=0.3, num_landmarks=1,
                                                                   num_trajectories=1))
    return root


def make_mazes(root: Path) -> Path:
    """Write the benchmark maze ``maze_3x3_0.json`` directly in ``root`` (both sandbox protocols read it there);
    return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "maze_3x3_0.json").write_text(json.dumps(MAZE))
    return root


def error_message(answer: requests.Response) -> str:
    """Return the message of an error answer: ``{"error": text}`` or the OpenAI ``{"error": {"message": ...}}``."""
    error = answer.json()["error"]
    return error["message"] if isinstance(error, dict) else error


class CliServer:
    """``python -m maze_envs ARGS`` serving on a free port, as its own process (so its memory is its own): ``url``
    is read from the first line it prints; ``pid`` is its process id; what it writes to stderr goes to ``log``
    (a file, not a pipe: a server logging a lot must never block on it). Use as a context manager."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str] | None = None):
        self.args = args
        self.log_path = log
        self.env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}

    def __enter__(self) -> "CliServer":
        self.log = open(self.log_path, "w+b")  # noqa: SIM115 (closed in __exit__)
        self.process = subprocess.Popen([sys.executable, "-m", "maze_envs", *self.args], stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, env=self.env)
        line = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found is None:
            self.process.wait()
            self.process.stdout.close()
            self.log.seek(0)
            message = self.log.read()[-2000:]
            self.log.close()
            raise RuntimeError(f"the server did not start: {line!r} {message!r}")
        self.url = found[0]
        self.pid = self.process.pid
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self.log.close()


def memory_kib(pid: int, field: str) -> int:
    """Return a memory figure of process ``pid`` in KiB from ``/proc/PID/status`` (``VmRSS`` now, ``VmHWM`` its
    peak so far)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)
