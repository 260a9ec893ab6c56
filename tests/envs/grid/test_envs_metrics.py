"""The episode-metrics wrapper and its vector form: numbers on known episodes."""

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401
from maze_envs.agents.base import run_episode
from maze_envs.agents.oracle import OracleAgent
from maze_envs.core.maze import Grid
from maze_envs.envs.metrics import METRIC_KEYS, EpisodeMetricsWrapper, VectorEpisodeMetrics, episode_metrics

CORRIDOR = Grid(np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]], dtype=np.uint8), (1, 1), (1, 3))


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_oracle_walks_with_efficiency_one(env_id):
    env = EpisodeMetricsWrapper(gym.make(env_id, rows=6, cols=6))
    for seed in range(5):
        metrics = run_episode(env, OracleAgent(env), seed).info["episode_metrics"]
        assert set(metrics) == set(METRIC_KEYS)
        assert metrics["success"] and metrics["path_efficiency"] == 1.0 and metrics["wall_bumps"] == 0
        assert metrics["moves"] == metrics["optimal_length"] and metrics["return"] == 1.0


def test_a_known_walk_in_a_corridor():
    env = EpisodeMetricsWrapper(gym.make("Maze-v0", maze=CORRIDOR, step_reward=-0.5))
    env.reset(seed=0)
    for action in (0, 3, 1, 3, 1):  # bump up, bump left, right, back left, right
        *_, info = env.step(action)
        assert "episode_metrics" not in info
    *_, terminated, _, info = env.step(1)
    metrics = info["episode_metrics"]
    assert terminated
    assert metrics == {"success": True, "steps": 6, "return": -1.5, "optimal_length": 2, "moves": 4,
                       "path_efficiency": 0.5, "wall_bumps": 2, "revealed_share": None, "spl": None,
                       "collisions": None}


def test_partial_view_reports_the_share_revealed_and_failure_scores_zero():
    env = EpisodeMetricsWrapper(
        gym.make("Maze-PartialObs-v0", rows=8, cols=8, max_no_exploration_steps=2, action_mode="multi")
    )
    env.reset(seed=3)
    done = False
    while not done:
        *_, terminated, truncated, info = env.step(np.array([0, 0]))  # keep bumping up
        done = terminated or truncated
    metrics = info["episode_metrics"]
    assert not metrics["success"] and metrics["path_efficiency"] == 0.0
    assert 0 < metrics["revealed_share"] < 1
    assert metrics["revealed_share"] == info["revealed"] / (17 * 17)


def test_navigation_keys_are_read_from_info():
    metrics = episode_metrics(False, 12, 0.5, None, {"success": True, "spl": 0.8, "collisions": 3}, None)
    assert metrics["success"] and metrics["spl"] == 0.8 and metrics["collisions"] == 3
    assert metrics["path_efficiency"] is None and metrics["optimal_length"] is None


def test_openings_success_is_the_correct_answer():
    env = EpisodeMetricsWrapper(gym.make("Maze-Openings-v0"))
    _, info = env.reset(seed=0)
    *_, reward, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert info["episode_metrics"]["success"] == bool(reward)


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_vector_form_matches_the_single_wrapper(env_id):
    kwargs = dict(rows=4, cols=4)
    venv = VectorEpisodeMetrics(gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", **kwargs))
    singles = [EpisodeMetricsWrapper(gym.make(env_id, **kwargs)) for _ in range(3)]
    venv.reset(seed=10)
    for i, env in enumerate(singles):
        env.reset(seed=10 + i)
    space = venv.single_action_space
    space.seed(0)
    restart = np.zeros(3, dtype=bool)
    ended = 0
    for _ in range(300):
        actions = [space.sample() for _ in range(3)]
        *_, info = venv.step(np.stack(actions))
        for i, env in enumerate(singles):
            if restart[i]:
                env.reset()
                continue
            *_, terminated, truncated, single_info = env.step(actions[i])
            if terminated or truncated:
                ended += 1
                assert info["_episode_metrics"][i]
                expected = single_info["episode_metrics"]
                got = {k: info["episode_metrics"][k][i] for k in METRIC_KEYS}
                for key in METRIC_KEYS:
                    assert (
                        np.isnan(got[key]) if expected[key] is None else got[key] == pytest.approx(float(expected[key]))
                    ), key
        restart = info.get("_episode_metrics", np.zeros(3, dtype=bool))
    assert ended >= 3
