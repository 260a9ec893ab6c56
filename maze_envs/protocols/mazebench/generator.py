"""MazeBench's maze generator reproduced draw for draw (https://github.com/Aileen-90/MazeBench, ``core/generator.py``
and ``utils/io.generate_mazes_to_dir``), for ``generate text --protocol mazebench``.

What it reproduces, defects included:

- the grid (``height x width``, 1 = wall) starts all walls and is carved on the stride-2 lattice of even
  ``(row, col)``: an even height or width leaves the last row or column uncarved;
- ``dfs`` is a recursive backtracker that always starts at (0, 0), whatever the start is; ``prim`` grows a tree
  from the start, drawing from a Python ``set`` of frontier cells (``list(frontier)[i]``, so the set's iteration
  order is part of the draw);
- ``corner`` gives start (0, 0) and goal (h-1, w-1); ``random`` draws the start, then goals until one differs;
  both are then snapped down to even coordinates (so they may coincide) and forced open;
- the random numbers come from ``numpy.random.default_rng(seed)``, one ``integers(0, n)`` call per choice;
  maze i of a run uses seed ``base + i`` and ``nonce`` = that seed;
- the shortest path is a BFS with neighbour order down, up, right, left, both ends included;
- the file is ``json.dump(maze, ensure_ascii=False, indent=2)`` with keys width, height, grid, start, goal,
  shortest_path, nonce and no trailing newline, named ``maze_{H}x{W}_{i}.json``.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import numpy as np

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import choice

ALGORITHMS = ("dfs", "prim")
START_GOAL = ("corner", "random")
LATTICE_STEPS = ((2, 0), (-2, 0), (0, 2), (0, -2))
BFS_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))

Coord = tuple[int, int]


def _inside(cell: Coord, shape: tuple[int, int]) -> bool:
    return 0 <= cell[0] < shape[0] and 0 <= cell[1] < shape[1]


def _carve_dfs(grid: np.ndarray, rng: np.random.Generator) -> None:
    """Carve the backtracker from (0, 0): each step picks one unvisited lattice neighbour of the stack's top."""
    visited = np.zeros(grid.shape, dtype=bool)
    stack = [(0, 0)]
    grid[0, 0] = 0
    visited[0, 0] = True
    while stack:
        r, c = stack[-1]
        options = [(r + dr, c + dc, dr, dc) for dr, dc in LATTICE_STEPS
                   if _inside((r + dr, c + dc), grid.shape) and not visited[r + dr, c + dc]]
        if not options:
            stack.pop()
            continue
        nr, nc, dr, dc = options[int(rng.integers(0, len(options)))]
        grid[r + dr // 2, c + dc // 2] = 0
        grid[nr, nc] = 0
        visited[nr, nc] = True
        stack.append((nr, nc))


def _carve_prim(grid: np.ndarray, start: Coord, rng: np.random.Generator) -> None:
    """Grow the Prim tree from ``start``: pick a frontier cell from the set, join it to a carved neighbour."""
    carved = {start}
    grid[start] = 0
    frontier: set[Coord] = set()
    for dr, dc in LATTICE_STEPS:
        cell = (start[0] + dr, start[1] + dc)
        if _inside(cell, grid.shape):
            frontier.add(cell)
    budget = grid.shape[0] * grid.shape[1] * 8
    while frontier and budget:
        budget -= 1
        cell = list(frontier)[int(rng.integers(0, len(frontier)))]
        frontier.discard(cell)
        joined = [(cell[0] + dr, cell[1] + dc, dr, dc) for dr, dc in LATTICE_STEPS
                  if _inside((cell[0] + dr, cell[1] + dc), grid.shape) and (cell[0] + dr, cell[1] + dc) in carved]
        if not joined:
            continue
        _, _, dr, dc = joined[int(rng.integers(0, len(joined)))]
        grid[cell[0] + dr // 2, cell[1] + dc // 2] = 0
        grid[cell] = 0
        carved.add(cell)
        for dr2, dc2 in LATTICE_STEPS:
            nxt = (cell[0] + dr2, cell[1] + dc2)
            if _inside(nxt, grid.shape) and nxt not in carved and nxt not in frontier:
                frontier.add(nxt)


def bfs_path(grid: np.ndarray, start: Coord, goal: Coord) -> list[Coord]:
    """Return MazeBench's BFS path from ``start`` to ``goal`` on ``grid`` (neighbours down, up, right, left;
    both ends included), or [] when the goal is unreachable."""
    previous: dict[Coord, Coord | None] = {start: None}
    waiting = deque([start])
    while waiting:
        here = waiting.popleft()
        if here == goal:
            break
        for dr, dc in BFS_STEPS:
            nxt = (here[0] + dr, here[1] + dc)
            if _inside(nxt, grid.shape) and grid[nxt] == 0 and nxt not in previous:
                previous[nxt] = here
                waiting.append(nxt)
    if goal not in previous:
        return []
    path: list[Coord] = []
    cell: Coord | None = goal
    while cell is not None:
        path.append(cell)
        cell = previous[cell]
    return path[::-1]


def _endpoints(height: int, width: int, start_goal: str, rng: np.random.Generator) -> tuple[Coord, Coord]:
    if start_goal == "random":
        start = (int(rng.integers(0, height)), int(rng.integers(0, width)))
        while True:
            goal = (int(rng.integers(0, height)), int(rng.integers(0, width)))
            if goal != start:
                break
    else:
        start, goal = (0, 0), (height - 1, width - 1)
    def snap(cell):
        return (cell[0] - cell[0] % 2, cell[1] - cell[1] % 2)
    return snap(start), snap(goal)


def mazebench_maze(height: int, width: int, seed: int, *, algorithm: str = "dfs",
                   start_goal: str = "corner") -> dict[str, Any]:
    """Return the maze MazeBench's generator draws for ``seed``: ``{width, height, grid, start, goal,
    shortest_path, nonce}`` with tuples where it has tuples (``mazebench_json`` writes them as lists).
    Raises ``MazeConfigError`` for an unknown algorithm or start/goal mode, or a size below 1."""
    if algorithm not in ALGORITHMS:
        raise MazeConfigError(f"must be one of {', '.join(ALGORITHMS)} under the mazebench protocol, "
                              f"got {algorithm!r}", parameter="algorithm")
    choice(start_goal, START_GOAL, parameter="start_goal")
    if height < 1 or width < 1 or (start_goal == "random" and height * width < 2):
        raise MazeConfigError(f"size must be at least 1x1 (2 cells for random), got {height}x{width}",
                              parameter="sizes")
    rng = np.random.default_rng(seed)
    start, goal = _endpoints(height, width, start_goal, rng)
    grid = np.ones((height, width), dtype=np.int8)
    if algorithm == "dfs":
        _carve_dfs(grid, rng)
    else:
        _carve_prim(grid, start, rng)
    grid[start] = 0
    grid[goal] = 0
    return {"width": width, "height": height, "grid": grid.tolist(), "start": start, "goal": goal,
            "shortest_path": bfs_path(grid, start, goal), "nonce": int(seed)}


def mazebench_json(maze: dict[str, Any]) -> str:
    """Return the text MazeBench writes for ``maze`` (``json.dump(..., ensure_ascii=False, indent=2)``, no
    trailing newline)."""
    return json.dumps(maze, ensure_ascii=False, indent=2)


def mazebench_file_name(height: int, width: int, index: int) -> str:
    """Return MazeBench's file name of maze ``index`` of size ``height x width``: ``maze_{H}x{W}_{i}.json``."""
    return f"maze_{height}x{width}_{index}.json"
