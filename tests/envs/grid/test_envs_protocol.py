"""The mazebench protocol preset next to the default rules: rewards, cells moved, exploration, baselines."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401
from maze_envs.agents.base import run_episode
from maze_envs.agents.explorer import FrontierExplorer
from maze_envs.agents.oracle import OracleAgent
from maze_envs.agents.random_agent import RandomAgent
from maze_envs.core import Grid
from maze_envs.core.errors import MazeConfigError

UP, RIGHT, DOWN, LEFT = range(4)
# A corridor: start (1, 1), goal (1, 5); row 1 open, everything else wall.
CORRIDOR = Grid(np.array([[1] * 7, [1, 0, 0, 0, 0, 0, 1], [1] * 7]), (1, 1), (1, 5))


def test_mazebench_rewards_cells_and_nothing_after_the_goal():
    env = gym.make("Maze-v0", maze=CORRIDOR, protocol="mazebench")
    _, info = env.reset(seed=0)
    assert info["steps"] == 0 and info["actions"] == 0
    rewards = [env.step(a)[1] for a in (UP, RIGHT, RIGHT, LEFT, RIGHT, RIGHT)]
    assert rewards == pytest.approx([-1.0, -0.1, -0.1, -0.1, -0.1, -0.1])
    _, reward, terminated, _, info = env.step(RIGHT)
    assert reward == 100.0 and terminated and info["success"]
    assert info["steps"] == 6 and info["actions"] == 7 and info["wall_bumps"] == 1
    _, reward, terminated, _, after = env.step(LEFT)
    assert reward == 0.0 and terminated and after["position"] == (1, 5) and after["steps"] == 6


def test_default_rules_are_unchanged_and_steps_count_actions():
    env = gym.make("Maze-v0", maze=CORRIDOR)
    env.reset(seed=0)
    assert env.step(UP)[1] == 0.0
    *_, info = env.step(RIGHT)
    assert info["steps"] == 2 and "actions" not in info


def test_explicit_rewards_override_the_preset():
    env = gym.make("Maze-v0", maze=CORRIDOR, protocol="mazebench", step_reward=-0.5, wall_reward=-2)
    env.reset(seed=0)
    assert [env.step(a)[1] for a in (UP, RIGHT)] == [-2.0, -0.5]
    assert gym.make("Maze-v0", maze=CORRIDOR, wall_reward=-3).unwrapped.wall_reward == -3.0


def test_no_exploration_counter_is_reset_by_a_newly_visited_block_and_fails_the_run():
    env = gym.make("Maze-v0", maze=CORRIDOR, protocol="mazebench", max_no_exploration_steps=5)
    env.reset(seed=0)
    counts = [env.step(a)[-1]["no_exploration_steps"] for a in (RIGHT, LEFT, UP, RIGHT, RIGHT)]
    assert counts == [0, 1, 3, 4, 0]  # back to a visited block +1, a failed move +2, a new block resets
    for action in (LEFT, RIGHT, LEFT, RIGHT, LEFT):
        *_, truncated, info = env.step(action)
    assert truncated and not info["success"] and info["no_exploration_steps"] == 5


def test_partial_preset_counts_cells_of_multi_block_moves_and_the_wall_at_their_end():
    env = gym.make("Maze-PartialObs-v0", maze=CORRIDOR, protocol="mazebench", visibility=3)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(np.array([RIGHT, 2]))
    assert reward == pytest.approx(-0.1) and info["steps"] == 3 and info["moved"] == 3
    _, reward, _, _, info = env.step(np.array([UP, 0]))
    assert reward == -1.0 and info["moved"] == 0 and info["no_exploration_steps"] == 2
    _, reward, terminated, _, info = env.step(np.array([RIGHT, 2]))
    assert reward == 100.0 and terminated and info["steps"] == 4 and info["actions"] == 3


def test_unknown_protocol_and_the_native_vector_env_say_what_is_wrong():
    with pytest.raises(MazeConfigError, match="protocol: must be one of default, mazebench"):
        gym.make("Maze-v0", protocol="maze-bench")
    with pytest.raises(MazeConfigError, match="protocol='mazebench'"):
        gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", protocol="mazebench")


@pytest.mark.parametrize("size", [(2, 2), (4, 4), (7, 7)])
def test_baselines_run_on_the_preset_in_both_envs(size):
    rows, cols = size
    full = gym.make("Maze-v0", rows=rows, cols=cols, protocol="mazebench", max_episode_steps=10_000)
    for seed in range(5):
        result = run_episode(full, OracleAgent(full), seed)
        optimal = result.info["optimal_length"]
        assert result.success and result.info["steps"] == optimal
        assert result.total_reward == pytest.approx(100 - 0.1 * (optimal - 1))
    partial = gym.make("Maze-PartialObs-v0", rows=rows, cols=cols, protocol="mazebench", max_episode_steps=10_000)
    explorer = FrontierExplorer(partial.action_space)
    results = [run_episode(partial, explorer, seed, hide=("position", "goal")) for seed in range(5)]
    assert sum(r.success for r in results) >= 4
    random_result = run_episode(partial, RandomAgent(partial.action_space, 0), 0)
    assert random_result.info["actions"] == random_result.steps
