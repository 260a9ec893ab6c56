"""``generate text`` on the run engine: mazes in the LLM maze benchmark's layout, ``<H>x<W>/maze_<H>x<W>_<i>.json``.

The protocol (``maze_envs.protocols``, its ``text_mazes`` part) draws and writes each file: ``default`` draws a
perfect maze of ``((H+1)//2) x ((W+1)//2)`` cells with this project's generators; ``mazebench`` writes, byte for
byte, the file MazeBench's own generator writes for the same seed."""

from __future__ import annotations

import os
from functools import partial
from typing import Sequence

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import Placement, check_options
from maze_envs.core.mazebench_files import parse_size
from maze_envs.runs import RunOptions, WorkItem

from .writer import Dataset, WriteSummary, write_dataset


def generate_text_mazes(sizes: Sequence[str], count: int, seed: int, output_dir: str | os.PathLike, *,
                        algorithm: str = "dfs", placement: Placement = "corner", options: RunOptions = RunOptions(),
                        overwrite: bool = False, protocol: str = protocols.DEFAULT) -> WriteSummary:
    """Write ``count`` benchmark-format mazes per size (``"HxW"``, each size once) under ``output_dir``; maze i
    uses seed ``seed + i``. Return the summary (``records``: ``{"file"}`` per maze). ``protocol`` names a
    protocol with ``text_mazes`` rules (``mazebench``: MazeBench's generator's files, algorithms dfs and prim
    only). ``options`` and ``overwrite`` as for ``write_dataset``."""
    if count < 1:
        raise MazeConfigError(f"must be at least 1, got {count}", parameter="count")
    spec = protocols.protocol(protocol, "text_mazes")
    check_options(algorithm, placement)
    if spec.text_mazes.check is not None:
        spec.text_mazes.check(algorithm, placement)
    shapes = list(dict.fromkeys(parse_size(size) for size in sizes))
    items = [WorkItem(f"{h}x{w}/maze_{h}x{w}_{i}.json", {"height": h, "width": w, "index": i, "seed": seed + i})
             for h, w in shapes for i in range(count)]
    settings = {"algorithm": algorithm, "placement": placement, **({"protocol": spec.name} if spec.stamp else {})}
    dataset = Dataset(items=items, make=partial(spec.text_mazes.make, algorithm=algorithm, placement=placement),
                      settings=settings, desc="mazes")
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
