"""Frontier exploration on a partly known grid: where to walk next while the goal is out of reach.

A known-cells grid is two boolean arrays of one shape: ``known`` (the block has been seen) and
``free`` (it is open; read only where known). A frontier is a known free block 4-adjacent to an
unknown block of the grid (blocks outside the grid are not unknown: they do not exist). Routes
use known free blocks only, so following one never bumps into a wall.
"""

from __future__ import annotations

import numpy as np

from .maze import Cell, Grid
from .solve import search_tree, tree_path


def frontier(known: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Return the mask of frontier blocks: known and free, with an unknown 4-neighbour inside the grid."""
    unknown = ~known
    near = np.zeros_like(unknown)
    near[1:] |= unknown[:-1]
    near[:-1] |= unknown[1:]
    near[:, 1:] |= unknown[:, :-1]
    near[:, :-1] |= unknown[:, 1:]
    return near & known & free


def explore_route(known: np.ndarray, free: np.ndarray, position: Cell, goal: Cell | None = None, *,
                  recency: np.ndarray | None = None) -> list[Cell]:
    """Return a shortest route over known free blocks from ``position`` (first) to where to go next; [] if nowhere.

    The route ends at ``goal`` when it is reachable, else at a reachable frontier block other than
    ``position``: the one with the highest ``recency`` (e.g. the order blocks were discovered in,
    which makes exploration depth-first) or, without ``recency``, the nearest (ties: top-left first).
    """
    grid = Grid(~(known & free), position, position)
    dist, predecessors = search_tree(grid, position)
    if goal is not None and grid.contains(goal) and dist[goal] >= 0:
        return tree_path(grid, predecessors, position, goal)
    targets = frontier(known, free) & (dist > 0)
    if not targets.any():
        return []
    if recency is None:
        choice = np.argmin(np.where(targets, dist, np.iinfo(np.int64).max))
    else:
        choice = np.argmax(np.where(targets, recency, np.iinfo(np.int64).min))
    return tree_path(grid, predecessors, position, grid.coord(int(choice)))
