"""Numba kernel of the recursive backtracker over many neighbour-order tables (imported lazily by ``batch_dfs``).

The same deterministic search as ``generators.dfs`` (and ``batch_dfs``'s lockstep numpy form): from
cell 0, each cell tries its four neighbours in its table's order and enters the first unvisited one;
a cell whose neighbours are all visited is left for good. Because each maze is a spanning tree, the
distance between two cells is read off the tree (depths and a walk up to the common ancestor).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def backtrack_many(order: np.ndarray, ends: np.ndarray, parent: np.ndarray, depth: np.ndarray,
                   distance: np.ndarray) -> None:  # pragma: no cover - compiled; tested against the numpy form
    """Fill ``parent``/``depth`` ``(B, n)`` of the backtracker on each ``order[i]`` ``(n, 4)`` (-1: off the
    lattice) and ``distance[i]``, the tree distance between cells ``ends[i, 0]`` and ``ends[i, 1]``."""
    b, n = order.shape[0], order.shape[1]
    visited = np.empty(n, np.uint8)
    tried = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    for i in range(b):
        visited[:] = 0
        tried[:] = 0
        parent[i, :] = -1
        depth[i, 0] = 0
        visited[0] = 1
        stack[0] = 0
        top = 0
        while top >= 0:
            cur = stack[top]
            k = tried[cur]
            pushed = False
            while k < 4:
                nxt = order[i, cur, k]
                k += 1
                if nxt >= 0 and visited[nxt] == 0:
                    tried[cur] = k
                    visited[nxt] = 1
                    parent[i, nxt] = cur
                    depth[i, nxt] = depth[i, cur] + 1
                    top += 1
                    stack[top] = nxt
                    pushed = True
                    break
            if not pushed:
                top -= 1
        x, y = ends[i, 0], ends[i, 1]
        total = depth[i, x] + depth[i, y]
        while x != y:
            if depth[i, x] >= depth[i, y]:
                x = parent[i, x]
            else:
                y = parent[i, y]
        distance[i] = total - 2 * depth[i, x]
