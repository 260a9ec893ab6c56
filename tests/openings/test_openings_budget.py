"""The openings generator under the work budget: sizes whose samples would take more than about a second are
refused by name before any work, the accepted ones finish, and the tree pair search it relies on agrees with
one BFS per cell."""

import gymnasium as gym
import numpy as np
import pytest
from scipy.sparse import csgraph

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.budget import WORK_BUDGET_SECONDS, check_work
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import braid, dfs, kruskal, prim, wilson
from maze_envs.core.solve import pair_path_lengths, tree_pair_path_lengths
from maze_envs.openings.dataset import OpeningsDatasetConfig
from maze_envs.openings.puzzle import (
    check_request,
    eligible_openings,
    generate_openings,
    largest_square,
    sample_seconds,
)

REFUSED = r"^rows/cols would take about [\d.e+]+ s per sample \(estimated for one core\), more than the 1 s allowed"


def bfs_lengths(layout, cells):
    idx = [layout.index(c) for c in cells]
    dist = csgraph.shortest_path(layout.adjacency, unweighted=True, indices=idx)[:, idx]
    return np.where(np.isinf(dist), 0, dist + 1).astype(np.int64)


@pytest.mark.parametrize("make", [lambda r, c, g: dfs(r, c, g, (0, 0)), wilson, prim, kruskal])
@pytest.mark.parametrize("shape", [(2, 2), (3, 7), (15, 11), (40, 40)])
def test_tree_pair_lengths_equal_one_bfs_per_cell(make, shape):
    rng = np.random.default_rng(sum(shape))
    maze = make(*shape, rng)
    cells = [o.cell(*shape) for o in eligible_openings(*shape)] + [(0, 0), (0, 0), (shape[0] - 1, shape[1] - 1)]
    np.testing.assert_array_equal(pair_path_lengths(maze, cells), bfs_lengths(maze, cells))


def test_graphs_that_are_not_one_tree_fall_back_to_bfs():
    rng = np.random.default_rng(3)
    looped = braid(dfs(12, 12, rng, (0, 0)), 0.5, rng)
    cells = [o.cell(12, 12) for o in eligible_openings(12, 12)]
    np.testing.assert_array_equal(pair_path_lengths(looped, cells), bfs_lengths(looped, cells))
    walled = dfs(6, 6, rng, (0, 0))
    walled.set_wall((0, 0), (0, 1), closed=True) if walled.passable((0, 0), (0, 1)) else \
        walled.set_wall((0, 0), (1, 0), closed=True)  # one tree cut in two: a forest
    cells = [(r, c) for r in range(6) for c in range(6)]
    np.testing.assert_array_equal(pair_path_lengths(walled, cells), bfs_lengths(walled, cells))
    assert tree_pair_path_lengths(walled.adjacency, np.arange(36)) is None
    grid = dfs(4, 4, rng, (0, 0)).to_grid()  # blocks: walls are isolated nodes
    blocks = [(1, 1), (7, 7), (0, 0), (3, 5)]
    np.testing.assert_array_equal(pair_path_lengths(grid, blocks), bfs_lengths(grid, blocks))


def test_sizes_over_the_budget_are_refused_by_name_before_any_work():
    with pytest.raises(MazeConfigError, match=REFUSED) as err:
        gym.make("Maze-Openings-v0", rows=(200, 200), cols=(200, 200))
    assert f"at most {largest_square()}x{largest_square()}" in str(err.value)
    for call in (lambda: generate_openings(200, 200, 6, 0), lambda: generate_openings(3, 5000, 3, 0),
                 lambda: OpeningsDatasetConfig(count=1, rows=(8, 400), cols=(8, 20))):
        with pytest.raises(MazeConfigError, match=REFUSED):
            call()


def test_the_largest_accepted_square_is_the_last_within_the_budget():
    side = largest_square()
    assert sample_seconds(side, side) <= WORK_BUDGET_SECONDS < sample_seconds(side + 1, side + 1)
    check_request(side, side, 6)
    with pytest.raises(MazeConfigError, match=REFUSED):
        check_request(side + 1, side + 1, 6)
    assert sample_seconds(20, 20) < sample_seconds(20, 40) < sample_seconds(40, 40)


def test_accepted_sizes_still_generate_the_same_puzzles():
    env = gym.make("Maze-Openings-v0", rows=40, cols=40, openings=6)
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    np.testing.assert_array_equal(a["image"], b["image"])
    assert generate_openings(40, 40, 6, 5).answer == generate_openings(40, 40, 6, 5).answer


def test_check_work_returns_what_fits():
    assert check_work("x", 0.5) == 0.5
    with pytest.raises(MazeConfigError, match="^--size would take about 2 s per sample"):
        check_work("--size", 2.0)
