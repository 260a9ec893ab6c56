"""The explored map: windows written by dead reckoning, growth that keeps what was seen, the seen box."""

import numpy as np

from maze_envs.agents.explored import ExploredMaps, steps_seen
from maze_envs.core.codes import AGENT, FREE, GOAL, MASKED, WALL

M, W, F, G = MASKED, WALL, FREE, GOAL
VIEW = np.array([[M, W, M], [W, AGENT, F], [M, F, G]], dtype=np.uint8)


def test_a_window_is_written_around_the_position_and_growth_keeps_it():
    maps = ExploredMaps(order=True)
    maps.integrate(VIEW[None])
    first = maps.canvas[0].copy()
    codes, agent, start = maps.seen()
    assert agent == start and codes[agent] == AGENT
    assert codes.shape == (5, 5) and (codes[0] == MASKED).all() and (codes[:, -1] == MASKED).all()
    assert codes[1 + 1, 1 + 2] == FREE and codes[1 + 2, 1 + 2] == GOAL and codes[1 + 1, 1] == WALL
    for _ in range(5):        # walk right past the canvas edge: it grows, the start moves with it
        maps.move(1, 1)
        maps.integrate(VIEW[None])
    assert maps.displacement() == (0, 5) and maps.canvas.shape[2] > first.shape[1]
    row, col = maps.origin    # the start window's left column, which no later window covers, is kept
    assert maps.canvas[0, row - 1:row + 2, col - 1].tolist() == first[1:4, 1].tolist() == [M, W, M]
    assert maps.goal() is not None and maps.known().sum() == (maps.discovered[0] >= 0).sum()
    assert sorted(maps.discovered[0][maps.discovered[0] >= 0]) == list(range(int(maps.known().sum())))


def test_moves_stop_before_the_first_wall_the_window_shows():
    view = np.full((5, 5), FREE, dtype=np.uint8)
    view[2, 4] = WALL          # two blocks right: a wall one block beyond the first
    view[0, 2] = MASKED
    views = np.stack([view] * 3)
    assert steps_seen(views, np.array([1, 1, 2]), np.array([2, 1, 2])).tolist() == [1, 1, 2]


def test_maps_of_several_envs_advance_apart_and_reset_alone():
    maps = ExploredMaps(2, reach=(4, 4))
    maps.integrate(np.stack([VIEW, VIEW]))
    maps.move(np.array([1, 2]), np.array([1, 1]))
    assert [maps.displacement(0), maps.displacement(1)] == [(0, 1), (1, 0)]
    crop = maps.crop(2, 2)
    assert crop.shape == (2, 5, 5) and (crop[:, 2, 2] == AGENT).all() and maps.canvas.shape == (2, 9, 9)
    maps.reset(np.array([1]))
    assert maps.displacement(1) == (0, 0) and not maps.known(1).any() and maps.known(0).any()
