"""Solvers against an independent reference BFS, on mazes and on arbitrary grids."""

from collections import deque
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from maze_envs.core import Grid, distance_map, generate, shortest_path, validate_path
from maze_envs.core.solve import border_path_lengths, pair_path_lengths, path_faults, path_length


def reference_bfs(blocks, source):
    dist = np.full(blocks.shape, -1)
    dist[source] = 0
    queue = deque([source])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < blocks.shape[0] and 0 <= nc < blocks.shape[1] and not blocks[nr, nc] and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                queue.append((nr, nc))
    return dist


@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 500), st.sampled_from(["dfs", "kruskal"]),
       st.floats(0, 1))
def test_maze_distances_match_reference_on_the_block_grid(rows, cols, seed, algorithm, loops):
    maze = generate(rows, cols, algorithm, seed, loops=loops)
    cell_dist = distance_map(maze)
    block_dist = reference_bfs(maze.to_blocks(), (1, 1))
    assert np.array_equal(cell_dist * 2, block_dist[1::2, 1::2])
    assert np.array_equal(distance_map(maze.to_grid()), block_dist)


@given(st.integers(0, 10_000))
def test_grid_solver_on_random_grids(seed):
    rng = np.random.default_rng(seed)
    blocks = (rng.random((9, 11)) < 0.3).astype(np.uint8)
    blocks[0, 0] = blocks[8, 10] = 0
    grid = Grid(blocks, (0, 0), (8, 10))
    ref = reference_bfs(blocks, (0, 0))
    assert np.array_equal(distance_map(grid), ref)
    path = shortest_path(grid)
    if ref[8, 10] < 0:
        assert path is None and path_length(grid) == -1
    else:
        assert len(path) - 1 == ref[8, 10]
        assert validate_path(grid, path).valid


def test_shortest_path_is_valid_and_includes_both_ends():
    maze = generate(20, 20, "wilson", 1)
    path = shortest_path(maze)
    assert path[0] == maze.start and path[-1] == maze.goal
    assert validate_path(maze, path) == validate_path(maze, path)
    assert validate_path(maze, path).valid and validate_path(maze, path).reaches_goal


def test_single_cell_path():
    maze = generate(1, 1, "dfs", 0)
    assert shortest_path(maze) == [(0, 0)]


@pytest.mark.parametrize("mutate, reason", [
    (lambda p: [], "empty path"),
    (lambda p: p[1:], "starts at"),
    (lambda p: p[:-1], "ends at"),
    (lambda p: [p[0], (p[0][0] + 2, p[0][1])] + p[1:], "not a 4-adjacent move"),
    (lambda p: p[:1] + [(-1, 0)] + p[1:], "out of bounds"),
])
def test_validate_path_reasons(mutate, reason):
    maze = generate(6, 6, "dfs", 4)
    check = validate_path(maze, mutate(shortest_path(maze)))
    assert not check.valid and reason in check.reason


def test_validate_path_detects_a_wall_crossing():
    maze = generate(6, 6, "dfs", 4)
    a = (0, 0)
    walled = next(b for b in ((0, 1), (1, 0)) if b not in maze.neighbours(a))
    check = validate_path(maze, [a, walled], require_goal=False)
    assert not check.valid and "crosses a wall" in check.reason and check.index == 1


def test_border_path_lengths_count_cells():
    maze = generate(5, 7, "prim", 2)
    cells, lengths = border_path_lengths(maze)
    assert len(cells) == 2 * 5 + 2 * 7 - 4 == len(set(cells))
    i, j = cells.index((0, 0)), cells.index((4, 6))
    assert lengths[i, j] == len(shortest_path(maze, (0, 0), (4, 6)))
    assert np.array_equal(lengths, lengths.T) and (np.diag(lengths) == 1).all()
    assert np.array_equal(pair_path_lengths(maze, cells[:3]), lengths[:3, :3])


def test_a_grid_cannot_be_walled_in_place_behind_its_cached_graph():
    """Walling every block in place used to leave ``shortest_path`` answering from the stale cached graph."""
    grid = generate(5, 5, "dfs", 3).to_grid()
    path = shortest_path(grid)
    with pytest.raises(ValueError, match="read-only"):
        grid.blocks[:] = 1
    with pytest.raises(ValueError, match="read-only"):
        grid.blocks[path[1]] = 1
    with pytest.raises(FrozenInstanceError):
        grid.blocks = np.ones_like(grid.blocks)
    assert shortest_path(grid) == path
    walled = np.ones_like(grid.blocks)
    walled[grid.start] = walled[grid.goal] = 0
    assert shortest_path(Grid(walled, grid.start, grid.goal)) is None


def test_path_faults_finds_each_first_fault_and_callers_choose_the_order():
    grid = np.zeros((3, 3), dtype=np.uint8)
    grid[1, 1] = 1
    inside = lambda cell: 0 <= cell[0] < 3 and 0 <= cell[1] < 3  # noqa: E731
    walk = [(0, 0), (0, 1), (1, 1), (1, 3), (2, 2), (2, 3)]
    faults = path_faults(walk, inside, lambda previous, cell: bool(grid[cell]))
    assert (faults.jump, faults.outside, faults.wall) == (3, 3, 2)
    assert faults.first(("jump", "outside", "wall")) == ("wall", 2)
    assert faults.first(("jump",)) == ("jump", 3) and faults.first(("outside", "jump")) == ("outside", 3)
    far = path_faults([(0, 1)], inside, lambda p, c: False, before=(2, 2))
    assert far.first(("outside", "jump", "wall")) == ("jump", 0)
    assert path_faults([(0, 1), (0, 2)], inside, lambda p, c: False, before=(0, 0)).first(("jump", "outside")) is None
