"""MazeBench's coordinates and the envs' block coordinates, converted at this one boundary.

MazeBench (https://github.com/Aileen-90/MazeBench) speaks ``(row, col)`` on its benchmark grid: origin top-left,
``1 = wall``, NO outer wall ring (a 9x9 grid holds 5x5 cells at even indices). The envs play every layout
as a block grid WITH the outer ring: the block grid of a generated maze, and every benchmark file read
through ``maze_envs.core.mazebench_files`` (a ringless file gains the ring, so its block ``(r + 1, c + 1)`` is its
benchmark ``(r, c)``; a file that already has a ring keeps its coordinates). Each layout records where its
benchmark grid sits in ``meta``: ``benchmark_origin`` (the block of benchmark ``(0, 0)``) and
``benchmark_shape`` (the benchmark grid's height and width). A layout without them is a ringed block grid:
origin ``(1, 1)`` and the block shape less the ring, which is exactly the grid ``mazebench_to_dict`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .maze import Cell, Grid

ORIGIN_KEY, SHAPE_KEY = "benchmark_origin", "benchmark_shape"


@dataclass(frozen=True)
class BenchmarkFrame:
    """Where a layout's benchmark grid lies in its block grid: ``origin`` is the block of benchmark ``(0, 0)``,
    ``shape`` the benchmark grid's ``(height, width)``."""

    origin: Cell
    shape: tuple[int, int]

    def to_benchmark(self, block: Cell) -> Cell:
        """Return the benchmark ``(row, col)`` of the layout block ``block``."""
        return (int(block[0]) - self.origin[0], int(block[1]) - self.origin[1])

    def from_benchmark(self, cell: Cell) -> Cell:
        """Return the layout block of the benchmark ``(row, col)`` ``cell``."""
        return (int(cell[0]) + self.origin[0], int(cell[1]) + self.origin[1])

    def path_to_benchmark(self, blocks: Sequence[Cell]) -> list[Cell]:
        """Return a path of layout blocks in benchmark coordinates."""
        return [self.to_benchmark(b) for b in blocks]

    def path_from_benchmark(self, cells: Sequence[Cell]) -> list[Cell]:
        """Return a path in benchmark coordinates as layout blocks."""
        return [self.from_benchmark(c) for c in cells]

    def crop(self, blocks: np.ndarray) -> np.ndarray:
        """Return the benchmark-grid part of an array laid out like the layout's blocks (a view)."""
        (r, c), (h, w) = self.origin, self.shape
        return blocks[r: r + h, c: c + w]

    def contains(self, cell: Cell) -> bool:
        """Return whether the benchmark ``(row, col)`` ``cell`` lies on the benchmark grid."""
        return 0 <= cell[0] < self.shape[0] and 0 <= cell[1] < self.shape[1]

    def to_meta(self) -> dict[str, Any]:
        """Return the ``meta`` entries that record this frame on a layout."""
        return {ORIGIN_KEY: list(self.origin), SHAPE_KEY: list(self.shape)}


def frame_of(grid: Grid) -> BenchmarkFrame:
    """Return the benchmark frame ``grid`` records in its meta, else that of a ringed block grid."""
    origin, shape = grid.meta.get(ORIGIN_KEY), grid.meta.get(SHAPE_KEY)
    if origin is None or shape is None:
        h, w = grid.shape
        return BenchmarkFrame((1, 1), (max(h - 2, 1), max(w - 2, 1)))
    return BenchmarkFrame((int(origin[0]), int(origin[1])), (int(shape[0]), int(shape[1])))


def benchmark_grid(grid: Grid) -> tuple[np.ndarray, Cell, Cell]:
    """Return ``(grid 0/1, start, goal)`` of a layout as MazeBench shows it (benchmark coordinates)."""
    frame = frame_of(grid)
    return (np.asarray(frame.crop(grid.blocks), dtype=np.uint8), frame.to_benchmark(grid.start),
            frame.to_benchmark(grid.goal))
