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


@pytest.mark.parametrize("network, kwargs, gru", [("mlp", {"rows": 3, "cols": 3}, 0),
                                                  ("cnn", {"rows": 3, "cols": 4, "action_mode": "multi"}, 0),
                                                  ("mlp", {"rows": 3, "cols": 3}, 16),
                                                  ("cnn", {"rows": 3, "cols": 4, "action_mode": "multi"}, 16)])
def test_jax_ppo_trains_and_is_evaluated_on_held_out_seeds(network: str, kwargs: dict[str, Any], gru: int,
                                                           tmp_path) -> None:
    config = TrainConfig(algo="ppo-jax", env_id="Maze-PartialObs-v0", env_kwargs=kwargs, ego_map=True,
                         timesteps=4096, num_envs=16, network=network, gru=gru, reveal_bonus=0.01, eval_episodes=6,
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


@pytest.mark.parametrize("gru", [0, 8])
def test_the_update_replays_the_rollout_exactly(gru: int, tmp_path) -> None:
    """With a learning rate of 0 the network never changes, so every minibatch's new log-probabilities must equal
    the rollout's: the recurrent replay (whole envs, from the memory each began with, reset at episode starts)
    lines up with what was sampled, and the KL estimate and clipped share are 0."""
    from maze_envs.agents.rl import ppo_jax

    args = ppo_jax.Args(env_kwargs={"rows": 3, "cols": 3}, ego_map=True, total_timesteps=3 * 16 * 32, num_envs=16,
                        num_steps=32, num_minibatches=4, update_epochs=2, learning_rate=0.0, gru=gru,
                        out=str(tmp_path / "run"))
    ppo_jax.train(args)
    with open(tmp_path / "run" / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 and sum(int(r["charts/episodes"]) for r in rows) > 0  # episodes ended inside rollouts
    for row in rows:
        assert abs(float(row["losses/approx_kl"])) < 1e-6 and float(row["losses/clipfrac"]) == 0.0


def test_a_recurrent_policy_forgets_its_memory_between_episodes(tmp_path) -> None:
    from maze_envs.agents.evaluate import evaluate
    from maze_envs.agents.rl import ppo_jax

    run(TrainConfig(algo="ppo-jax", env_kwargs={"rows": 3, "cols": 3}, ego_map=True, timesteps=2048, num_envs=16,
                    gru=8, eval_episodes=2, out=str(tmp_path / "run")))
    agent, args = ppo_jax.load_policy(tmp_path / "run" / "model.npz")
    assert args.gru == 8
    seeds = range(5, 9)
    first = evaluate(agent, "Maze-PartialObs-v0", seeds, rows=3, cols=3, wrappers=(EgocentricMap,)).rows
    backwards = evaluate(agent, "Maze-PartialObs-v0", seeds[::-1], rows=3, cols=3, wrappers=(EgocentricMap,)).rows
    assert first == backwards[::-1]  # each episode plays the same whatever the agent played before it


def test_the_gru_size_is_checked_before_any_folder_or_network(tmp_path) -> None:
    from maze_envs.agents.rl import ppo_jax
    from maze_envs.core.errors import MazeConfigError

    for bad in (-1, 2.5, 10**6):
        with pytest.raises(MazeConfigError, match="gru"):
            ppo_jax.train(ppo_jax.Args(gru=bad, out=str(tmp_path / "never")))
    assert not (tmp_path / "never").exists()
    with pytest.raises(MazeConfigError, match=r"num_minibatches: with --gru, num_envs \(6\) must divide into 4"):
        ppo_jax.train(ppo_jax.Args(gru=8, num_envs=6, num_steps=2, num_minibatches=4, out=str(tmp_path / "never")))
    assert not (tmp_path / "never").exists()
    with pytest.raises(MazeConfigError, match="gru: a GRU memory is an option of ppo-jax, not of ppo-native"):
        run(TrainConfig(algo="ppo-native", gru=8, out=str(tmp_path / "never")))
    assert not (tmp_path / "never").exists()
