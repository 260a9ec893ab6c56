"""Helpers of the writer tests: one small, fast command line per writer, folder snapshots, process lookups."""

from __future__ import annotations

import os
from pathlib import Path

from _bench_support import write_mazes

from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset
from maze_envs.tasks.spec import task_specs


def pixel_inputs(root: Path, count: int = 1, frames: int = 12) -> Path:
    """Write a synthetic pixel dataset (``count`` tasks per algorithm, two videos each) under ``root``; return it."""
    specs = task_specs(["dfs", "wilson"], ["easy"], count, seed=3)
    write_synthetic_dataset(root, specs, style=ImageStyle(20, 5), frames=frames, video_cases=("correct", "still"))
    return root


def writer_commands(inputs: Path) -> dict[str, list[str]]:
    """Return, per writer, a fast command line (without ``--output-dir``/``--out``) on the inputs under
    ``inputs`` (``write_inputs`` writes them)."""
    pixel = ["--solution-dir", str(inputs / "pixel/data/solution"), "--no-visualizations", "--log-dir",
             str(inputs / "logs")]
    return {
        "bench": ["bench", "--mazes-dir", str(inputs / "mazes"), "--sizes", "5x5", "--local-policy", "oracle"],
        "suite": ["suite", "--models", "oracle", "--sizes", "5x5", "--count", "1", "--modalities", "text2d"],
        "eval-image": ["eval-image", "--input-dir", str(inputs / "pixel/image_results/synthetic/easy_round1"),
                       *pixel],
        "eval-video": ["eval-video", "--input-dir", str(inputs / "pixel/video_results/synthetic/easy_round1"),
                       "--num-frames", "6", *pixel],
        "generate text": ["generate", "text", "--sizes", "5x5", "--count", "1"],
        "generate tasks": ["generate", "tasks", "--count", "1", "--difficulties", "easy", "--algos", "dfs"],
    }


def output_flag(writer: str) -> str:
    """Return the flag that names a writer's output folder."""
    return "--out" if writer.startswith("generate") else "--output-dir"


def write_inputs(inputs: Path) -> Path:
    """Write the inputs of ``writer_commands`` under ``inputs``; return it."""
    write_mazes(inputs / "mazes", sizes=("5x5",), count=1)
    pixel_inputs(inputs / "pixel")
    return inputs


def snapshot(root: Path) -> dict[str, tuple]:
    """Return every entry under ``root`` (itself included) -> (kind, bytes of a file, mtime in ns)."""
    out = {".": ("dir", None, root.stat().st_mtime_ns)}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        content = path.read_bytes() if path.is_file() else None
        out[str(path.relative_to(root))] = ("file" if path.is_file() else "dir", content, stat.st_mtime_ns)
    return out


def children(pid: int) -> list[int]:
    """Return the ids of the live child processes of ``pid`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def non_utf8(parent: Path, name: bytes) -> str:
    """Return the path ``parent/name`` for a ``name`` that is not valid UTF-8, as Python spells it (surrogates)."""
    return os.fsdecode(os.fsencode(parent) + b"/" + name)
