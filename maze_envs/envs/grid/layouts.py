"""Where an env's layouts come from: generated per reset, a fixed layout, a dataset to cycle, or a level set.

``LayoutSource`` validates every option at construction (so ``gym.make`` fails early with a typed
error naming the argument) and hands out ``Grid`` layouts of one fixed block shape; smaller layouts
of a dataset are padded with wall blocks at the bottom and right.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from maze_envs.core.batch_dfs import FAST_PLACEMENTS, DfsTrees, dfs_trees
from maze_envs.core.benchmark_frame import frame_of
from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.generators import check_options, generate
from maze_envs.core.layout_files import layout_from_dict, load_layout
from maze_envs.core.maze import Grid, Maze, as_grid
from maze_envs.core.mazebench_files import mazebench_files
from maze_envs.core.numbers import INT64_MAX
from maze_envs.core.paths import argument_path
from maze_envs.core.validate import integer, number, positive_int

LayoutLike = Maze | Grid | str | os.PathLike


def to_grid(layout: LayoutLike | dict, *, name: str = "maze") -> Grid:
    """Return ``layout`` (a Maze, Grid, file path or parsed JSON dict) as a ``Grid``; typed errors name ``name``."""
    if isinstance(layout, (Maze, Grid)):
        return as_grid(layout)
    if isinstance(layout, dict):
        return as_grid(layout_from_dict(layout, source=f"<{name}>"))
    if isinstance(layout, (str, os.PathLike)):
        return as_grid(load_layout(argument_path(name, layout)))
    raise MazeConfigError(f"{name} must be a Maze, Grid or a path to a maze file, got {type(layout).__name__}")


def pad_grid(grid: Grid, shape: tuple[int, int], *, name: str = "maze") -> Grid:
    """Return ``grid`` padded with wall blocks at the bottom and right to ``shape``; raises if it does not fit."""
    h, w = grid.shape
    if h > shape[0] or w > shape[1]:
        raise MazeConfigError(f"{name} has block shape {h}x{w}, larger than this env's {shape[0]}x{shape[1]}")
    if (h, w) == tuple(shape):
        return grid
    blocks = np.ones(shape, dtype=np.uint8)
    blocks[:h, :w] = grid.blocks
    return Grid(blocks, grid.start, grid.goal, meta={**frame_of(grid).to_meta(), **grid.meta})


@dataclass
class LayoutSource:
    """The layouts an env plays, validated at construction.

    Precedence: a fixed ``maze`` (Maze, Grid or file path), else ``mazes_dir`` (benchmark layout
    ``<dir>/<HxW>/maze_<HxW>_<i>.json``, optionally one ``mazes_size``, or ``*.json`` files in the
    directory; cycled in order, one per reset), else a new ``rows x cols`` maze of ``algorithm`` per
    reset drawn from the env's ``np_random``. ``num_levels > 0`` restricts generation to the
    ``num_levels`` seeds ``start_level ... start_level + num_levels - 1`` (train/test splits).
    """

    rows: int = 10
    cols: int = 10
    algorithm: str = "dfs"
    loops: float = 0.0
    placement: str = "corner"
    maze: LayoutLike | None = None
    mazes_dir: str | os.PathLike | None = None
    mazes_size: str | None = None
    num_levels: int = 0
    start_level: int = 0
    fixed: list[Grid] = field(init=False, default_factory=list)
    shape: tuple[int, int] = field(init=False, default=(0, 0))
    _levels: dict[int, Grid] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.rows = positive_int(self.rows, name="rows")
        self.cols = positive_int(self.cols, name="cols")
        check_options(self.algorithm, self.placement)
        number(self.loops, 0, 1, name="loops")
        self.num_levels = integer(self.num_levels, 0, INT64_MAX, name="num_levels")
        self.start_level = integer(self.start_level, 0, INT64_MAX, name="start_level")
        if self.maze is not None:
            self.fixed = [to_grid(self.maze)]
        elif self.mazes_dir is not None:
            self.fixed = [to_grid(p) for p in self._dataset_files()]
        if self.fixed:
            self.shape = (max(g.shape[0] for g in self.fixed), max(g.shape[1] for g in self.fixed))
            self.fixed = [pad_grid(g, self.shape, name=f"layout {i}") for i, g in enumerate(self.fixed)]
        else:
            self.shape = (2 * self.rows + 1, 2 * self.cols + 1)

    def _dataset_files(self) -> list[Path]:
        root = argument_path("mazes_dir", self.mazes_dir)
        if not root.is_dir():
            raise MazeFormatError("mazes_dir is not a directory", source=root, field="mazes_dir")
        files = mazebench_files(root, self.mazes_size)
        if not files and self.mazes_size is None:
            files = sorted(root.glob("*.json"))
        if not files:
            raise MazeFormatError("no maze files found", source=root, field="mazes_dir")
        return files

    @property
    def generated(self) -> bool:
        """Return whether layouts are generated (not fixed or read from a dataset)."""
        return not self.fixed

    @property
    def cell_shape(self) -> tuple[int, int]:
        """Return the maze size in cells that this source's block shape holds."""
        return (max(1, (self.shape[0] - 1) // 2), max(1, (self.shape[1] - 1) // 2))

    @property
    def tree_batches(self) -> bool:
        """Return whether every layout is a fresh dfs maze that ``dfs_trees`` draws (no loops, level set or
        ``far`` placement), so resets can take the batched generator with its tree path lengths."""
        return (self.generated and not self.num_levels and self.algorithm == "dfs" and not self.loops
                and self.placement in FAST_PLACEMENTS)

    @property
    def recurring(self) -> bool:
        """Return whether layouts come back (a fixed layout, a dataset or a level set): per-layout work is worth
        keeping."""
        return bool(self.fixed) or bool(self.num_levels)

    def next_trees(self, rngs: list[np.random.Generator]) -> DfsTrees:
        """Return the next maze of each generator as trees (only when ``tree_batches``), drawn as ``next`` draws
        them."""
        return dfs_trees(self.rows, self.cols, rngs, self.placement)

    def tree_grid(self, trees: DfsTrees, i: int) -> Grid:
        """Return maze ``i`` of ``trees`` as the Grid ``next`` would have returned (same blocks, ends and meta)."""
        return trees.grid(i, {"algorithm": self.algorithm, "loops": self.loops, "placement": self.placement})

    def level_layout(self, level: int) -> Grid:
        """Return (and cache) the generated layout of ``level`` (the generator seed)."""
        grid = self._levels.get(level)
        if grid is None:
            grid = self.generate(level)
            self._levels[level] = grid
        return grid

    def generate(self, seed: int | np.random.Generator) -> Grid:
        """Return a newly generated layout for ``seed`` with this source's size, algorithm, loops and placement."""
        return generate(self.rows, self.cols, self.algorithm, seed, loops=self.loops,
                        placement=self.placement).to_grid()  # type: ignore[arg-type]

    def next(self, rng: np.random.Generator, episode: int) -> Grid:
        """Return the layout of an env's ``episode``-th reset: a dataset entry in order, a drawn level, or a new maze
        from ``rng``."""
        if self.fixed:
            return self.fixed[episode % len(self.fixed)]
        if self.num_levels:
            return self.level_layout(self.start_level + int(rng.integers(self.num_levels)))
        return self.generate(rng)

    def override(self, layout: LayoutLike | dict) -> Grid:
        """Return ``layout`` (from ``reset(options={"maze": ...})``) as a Grid of this source's block shape."""
        return pad_grid(to_grid(layout), self.shape)
