"""The benchmark's path grader (``grade_path``): a model's path checked on the exact grid it was shown (the one
path check of the project is ``maze_envs.core.solve.validate_path``; this is the benchmark's verdict with its codes).

Checks run in MazeBench's order (https://github.com/Aileen-90/MazeBench, ``core/validator.py``): non-empty,
starts at the start, ends at the goal, every step 4-adjacent, every cell in bounds and free, no cell twice.
Each failure has one of ``ERROR_CODES``; cells are benchmark ``(row, col)`` on the grid, ``1`` = wall.
A walk played move by move (the ai and partial-observe modes) may revisit cells: it is checked with
``allow_revisits=True``, which skips only the last check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from maze_envs.core.maze import Cell
from maze_envs.core.solve import path_faults

ERROR_CODES = ("empty_path", "wrong_start", "wrong_goal", "illegal_move", "out_of_bounds", "wall_collision", "loop")


@dataclass(frozen=True)
class Validation:
    """The verdict on one path: ``valid``; else the ``error`` code, a readable ``message`` and the index of the
    first offending cell. ``path_length`` and ``optimal_length`` count moves (cells - 1)."""

    valid: bool
    path_length: int
    optimal_length: int
    error: str | None = None
    message: str = ""
    index: int = -1

    def to_dict(self) -> dict:
        """Return the verdict as a JSON-ready dict."""
        return {"valid": self.valid, "error": self.error, "message": self.message, "index": self.index,
                "path_length": self.path_length, "optimal_length": self.optimal_length}


def grade_path(grid: np.ndarray, start: Cell, goal: Cell, path: Sequence[Cell],
                  shortest: Sequence[Cell], *, allow_revisits: bool = False) -> Validation:
    """Return the ``Validation`` of ``path`` on ``grid`` (0 free, 1 wall) from ``start`` to ``goal``.

    ``shortest`` is the grid's shortest path (both ends included); it only sets ``optimal_length``.
    ``allow_revisits`` accepts a cell visited twice (a walk that backtracked) instead of failing with ``loop``.
    """
    cells = [(int(r), int(c)) for r, c in path]
    length, optimal = max(len(cells) - 1, 0), max(len(shortest) - 1, 0)

    def fail(code: str, message: str, index: int) -> Validation:
        return Validation(False, length, optimal, code, message, index)

    if not cells:
        return fail("empty_path", "no path was given", 0)
    if cells[0] != tuple(start):
        return fail("wrong_start", f"path starts at {cells[0]}, not at the start {tuple(start)}", 0)
    if cells[-1] != tuple(goal):
        return fail("wrong_goal", f"path ends at {cells[-1]}, not at the goal {tuple(goal)}", len(cells) - 1)
    height, width = grid.shape
    faults = path_faults(cells, lambda cell: 0 <= cell[0] < height and 0 <= cell[1] < width,
                         lambda previous, cell: bool(grid[cell]))
    if faults.jump is not None:
        i = faults.jump
        return fail("illegal_move", f"{cells[i - 1]} to {cells[i]} is not a 4-adjacent move", i)
    fault = faults.first(("outside", "wall"))
    if fault is not None:
        check, i = fault
        if check == "outside":
            return fail("out_of_bounds", f"{cells[i]} is outside the {height}x{width} grid", i)
        return fail("wall_collision", f"{cells[i]} is a wall", i)
    if allow_revisits:
        return Validation(True, length, optimal)
    seen: set[Cell] = set()
    for i, cell in enumerate(cells):
        if cell in seen:
            return fail("loop", f"{cell} is visited twice", i)
        seen.add(cell)
    return Validation(True, length, optimal)
