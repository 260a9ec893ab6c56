"""The JAX ego map equals the numpy one step for step, and the JAX PPO trains on the twin and plays the Gymnasium
env through the same held-out evaluation as the torch PPO."""

from __future__ import annotations

import csv
import json
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import maze_envs.jax as mj  # noqa: E402
from maze_envs.agents.rl.egomap import EgocentricMap  # noqa: E402
from maze_envs.agents.rl.egomap_jax import EgoMap, EgoState  # noqa: E402
from maze_envs.agents.rl.train import TrainConfig, run  # noqa: E402
from maze_envs.envs.grid.partial import PartialObsMazeEnv  # noqa: E402


@pytest.mark.parametrize("kwargs", [{"rows": 4, "cols": 5, "visibility": 2},
                                    {"rows": 5, "cols": 3, "visibility": 3, "action_mode": "multi"}])
def test_jax_ego_map_equals_the_numpy_ego_map(kwargs: dict[str, Any]) -> None:
    gym_env = EgocentricMap(PartialObsMazeEnv(**kwargs))
    twin, params = mj.make("Maze-PartialObs-v0", **kwargs)
    ego = EgoMap(twin)
    assert ego.shape == gym_env.observation_space.shape
    start = jax.jit(lambda table: twin.start_on(table))
    step = jax.jit(ego.step)
    rng = np.random.default_rng(0)
    expected, _ = gym_env.reset(seed=3)

    def begin() -> Any:
        view, inner = start(twin.host_layout(gym_env.unwrapped.layout))
        canvas, pos = ego._fresh(view)
        return ego.observe(canvas, pos), EgoState(inner, canvas, pos, view)

    got, ego_state = begin()
    assert np.array_equal(expected, np.asarray(got))
    ends = 0
    for t in range(300):
        action = (np.array([rng.integers(4), rng.integers(twin.k)]) if twin.multi else int(rng.integers(4)))
        expected, _, terminated, truncated, _ = gym_env.step(action)
        got, ego_state, _, done, info = step(jax.random.key(t), ego_state, action, params)
        assert bool(done) == (terminated or truncated)
        assert np.array_equal(expected, np.asarray(info["final_obs"])), f"step {t}"
        if terminated or truncated:
            ends += 1
            expected, _ = gym_env.reset()
            got, ego_state = begin()
            assert np.array_equal(expected, np.asarray(got))
        else:
            assert np.array_equal(expected, np.asarray(got)), f"step {t}"
    assert ends > 0


@pytest.mark.parametrize("network, kwargs", [("mlp", {"rows": 3, "cols": 3}),
                                             ("cnn", {"rows": 3, "cols": 4, "action_mode": "multi"})])
def test_jax_ppo_trains_and_is_evaluated_on_held_out_seeds(network: str, kwargs: dict[str, Any], tmp_path) -> None:
    config = TrainConfig(algo="ppo-jax", env_id="Maze-PartialObs-v0", env_kwargs=kwargs, ego_map=True,
                         timesteps=4096, num_envs=16, network=network, reveal_bonus=0.01, eval_episodes=6,
                         out=str(tmp_path / "run"))
    result = run(config)
    with open(tmp_path / "run" / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4096 // (16 * 64)
    assert all(np.isfinite(float(r["losses/value_loss"])) and float(r["losses/entropy"]) > 0 for r in rows)
    assert int(rows[-1]["global_step"]) == 4096
    table = result.tables["ppo-jax"]
    assert [row["seed"] for row in table.rows] == list(range(1_000_000, 1_000_006))
    assert all(row["steps"] >= 1 for row in table.rows)
    saved = json.loads((tmp_path / "run" / "results.json").read_text())
    assert saved["config"]["algo"] == "ppo-jax" and "ppo-jax" in saved["tables"]
