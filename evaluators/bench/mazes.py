"""The benchmark's mazes: read from ``<mazes_dir>/<size>/maze_<H>x<W>_<i>.json`` (a size directory is found
by exact name, else by the first name containing the size), generated first when the settings ask."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.jsonfiles import read_json
from maze_envs.core.maze import Cell, Grid
from maze_envs.core.mazebench_files import mazebench_files, mazebench_from_dict, size_directory
from maze_envs.datasets import generate_text_mazes

from .config import BenchConfig


@dataclass(frozen=True)
class BenchMaze:
    """One published maze: its ``name`` (file stem), the ``size`` it was asked for, its ``layout`` (a core
    ``Grid`` of the benchmark grid: 0 free, 1 wall, no outer ring, with start and goal), its BFS
    ``shortest_path`` (as the file stores it under a protocol with ``BenchRules.stored_paths``: maybe empty),
    the ``file`` and its ``nonce``."""

    name: str
    size: str
    layout: Grid
    shortest_path: tuple[Cell, ...]
    file: str
    nonce: int = 0

    @property
    def grid(self) -> np.ndarray:
        """Return the benchmark grid's blocks (0 free, 1 wall; read-only)."""
        return self.layout.blocks

    @property
    def start(self) -> Cell:
        """Return the start cell."""
        return self.layout.start

    @property
    def goal(self) -> Cell:
        """Return the goal cell."""
        return self.layout.goal

    @property
    def shape(self) -> tuple[int, int]:
        """Return the grid's (height, width)."""
        return self.layout.shape


def load_bench_maze(path: str | os.PathLike, size: str, *, stored_path: bool = False,
                    root: str | os.PathLike | None = None) -> BenchMaze:
    """Return the maze in the benchmark JSON file at ``path``; raises ``MazeFormatError`` naming the file, also
    when it is a FIFO, a device or (``root`` given: the mazes directory) a link leading outside ``root``, all
    refused without waiting on them. ``stored_path`` keeps the file's ``shortest_path`` as stored (missing:
    empty), unchecked (``mazebench_from_dict``)."""
    record = mazebench_from_dict(read_json(path, root=root), source=str(path), stored_path=stored_path)
    return BenchMaze(Path(path).stem, size, record.grid, tuple(tuple(c) for c in record.shortest_path), str(path),
                     record.nonce)


def bench_mazes(mazes_dir: str | os.PathLike, size: str, *, stored_path: bool = False) -> list[BenchMaze]:
    """Return every maze of ``size`` under ``mazes_dir`` in index order; raises if there are none (a missing
    directory is a ``MazeConfigError`` about ``mazes_dir``)."""
    if not Path(mazes_dir).is_dir():
        raise MazeConfigError(f"{mazes_dir}: directory not found (or set generate_mazes to write mazes there)",
                              parameter="mazes_dir")
    files = mazebench_files(mazes_dir, size)
    if not files:
        raise MazeFormatError(f"no maze_<H>x<W>_<i>.json files for size {size}",
                              source=size_directory(mazes_dir, size))
    return [load_bench_maze(path, size, stored_path=stored_path, root=mazes_dir) for path in files]


def prepare_mazes(config: BenchConfig) -> dict[str, list[BenchMaze]]:
    """Return the mazes of every size of ``config``, generating them first when ``generate_mazes`` is set
    (``maze_count`` per size into ``maze_output_dir`` or the mazes directory, maze i seeded ``seed + i``, replacing
    what an earlier generation wrote there; under ``protocol`` ``mazebench`` MazeBench's generator's files), each
file's ``shortest_path`` read as the protocol's ``BenchRules.stored_paths`` says)."""
    mazes_dir = config.mazes_dir
    if config.generate_mazes:
        mazes_dir = config.maze_output_dir or config.mazes_dir
        generate_text_mazes(config.sizes, config.maze_count, config.seed, mazes_dir, algorithm=config.algorithm,
                            placement=config.start_goal, overwrite=True, protocol=config.protocol)
    stored = protocols.protocol(config.protocol, "bench").bench.stored_paths
    return {size: bench_mazes(mazes_dir, size, stored_path=stored) for size in config.sizes}
