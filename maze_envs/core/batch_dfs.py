"""Many ``dfs`` mazes at once: the envs' fast path for resets, as spanning trees with their path lengths.

``dfs_trees`` (and ``batch_dfs``, its block grids) consumes each generator exactly as
``generate(rows, cols, "dfs", rng, placement=...)`` does (one ``permuted`` draw of the neighbour
orders, then the endpoint draw) and runs the same deterministic backtracker, so it returns the same
layouts (tested draw for draw). Because the mazes are spanning trees, the optimal path length is
the tree distance (depths and the common ancestor), read in the same pass, not a BFS per maze.

With numba installed (``maze-envs[fast]``) the backtracker runs compiled (``_dfs_kernel``), a few
microseconds a 10x10 maze, so a batch of any size, one maze included, is cheap: the single env
and the native vector env take this path for every reset of a fresh dfs maze. Without numba it runs
in lockstep numpy over the batch, which beats per-maze ``generate`` only from ``LOCKSTEP_MIN``
mazes at once (sub-envs started together truncate together, so big groups do occur).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .generators import lattice_neighbours
from .maze import Grid
from .validate import choice

FAST_PLACEMENTS = ("corner", "random")
# Without numba, below this many mazes at once per-maze ``generate`` beats the lockstep numpy search.
LOCKSTEP_MIN = 24


@dataclass
class MazeBatch:
    """``B`` generated mazes: block grids ``(B, 2r+1, 2c+1)`` (1 = wall), start/goal blocks ``(B, 2)``, BFS move counts
    ``(B,)``."""

    blocks: np.ndarray
    start: np.ndarray
    goal: np.ndarray
    optimal_length: np.ndarray


@dataclass
class DfsTrees:
    """``B`` dfs mazes as spanning trees of the cell lattice: each cell's flat ``parent`` ``(B, n)`` (-1 at the root,
    cell 0), the flat ``start``/``goal`` cells ``(B,)`` and the block move count between them ``(B,)``."""

    rows: int
    cols: int
    parent: np.ndarray
    start: np.ndarray
    goal: np.ndarray
    optimal_length: np.ndarray

    def blocks(self) -> np.ndarray:
        """Return the block grids ``(B, 2r+1, 2c+1)`` (1 = wall): the cells and each tree edge's block open."""
        rows, cols, b = self.rows, self.cols, len(self.parent)
        out = np.ones((b, 2 * rows + 1, 2 * cols + 1), dtype=np.uint8)
        out[:, 1::2, 1::2] = 0
        child = np.arange(1, rows * cols)  # cell 0 is the root; every other cell has a parent
        par = self.parent[:, 1:]
        out[np.arange(b)[:, None], child // cols + par // cols + 1, child % cols + par % cols + 1] = 0
        return out

    def ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the start and goal blocks ``(B, 2)``."""
        cols = self.cols
        return tuple(np.stack([2 * (e // cols) + 1, 2 * (e % cols) + 1], axis=1) for e in (self.start, self.goal))

    def grid(self, i: int, meta: dict[str, Any] | None = None) -> Grid:
        """Return maze ``i`` as a ``Grid`` with ``meta`` (builds every block grid: meant for small batches)."""
        start, goal = self.ends()
        return Grid(self.blocks()[i], tuple(start[i].tolist()), tuple(goal[i].tolist()), meta=dict(meta or {}))


@lru_cache(maxsize=1)
def _kernel() -> Any:
    """Return the compiled backtracker (``_dfs_kernel.backtrack_many``), or None when numba is not installed."""
    try:
        from ._dfs_kernel import backtrack_many
    except ImportError:
        return None
    return backtrack_many


def compiled() -> bool:
    """Return whether the batched generator runs compiled (numba installed): then any batch size is fast."""
    return _kernel() is not None


def dfs_trees(rows: int, cols: int, rngs: Sequence[np.random.Generator], placement: str = "corner") -> DfsTrees:
    """Return one dfs maze per generator as a spanning tree, the maze of ``generate(rows, cols, "dfs", rng,
    placement=placement)``; each generator is left in the same state as after that call.

    With numba the search runs compiled maze by maze; without it in lockstep numpy over the batch.
    """
    choice(placement, FAST_PLACEMENTS, name="batch_dfs placement")
    n = rows * cols
    b = len(rngs)
    table = lattice_neighbours(rows, cols)
    order = np.empty((b, n, 4), dtype=np.int64)
    ends = np.zeros((b, 2), dtype=np.int64)
    ends[:, 1] = n - 1
    for i, rng in enumerate(rngs):
        order[i] = rng.permuted(table, axis=1)
        if placement == "random" and n > 1:
            ends[i] = rng.choice(n, size=2, replace=False)
    kernel = _kernel()
    if kernel is not None:
        parent = np.empty((b, n), dtype=np.int64)
        depth = np.empty((b, n), dtype=np.int64)
        distance = np.empty(b, dtype=np.int64)
        kernel(order, ends, parent, depth, distance)
    else:
        parent, depth = _lockstep_backtracker(order, n)
        distance = _tree_distance(parent, depth, ends[:, 0], ends[:, 1])
    return DfsTrees(rows, cols, parent, ends[:, 0].copy(), ends[:, 1].copy(), 2 * distance)


def batch_dfs(rows: int, cols: int, rngs: Sequence[np.random.Generator], placement: str = "corner") -> MazeBatch:
    """Return one dfs maze per generator, identical to ``generate(rows, cols, "dfs", rng, placement=placement)``.

    Each generator is left in the same state as after that ``generate`` call.
    """
    trees = dfs_trees(rows, cols, rngs, placement)
    return MazeBatch(trees.blocks(), *trees.ends(), trees.optimal_length)


def _lockstep_backtracker(order: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return parent and depth arrays ``(B, n)`` of the recursive backtracker from cell 0 on each order table.

    All mazes live in flat arrays (maze ``i`` owns indices ``i*n ... i*n+n-1``); index ``B*n`` is a
    sink that stands for "no neighbour" and counts as visited. A maze whose search has returned to
    its root stays there, so no stack ever reaches into another maze's slots.
    """
    b = order.shape[0]
    base = np.arange(b) * n
    offset = np.repeat(base, n)[:, None]
    sink = b * n
    flat_order = order.reshape(sink, 4)
    cand_of = np.where(flat_order >= 0, flat_order + offset, sink)
    visited = np.zeros(sink + 1, dtype=bool)
    visited[sink] = True
    visited[base] = True
    parent = np.full(sink, -1, dtype=np.int64)
    depth = np.zeros(sink, dtype=np.int64)
    stack = np.zeros(sink, dtype=np.int64)
    stack[base] = base
    top = base.copy()
    pushes_left = b * (n - 1)
    while pushes_left:
        cur = stack[top]
        cand = cand_of[cur]
        valid = ~visited[cand]
        grow = valid.any(axis=1)
        g = np.flatnonzero(grow)
        nxt = cand[g, valid[g].argmax(axis=1)]
        here = cur[g]
        visited[nxt] = True
        parent[nxt] = here
        depth[nxt] = depth[here] + 1
        top -= ~grow & (top > base)
        top[g] += 1
        stack[top[g]] = nxt
        pushes_left -= g.size
    parent = np.where(parent >= 0, parent - offset[:, 0], -1)
    return parent.reshape(b, n), depth.reshape(b, n)


def _tree_distance(parent: np.ndarray, depth: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the tree distance between cells ``a[i]`` and ``b[i]`` of each spanning tree (via their common
    ancestor)."""
    rows = np.arange(parent.shape[0])
    total = depth[rows, a] + depth[rows, b]
    while True:
        da, db = depth[rows, a], depth[rows, b]
        differ = a != b
        if not differ.any():
            break
        up_a = differ & (da >= db)
        up_b = differ & (db >= da)
        a = np.where(up_a, parent[rows, a], a)
        b = np.where(up_b, parent[rows, b], b)
    return total - 2 * depth[rows, a]

