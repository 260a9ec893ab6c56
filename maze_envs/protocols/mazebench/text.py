"""The mazebench protocol's ``generate text`` maze: byte for byte the file MazeBench's own generator writes for the
same seed (``generator``), for its two algorithms and placements only."""

from __future__ import annotations

from pathlib import Path

from maze_envs.core.atomic import atomic_write
from maze_envs.core.errors import MazeConfigError

from .generator import ALGORITHMS, START_GOAL, mazebench_file_name, mazebench_json, mazebench_maze


def make_mazebench_maze(out: Path, payload: dict, *, algorithm: str, placement: str) -> tuple[dict, list[str]]:
    """Write the file MazeBench's generator writes for ``payload`` (``height``, ``width``, ``index``, ``seed``) as
    ``<H>x<W>/maze_<H>x<W>_<i>.json`` under ``out``; return its record and files."""
    h, w = payload["height"], payload["width"]
    maze = mazebench_maze(h, w, payload["seed"], algorithm=algorithm, start_goal=placement)
    name = f"{h}x{w}/{mazebench_file_name(h, w, payload['index'])}"
    with atomic_write(out / name) as fh:
        fh.write(mazebench_json(maze))
    return {"file": name}, [name]


def check_settings(algorithm: str, placement: str) -> None:
    """Raise ``MazeConfigError`` unless MazeBench's generator has ``algorithm`` and ``placement``."""
    if algorithm not in ALGORITHMS:
        raise MazeConfigError(f"MazeBench's generator has {' and '.join(ALGORITHMS)} only, got {algorithm!r}",
                              parameter="algorithm")
    if placement not in START_GOAL:
        raise MazeConfigError(f"MazeBench's generator places start/goal {' or '.join(START_GOAL)} only, got "
                              f"{placement!r}", parameter="start_goal")
