"""Native vector envs equal N single envs step by step; sync/async vectorization."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import maze_envs  # noqa: F401
from maze_envs.core import generate
from maze_envs.core.errors import MazeConfigError
from maze_envs.envs.grid.vector import BATCH_MIN

CASES = [
    ("Maze-v0", {}),
    ("Maze-v0", {"placement": "random", "step_reward": -0.1}),
    ("Maze-v0", {"algorithm": "wilson", "loops": 0.2}),
    ("Maze-PartialObs-v0", {}),
    ("Maze-PartialObs-v0", {"visibility": 2, "explored_map": True, "placement": "random", "action_mode": "multi"}),
    ("Maze-PartialObs-v0", {"action_mode": "single", "max_no_exploration_steps": 5}),
]


def _actions(env_id, kwargs, rng, n):
    if env_id == "Maze-v0" or kwargs.get("action_mode") != "multi":
        return rng.integers(0, 4, n)
    return rng.integers(0, [4, kwargs.get("visibility", 3)], (n, 2))


def _same(a, b):
    if isinstance(a, dict):
        return all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_vector_env_equals_single_envs_step_by_step(env_id, kwargs):
    n = BATCH_MIN + 2  # the first reset takes the batched generator's path where it applies
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", rows=3, cols=3, **kwargs)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    singles = [gym.make(env_id, rows=3, cols=3, **kwargs) for _ in range(n)]
    obs, info = venv.reset(seed=7)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=7 + i)
        assert _same({k: v[i] for k, v in obs.items()} if isinstance(obs, dict) else obs[i], o)
        assert inf["optimal_length"] == info["optimal_length"][i]
    assert len({venv.unwrapped._codes[i].tobytes() for i in range(n)}) > 1  # sub-envs seeded differently
    done = [False] * n
    rng = np.random.default_rng(0)
    for _ in range(120):
        actions = _actions(env_id, kwargs, rng, n)
        obs, reward, terminated, truncated, info = venv.step(actions)
        for i, env in enumerate(singles):
            if done[i]:
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, inf = env.step(actions[i])
            done[i] = te or tr
            assert _same({k: v[i] for k, v in obs.items()} if isinstance(obs, dict) else obs[i], o)
            assert (r, te, tr) == (reward[i], terminated[i], truncated[i])
            for key in ("steps", "wall_bumps", "optimal_length"):
                assert inf[key] == info[key][i]
            assert tuple(info["position"][i]) == inf["position"]
    assert venv.observation_space.contains(obs)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_sync_and_async_vectorization_work(mode):
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=2, vectorization_mode=mode, rows=3, cols=3)
    obs, _ = venv.reset(seed=0)
    assert obs.shape == (2, 7, 7)
    for _ in range(5):
        obs, reward, terminated, truncated, info = venv.step(venv.action_space.sample())
    assert obs.shape == (2, 7, 7) and reward.shape == (2,)
    venv.close()


def test_vector_env_options_and_errors():
    venv = gym.make_vec("Maze-v0", num_envs=3, vectorization_mode="vector_entry_point", rows=2, cols=2)
    fixed = generate(2, 2, "dfs", 5)
    obs, info = venv.reset(seed=[1, 2, 3], options={"maze": fixed})
    assert (obs == obs[0]).all() and (info["optimal_length"] == info["optimal_length"][0]).all()
    with pytest.raises(MazeConfigError, match="seed"):
        venv.reset(seed=[1, 2])
    with pytest.raises(MazeConfigError, match="render"):
        gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", render_mode="human")
    with pytest.raises(MazeConfigError, match="visibility"):
        gym.make_vec("Maze-PartialObs-v0", num_envs=2, vectorization_mode="vector_entry_point", visibility=0)


@pytest.mark.parametrize("kwargs, limit", [({"rows": 12, "cols": 12}, 576), ({"rows": 20, "cols": 20}, 1600),
                                           ({"max_steps": 30}, 30),
                                           ({"rows": 12, "cols": 12, "max_episode_steps": 50}, 50),
                                           ({"max_steps": 30, "max_episode_steps": 50}, 30)])
def test_vector_env_truncates_like_gym_make_at_the_smaller_step_limit(kwargs, limit):
    """The env's own size-aware max_steps truncates; a max_episode_steps passed to make caps it (the smaller wins)."""
    single = gym.make("Maze-v0", **kwargs)
    venv = gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs)
    single.reset(seed=0)
    venv.reset(seed=0)
    for step in range(1, limit + 1):
        _, _, terminated, truncated, _ = single.step(0)  # up from the top-left start: a wall, never the goal
        _, _, v_terminated, v_truncated, info = venv.step(np.zeros(2, dtype=np.int64))
        assert not terminated and not v_terminated.any()
        assert truncated == (step == limit) and (v_truncated == truncated).all() and (info["steps"] == step).all()


def test_reset_mask_resets_only_those_sub_envs():
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=3, vectorization_mode="vector_entry_point", rows=4, cols=4)
    venv.reset(seed=0)
    before, *_, info = venv.step(np.array([2, 1, 2]))
    mask = np.array([True, False, False])
    obs, reset_info = venv.reset(seed=20, options={"reset_mask": mask})
    fresh, fresh_info = gym.make("Maze-PartialObs-v0", rows=4, cols=4).reset(seed=20)
    assert np.array_equal(obs[0], fresh) and reset_info["optimal_length"][0] == fresh_info["optimal_length"]
    assert np.array_equal(obs[1:], before[1:]) and list(reset_info["steps"]) == [0, 1, 1]
    with pytest.raises(MazeConfigError, match="reset_mask"):
        venv.reset(options={"reset_mask": np.array([1, 0, 0])})
