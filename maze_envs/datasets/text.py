"""``generate text`` on the run engine: mazes in the LLM maze benchmark's layout, ``<H>x<W>/maze_<H>x<W>_<i>.json``."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Sequence

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import Placement, check_options, generate
from maze_envs.core.mazebench_files import cells_for_size, parse_size, write_mazebench
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


def generate_text_mazes(sizes: Sequence[str], count: int, seed: int, output_dir: str | os.PathLike, *,
                        algorithm: str = "dfs", placement: Placement = "corner", options: RunOptions = RunOptions(),
                        overwrite: bool = False) -> WriteSummary:
    """Write ``count`` benchmark-format mazes per size (``"HxW"``, each size once) under ``output_dir``; maze i
    uses seed ``seed + i``. Return the summary (``records``: ``{"file"}`` per maze). ``options`` and
    ``overwrite`` as for ``write_dataset``."""
    if count < 1:
        raise MazeConfigError(f"must be at least 1, got {count}", parameter="count")
    check_options(algorithm, placement)
    shapes = list(dict.fromkeys(parse_size(size) for size in sizes))
    items = [WorkItem(f"{h}x{w}/maze_{h}x{w}_{i}.json", {"height": h, "width": w, "index": i, "seed": seed + i})
             for h, w in shapes for i in range(count)]
    dataset = Dataset(items=items, make=partial(make_text_maze, algorithm=algorithm, placement=placement),
                      settings={"algorithm": algorithm, "placement": placement}, desc="mazes")
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
