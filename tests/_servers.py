"""What the tests of the three servers share: a small scenes root, a mazes directory, valid requests for each
server, the text of an error answer in either JSON shape, and a CLI server run as its own process."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import requests
from PIL import Image

from maze_envs.core.generators import generate
from maze_envs.core.render import render_text
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
MEGABYTE = 1 << 20
# Megabyte prompts that cost the old oracle readers quadratic time or worse (each defeats one pattern).
HOSTILE_PROMPTS = {
    "ai layouts without a legend": "Maze layout:\n[[" * (MEGABYTE // 15),
    "one run of digits": "7" * MEGABYTE,
    "sizes without an end": "12x" * (MEGABYTE // 3),
    "listed grid starts": "迷宫为[[" * (MEGABYTE // 5),
    "unfinished ends": "起点[1, " * (MEGABYTE // 6),
    "legend entries": "'#' = " * (MEGABYTE // 6),
    "a tall grid": "█ █\n" * (MEGABYTE // 4),
    "step limits": "steps between 1 and " * (MEGABYTE // 20),
}


def padded_maze_prompt(rows: int = 250) -> str:
    """Return a prompt of about a megabyte: filler lines, then a ``rows`` x ``rows`` maze to solve (250 x 250 is
    the largest that fits the oracle's 262,144 characters)."""
    maze = render_text(generate(rows, rows, seed=3))
    filler = "Some words that are not a maze.\n" * ((MEGABYTE - len(maze)) // 32)
    return f"{filler}Give the path from S to G.\n{maze}"


def bomb_png() -> bytes:
    """Return a small PNG (under 100 KB) of 144 Mpx: 12000 x 12000, one bit a pixel (432 MB once decoded as RGB)."""
    buffer = io.BytesIO()
    Image.new("1", (12000, 12000)).save(buffer, format="PNG")
    return buffer.getvalue()


def declared_png(width: int, height: int) -> bytes:
    """Return a PNG whose header declares ``width`` x ``height`` one-bit pixels, with no pixel data at all."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def png_url(image: Image.Image) -> str:
    """Return ``image`` as a PNG data URL."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def pictured_maze_request(text: str, url: str, **params) -> dict:
    """Return a Responses API body asking ``text`` about the picture at ``url``."""
    return {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": text}, {"type": "input_image", "image_url": url}]}], **params}


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
