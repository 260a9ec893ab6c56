"""Solvers on any layout (``Maze`` cells or ``Grid`` blocks): BFS distances, shortest paths, path checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy.sparse import csgraph

from .maze import Cell, Grid, Maze

Layout = Maze | Grid


def distance_map(layout: Layout, source: Cell | None = None) -> np.ndarray:
    """Return BFS move counts from ``source`` (default: start) to every node, shaped like the layout; -1 =
    unreachable."""
    source = layout.start if source is None else source
    dist = csgraph.shortest_path(layout.adjacency, unweighted=True, indices=layout.index(source))
    out = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    return out.reshape(layout.shape)


def search_tree(layout: Layout, source: Cell) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(distances, predecessors)`` of one BFS from ``source``: move counts shaped like the layout
    (-1 = unreachable) and each node's flat predecessor index (negative for ``source`` and unreachable nodes)."""
    dist, pred = csgraph.shortest_path(layout.adjacency, unweighted=True, indices=layout.index(source),
                                       return_predecessors=True)
    return np.where(np.isinf(dist), -1, dist).astype(np.int64).reshape(layout.shape), pred


def tree_path(layout: Layout, predecessors: np.ndarray, source: Cell, goal: Cell) -> list[Cell] | None:
    """Return the path from ``source`` to ``goal`` along a search tree's ``predecessors``, both ends included; None if
    ``goal`` is not in the tree."""
    node, root = layout.index(goal), layout.index(source)
    if node != root and predecessors[node] < 0:
        return None
    path = [node]
    while node != root:
        node = int(predecessors[node])
        path.append(node)
    return [layout.coord(i) for i in reversed(path)]


def shortest_path(layout: Layout, start: Cell | None = None, goal: Cell | None = None) -> list[Cell] | None:
    """Return a shortest path from ``start`` to ``goal`` (defaults: the layout's), both ends included; None if
    unreachable."""
    start = layout.start if start is None else start
    goal = layout.goal if goal is None else goal
    _, pred = csgraph.breadth_first_order(layout.adjacency, layout.index(start), directed=False,
                                          return_predecessors=True)
    return tree_path(layout, pred, start, goal)


def path_length(layout: Layout, start: Cell | None = None, goal: Cell | None = None) -> int:
    """Return the number of moves on a shortest path (-1 if unreachable)."""
    goal = layout.goal if goal is None else goal
    return int(distance_map(layout, start)[goal])


def pair_path_lengths(layout: Layout, cells: Sequence[Cell]) -> np.ndarray:
    """Return the ``len(cells) x len(cells)`` matrix of shortest path lengths in cells counted (moves + 1); 0 =
    unreachable.

    On a layout whose graph is one tree (a perfect maze) the lengths come from one BFS and the cells' lowest
    common ancestors (``tree_pair_path_lengths``), else from one BFS per cell.
    """
    idx = np.array([layout.index(c) for c in cells], dtype=np.int64)
    adjacency = layout.adjacency
    if idx.size > 1 and adjacency.nnz == 2 * (adjacency.shape[0] - 1):  # as many edges as a spanning tree
        lengths = tree_pair_path_lengths(adjacency, idx)
        if lengths is not None:
            return lengths
    dist = csgraph.shortest_path(adjacency, unweighted=True, indices=idx)[:, idx]
    return np.where(np.isinf(dist), 0, dist + 1).astype(np.int64)


def tree_pair_path_lengths(adjacency, nodes: np.ndarray) -> np.ndarray | None:
    """Return the matrix of path lengths in nodes counted (moves + 1) between ``nodes`` of a tree graph
    (``adjacency``, symmetric sparse), or None when the graph is not connected.

    One BFS from ``nodes[0]`` gives every node's depth and parent; a pair's path runs through its lowest
    common ancestor, found for all pairs at once by binary lifting (``O(N + pairs * log N)`` instead of the
    ``O(len(nodes) * N)`` of a BFS per node).
    """
    root = int(nodes[0])
    depth, parent = csgraph.shortest_path(adjacency, unweighted=True, indices=root, return_predecessors=True)
    if np.isinf(depth).any():
        return None
    depth = depth.astype(np.int64)
    parent = parent.astype(np.int64)
    parent[root] = root
    ancestors = [parent]  # ancestors[j][v]: the 2**j-th ancestor of v (the root above the root)
    for _ in range(1, max(1, int(depth.max()).bit_length())):
        ancestors.append(ancestors[-1][ancestors[-1]])
    first, second = np.triu_indices(nodes.size, 1)
    a, b = nodes[first], nodes[second]
    deeper = depth[a] < depth[b]
    a, b = np.where(deeper, b, a), np.where(deeper, a, b)
    climb = depth[a] - depth[b]
    for j, up in enumerate(ancestors):
        a = np.where((climb >> j) & 1 == 1, up[a], a)
    for up in reversed(ancestors):
        ua, ub = up[a], up[b]
        apart = ua != ub
        a, b = np.where(apart, ua, a), np.where(apart, ub, b)
    meet = np.where(a == b, a, parent[a])
    lengths = np.ones((nodes.size, nodes.size), dtype=np.int64)
    between = depth[nodes[first]] + depth[nodes[second]] - 2 * depth[meet] + 1
    lengths[first, second] = between
    lengths[second, first] = between
    return lengths


def border_path_lengths(maze: Maze) -> tuple[list[Cell], np.ndarray]:
    """Return the maze's border cells and the matrix of path lengths (cells, both ends counted) between them."""
    cells = maze.border_cells()
    return cells, pair_path_lengths(maze, cells)


@dataclass(frozen=True)
class PathFaults:
    """Where a walk first fails each step check (an index into its cells, None where none does): ``jump`` (a cell
    not 4-adjacent to the one before it), ``outside`` (a cell off the layout) and ``wall`` (a wall, or a move into
    the cell that crosses one)."""

    jump: int | None
    outside: int | None
    wall: int | None

    def first(self, order: Sequence[str]) -> tuple[str, int] | None:
        """Return ``(check, index)`` of the earliest fault among the checks named in ``order`` (a tie goes to the
        check listed first), or None when the walk passes them all."""
        found = [(index, rank, name) for rank, name in enumerate(order) if (index := getattr(self, name)) is not None]
        if not found:
            return None
        index, _, name = min(found)
        return name, index


def path_faults(cells: Sequence[Cell], contains: Callable[[Cell], bool], blocked: Callable[[Cell | None, Cell], bool],
                *, before: Cell | None = None) -> PathFaults:
    """Return the ``PathFaults`` of the walk ``cells`` from ``before`` (None: its first cell is where it starts).

    ``contains(cell)`` says whether a cell is on the layout; ``blocked(previous, cell)`` whether the walk cannot
    enter ``cell`` (from ``previous``, None for the first cell), asked only of cells on the layout entered by a
    4-adjacent move (or first). The one path check of the project: ``validate_path``, the benchmark's grader
    and the LLM agent's pre-move check each read these faults in their own order.
    """
    jump = outside = wall = None
    previous = before
    for i, cell in enumerate(cells):
        adjacent = previous is None or abs(cell[0] - previous[0]) + abs(cell[1] - previous[1]) == 1
        inside = contains(cell)
        if jump is None and not adjacent:
            jump = i
        if outside is None and not inside:
            outside = i
        if wall is None and adjacent and inside and blocked(previous, cell):
            wall = i
        previous = cell
    return PathFaults(jump, outside, wall)


@dataclass(frozen=True)
class PathCheck:
    """Outcome of ``validate_path``: ``valid``; else ``reason`` and the index of the first bad step."""

    valid: bool
    reason: str = ""
    index: int = -1
    reaches_goal: bool = False


def validate_path(layout: Layout, path: Sequence[Cell], *, require_start: bool = True,
                  require_goal: bool = True) -> PathCheck:
    """Return whether ``path`` is a walk of 4-adjacent moves that cross no wall (optionally start to goal).

    Checks, in order: empty, start, goal, then each step for bounds, adjacency and walls.
    """
    cells = [tuple(int(v) for v in p) for p in path]
    if not cells:
        return PathCheck(False, "empty path", 0)
    if require_start and cells[0] != layout.start:
        return PathCheck(False, f"path starts at {cells[0]}, not at start {layout.start}", 0)
    reaches = cells[-1] == layout.goal
    if require_goal and not reaches:
        return PathCheck(False, f"path ends at {cells[-1]}, not at goal {layout.goal}", len(cells) - 1)
    if isinstance(layout, Grid) and not layout.is_free(cells[0]):
        return PathCheck(False, f"{cells[0]} is a wall or out of bounds", 0)
    faults = path_faults(cells[1:], layout.contains, lambda a, b: not layout.passable(a, b), before=cells[0])
    fault = faults.first(("outside", "jump", "wall"))
    if fault is None:
        return PathCheck(True, reaches_goal=reaches)
    check, i = fault[0], fault[1] + 1
    a, b = cells[i - 1], cells[i]
    reason = {"outside": f"{b} is out of bounds", "jump": f"{a} to {b} is not a 4-adjacent move",
              "wall": f"{a} to {b} crosses a wall"}[check]
    return PathCheck(False, reason, i)


def is_perfect(maze: Maze) -> bool:
    """Return whether ``maze`` is a spanning tree: ``rows*cols - 1`` passages and connected."""
    if maze.num_passages != maze.num_cells - 1:
        return False
    return bool((distance_map(maze, (0, 0)) >= 0).all())
