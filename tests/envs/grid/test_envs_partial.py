"""Maze-PartialObs-v0: golden visibility on hand-made grids, multi-block moves, exploration truncation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import maze_envs  # noqa: F401
from maze_envs.core import Grid
from maze_envs.core.codes import AGENT, FREE, GOAL, MASKED, WALL
from maze_envs.envs.grid.visibility import bresenham_between, visible_mask

M, W, F, A, G = MASKED, WALL, FREE, AGENT, GOAL
UP, RIGHT, DOWN, LEFT = range(4)


def window(blocks, start, goal, k):
    env = gym.make("Maze-PartialObs-v0", maze=Grid(np.array(blocks), start, goal), visibility=k)
    return env.reset(seed=0)[0]


def test_sight_lines_follow_the_benchmark_convention():
    assert bresenham_between((0, 0), (0, 1)) == []
    assert bresenham_between((0, 0), (3, 0)) == [(1, 0), (2, 0)]
    assert bresenham_between((0, 0), (2, 1)) == [(1, 0)]
    assert bresenham_between((0, 0), (1, 2)) == [(0, 1)]
    assert bresenham_between((0, 0), (2, 2)) == [(1, 1)]
    assert bresenham_between((2, 2), (0, 1)) == [(1, 2)]  # not symmetric: rows step first here


def test_golden_wall_seen_but_not_what_lies_behind_it():
    blocks = [[0, 0, 0, 0, 0],
              [0, 0, 1, 0, 0],
              [0, 1, 0, 0, 0],
              [0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0]]
    expected = [[M, M, M, M, M],
                [M, F, W, F, M],
                [M, W, A, F, F],
                [M, F, F, F, M],
                [M, M, F, M, M]]
    assert window(blocks, (2, 2), (4, 4), 2).tolist() == expected


def test_golden_diagonal_occlusion_and_goal_shows_only_when_visible():
    blocks = [[0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0],
              [0, 0, 1, 0, 0],
              [0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0]]
    view = window(blocks, (1, 1), (3, 3), 3)
    assert view[3, 3] == A
    assert view[4, 4] == W          # the wall at (2, 2) itself is seen
    assert view[5, 5] == M          # the goal (3, 3) hides behind it on the diagonal
    assert view[5, 4] == F          # (3, 2): its line passes (2, 1), which is open
    assert not (view == G).any()
    visible_goal = window(blocks, (1, 1), (1, 3), 3)
    assert visible_goal[3, 5] == G


def test_golden_corner_start_of_a_ringed_maze():
    # The goal (3, 3) sits on the diagonal behind the pillar (2, 2); (2, 3) and (3, 2) are seen past its sides.
    blocks = [[1, 1, 1, 1, 1],
              [1, 0, 0, 0, 1],
              [1, 0, 1, 0, 1],
              [1, 0, 0, 0, 1],
              [1, 1, 1, 1, 1]]
    expected = [[M, M, M, M, M, M, M],
                [M, M, M, M, M, M, M],
                [M, M, W, W, W, W, M],
                [M, M, W, A, F, F, W],
                [M, M, W, F, W, F, M],
                [M, M, W, F, F, M, M],
                [M, M, M, W, M, M, M]]
    assert window(blocks, (1, 1), (3, 3), 3).tolist() == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_table_visibility_equals_the_per_block_definition(seed, k):
    rng = np.random.default_rng(seed)
    blocks = (rng.random((9, 9)) < 0.35).astype(np.uint8)
    agent = (int(rng.integers(9)), int(rng.integers(9)))
    blocks[agent] = 0
    mask = visible_mask(blocks, agent, k)
    for r in range(9):
        for c in range(9):
            near = abs(r - agent[0]) + abs(c - agent[1]) <= k
            clear = all(blocks[b] == 0 for b in bresenham_between(agent, (r, c)))
            assert mask[r, c] == (near and clear), (agent, (r, c))


CORRIDOR = Grid(np.array([[1] * 9, [1, 0, 0, 0, 0, 0, 0, 0, 1], [1] * 9]), (1, 1), (1, 7))


def test_multi_block_moves_stop_at_walls_and_at_the_goal():
    env = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=3, action_mode="multi")
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.array([RIGHT, 2]))
    assert info["position"] == (1, 4) and info["moved"] == 3
    _, _, _, _, info = env.step(np.array([UP, 2]))
    assert info["position"] == (1, 4) and info["moved"] == 0 and info["wall_bumps"] == 1
    _, reward, terminated, _, info = env.step(np.array([RIGHT, 2]))
    assert terminated and reward == 1.0 and info["position"] == (1, 7) and info["moved"] == 3
    env.reset()
    env.step(np.array([LEFT, 2]))
    assert env.unwrapped.wall_bumps == 1


def test_single_action_mode_moves_one_block():
    env = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, action_mode="single")
    assert env.action_space == gym.spaces.Discrete(4)
    env.reset(seed=0)
    assert env.step(RIGHT)[4]["position"] == (1, 2)


def test_truncates_after_steps_that_reveal_nothing_new():
    env = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=1, max_no_exploration_steps=3, action_mode="multi")
    env.reset(seed=0)
    outcomes = [env.step(np.array([UP, 0]))[3] for _ in range(3)]
    assert outcomes == [False, False, True]
    env.reset()
    env.step(np.array([UP, 0]))
    assert env.step(np.array([RIGHT, 0]))[4]["no_exploration_steps"] == 0
    off = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=1, max_no_exploration_steps=None, max_steps=50,
                   action_mode="multi")
    off.reset(seed=0)
    assert not any(off.step(np.array([UP, 0]))[3] for _ in range(49))


def test_explored_map_remembers_what_was_seen_without_marking_the_agent():
    env = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=2, explored_map=True, action_mode="multi")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"view", "explored"} and obs["explored"].shape == (3, 9)
    assert obs["explored"][1].tolist() == [W, F, F, F, M, M, M, M, M]
    obs, *_ = env.step(np.array([RIGHT, 1]))
    assert obs["explored"][1].tolist() == [W, F, F, F, F, F, M, M, M]
    assert not (obs["explored"] == AGENT).any()
    assert obs["view"][2, 2] == AGENT


def test_a_level_set_prepares_each_level_once_in_the_single_and_the_vector_env():
    """Per-level work (board, path length, every window) is done on a level's first reset, then reused."""
    from maze_envs.envs.grid.vector import PartialObsMazeVectorEnv

    env = gym.make("Maze-PartialObs-v0", rows=4, cols=4, num_levels=3).unwrapped
    windows = {}
    for seed in range(30):
        env.reset(seed=seed)
        views = env._layout_cache["views"]
        assert windows.setdefault(id(env.layout), views) is views
    assert len(env._layouts) == len(windows) == 3
    venv = PartialObsMazeVectorEnv(num_envs=8, rows=4, cols=4, num_levels=3)
    venv.reset(seed=0)
    for _ in range(60):
        venv.step(np.zeros(8, dtype=np.int64))
    assert len(venv._known.index) == len(venv._known.codes) == 3
