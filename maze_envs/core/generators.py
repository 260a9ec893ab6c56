"""Maze generators: each a pure function ``(rows, cols, rng) -> Maze``, registered by name in ``GENERATORS``.

All are deterministic for a seed: the same ``(rows, cols, seed)`` gives the same maze on every
platform (numpy's PCG64). Each returns a perfect maze (a spanning tree of the cell lattice);
``generate(..., loops=f)`` then braids away a fraction ``f`` of the dead ends.
"""

from __future__ import annotations

from typing import Callable, Literal, get_args

import numpy as np

from .errors import MazeConfigError
from .maze import MOVES, Cell, Maze
from .validate import number

Seed = int | np.random.Generator | None
Placement = Literal["corner", "random", "far"]
PLACEMENTS: tuple[str, ...] = get_args(Placement)


def as_rng(seed: Seed) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``seed`` (a Generator is returned as is)."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_size(rows: int, cols: int) -> None:
    if int(rows) < 1 or int(cols) < 1:
        raise MazeConfigError(f"maze size must be at least 1x1, got rows={rows}, cols={cols}")


def lattice_neighbours(rows: int, cols: int) -> np.ndarray:
    """Return an ``(N, 4)`` table of the up/right/down/left neighbour indices, ``-1`` off the lattice."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    table = np.full((rows, cols, 4), -1, dtype=np.int64)
    table[1:, :, 0] = idx[:-1, :]
    table[:, :-1, 1] = idx[:, 1:]
    table[:-1, :, 2] = idx[1:, :]
    table[:, 1:, 3] = idx[:, :-1]
    return table.reshape(-1, 4)


def maze_from_passages(rows: int, cols: int, a: np.ndarray, b: np.ndarray) -> Maze:
    """Return the maze whose open passages join flat cell indices ``a[i]`` and ``b[i]``."""
    a, b = np.minimum(a, b), np.maximum(a, b)
    vertical = np.ones((rows, cols - 1), dtype=bool)
    horizontal = np.ones((rows - 1, cols), dtype=bool)
    right = (b - a == 1) & (cols > 1)
    vertical[a[right] // cols, a[right] % cols] = False
    down = ~right
    horizontal[a[down] // cols, a[down] % cols] = False
    return Maze(rows, cols, vertical, horizontal)


def _from_parents(rows: int, cols: int, parent: np.ndarray) -> Maze:
    child = np.flatnonzero(parent >= 0)
    return maze_from_passages(rows, cols, child, parent[child])


def dfs(rows: int, cols: int, rng: np.random.Generator, start: Cell = (0, 0)) -> Maze:
    """Return a recursive-backtracker maze (iterative, grown from ``start``, (0, 0) by default)."""
    n = rows * cols
    order = rng.permuted(lattice_neighbours(rows, cols), axis=1).ravel().tolist()
    parent = [-1] * n
    tried = [0] * n
    # The extra last slot is what the table's -1 (off the lattice) reads: always "visited".
    visited = bytearray(n + 1)
    visited[n] = 1
    root = start[0] * cols + start[1]
    visited[root] = 1
    stack = [root]
    while stack:
        cur = stack[-1]
        k = tried[cur]
        base = 4 * cur
        while k < 4:
            nxt = order[base + k]
            k += 1
            if not visited[nxt]:
                tried[cur] = k
                visited[nxt] = 1
                parent[nxt] = cur
                stack.append(nxt)
                break
        else:
            stack.pop()
    return _from_parents(rows, cols, np.asarray(parent))


def wilson(rows: int, cols: int, rng: np.random.Generator) -> Maze:
    """Return a uniform spanning tree maze (Wilson's loop-erased random walks)."""
    n = rows * cols
    table = lattice_neighbours(rows, cols)
    # A lazy walk (a move off the lattice stays put) has the same loop erasure as the plain walk.
    lazy = np.where(table >= 0, table, np.arange(n)[:, None]).ravel().tolist()
    in_tree = bytearray(n)
    in_tree[int(rng.integers(n))] = 1
    nxt = [-1] * n
    parent = [-1] * n
    chunk = max(4 * n, 1024)
    moves = rng.integers(0, 4, size=chunk).tolist()
    pos = 0
    for start in rng.permutation(n).tolist():
        if in_tree[start]:
            continue
        cur = start
        while not in_tree[cur]:
            if pos == chunk:
                moves = rng.integers(0, 4, size=chunk).tolist()
                pos = 0
            step = lazy[4 * cur + moves[pos]]
            pos += 1
            nxt[cur] = step
            cur = step
        cur = start
        while not in_tree[cur]:
            in_tree[cur] = 1
            parent[cur] = nxt[cur]
            cur = nxt[cur]
    return _from_parents(rows, cols, np.asarray(parent))


def prim(rows: int, cols: int, rng: np.random.Generator, start: Cell = (0, 0)) -> Maze:
    """Return a randomized-Prim maze grown from ``start``: each step joins a random frontier cell."""
    n = rows * cols
    table = lattice_neighbours(rows, cols).ravel().tolist()
    # 0 unseen, 1 frontier, 2 in maze; the extra last slot is what the table's -1 (off the lattice) reads.
    state = bytearray(n + 1)
    state[n] = 3
    parent = [-1] * n
    picks = rng.random(2 * n).tolist()
    root = start[0] * cols + start[1]
    state[root] = 2
    frontier = []
    for nb in table[4 * root: 4 * root + 4]:
        if not state[nb]:
            state[nb] = 1
            frontier.append(nb)
    p = 0
    while frontier:
        i = int(picks[p] * len(frontier))
        cell = frontier[i]
        frontier[i] = frontier[-1]
        frontier.pop()
        inside = []
        for nb in table[4 * cell: 4 * cell + 4]:
            seen = state[nb]
            if seen == 2:
                inside.append(nb)
            elif not seen:
                state[nb] = 1
                frontier.append(nb)
        parent[cell] = inside[int(picks[p + 1] * len(inside))]
        p += 2
        state[cell] = 2
    return _from_parents(rows, cols, np.asarray(parent))


def kruskal(rows: int, cols: int, rng: np.random.Generator) -> Maze:
    """Return a randomized-Kruskal maze: walls removed in random order when they join two trees."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    order = rng.permutation((rows - 1) * cols + rows * (cols - 1))
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])[order]
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])[order]
    root = list(range(rows * cols))
    keep = []
    need = rows * cols - 1
    for k, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=False)):
        if len(keep) == need:
            break
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        while root[y] != y:
            root[y] = root[root[y]]
            y = root[y]
        if x != y:
            root[x] = y
            keep.append(k)
    kept = np.asarray(keep, dtype=np.int64)
    return maze_from_passages(rows, cols, a[kept], b[kept])


GENERATORS: dict[str, Callable[..., Maze]] = {
    "dfs": dfs,
    "wilson": wilson,
    "prim": prim,
    "kruskal": kruskal,
}


def braid(maze: Maze, loops: float, rng: np.random.Generator) -> Maze:
    """Return a copy of ``maze`` with a fraction ``loops`` of its dead ends opened into loops.

    Each chosen dead end (visited in random order, skipped if an earlier removal already
    cured it) loses one wall, preferring a neighbour that is itself a dead end.
    """
    number(loops, 0, 1, name="loops")
    out = maze.copy()
    dead = [cell for cell in out.cells() if len(out.neighbours(cell)) == 1]
    if not dead or loops == 0:
        return out
    order = rng.permutation(len(dead))[: int(round(loops * len(dead)))]
    for k in order.tolist():
        cell = dead[k]
        if len(out.neighbours(cell)) != 1:
            continue
        open_now = set(out.neighbours(cell))
        walled = [(cell[0] + dr, cell[1] + dc) for dr, dc in MOVES]
        walled = [nb for nb in walled if out.contains(nb) and nb not in open_now]
        if not walled:
            continue
        preferred = [nb for nb in walled if len(out.neighbours(nb)) == 1] or walled
        out.set_wall(cell, preferred[int(rng.integers(len(preferred)))], closed=False)
    return out


def place_endpoints(maze: Maze, placement: Placement, rng: np.random.Generator) -> tuple[Cell, Cell]:
    """Return ``(start, goal)`` cells for a placement mode.

    ``corner``: (0, 0) and (rows-1, cols-1); ``random``: two distinct uniform cells (one cell
    mazes give the same cell twice); ``far``: the two ends of a longest shortest path.
    """
    if placement == "corner":
        return (0, 0), (maze.rows - 1, maze.cols - 1)
    if placement == "random":
        if maze.num_cells == 1:
            return (0, 0), (0, 0)
        a, b = rng.choice(maze.num_cells, size=2, replace=False).tolist()
        return maze.coord(a), maze.coord(b)
    if placement == "far":
        from .solve import distance_map

        first = distance_map(maze, (0, 0))
        a = np.unravel_index(int(np.argmax(first)), first.shape)
        second = distance_map(maze, a)
        b = np.unravel_index(int(np.argmax(second)), second.shape)
        return (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))
    raise MazeConfigError(f"unknown placement {placement!r}; choose one of {', '.join(PLACEMENTS)}")


def check_options(algorithm: str, placement: str) -> None:
    """Return None when ``algorithm`` and ``placement`` are known; else raise ``MazeConfigError`` naming the bad one."""
    if algorithm not in GENERATORS:
        raise MazeConfigError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(GENERATORS)}")
    if placement not in PLACEMENTS:
        raise MazeConfigError(f"unknown placement {placement!r}; choose one of {', '.join(PLACEMENTS)}")


def generate(
    rows: int, cols: int, algorithm: str = "dfs", seed: Seed = None, *, loops: float = 0.0,
    placement: Placement = "corner",
) -> Maze:
    """Return a new maze of ``algorithm`` for ``seed``, braided by ``loops``, with start/goal by ``placement``."""
    _check_size(rows, cols)
    check_options(algorithm, placement)
    rng = as_rng(seed)
    maze = GENERATORS[algorithm](int(rows), int(cols), rng)
    if loops:
        maze = braid(maze, loops, rng)
    start, goal = place_endpoints(maze, placement, rng)
    maze.start, maze.goal = start, goal
    maze.meta = {"algorithm": algorithm, "loops": loops, "placement": placement}
    if isinstance(seed, (int, np.integer)):
        maze.meta["seed"] = int(seed)
    return maze
