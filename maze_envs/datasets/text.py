"""``generate text`` on the run engine: mazes in the LLM maze benchmark's layout, ``<H>x<W>/maze_<H>x<W>_<i>.json``.

Two protocols: ``strict`` (default) draws a perfect maze of ``((H+1)//2) x ((W+1)//2)`` cells with this project's
generators; ``mazebench`` writes, byte for byte, the file MazeBench's own generator writes for the same seed
(``maze_envs.core.mazebench_generator``)."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Sequence

from maze_envs.core.atomic import atomic_write
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import Placement, check_options, generate
from maze_envs.core.mazebench_files import cells_for_size, parse_size, write_mazebench
from maze_envs.core.mazebench_generator import (
    ALGORITHMS,
    START_GOAL,
    mazebench_file_name,
    mazebench_json,
    mazebench_maze,
)
from maze_envs.core.validate import choice, positive_int
from maze_envs.runs import RunOptions, WorkItem

from .writer import Dataset, WriteSummary, write_dataset


def make_text_maze(out: Path, payload: dict, *, algorithm: str, placement: Placement) -> tuple[dict, list[str]]:
    """Write the benchmark maze of ``payload`` (``height``, ``width``, ``index``, ``seed``) under ``out``; return
    its record (``file``: the path under ``out``) and files."""
    rows, cols = cells_for_size(payload["height"], payload["width"])
    maze = generate(rows, cols, algorithm, payload["seed"], placement=placement)
    path = write_mazebench(maze, out, payload["index"], nonce=payload["seed"],
                           size=(payload["height"], payload["width"]))
    name = path.relative_to(out).as_posix()
    return {"file": name}, [name]


def make_mazebench_maze(out: Path, payload: dict, *, algorithm: str, placement: str) -> tuple[dict, list[str]]:
    """Write the file MazeBench's generator writes for ``payload`` (``height``, ``width``, ``index``, ``seed``) as
    ``<H>x<W>/maze_<H>x<W>_<i>.json`` under ``out``; return its record and files."""
    h, w = payload["height"], payload["width"]
    maze = mazebench_maze(h, w, payload["seed"], algorithm=algorithm, start_goal=placement)
    name = f"{h}x{w}/{mazebench_file_name(h, w, payload['index'])}"
    with atomic_write(out / name) as fh:
        fh.write(mazebench_json(maze))
    return {"file": name}, [name]


PROTOCOLS = ("strict", "mazebench")


def generate_text_mazes(sizes: Sequence[str], count: int, seed: int, output_dir: str | os.PathLike, *,
                        algorithm: str = "dfs", placement: Placement = "corner", options: RunOptions = RunOptions(),
                        overwrite: bool = False, protocol: str = "strict") -> WriteSummary:
    """Write ``count`` benchmark-format mazes per size (``"HxW"``, each size once) under ``output_dir``; maze i
    uses seed ``seed + i``. Return the summary (``records``: ``{"file"}`` per maze). ``protocol`` ``mazebench``
    writes MazeBench's generator's files (algorithms dfs and prim only). ``options`` and ``overwrite`` as for
    ``write_dataset``."""
    positive_int(count, parameter="count")
    choice(protocol, PROTOCOLS, parameter="protocol")
    check_options(algorithm, placement)
    if protocol == "mazebench" and algorithm not in ALGORITHMS:
        raise MazeConfigError(f"MazeBench's generator has {' and '.join(ALGORITHMS)} only, got {algorithm!r}",
                              parameter="algorithm")
    if protocol == "mazebench" and placement not in START_GOAL:
        raise MazeConfigError(f"MazeBench's generator places start/goal {' or '.join(START_GOAL)} only, got "
                              f"{placement!r}", parameter="start_goal")
    shapes = list(dict.fromkeys(parse_size(size) for size in sizes))
    items = [WorkItem(f"{h}x{w}/maze_{h}x{w}_{i}.json", {"height": h, "width": w, "index": i, "seed": seed + i})
             for h, w in shapes for i in range(count)]
    make = make_mazebench_maze if protocol == "mazebench" else make_text_maze
    settings = {"algorithm": algorithm, "placement": placement}
    if protocol != "strict":
        settings["protocol"] = protocol
    dataset = Dataset(items=items, make=partial(make, algorithm=algorithm, placement=placement),
                      settings=settings, desc="mazes")
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
