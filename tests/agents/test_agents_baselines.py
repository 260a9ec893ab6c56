"""Baseline agents: the oracle is optimal, the frontier explorer finds the goal from observations alone."""

from __future__ import annotations

import gymnasium as gym
import pytest

import maze_envs  # noqa: F401
from maze_envs.agents.base import Agent, action_along, run_episode
from maze_envs.agents.explorer import FrontierExplorer
from maze_envs.agents.oracle import OracleAgent
from maze_envs.agents.random_agent import RandomAgent

HIDDEN = ("position", "goal")


def test_agents_follow_the_interface():
    env = gym.make("Maze-PartialObs-v0")
    for agent in (RandomAgent(env.action_space, 0), OracleAgent(env), FrontierExplorer(env.action_space)):
        assert isinstance(agent, Agent)


def test_oracle_is_optimal_in_maze_v0_on_100_seeds():
    env = gym.make("Maze-v0", rows=8, cols=8, placement="random")
    oracle = OracleAgent(env)
    for seed in range(100):
        result = run_episode(env, oracle, seed)
        assert result.success and result.steps == result.info["optimal_length"], seed


def test_oracle_uses_straight_runs_in_the_partial_env():
    env = gym.make("Maze-PartialObs-v0", rows=6, cols=6, action_mode="multi")
    result = run_episode(env, OracleAgent(env), 3)
    assert result.success and result.steps < result.info["optimal_length"]


@pytest.mark.parametrize("kwargs", [{}, {"placement": "random", "action_mode": "single"}])
def test_explorer_reaches_the_goal_on_100_seeds_without_coordinates(kwargs):
    env = gym.make("Maze-PartialObs-v0", rows=10, cols=10, max_no_exploration_steps=None, **kwargs)
    explorer = FrontierExplorer(env.action_space)
    for seed in range(100):
        result = run_episode(env, explorer, seed, hide=HIDDEN)
        assert result.success, (seed, result.info)
        assert result.steps <= env.unwrapped.max_steps


def test_explorer_reads_only_the_view_of_a_dict_observation():
    env = gym.make("Maze-PartialObs-v0", rows=5, cols=5, explored_map=True)
    assert run_episode(env, FrontierExplorer(env.action_space), 1, hide=HIDDEN).success


def test_random_agent_is_seeded():
    def actions(seed):
        agent = RandomAgent(gym.spaces.MultiDiscrete([4, 3]), seed)
        return [agent.act(None, {}).tolist() for _ in range(20)]

    assert actions(4) == actions(4) != actions(5)
    result = run_episode(gym.make("Maze-v0", rows=2, cols=2), RandomAgent(gym.spaces.Discrete(4), 0), 0)
    assert result.steps >= 1


def test_action_along_splits_paths_into_straight_runs():
    path = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5)]
    assert action_along(path, gym.spaces.Discrete(4)) == 1
    assert action_along(path, gym.spaces.MultiDiscrete([4, 3])).tolist() == [1, 2]
    assert action_along(path[3:], gym.spaces.MultiDiscrete([4, 3])).tolist() == [1, 0]
    with pytest.raises(ValueError):
        action_along(path[:1], gym.spaces.Discrete(4))
