"""Frontier exploration on known-cells grids: frontiers, routes to a reachable goal, nearest or latest frontier."""

import numpy as np

from maze_envs.core.explore import explore_route, frontier
from maze_envs.core.maze import Grid
from maze_envs.core.solve import validate_path

# A corridor row 1 of a 3x7 grid, walls around; the agent knows columns 0-4 of it.
BLOCKS = np.array([[1, 1, 1, 1, 1, 1, 1],
                   [1, 0, 0, 0, 0, 0, 1],
                   [1, 0, 1, 1, 1, 1, 1]])
KNOWN = np.zeros(BLOCKS.shape, bool)
KNOWN[:, :5] = True
KNOWN[2, 1] = False


def test_frontier_is_known_free_next_to_unknown_inside_the_grid():
    mask = frontier(KNOWN, BLOCKS == 0)
    assert sorted(map(tuple, np.argwhere(mask).tolist())) == [(1, 1), (1, 4)]
    assert not frontier(np.ones_like(KNOWN), BLOCKS == 0).any()


def test_nearest_frontier_without_recency_and_latest_with_it():
    free = BLOCKS == 0
    assert explore_route(KNOWN, free, (1, 3)) == [(1, 3), (1, 4)]
    recency = np.zeros(BLOCKS.shape, int)
    recency[1, 1] = 5
    assert explore_route(KNOWN, free, (1, 3), recency=recency) == [(1, 3), (1, 2), (1, 1)]


def test_ties_go_top_left_and_the_current_block_is_never_a_target():
    known = np.ones(BLOCKS.shape, bool)
    known[2, 1] = known[1, 5] = False
    assert explore_route(known, BLOCKS == 0, (1, 3)) == [(1, 3), (1, 4)]
    assert explore_route(known, BLOCKS == 0, (1, 2)) == [(1, 2), (1, 1)]
    assert explore_route(known, BLOCKS == 0, (1, 1))[-1] == (1, 4)


def test_a_reachable_goal_wins_and_routes_never_cross_walls_or_unknown_blocks():
    free = BLOCKS == 0
    route = explore_route(KNOWN, free, (1, 4), goal=(1, 1))
    assert route == [(1, 4), (1, 3), (1, 2), (1, 1)]
    assert validate_path(Grid(BLOCKS, (1, 4), (1, 1)), route).valid
    assert explore_route(KNOWN, free, (1, 2), goal=(1, 5)) == [(1, 2), (1, 1)]  # an unknown goal: explore
    assert explore_route(np.ones_like(KNOWN), free, (1, 2)) == []
