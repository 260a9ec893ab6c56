"""The default protocol's ``generate text`` maze: a perfect maze of ``((H+1)//2) x ((W+1)//2)`` cells drawn by this
project's generators (``maze_envs.core.generators``), written in the benchmark's file layout."""

from __future__ import annotations

from pathlib import Path

from maze_envs.core.generators import Placement, generate
from maze_envs.core.mazebench_files import cells_for_size, write_mazebench


def make_text_maze(out: Path, payload: dict, *, algorithm: str, placement: Placement) -> tuple[dict, list[str]]:
    """Write the benchmark maze of ``payload`` (``height``, ``width``, ``index``, ``seed``) under ``out``; return
    its record (``file``: the path under ``out``) and files."""
    rows, cols = cells_for_size(payload["height"], payload["width"])
    maze = generate(rows, cols, algorithm, payload["seed"], placement=placement)
    path = write_mazebench(maze, out, payload["index"], nonce=payload["seed"],
                           size=(payload["height"], payload["width"]))
    name = path.relative_to(out).as_posix()
    return {"file": name}, [name]
